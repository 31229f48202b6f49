#include "core/linalg/packed_symmetric.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dplda {

namespace {

constexpr Eigen::Index T = PackedSymmetricMatrix::kTile;
constexpr Eigen::Index kGroup = 16;  // columns of X per kernel sweep
constexpr int kChunks = 16;

// 32 bytes of Scalar (AVX's register; two SSE registers elsewhere), and the same read from or
// written to memory without alignment. Products and sums are separate operations (the build has
// -ffp-contract=off): the same bits with or without FMA units.
template <class Scalar>
struct Lanes;
template <>
struct Lanes<double> {
  typedef double Vec __attribute__((vector_size(32)));
  typedef double Unaligned __attribute__((vector_size(32), aligned(8)));
};
template <>
struct Lanes<float> {
  typedef float Vec __attribute__((vector_size(32)));
  typedef float Unaligned __attribute__((vector_size(32), aligned(4)));
};

// The kernels keep 12 vectors of partial sums in registers: kQ vectors cover a row of the
// kGroup columns, kRows rows at a time (double: 3 rows × 4 vectors; float: 6 rows × 2).
template <class Scalar>
struct Kernel {
  using Vec = typename Lanes<Scalar>::Vec;
  static constexpr int kWidth = 32 / sizeof(Scalar);
  static constexpr int kQ = kGroup / kWidth;
  static constexpr int kRows = 12 / kQ;
  static_assert(T % kRows == 0, "a tile is a whole number of row blocks");

  static Vec load(const Scalar* p) { return *reinterpret_cast<const typename Lanes<Scalar>::Unaligned*>(p); }
  static void addTo(Scalar* p, Vec v) { *reinterpret_cast<typename Lanes<Scalar>::Unaligned*>(p) = load(p) + v; }

  // Y += A X for a column-major tile A, X and Y row-major (ld columns, a multiple of kGroup),
  // summed over A's columns in order; X's rows are read from L1 by the multiplications.
  static void rows(const Scalar* A, const Scalar* X, Scalar* Y, Eigen::Index ld, const Scalar* next) {
    // The next tile from memory meanwhile, a share per row block.
    constexpr Eigen::Index perLine = 64 / sizeof(Scalar), lines = T * T / perLine / (T / kRows);
    for (Eigen::Index g = 0; g < ld; g += kGroup)
      for (Eigen::Index i = 0; i < T; i += kRows) {
        if (g == 0 && next)
          for (Eigen::Index line = 0; line < lines; ++line)
            __builtin_prefetch(next + (i / kRows * lines + line) * perLine, 0, 2);
        Vec acc[kRows][kQ] = {};
        for (Eigen::Index j = 0; j < T; ++j) {
          const Scalar* a = A + j * T + i;
          const Scalar* x = X + j * ld + g;
          for (int r = 0; r < kRows; ++r) {
            const Scalar ar = a[r];
            for (int q = 0; q < kQ; ++q) acc[r][q] += ar * load(x + kWidth * q);
          }
        }
        for (int r = 0; r < kRows; ++r)
          for (int q = 0; q < kQ; ++q) addTo(Y + (i + r) * ld + g + kWidth * q, acc[r][q]);
      }
  }

  // Y += Aᵀ X, likewise: kRows columns of A at a time, summed over A's rows in order.
  static void columns(const Scalar* A, const Scalar* X, Scalar* Y, Eigen::Index ld) {
    for (Eigen::Index g = 0; g < ld; g += kGroup)
      for (Eigen::Index j = 0; j < T; j += kRows) {
        Vec acc[kRows][kQ] = {};
        for (Eigen::Index i = 0; i < T; ++i) {
          const Scalar* x = X + i * ld + g;
          for (int c = 0; c < kRows; ++c) {
            const Scalar a = A[(j + c) * T + i];
            for (int q = 0; q < kQ; ++q) acc[c][q] += a * load(x + kWidth * q);
          }
        }
        for (int c = 0; c < kRows; ++c)
          for (int q = 0; q < kQ; ++q) addTo(Y + (j + c) * ld + g + kWidth * q, acc[c][q]);
      }
  }
};

}  // namespace

template <class Scalar>
Eigen::Index PackedSymmetric<Scalar>::tileIndex(Eigen::Index I, Eigen::Index J) const {
  return J * m_tiles - J * (J - 1) / 2 + (I - J);  // tile columns 0 .. J−1 hold m_tiles − J' tiles each
}

template <class Scalar>
PackedSymmetric<Scalar> PackedSymmetric<Scalar>::fromLowerColumns(
    Eigen::Index n, const std::function<void(Eigen::Index, double*)>& fill) {
  PackedSymmetric m;
  m.m_n = n;
  m.m_tiles = (n + T - 1) / T;
  const std::size_t bytes = static_cast<std::size_t>(m.tileCount()) * T * T * sizeof(Scalar);
  m.m_data = HugePageArray<Scalar>(bytes / sizeof(Scalar));
  const Eigen::Index nt = m.m_tiles;
  // A tile column per task (the first pages each thread touches are its own), largest first.
#pragma omp parallel if (n >= 256)
  {
    std::vector<double> column(static_cast<std::size_t>(n));
#pragma omp for schedule(dynamic, 1)
    for (Eigen::Index J = 0; J < nt; ++J) {
      for (Eigen::Index c = J * T; c < (J + 1) * T; ++c) {
        if (c < n) fill(c, column.data());
        for (Eigen::Index I = J; I < nt; ++I) {
          Scalar* dst = m.tile(I, J) + (c - J * T) * T;
          // Rows [lo, hi) of this tile are column c's; the rest (above the diagonal, past n) 0.
          const Eigen::Index r0 = I * T, lo = std::max(c, r0), hi = c < n ? std::min(n, r0 + T) : lo;
          std::fill(dst, dst + (lo - r0), Scalar(0));
          if (hi > lo) std::copy(column.data() + (lo - c), column.data() + (hi - c), dst + (lo - r0));
          std::fill(dst + std::max(hi, lo) - r0, dst + T, Scalar(0));
        }
      }
      Scalar* D = m.tile(J, J);  // the diagonal tile's upper triangle from its lower one
      for (Eigen::Index a = 0; a < T; ++a)
        for (Eigen::Index r = 0; r < a; ++r) D[a * T + r] = D[r * T + a];
    }
  }
  return m;
}

template <class Scalar>
PackedSymmetric<Scalar>::PackedSymmetric(Eigen::Index n)
    : PackedSymmetric(fromLowerColumns(n, [n](Eigen::Index c, double* out) { std::fill(out, out + (n - c), 0.0); })) {}

template <class Scalar>
PackedSymmetric<Scalar> PackedSymmetric<Scalar>::fromLower(const Eigen::MatrixXd& m) {
  const Eigen::Index n = m.rows();
  return fromLowerColumns(n, [&m, n](Eigen::Index c, double* out) {
    for (Eigen::Index r = c; r < n; ++r) out[r - c] = m(r, c);
  });
}

template <class Scalar>
double PackedSymmetric<Scalar>::operator()(Eigen::Index i, Eigen::Index j) const {
  if (i < j) std::swap(i, j);
  return tile(i / T, j / T)[(j % T) * T + i % T];
}

template <class Scalar>
Eigen::MatrixXd PackedSymmetric<Scalar>::times(const Eigen::MatrixXd& X, HugePageArray<Scalar>* scratch) const {
  const Eigen::Index n = m_n, b = X.cols(), nt = m_tiles, np = nt * T;
  const Eigen::Index ld = (b + kGroup - 1) / kGroup * kGroup;
  Eigen::MatrixXd Y = Eigen::MatrixXd::Zero(n, b);
  if (n == 0 || b == 0) return Y;
  // Chunk c: tile columns [edge(c), edge(c + 1)), of about equal numbers of tiles; its partial
  // sum holds the rows from its first tile column down.
  auto edge = [nt](int c) {
    return std::min<Eigen::Index>(nt, static_cast<Eigen::Index>(std::llround(nt * (1.0 - std::sqrt(1.0 - double(c) / kChunks)))));
  };
  // The working memory: X row-major (padded with zero rows and columns), then the chunks' partial
  // sums. Kept by a caller that repeats products: fresh memory faults in at every call otherwise
  // (a third of the whitened release's eigen step, issue 27 §1).
  std::size_t offsets[kChunks + 1];
  offsets[0] = static_cast<std::size_t>(np * ld);
  for (int c = 0; c < kChunks; ++c) {
    const Eigen::Index J0 = edge(c), rows = edge(c + 1) > J0 ? np - J0 * T : 0;
    offsets[c + 1] = offsets[c] + static_cast<std::size_t>(rows * ld);
  }
  HugePageArray<Scalar> local;
  Scalar* const work = (scratch ? *scratch : local).ensureSize(offsets[kChunks]);
  Scalar* x = work;
  for (Eigen::Index i = 0; i < np; ++i)
    for (Eigen::Index j = 0; j < ld; ++j) x[i * ld + j] = i < n && j < b ? static_cast<Scalar>(X(i, j)) : Scalar(0);
#pragma omp parallel for schedule(dynamic, 1) if (n >= 512)
  for (int c = 0; c < kChunks; ++c) {
    const Eigen::Index J0 = edge(c), J1 = edge(c + 1);
    if (J0 == J1) continue;
    Scalar* p = work + offsets[c];
    std::fill(p, work + offsets[c + 1], Scalar(0));
    auto rowsOf = [&](Eigen::Index I) { return p + (I - J0) * T * ld; };
    for (Eigen::Index J = J0; J < J1; ++J) {
      const Scalar* xJ = x + J * T * ld;
      // Tiles (I, J) for I >= J are consecutive in memory: the next one is prefetched during each.
      Kernel<Scalar>::rows(tile(J, J), xJ, rowsOf(J), ld, J + 1 < nt ? tile(J, J) + T * T : nullptr);  // both triangles
      for (Eigen::Index I = J + 1; I < nt; ++I) {
        const Scalar* A = tile(I, J);
        Kernel<Scalar>::rows(A, xJ, rowsOf(I), ld, I + 1 < nt || J + 1 < nt ? A + T * T : nullptr);  // E_IJ X_J
        Kernel<Scalar>::columns(A, x + I * T * ld, rowsOf(J), ld);  // E_IJᵀ X_I = E_JI X_I
      }
    }
  }
  // Y = the partials added in chunk order, row by row.
#pragma omp parallel for schedule(static) if (n >= 512)
  for (Eigen::Index i = 0; i < n; ++i) {
    for (int c = 0; c < kChunks; ++c) {
      const Eigen::Index J0 = edge(c);
      if (J0 == edge(c + 1) || i < J0 * T) continue;
      const Scalar* p = work + offsets[c] + (i - J0 * T) * ld;
      for (Eigen::Index j = 0; j < b; ++j) Y(i, j) += p[j];
    }
  }
  return Y;
}

template <class Scalar>
Eigen::MatrixXd PackedSymmetric<Scalar>::toDense() const {
  Eigen::MatrixXd m(m_n, m_n);
  for (Eigen::Index j = 0; j < m_n; ++j)
    for (Eigen::Index i = j; i < m_n; ++i) m(i, j) = m(j, i) = (*this)(i, j);
  return m;
}

template <class Scalar>
bool PackedSymmetric<Scalar>::allFinite() const {
  // x · 0 is NaN exactly for NaN and ±∞, so the sum is NaN iff an entry is (in any order).
  const std::size_t size = static_cast<std::size_t>(tileCount()) * T * T;
  double probe = 0.0;
#pragma omp parallel for reduction(+ : probe) schedule(static) if (size >= (1u << 20))
  for (std::size_t e = 0; e < size; ++e) probe += m_data[e] * 0.0;
  return probe == 0.0;
}

template class PackedSymmetric<double>;
template class PackedSymmetric<float>;

}  // namespace dplda
