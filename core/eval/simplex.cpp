#include "core/eval/simplex.h"

#include <algorithm>
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
  double cumulative = 0.0, tau = 0.0;
  for (Eigen::Index j = 0; j < n; ++j) {
    cumulative += u[j];
    const double t = (cumulative - 1.0) / static_cast<double>(j + 1);
    if (u[j] - t > 0.0) tau = t;
  }
  return (v.array() - tau).max(0.0).matrix();
}

Eigen::MatrixXd projectColumnsToSimplex(const Eigen::MatrixXd& m) {
  Eigen::MatrixXd out(m.rows(), m.cols());
  for (Eigen::Index j = 0; j < m.cols(); ++j) out.col(j) = projectToSimplex(m.col(j));
  return out;
}

}  // namespace dplda
