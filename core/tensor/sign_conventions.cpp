#include "core/tensor/sign_conventions.h"

namespace dplda {

namespace {
double signOf(double x) { return x < 0.0 ? -1.0 : 1.0; }
}  // namespace

Eigen::VectorXd canonicalTensorSigns(const Tensor3& T) {
  Eigen::VectorXd s(T.dim());
  for (int i = 0; i < T.dim(); ++i) s[i] = signOf(T(i, i, i));
  return s;
}

void applyCoordinateSigns(Tensor3& T, const Eigen::VectorXd& s) {
  const int k = T.dim();
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j)
      for (int l = 0; l < k; ++l) T(i, j, l) *= s[i] * s[j] * s[l];
}

Eigen::VectorXd canonicalColumnSigns(const Eigen::MatrixXd& M) {
  Eigen::VectorXd s(M.cols());
  for (Eigen::Index c = 0; c < M.cols(); ++c) s[c] = signOf(M.col(c).sum());
  return s;
}

Eigen::VectorXd canonicalRowSigns(const Eigen::MatrixXd& M) {
  Eigen::VectorXd s(M.rows());
  for (Eigen::Index r = 0; r < M.rows(); ++r) s[r] = signOf(M.row(r).sum());
  return s;
}

}  // namespace dplda
