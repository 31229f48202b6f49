#include "core/eval/simplex.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace dplda {

Eigen::VectorXd projectToSimplex(const Eigen::VectorXd& v) {
  const Eigen::Index n = v.size();
  if (n == 0) return {};
  if (!v.allFinite()) return Eigen::VectorXd::Constant(n, std::numeric_limits<double>::quiet_NaN());
  // Duchi et al. 2008, Fig. 1: sort descending, find the largest rho with
  // u_rho - (sum_{j<=rho} u_j - 1)/rho > 0, then tau = (sum_{j<=rho} u_j - 1)/rho.
  std::vector<double> u(v.data(), v.data() + n);
  std::sort(u.begin(), u.end(), std::greater<double>());
  // rho = 1 always qualifies (u_1 - (u_1 - 1) = 1 > 0): start there, so huge inputs (noise of
  // 1e20, where "- 1" is lost to rounding) still give a point with every entry <= 1.
  double cumulative = u[0], tau = u[0] - 1.0;
  for (Eigen::Index j = 1; j < n; ++j) {
    cumulative += u[j];
    const double t = (cumulative - 1.0) / static_cast<double>(j + 1);
    if (u[j] - t > 0.0) tau = t;
  }
  Eigen::VectorXd out = (v.array() - tau).max(0.0).matrix();
  // Rounding at extreme magnitudes can leave the sum off 1 (or every entry 0): repair it.
  const double sum = out.sum();
  if (!(sum > 0.0)) {
    Eigen::Index best = 0;
    v.maxCoeff(&best);
    out.setZero();
    out[best] = 1.0;
  } else if (std::abs(sum - 1.0) > 1e-12) {
    out /= sum;
  }
  return out;
}

Eigen::MatrixXd projectColumnsToSimplex(const Eigen::MatrixXd& m) {
  Eigen::MatrixXd out(m.rows(), m.cols());
  for (Eigen::Index j = 0; j < m.cols(); ++j) out.col(j) = projectToSimplex(m.col(j));
  return out;
}

}  // namespace dplda
