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

Eigen::VectorXd alignToUnwhitening(const TensorEigenpairs& td, const Eigen::MatrixXd& unwhitening, double alpha0) {
  const Eigen::Index k = td.V.rows();
  Eigen::VectorXd s = Eigen::VectorXd::Ones(k);
  if (unwhitening.cols() != k || td.lambda.size() != td.V.cols()) return s;
  const Eigen::VectorXd scale = td.lambda * ((alpha0 + 2.0) / 2.0);  // μ_i = (Wᵀ)⁺ v_i scale_i
  Eigen::VectorXd inverse = Eigen::VectorXd::Zero(scale.size());
  for (Eigen::Index i = 0; i < scale.size(); ++i)
    if (std::isfinite(scale[i]) && scale[i] != 0.0) inverse[i] = 1.0 / scale[i];
  const Eigen::VectorXd a = unwhitening.colwise().sum().transpose();
  const Eigen::VectorXd t = td.V * inverse;
  for (Eigen::Index j = 0; j < k; ++j) s[j] = a[j] * t[j] < 0.0 ? -1.0 : 1.0;

  // μ = (Wᵀ)⁺ S B with B = V diag(scale); a flip of coordinate j changes μ by −2 s_j col_j ⊗ row_j.
  const Eigen::MatrixXd B = td.V * scale.asDiagonal();
  Eigen::MatrixXd mu = unwhitening * s.asDiagonal() * B;
  if (!mu.allFinite()) return s;
  auto negativeMass = [](const Eigen::MatrixXd& m) { return m.cwiseMin(0.0).squaredNorm(); };
  double current = negativeMass(mu);
  for (Eigen::Index round = 0; round < k; ++round) {
    Eigen::Index best = -1;
    double bestValue = current;
    for (Eigen::Index j = 0; j < k; ++j) {
      const double value = negativeMass(mu - 2.0 * s[j] * unwhitening.col(j) * B.row(j));
      if (value < bestValue * (1.0 - 1e-12)) {
        best = j;
        bestValue = value;
      }
    }
    if (best < 0) break;
    mu -= 2.0 * s[best] * unwhitening.col(best) * B.row(best);
    s[best] = -s[best];
    current = bestValue;
  }
  return s;
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
