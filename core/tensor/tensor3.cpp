#include "core/tensor/tensor3.h"

#include <algorithm>
#include <cmath>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/common/parallel_guard.h"

namespace dplda {

namespace {

// Eigen's packet types carry alignment attributes that GCC drops (harmlessly) as template arguments.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif

// The packed contraction's kernel works on Eigen's widest SIMD packet (8 doubles with AVX-512, 4
// with AVX, 2 with SSE, 1 without) and its half, with an explicit multiply-add (the build is ISO
// C++, where the compiler may not fuse a * b + c on its own).
using Packet = Eigen::internal::packet_traits<double>::type;
using HalfPacket = Eigen::internal::unpacket_traits<Packet>::half;
constexpr int kPacket = Eigen::internal::unpacket_traits<Packet>::size;
constexpr int kHalf = Eigen::internal::unpacket_traits<HalfPacket>::size;
// Rows per panel: rows x 3 packets of accumulators, plus the 3 packets of Q and a broadcast,
// fill the vector registers (32 with AVX-512, 16 otherwise) without spilling.
#ifdef EIGEN_VECTORIZE_AVX512
constexpr int kRows = 8;
#else
constexpr int kRows = 4;
#endif
constexpr int kBlockPackets = 3;
constexpr std::ptrdiff_t kPairBlock = 512;  // pairs per pass: the Q block (512 x 24 doubles) stays in L2
constexpr std::ptrdiff_t kMaxLanes = 16;

// G(r, c) += sum_{p < pairs} W[p * kRows + r] * Q[p * ldq + c] for the panel's kRows rows and the
// NP packets + NH half packets of columns starting at Q and G (G row-major, leading dimension ldg).
// Each entry is a chain of multiply-adds in pair order: its rounding depends on nothing else.
template <int NP, int NH>
void panelKernel(const double* W, const double* Q, std::ptrdiff_t ldq, std::ptrdiff_t pairs, double* G,
                 std::ptrdiff_t ldg) {
  using namespace Eigen::internal;
  constexpr int np = NP > 0 ? NP : 1;  // array extent (no zero-length arrays in ISO C++)
  Packet acc[kRows][np];
  HalfPacket half[kRows];
  for (int r = 0; r < kRows; ++r) {
    for (int v = 0; v < NP; ++v) acc[r][v] = ploadu<Packet>(G + r * ldg + v * kPacket);
    if constexpr (NH > 0) half[r] = ploadu<HalfPacket>(G + r * ldg + NP * kPacket);
  }
  for (std::ptrdiff_t p = 0; p < pairs; ++p) {
    const double* q = Q + p * ldq;
    const double* w = W + p * kRows;
    Packet qv[np];
    for (int v = 0; v < NP; ++v) qv[v] = ploadu<Packet>(q + v * kPacket);
    HalfPacket qh{};
    if constexpr (NH > 0) qh = ploadu<HalfPacket>(q + NP * kPacket);
    for (int r = 0; r < kRows; ++r) {
      const Packet wr = pset1<Packet>(w[r]);
      for (int v = 0; v < NP; ++v) acc[r][v] = pmadd(wr, qv[v], acc[r][v]);
      if constexpr (NH > 0) half[r] = pmadd(pset1<HalfPacket>(w[r]), qh, half[r]);
    }
  }
  for (int r = 0; r < kRows; ++r) {
    for (int v = 0; v < NP; ++v) pstoreu(G + r * ldg + v * kPacket, acc[r][v]);
    if constexpr (NH > 0) pstoreu(G + r * ldg + NP * kPacket, half[r]);
  }
}

// One panel against all `cols` columns of Q (a multiple of kHalf): blocks of 3 packets, then the rest.
void panelColumns(const double* W, const double* Q, std::ptrdiff_t cols, std::ptrdiff_t pairs, double* G) {
  std::ptrdiff_t c = 0;
  for (; c + kBlockPackets * kPacket <= cols; c += kBlockPackets * kPacket)
    panelKernel<kBlockPackets, 0>(W, Q + c, cols, pairs, G + c, cols);
  const std::ptrdiff_t rest = cols - c;
  const int packets = static_cast<int>(rest / kPacket);
  const int halves = kHalf < kPacket ? static_cast<int>((rest % kPacket) / kHalf) : 0;
  switch (packets * 2 + halves) {
    case 1:
      panelKernel<0, 1>(W, Q + c, cols, pairs, G + c, cols);
      break;
    case 2:
      panelKernel<1, 0>(W, Q + c, cols, pairs, G + c, cols);
      break;
    case 3:
      panelKernel<1, 1>(W, Q + c, cols, pairs, G + c, cols);
      break;
    case 4:
      panelKernel<2, 0>(W, Q + c, cols, pairs, G + c, cols);
      break;
    case 5:
      panelKernel<2, 1>(W, Q + c, cols, pairs, G + c, cols);
      break;
    default:
      break;  // 0: nothing left
  }
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace

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
  // Columns are independent: large batches are split over threads (same result either way), and
  // into as many more chunks as keep each thread's P (k² doubles per column) within 64 MiB: at
  // k = 800 with its 10 700 starts, two halves were 27 GB each (issue 28). The chunks depend on
  // k and n only, so the bits do not depend on the thread count.
  const double columnDoubles = static_cast<double>(k) * k;
  const Eigen::Index perChunk = std::max<Eigen::Index>(1, static_cast<Eigen::Index>((1 << 23) / columnDoubles));
  const int chunks = static_cast<int>(std::max<Eigen::Index>(
      columnDoubles * k * static_cast<double>(n) > 4e6 ? 2 : 1, (n + perChunk - 1) / perChunk));
  ParallelGuard guard;
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
  for (int c = 0; c < chunks; ++c) guard.run([&] {
    const Eigen::Index begin = n * c / chunks, end = n * (c + 1) / chunks;
    const Eigen::MatrixXd P = slab.transpose() * U.middleCols(begin, end - begin);  // P(i*k+j, s)
    for (Eigen::Index s = begin; s < end; ++s) {
      Eigen::Map<const Eigen::MatrixXd> Ps(P.col(s - begin).data(), k, k);  // Ps(j, i)
      out.col(s).noalias() = Ps.transpose() * U.col(s);
    }
  });
  guard.rethrow();
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

PackedTensor3::PackedTensor3(const Tensor3& t)
    : m_k(t.dim()), m_pairs(static_cast<std::ptrdiff_t>(t.dim()) * (t.dim() + 1) / 2) {
  const int k = m_k;
  const std::ptrdiff_t panels = (k + kRows - 1) / kRows;
  m_panels.assign(static_cast<std::size_t>(panels * kRows * m_pairs), 0.0);  // padding rows stay 0
  for (int i = 0; i < k; ++i) {
    double* dst = m_panels.data() + (i / kRows) * m_pairs * kRows + i % kRows;
    const double* slice = t.data() + static_cast<std::ptrdiff_t>(i) * k * k;  // slice[j*k + l] = T(i,j,l)
    std::ptrdiff_t p = 0;
    for (int j = 0; j < k; ++j) {
      dst[(p++) * kRows] = slice[static_cast<std::ptrdiff_t>(j) * k + j];
      for (int l = j + 1; l < k; ++l)
        dst[(p++) * kRows] =
            slice[static_cast<std::ptrdiff_t>(j) * k + l] + slice[static_cast<std::ptrdiff_t>(l) * k + j];
    }
  }
}

Eigen::MatrixXd PackedTensor3::contractTwiceColumns(const Eigen::MatrixXd& U) const {
  const int k = m_k;
  eigen_assert(U.rows() == k);
  const Eigen::Index n = U.cols();
  Eigen::MatrixXd out(k, n);
  if (k == 0 || n == 0) return out;
  // Q below is k²/2 doubles per column: many columns at large k go in blocks of at most 64 MiB
  // (issue 28). Each entry is the same chain of multiply-adds either way (panelKernel).
  const Eigen::Index blockColumns =
      std::max<Eigen::Index>(64, (std::ptrdiff_t{1} << 23) / std::max<std::ptrdiff_t>(m_pairs, 1) / kHalf * kHalf);
  if (n > blockColumns) {
    for (Eigen::Index c0 = 0; c0 < n; c0 += blockColumns) {
      const Eigen::Index w = std::min(blockColumns, n - c0);
      out.middleCols(c0, w) = contractTwiceColumns(U.middleCols(c0, w));
    }
    return out;
  }
  const std::ptrdiff_t cols = (n + kHalf - 1) / kHalf * kHalf;  // padding columns of Q are 0
  // Q, pair-major: Q[p * cols + s] = u_j u_l for pair p = {j <= l} (the order of the constructor).
  std::vector<double> Q(static_cast<std::size_t>(m_pairs * cols), 0.0);
  const Eigen::MatrixXd Ut = U.transpose();  // column j: coordinate j of every vector
  std::ptrdiff_t p = 0;
  for (int j = 0; j < k; ++j)
    for (int l = j; l < k; ++l, ++p)
      Eigen::Map<Eigen::VectorXd>(Q.data() + p * cols, n) = Ut.col(j).cwiseProduct(Ut.col(l));
  const std::ptrdiff_t panels = (k + kRows - 1) / kRows;
  const std::ptrdiff_t rows = panels * kRows, slab = rows * cols;
  // Fixed lanes: the pairs are cut into `lanes` ranges that depend on k only; each lane sums its
  // range into its own buffer and the buffers are added in lane order, so the bits depend neither
  // on the thread count nor on which thread took which lane. Threads take lanes as they come
  // (a thread that the machine's other work holds up delays only its current lane).
  const std::ptrdiff_t lanes = std::clamp<std::ptrdiff_t>(m_pairs / 1024, 1, kMaxLanes);
  std::vector<double> G(static_cast<std::size_t>(lanes * slab),
                        0.0);  // lane-major, each rows x cols row-major
  const double work = static_cast<double>(rows) * static_cast<double>(m_pairs) * static_cast<double>(cols);
  ParallelGuard guard;  // panelColumns does not allocate; the guard keeps that true if it ever does
#pragma omp parallel for schedule(dynamic, 1) if (work > 4e6 && lanes > 1)
  for (std::ptrdiff_t lane = 0; lane < lanes; ++lane) guard.run([&] {
    const std::ptrdiff_t begin = m_pairs * lane / lanes, end = m_pairs * (lane + 1) / lanes;
    double* g = G.data() + lane * slab;
    for (std::ptrdiff_t p0 = begin; p0 < end; p0 += kPairBlock) {
      const std::ptrdiff_t pairs = std::min(kPairBlock, end - p0);
      for (std::ptrdiff_t b = 0; b < panels; ++b)
        panelColumns(m_panels.data() + (b * m_pairs + p0) * kRows, Q.data() + p0 * cols, cols, pairs,
                     g + b * kRows * cols);
    }
  });
  guard.rethrow();
  for (std::ptrdiff_t lane = 1; lane < lanes; ++lane)
    for (std::ptrdiff_t e = 0; e < slab; ++e)
      G[static_cast<std::size_t>(e)] += G[static_cast<std::size_t>(lane * slab + e)];
  for (int i = 0; i < k; ++i)
    for (Eigen::Index s = 0; s < n; ++s) out(i, s) = G[static_cast<std::size_t>(i * cols + s)];
  return out;
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
