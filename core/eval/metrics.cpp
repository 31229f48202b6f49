#include "core/eval/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/eval/matching.h"

namespace dplda {

Status validateTopicComparison(const Eigen::MatrixXd& refTopics, const Eigen::VectorXd& refAlpha,
                               const Eigen::MatrixXd& estTopics, const Eigen::VectorXd& estAlpha) {
  const auto s = [](Eigen::Index v) { return std::to_string(v); };
  if (refTopics.rows() < 1 || refTopics.cols() < 1) {
    return invalidArgument("reference topics must be a non-empty d x k matrix, got " + s(refTopics.rows()) +
                           " x " + s(refTopics.cols()));
  }
  if (estTopics.rows() != refTopics.rows()) {
    return invalidArgument("estimated topics have " + s(estTopics.rows()) + " words but the reference has " +
                           s(refTopics.rows()));
  }
  if (estTopics.cols() < refTopics.cols()) {
    return invalidArgument("there are fewer estimated topics (" + s(estTopics.cols()) +
                           ") than reference topics (" + s(refTopics.cols()) + ")");
  }
  if (refAlpha.size() != refTopics.cols()) {
    return invalidArgument("reference alpha has " + s(refAlpha.size()) + " entries for " +
                           s(refTopics.cols()) + " topics");
  }
  if (estAlpha.size() != estTopics.cols()) {
    return invalidArgument("estimated alpha has " + s(estAlpha.size()) + " entries for " +
                           s(estTopics.cols()) + " topics");
  }
  if (!refTopics.allFinite() || !refAlpha.allFinite())
    return invalidArgument("the reference has non-finite entries");
  if (!estTopics.allFinite() || !estAlpha.allFinite())
    return invalidArgument("the estimate has non-finite entries");
  return Status::ok();
}

TopicErrors compareTopics(const Eigen::MatrixXd& refTopics, const Eigen::VectorXd& refAlpha,
                          const Eigen::MatrixXd& estTopics, const Eigen::VectorXd& estAlpha) {
  TopicErrors out;
  if (!validateTopicComparison(refTopics, refAlpha, estTopics, estAlpha).isOk()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    out.l2Mean = out.l1Mean = out.alphaError = out.frobenius = nan;
    return out;
  }
  const Eigen::Index k = refTopics.cols();
  out.matching = matchTopics(refTopics, estTopics);
  out.l2PerTopic.resize(k);
  double l2 = 0.0, l1 = 0.0, a = 0.0, squares = 0.0;
  for (Eigen::Index i = 0; i < k; ++i) {
    const Eigen::Index j = out.matching[i];
    const Eigen::VectorXd diff = refTopics.col(i) - estTopics.col(j);
    out.l2PerTopic[i] = diff.norm();
    l2 += out.l2PerTopic[i];
    squares += diff.squaredNorm();
    l1 += diff.lpNorm<1>();
    a += std::abs(refAlpha[i] - estAlpha[j]);
  }
  out.l2Mean = l2 / k;
  out.l1Mean = l1 / k;
  out.alphaError = a / k;
  out.frobenius = std::sqrt(squares);
  return out;
}

std::vector<int> topIndices(const Eigen::VectorXd& v, int n) {
  std::vector<int> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  n = std::max(0, std::min<int>(n, static_cast<int>(idx.size())));
  std::partial_sort(idx.begin(), idx.begin() + n, idx.end(), [&](int a, int b) {
    return v[a] > v[b] || (v[a] == v[b] && a < b);
  });
  idx.resize(n);
  return idx;
}

}  // namespace dplda
