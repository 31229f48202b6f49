#pragma once
// A dense symmetric matrix stored once, as its lower triangle in kTile × kTile tiles, for the
// products E X that the whitened release's eigen step repeats (core/whitening/whitening.cpp,
// 24 passes with a d = 8 000 noise matrix E).
//
// Why: a product with a block X of b vectors is 2·d²·b flops against d² numbers read, so it is
// bound by arithmetic, not memory, if E's numbers are read from cache. Here each tile E_IJ below
// the diagonal is read once per product for both E_IJ X_J and E_IJᵀ X_I (half of E's memory
// and of its reads), by kernels that keep 3 × 16 partial sums in registers; the tiles are laid
// out as the kernels read them, once (a general GEMM packs its operand again at every product).
//
// Layout: the tiles of tile column J (rows I >= J) follow one another, tile columns in order;
// a tile is column-major; the diagonal tiles hold both triangles; rows and columns past n are 0.
//
// Scalar float: the same layout and products in single precision (twice the products per
// instruction, half the memory), for the whitened release's Krylov passes over its released
// M̃2 (the release formed in double, then rounded: core/whitening/whitening.h). Products are
// accumulated in Scalar, then the chunks' partial sums added in double.
#include <Eigen/Dense>
#include <functional>

#include "core/common/huge_pages.h"

namespace dplda {

template <class Scalar>
class PackedSymmetric {
 public:
  static constexpr Eigen::Index kTile = 48;  // a multiple of 3 and 6 (the kernels' row blocks); 18 KiB in double

  PackedSymmetric() = default;
  explicit PackedSymmetric(Eigen::Index n);  // zeros
  // The symmetric matrix whose lower triangle is m's (m square), rounded to Scalar.
  static PackedSymmetric fromLower(const Eigen::MatrixXd& m);
  // The n × n symmetric matrix whose column c, on and below the diagonal (rows c .. n−1), holds
  // the n − c values fill(c, out) writes (in double, then rounded to Scalar); fill runs on the
  // OpenMP threads, for the columns in any order, so it must depend on c only. Each thread writes
  // (first touches) the tiles it fills.
  static PackedSymmetric fromLowerColumns(Eigen::Index n, const std::function<void(Eigen::Index c, double* out)>& fill);

  Eigen::Index rows() const { return m_n; }
  Eigen::Index cols() const { return m_n; }
  double operator()(Eigen::Index i, Eigen::Index j) const;

  // E X for a d × b block X: the tiles in kChunks fixed chunks of tile columns, each chunk's
  // partial sum added in chunk order, so the bits do not depend on the thread count. `scratch`:
  // the product's working memory, for a caller that repeats products to keep (grown as needed).
  Eigen::MatrixXd times(const Eigen::MatrixXd& X, HugePageArray<Scalar>* scratch = nullptr) const;
  Eigen::MatrixXd toDense() const;
  bool allFinite() const;

 private:
  Eigen::Index tileIndex(Eigen::Index I, Eigen::Index J) const;  // tiles before tile (I, J), I >= J
  const Scalar* tile(Eigen::Index I, Eigen::Index J) const { return m_data.data() + tileIndex(I, J) * kTile * kTile; }
  Scalar* tile(Eigen::Index I, Eigen::Index J) { return m_data.data() + tileIndex(I, J) * kTile * kTile; }
  Eigen::Index tileCount() const { return m_tiles * (m_tiles + 1) / 2; }

  Eigen::Index m_n = 0;
  Eigen::Index m_tiles = 0;  // tile rows (= tile columns)
  HugePageArray<Scalar> m_data;  // 128 MB at d = 8 000 in float: huge pages, far fewer faults
};

using PackedSymmetricMatrix = PackedSymmetric<double>;
using PackedSymmetricFloat = PackedSymmetric<float>;
extern template class PackedSymmetric<double>;
extern template class PackedSymmetric<float>;

}  // namespace dplda
