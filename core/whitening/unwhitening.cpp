#include "core/whitening/unwhitening.h"

#include <cmath>
#include <sstream>

#include "core/eval/simplex.h"

namespace dplda {

Result<UnwhitenedTopics> unwhiten(const TensorEigenpairs& td, const Eigen::MatrixXd& unwhitening, double alpha0) {
  const Eigen::Index k = td.lambda.size();
  if (td.V.rows() != unwhitening.cols() || td.V.cols() != k) {
    return invalidArgument("eigenvectors (" + std::to_string(td.V.rows()) + " x " + std::to_string(td.V.cols()) +
                           ") do not fit the unwhitening matrix (" + std::to_string(unwhitening.rows()) + " x " +
                           std::to_string(unwhitening.cols()) + ")");
  }
  if (!td.lambda.allFinite() || !td.V.allFinite() || !unwhitening.allFinite()) {
    return numericalFailure("the tensor eigenpairs or the unwhitening matrix contain NaN or infinite entries");
  }
  UnwhitenedTopics out;
  out.alpha.resize(k);
  const double scale = (alpha0 + 2.0) / 2.0;
  const double alphaNumerator = 4.0 * alpha0 * (alpha0 + 1.0) / ((alpha0 + 2.0) * (alpha0 + 2.0));
  for (Eigen::Index i = 0; i < k; ++i) {
    const double lam = td.lambda[i];
    if (!(std::abs(lam) > 1e-300)) {
      std::ostringstream msg;
      msg << "tensor eigenvalue lambda_" << i + 1 << " = " << lam << " is zero: alpha_" << i + 1 << " is undefined";
      return numericalFailure(msg.str());
    }
    out.alpha[i] = alphaNumerator / (lam * lam);
  }
  out.topics = unwhitening * td.V * (scale * td.lambda).asDiagonal();
  return out;
}

Result<UnwhitenedTopics> projectTopicsToSimplex(const UnwhitenedTopics& u) {
  if (!u.topics.allFinite() || !u.alpha.allFinite()) {
    return numericalFailure("the unwhitened topics contain NaN or infinite entries");
  }
  UnwhitenedTopics out = u;
  for (Eigen::Index i = 0; i < u.topics.cols(); ++i) out.topics.col(i) = projectToSimplex(u.topics.col(i));
  return out;
}

}  // namespace dplda
