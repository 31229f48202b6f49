#include "core/tensor/tensor3.h"

#include <cmath>

namespace dplda {

Eigen::VectorXd Tensor3::contractTwice(const Eigen::VectorXd& u) const {
  // Entry (i,j,l) sits at (i*k+j)*k + l, so a column-major k x k^2 map has slab(l, i*k+j).
  const int k = m_k;
  Eigen::Map<const Eigen::MatrixXd> slab(m_data.data(), k, k * k);
  Eigen::VectorXd v = slab.transpose() * u;              // v(i*k+j) = sum_l T(i,j,l) u_l
  Eigen::Map<const Eigen::MatrixXd> vm(v.data(), k, k);  // vm(j, i)
  return vm.transpose() * u;
}

Eigen::MatrixXd Tensor3::contractTwiceColumns(const Eigen::MatrixXd& U) const {
  const int k = m_k;
  const Eigen::Index n = U.cols();
  Eigen::Map<const Eigen::MatrixXd> slab(m_data.data(), k, k * k);  // slab(l, i*k+j)
  Eigen::MatrixXd out(k, n);
  // Columns are independent: large batches are split over threads (same result either way).
  const int chunks = static_cast<double>(k) * k * k * static_cast<double>(n) > 4e6 ? 2 : 1;
#pragma omp parallel for schedule(static, 1) if (chunks > 1)
  for (int c = 0; c < chunks; ++c) {
    const Eigen::Index begin = n * c / chunks, end = n * (c + 1) / chunks;
    const Eigen::MatrixXd P = slab.transpose() * U.middleCols(begin, end - begin);  // P(i*k+j, s)
    for (Eigen::Index s = begin; s < end; ++s) {
      Eigen::Map<const Eigen::MatrixXd> Ps(P.col(s - begin).data(), k, k);  // Ps(j, i)
      out.col(s).noalias() = Ps.transpose() * U.col(s);
    }
  }
  return out;
}

double Tensor3::contractThrice(const Eigen::VectorXd& u) const { return u.dot(contractTwice(u)); }

Tensor3 Tensor3::multilinear(const Eigen::MatrixXd& A) const {
  // Three mode products, each a GEMM: O(k^3 p + k^2 p^2 + k p^3) instead of O(k^3 p^3).
  const int k = m_k;
  const int p = static_cast<int>(A.cols());
  Eigen::Map<const Eigen::MatrixXd> X(m_data.data(), k, k * k);  // X(l, i*k+j)
  const Eigen::MatrixXd Y = A.transpose() * X;                   // Y(r, i*k+j): mode 3 done
  Eigen::MatrixXd byFirst(k, p * p);                             // byFirst(i, q*p+r): mode 2 done
  for (int i = 0; i < k; ++i) {
    const Eigen::MatrixXd slice = Y.middleCols(static_cast<Eigen::Index>(i) * k, k).transpose();  // (j, r)
    const Eigen::MatrixXd Q = A.transpose() * slice;                                              // (q, r)
    for (int q = 0; q < p; ++q)
      for (int r = 0; r < p; ++r) byFirst(i, q * p + r) = Q(q, r);
  }
  const Eigen::MatrixXd Z = A.transpose() * byFirst;  // Z(a, q*p+r): mode 1 done
  Tensor3 out(p);
  for (int a = 0; a < p; ++a)
    for (int q = 0; q < p; ++q)
      for (int r = 0; r < p; ++r) out(a, q, r) = Z(a, q * p + r);
  return out;
}

void Tensor3::addOuter(double w, const Eigen::VectorXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& c) {
  const int k = m_k;
  for (int i = 0; i < k; ++i) {
    const double wa = w * a[i];
    for (int j = 0; j < k; ++j) {
      const double wab = wa * b[j];
      double* row = &m_data[index(i, j, 0)];
      for (int l = 0; l < k; ++l) row[l] += wab * c[l];
    }
  }
}

Tensor3 Tensor3::symmetrized() const {
  const int k = m_k;
  Tensor3 out(k);
  const Tensor3& t = *this;
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j)
      for (int l = 0; l < k; ++l)
        out(i, j, l) = (t(i, j, l) + t(i, l, j) + t(j, i, l) + t(j, l, i) + t(l, i, j) + t(l, j, i)) / 6.0;
  return out;
}

bool Tensor3::isSymmetric(double relTol) const {
  const double tol = relTol * std::max(1.0, frobeniusNorm());
  const Tensor3& t = *this;
  for (int i = 0; i < m_k; ++i)
    for (int j = 0; j < m_k; ++j)
      for (int l = 0; l < m_k; ++l) {
        const double v = t(i, j, l);
        if (std::abs(v - t(j, i, l)) > tol || std::abs(v - t(i, l, j)) > tol || std::abs(v - t(l, j, i)) > tol)
          return false;
      }
  return true;
}

double Tensor3::frobeniusNorm() const {
  double s = 0.0;
  for (double v : m_data) s += v * v;
  return std::sqrt(s);
}

Tensor3& Tensor3::operator+=(const Tensor3& other) {
  for (std::size_t i = 0; i < m_data.size(); ++i) m_data[i] += other.m_data[i];
  return *this;
}
Tensor3& Tensor3::operator-=(const Tensor3& other) {
  for (std::size_t i = 0; i < m_data.size(); ++i) m_data[i] -= other.m_data[i];
  return *this;
}
Tensor3& Tensor3::operator*=(double s) {
  for (double& v : m_data) v *= s;
  return *this;
}
Tensor3 Tensor3::operator-(const Tensor3& other) const {
  Tensor3 out = *this;
  out -= other;
  return out;
}
bool Tensor3::allFinite() const {
  for (double v : m_data)
    if (!std::isfinite(v)) return false;
  return true;
}

Tensor3 symmetricFromComponents(const Eigen::VectorXd& weights, const Eigen::MatrixXd& A) {
  Tensor3 t(static_cast<int>(A.rows()));
  for (int c = 0; c < A.cols(); ++c) {
    Eigen::VectorXd a = A.col(c);
    t.addOuter(weights[c], a, a, a);
  }
  return t;
}

}  // namespace dplda
