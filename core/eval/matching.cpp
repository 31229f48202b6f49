#include "core/eval/matching.h"

#include <limits>

namespace dplda {

std::vector<int> hungarianAssignment(const Eigen::MatrixXd& costIn) {
  const int n = static_cast<int>(costIn.rows());
  const int m = static_cast<int>(costIn.cols());
  if (n == 0) return {};
  if (n > m || !costIn.allFinite()) return {};
  // Shifting all costs by a constant does not change the optimum; starting from >= 0 keeps the
  // reduced costs well away from overflow.
  const Eigen::MatrixXd cost = costIn.array() - costIn.minCoeff();
  const double inf = std::numeric_limits<double>::infinity();

  // Kuhn-Munkres with row/column potentials u, v (1-based; column 0 is a virtual start).
  // p[j] = row assigned to column j, way[j] = previous column on the augmenting path.
  std::vector<double> u(n + 1, 0.0), v(m + 1, 0.0), minv(m + 1);
  std::vector<int> p(m + 1, 0), way(m + 1, 0);
  std::vector<char> used(m + 1);
  for (int i = 1; i <= n; ++i) {
    p[0] = i;
    int j0 = 0;
    std::fill(minv.begin(), minv.end(), inf);
    std::fill(used.begin(), used.end(), 0);
    do {
      used[j0] = 1;
      const int i0 = p[j0];
      double delta = inf;
      int j1 = -1;
      for (int j = 1; j <= m; ++j) {
        if (used[j]) continue;
        const double cur = cost(i0 - 1, j - 1) - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      if (j1 < 0) return {};  // cannot happen with rows <= cols and finite costs
      for (int j = 0; j <= m; ++j) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {
      const int j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> assignment(n, -1);
  for (int j = 1; j <= m; ++j) {
    if (p[j] != 0) assignment[p[j] - 1] = j - 1;
  }
  return assignment;
}

Eigen::MatrixXd topicDistances(const Eigen::MatrixXd& reference, const Eigen::MatrixXd& estimate) {
  if (reference.rows() != estimate.rows()) return {};
  Eigen::MatrixXd dist(reference.cols(), estimate.cols());
  for (Eigen::Index i = 0; i < reference.cols(); ++i) {
    for (Eigen::Index j = 0; j < estimate.cols(); ++j)
      dist(i, j) = (reference.col(i) - estimate.col(j)).norm();
  }
  return dist;
}

std::vector<int> matchTopics(const Eigen::MatrixXd& reference, const Eigen::MatrixXd& estimate) {
  if (reference.rows() != estimate.rows() || reference.cols() > estimate.cols()) return {};
  if (!reference.allFinite() || !estimate.allFinite()) return {};
  return hungarianAssignment(topicDistances(reference, estimate));
}

}  // namespace dplda
