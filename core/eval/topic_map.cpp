#include "core/eval/topic_map.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/common/number_text.h"

namespace dplda {

namespace {
// Σ a log(a/m) with 0 log 0 = 0 (m ≥ a/2 > 0 wherever a > 0).
double klToMixture(const Eigen::VectorXd& a, const Eigen::VectorXd& m) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (a[i] > 0.0) s += a[i] * std::log(a[i] / m[i]);
  return s;
}

std::string at(Eigen::Index i, Eigen::Index j) {
  return "(" + std::to_string(i) + ", " + std::to_string(j) + ")";
}
}  // namespace

double jensenShannonDivergence(const Eigen::VectorXd& p, const Eigen::VectorXd& q) {
  if (p.size() != q.size()) return std::numeric_limits<double>::quiet_NaN();
  const Eigen::VectorXd m = 0.5 * (p + q);
  // Rounding can take the sum a hair outside [0, ln 2]; the divergence cannot be.
  return std::clamp(0.5 * klToMixture(p, m) + 0.5 * klToMixture(q, m), 0.0, std::log(2.0));
}

Eigen::MatrixXd jensenShannonDistances(const Eigen::MatrixXd& topics) {
  const Eigen::Index k = topics.cols();
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(k, k);
  for (Eigen::Index i = 0; i < k; ++i)
    for (Eigen::Index j = i + 1; j < k; ++j)
      d(i, j) = d(j, i) = std::sqrt(jensenShannonDivergence(topics.col(i), topics.col(j)));
  return d;
}

Result<PrincipalCoordinates> classicalScaling(const Eigen::MatrixXd& distances, int dims) {
  const Eigen::Index n = distances.rows();
  if (dims < 1) return invalidArgument("classical scaling: dims = " + std::to_string(dims) + " must be at least 1");
  if (n == 0 || distances.cols() != n)
    return badInput("classical scaling: the distance matrix is " + std::to_string(n) + " × " +
                    std::to_string(distances.cols()) + ", expected square and non-empty");
  const double scale = std::max(1.0, distances.cwiseAbs().maxCoeff());
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      const double v = distances(i, j);
      if (!std::isfinite(v) || v < 0.0)
        return badInput("classical scaling: distance " + at(i, j) + " = " + shortNumber(v) + " is not finite and ≥ 0");
      if (i == j && v != 0.0)
        return badInput("classical scaling: distance " + at(i, i) + " = " + shortNumber(v) + ", expected 0");
      if (std::abs(v - distances(j, i)) > 1e-12 * scale)
        return badInput("classical scaling: distance " + at(i, j) + " = " + shortNumber(v) + " but " + at(j, i) +
                        " = " + shortNumber(distances(j, i)) + " (not symmetric)");
    }
  }
  PrincipalCoordinates out;
  out.coordinates = Eigen::MatrixXd::Zero(n, dims);
  // B = −½ J D⁽²⁾ J with J = I − 11ᵀ/n: double centring of the squared distances.
  const Eigen::MatrixXd sq = distances.array().square().matrix();
  const Eigen::VectorXd rowMean = sq.rowwise().mean();
  const double mean = sq.mean();
  Eigen::MatrixXd b(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) b(i, j) = -0.5 * (sq(i, j) - rowMean[i] - rowMean[j] + mean);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(0.5 * (b + b.transpose()));
  if (eig.info() != Eigen::Success) return numericalFailure("classical scaling: the eigensolver did not converge");
  out.eigenvalues = eig.eigenvalues().reverse();  // Eigen sorts ascending
  const Eigen::MatrixXd vectors = eig.eigenvectors().rowwise().reverse();
  double positive = 0.0, shown = 0.0;
  for (Eigen::Index j = 0; j < n; ++j) {
    const double l = out.eigenvalues[j];
    if (l <= 0.0) continue;
    positive += l;
    if (j >= dims) continue;
    shown += l;
    Eigen::VectorXd axis = vectors.col(j) * std::sqrt(l);
    Eigen::Index big = 0;
    for (Eigen::Index i = 1; i < n; ++i)
      if (std::abs(axis[i]) > std::abs(axis[big]) * (1.0 + 1e-9)) big = i;
    if (axis[big] < 0.0) axis = -axis;
    out.coordinates.col(j) = axis;
  }
  out.explained = positive > 0.0 ? shown / positive : 1.0;
  return out;
}

Status validateBrowsableModel(const LdaModel& model) {
  const Eigen::Index k = model.topics.cols(), d = model.topics.rows();
  if (d < 1 || k < 1)
    return badInput("topic map: the model has " + std::to_string(d) + " words and " + std::to_string(k) + " topics");
  if (model.alpha.size() != k)
    return badInput("topic map: α has " + std::to_string(model.alpha.size()) + " entries for " + std::to_string(k) +
                    " topics");
  for (Eigen::Index t = 0; t < k; ++t)
    if (!std::isfinite(model.alpha[t]) || model.alpha[t] < 0.0)
      return badInput("topic map: α[" + std::to_string(t) + "] = " + shortNumber(model.alpha[t]) +
                      " is not finite and ≥ 0");
  if (!(model.alpha.sum() > 0.0)) return badInput("topic map: α sums to 0");
  for (Eigen::Index t = 0; t < k; ++t) {
    for (Eigen::Index w = 0; w < d; ++w) {
      const double p = model.topics(w, t);
      if (!std::isfinite(p) || p < 0.0)
        return badInput("topic map: topic " + std::to_string(t) + ", word " + std::to_string(w) + ": p = " +
                        shortNumber(p) + " is not a probability");
    }
    const double sum = model.topics.col(t).sum();
    if (std::abs(sum - 1.0) > 1e-6)
      return badInput("topic map: topic " + std::to_string(t) + " sums to " + shortNumber(sum) + ", not 1");
  }
  return Status::ok();
}

Eigen::VectorXd topicPrevalence(const LdaModel& model) { return model.alpha / model.alpha.sum(); }

Eigen::VectorXd modelWordMarginal(const LdaModel& model) { return model.topics * topicPrevalence(model); }

Eigen::VectorXd termRelevance(const Eigen::VectorXd& topic, const Eigen::VectorXd& marginal, double lambda) {
  const double l = std::clamp(lambda, 0.0, 1.0);
  Eigen::VectorXd r(topic.size());
  for (Eigen::Index w = 0; w < topic.size(); ++w) {
    if (!(topic[w] > 0.0)) {
      r[w] = -std::numeric_limits<double>::infinity();
      continue;
    }
    // λ log φ + (1 − λ)(log φ − log p) = log φ − (1 − λ) log p; at λ = 1 p is not looked at.
    r[w] = std::log(topic[w]);
    if (l < 1.0) r[w] -= (1.0 - l) * std::log(marginal[w]);
  }
  return r;
}

std::vector<int> relevantTerms(const Eigen::VectorXd& topic, const Eigen::VectorXd& marginal, double lambda, int n) {
  const Eigen::VectorXd r = termRelevance(topic, marginal, lambda);
  std::vector<int> idx;
  for (Eigen::Index w = 0; w < r.size(); ++w)
    if (r[w] > -std::numeric_limits<double>::infinity()) idx.push_back(static_cast<int>(w));
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return r[a] > r[b]; });
  idx.resize(std::min<std::size_t>(idx.size(), static_cast<std::size_t>(std::max(0, n))));
  return idx;
}

Result<TopicMap> topicMap(const LdaModel& model) {
  DPLDA_RETURN_IF_ERROR(validateBrowsableModel(model));
  TopicMap out;
  out.distances = jensenShannonDistances(model.topics);
  Result<PrincipalCoordinates> pc = classicalScaling(out.distances, 2);
  if (!pc.ok()) return pc.status();
  out.map = std::move(pc).value();
  out.prevalence = topicPrevalence(model);
  out.marginal = modelWordMarginal(model);
  return out;
}

}  // namespace dplda
