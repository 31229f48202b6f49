#pragma once
// A dense third-order k x k x k tensor (k is the number of topics, so k^3 doubles is small).
// Entry (i, j, l) is stored at i*k*k + j*k + l. Most tensors here are symmetric; the
// operations that assume it say so.
#include <Eigen/Dense>
#include <cstddef>
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

// T(I, u, u) for a batch of vectors, fast, from a copy of T made once (for power methods that
// contract the same d x d x d tensor hundreds of times, e.g. Algorithm 3 at d = 200).
//
// T(I,u,u)_i = sum_{j<=l} W(i, {j,l}) u_j u_l with W(i,{j,j}) = T(i,j,j) and
// W(i,{j,l}) = T(i,j,l) + T(i,l,j) for j < l: exact for any tensor (no symmetry is assumed),
// half the flops and memory of the full k^2 unfolding. W (k x k(k+1)/2, 32 MB at k = 200) is held
// in panels of a few rows, pair-major, so that a register-blocked kernel streams it with no
// repacking; one call is the product W Q with Q({j,l}, s) = u_j u_l (one column per vector).
//
// Determinism: the pairs are cut into up to 16 fixed lanes (their number depends on k only); each
// entry is a chain of multiply-adds over a lane's pairs in order, and the lanes' sums are added in
// lane order. Threads take whole lanes, so the result is bit-identical for any OpenMP thread count
// (large batches use all threads; tests/tensor/tst_packed_tensor.cpp).
class PackedTensor3 {
 public:
  PackedTensor3() = default;
  explicit PackedTensor3(const Tensor3& t);

  int dim() const { return m_k; }
  // Bytes held by the packed copy (rows padded to whole panels).
  std::size_t bytes() const { return m_panels.size() * sizeof(double); }
  // Column s of the result is T(I, u_s, u_s) for column u_s of U (k x n).
  Eigen::MatrixXd contractTwiceColumns(const Eigen::MatrixXd& U) const;

 private:
  int m_k = 0;
  std::ptrdiff_t m_pairs = 0;    // k(k+1)/2
  std::vector<double> m_panels;  // panel b, pair p, row r at (b * m_pairs + p) * rows + r
};

// sum_i w_i a_i ⊗ a_i ⊗ a_i for the columns a_i of A.
Tensor3 symmetricFromComponents(const Eigen::VectorXd& weights, const Eigen::MatrixXd& A);

}  // namespace dplda
