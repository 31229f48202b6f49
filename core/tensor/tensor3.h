#pragma once
// A dense third-order k x k x k tensor (k is the number of topics, so k^3 doubles is small).
// Entry (i, j, l) is stored at i*k*k + j*k + l. Most tensors here are symmetric; the
// operations that assume it say so.
#include <Eigen/Dense>
#include <vector>

namespace dplda {

class Tensor3 {
 public:
  Tensor3() = default;
  explicit Tensor3(int k) : m_k(k), m_data(static_cast<std::size_t>(k) * k * k, 0.0) {}

  int dim() const { return m_k; }
  double& operator()(int i, int j, int l) { return m_data[index(i, j, l)]; }
  double operator()(int i, int j, int l) const { return m_data[index(i, j, l)]; }
  double* data() { return m_data.data(); }
  const double* data() const { return m_data.data(); }
  std::size_t size() const { return m_data.size(); }

  // The k^2 x k unfolding with row (i*k + j) and column l, as an Eigen map (no copy).
  Eigen::Map<Eigen::MatrixXd> unfolding() { return {m_data.data(), m_k * m_k, m_k}; }
  Eigen::Map<const Eigen::MatrixXd> unfolding() const { return {m_data.data(), m_k * m_k, m_k}; }

  // T(I, u, u): the vector with entries sum_{j,l} T(i, j, l) u_j u_l.
  Eigen::VectorXd contractTwice(const Eigen::VectorXd& u) const;
  // Column s of the result is T(I, u_s, u_s) for column u_s of U: one GEMM for the batch.
  Eigen::MatrixXd contractTwiceColumns(const Eigen::MatrixXd& U) const;
  // T(u, u, u).
  double contractThrice(const Eigen::VectorXd& u) const;
  // T(A, B, C)_{pqr} = sum_{ijl} T(i,j,l) A(i,p) B(j,q) C(l,r): the multilinear map.
  Tensor3 multilinear(const Eigen::MatrixXd& A) const;  // A on all three modes

  // this += w * (a ⊗ b ⊗ c)
  void addOuter(double w, const Eigen::VectorXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& c);
  // The average over the six permutations of the indices.
  Tensor3 symmetrized() const;
  bool isSymmetric(double relTol = 1e-12) const;

  double frobeniusNorm() const;
  Tensor3& operator+=(const Tensor3& other);
  Tensor3& operator-=(const Tensor3& other);
  Tensor3& operator*=(double s);
  Tensor3 operator-(const Tensor3& other) const;
  bool allFinite() const;

 private:
  std::size_t index(int i, int j, int l) const {
    return (static_cast<std::size_t>(i) * m_k + j) * m_k + l;
  }
  int m_k = 0;
  std::vector<double> m_data;
};

// sum_i w_i a_i ⊗ a_i ⊗ a_i for the columns a_i of A.
Tensor3 symmetricFromComponents(const Eigen::VectorXd& weights, const Eigen::MatrixXd& A);

}  // namespace dplda
