#include "core/linalg/packed_symmetric.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dplda {

namespace {

constexpr Eigen::Index T = PackedSymmetricMatrix::kTile;
constexpr Eigen::Index kGroup = 16;  // columns of X per kernel sweep: four 4-double vectors
constexpr int kChunks = 16;

// Four doubles (AVX's register; two SSE registers elsewhere), and the same read from or written to
// memory without alignment. Products and sums are separate operations (the build has
// -ffp-contract=off): the same bits with or without FMA units.
typedef double Vec4 __attribute__((vector_size(32)));
typedef double Vec4Unaligned __attribute__((vector_size(32), aligned(8)));

inline Vec4 load(const double* p) { return *reinterpret_cast<const Vec4Unaligned*>(p); }
inline void addTo(double* p, Vec4 v) { *reinterpret_cast<Vec4Unaligned*>(p) = load(p) + v; }

// Y += A X for a column-major tile A, X and Y row-major (ld columns, a multiple of kGroup):
// 3 rows of Y × 16 columns in 12 registers, summed over A's columns in order; X's rows are read
// from L1 by the multiplications (3 broadcasts and 12 loads per 12 products).
void rowKernel(const double* A, const double* X, double* Y, Eigen::Index ld, const double* next) {
  for (Eigen::Index g = 0; g < ld; g += kGroup)
    for (Eigen::Index i = 0; i < T; i += 3) {
      // The next tile from memory meanwhile, a 16th per row block (T·T/8 lines in T/3 blocks).
      if (g == 0 && next)
        for (Eigen::Index line = 0; line < T * T / 8 / (T / 3); ++line)
          __builtin_prefetch(next + (i / 3 * (T * T / 8 / (T / 3)) + line) * 8, 0, 2);
      Vec4 acc[3][4] = {};
      for (Eigen::Index j = 0; j < T; ++j) {
        const double* a = A + j * T + i;
        const double* x = X + j * ld + g;
        for (int r = 0; r < 3; ++r) {
          const double ar = a[r];
          for (int q = 0; q < 4; ++q) acc[r][q] += ar * load(x + 4 * q);
        }
      }
      for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 4; ++q) addTo(Y + (i + r) * ld + g + 4 * q, acc[r][q]);
    }
}

// Y += Aᵀ X, likewise: 3 columns of A at a time, summed over A's rows in order.
void columnKernel(const double* A, const double* X, double* Y, Eigen::Index ld) {
  for (Eigen::Index g = 0; g < ld; g += kGroup)
    for (Eigen::Index j = 0; j < T; j += 3) {
      Vec4 acc[3][4] = {};
      for (Eigen::Index i = 0; i < T; ++i) {
        const double* x = X + i * ld + g;
        for (int c = 0; c < 3; ++c) {
          const double a = A[(j + c) * T + i];
          for (int q = 0; q < 4; ++q) acc[c][q] += a * load(x + 4 * q);
        }
      }
      for (int c = 0; c < 3; ++c)
        for (int q = 0; q < 4; ++q) addTo(Y + (j + c) * ld + g + 4 * q, acc[c][q]);
    }
}

}  // namespace

Eigen::Index PackedSymmetricMatrix::tileIndex(Eigen::Index I, Eigen::Index J) const {
  return J * m_tiles - J * (J - 1) / 2 + (I - J);  // tile columns 0 .. J−1 hold m_tiles − J' tiles each
}

PackedSymmetricMatrix PackedSymmetricMatrix::fromLowerColumns(Eigen::Index n,
                                                              const std::function<void(Eigen::Index, double*)>& fill) {
  PackedSymmetricMatrix m;
  m.m_n = n;
  m.m_tiles = (n + T - 1) / T;
  const std::size_t bytes = static_cast<std::size_t>(m.tileCount()) * T * T * sizeof(double);
  if (bytes > 0) {
    m.m_data.reset(static_cast<double*>(std::aligned_alloc(64, bytes)));
    if (!m.m_data) throw std::bad_alloc();
  }
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
          double* dst = m.tile(I, J) + (c - J * T) * T;
          // Rows [lo, hi) of this tile are column c's; the rest (above the diagonal, past n) 0.
          const Eigen::Index r0 = I * T, lo = std::max(c, r0), hi = c < n ? std::min(n, r0 + T) : lo;
          std::fill(dst, dst + (lo - r0), 0.0);
          if (hi > lo) std::copy(column.data() + (lo - c), column.data() + (hi - c), dst + (lo - r0));
          std::fill(dst + std::max(hi, lo) - r0, dst + T, 0.0);
        }
      }
      double* D = m.tile(J, J);  // the diagonal tile's upper triangle from its lower one
      for (Eigen::Index a = 0; a < T; ++a)
        for (Eigen::Index r = 0; r < a; ++r) D[a * T + r] = D[r * T + a];
    }
  }
  return m;
}

PackedSymmetricMatrix::PackedSymmetricMatrix(Eigen::Index n)
    : PackedSymmetricMatrix(fromLowerColumns(n, [n](Eigen::Index c, double* out) { std::fill(out, out + (n - c), 0.0); })) {}

PackedSymmetricMatrix PackedSymmetricMatrix::fromLower(const Eigen::MatrixXd& m) {
  const Eigen::Index n = m.rows();
  return fromLowerColumns(n, [&m, n](Eigen::Index c, double* out) {
    for (Eigen::Index r = c; r < n; ++r) out[r - c] = m(r, c);
  });
}

double PackedSymmetricMatrix::operator()(Eigen::Index i, Eigen::Index j) const {
  if (i < j) std::swap(i, j);
  return tile(i / T, j / T)[(j % T) * T + i % T];
}

Eigen::MatrixXd PackedSymmetricMatrix::times(const Eigen::MatrixXd& X) const {
  const Eigen::Index n = m_n, b = X.cols(), nt = m_tiles, np = nt * T;
  const Eigen::Index ld = (b + kGroup - 1) / kGroup * kGroup;
  Eigen::MatrixXd Y = Eigen::MatrixXd::Zero(n, b);
  if (n == 0 || b == 0) return Y;
  // X row-major, padded with zero rows and columns.
  std::vector<double> x(static_cast<std::size_t>(np * ld), 0.0);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < b; ++j) x[static_cast<std::size_t>(i * ld + j)] = X(i, j);
  // Chunk c: tile columns [edge(c), edge(c + 1)), of about equal numbers of tiles; its partial
  // sum holds the rows from its first tile column down.
  auto edge = [nt](int c) {
    return std::min<Eigen::Index>(nt, static_cast<Eigen::Index>(std::llround(nt * (1.0 - std::sqrt(1.0 - double(c) / kChunks)))));
  };
  std::vector<std::vector<double>> partial(kChunks);
#pragma omp parallel for schedule(dynamic, 1) if (n >= 512)
  for (int c = 0; c < kChunks; ++c) {
    const Eigen::Index J0 = edge(c), J1 = edge(c + 1);
    if (J0 == J1) continue;
    std::vector<double>& p = partial[static_cast<std::size_t>(c)];
    p.assign(static_cast<std::size_t>((np - J0 * T) * ld), 0.0);
    auto rowsOf = [&](Eigen::Index I) { return p.data() + (I - J0) * T * ld; };
    for (Eigen::Index J = J0; J < J1; ++J) {
      const double* xJ = x.data() + J * T * ld;
      // Tiles (I, J) for I >= J are consecutive in memory: the next one is prefetched during each.
      rowKernel(tile(J, J), xJ, rowsOf(J), ld, J + 1 < nt ? tile(J, J) + T * T : nullptr);  // both triangles stored
      for (Eigen::Index I = J + 1; I < nt; ++I) {
        const double* A = tile(I, J);
        rowKernel(A, xJ, rowsOf(I), ld, I + 1 < nt || J + 1 < nt ? A + T * T : nullptr);  // E_IJ X_J
        columnKernel(A, x.data() + I * T * ld, rowsOf(J), ld);    // E_IJᵀ X_I = E_JI X_I
      }
    }
  }
  // Y = the partials added in chunk order, row by row.
#pragma omp parallel for schedule(static) if (n >= 512)
  for (Eigen::Index i = 0; i < n; ++i) {
    for (int c = 0; c < kChunks; ++c) {
      const Eigen::Index J0 = edge(c);
      if (J0 == edge(c + 1) || i < J0 * T) continue;
      const double* p = partial[static_cast<std::size_t>(c)].data() + (i - J0 * T) * ld;
      for (Eigen::Index j = 0; j < b; ++j) Y(i, j) += p[j];
    }
  }
  return Y;
}

Eigen::MatrixXd PackedSymmetricMatrix::toDense() const {
  Eigen::MatrixXd m(m_n, m_n);
  for (Eigen::Index j = 0; j < m_n; ++j)
    for (Eigen::Index i = j; i < m_n; ++i) m(i, j) = m(j, i) = (*this)(i, j);
  return m;
}

bool PackedSymmetricMatrix::allFinite() const {
  // x · 0 is NaN exactly for NaN and ±∞, so the sum is NaN iff an entry is (in any order).
  const std::size_t size = static_cast<std::size_t>(tileCount()) * T * T;
  double probe = 0.0;
#pragma omp parallel for reduction(+ : probe) schedule(static) if (size >= (1u << 20))
  for (std::size_t e = 0; e < size; ++e) probe += m_data[e] * 0.0;
  return probe == 0.0;
}

}  // namespace dplda
