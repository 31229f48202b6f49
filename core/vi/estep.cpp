// Vectorised digamma / exp and the gathered per-document E-step (see estep.h).
#include "core/vi/estep.h"
#include "core/vi/packet_math.h"

#include <algorithm>
#include <omp.h>

#include <cmath>
#include <type_traits>
#include <vector>

namespace dplda::vi_detail {

namespace {

template <typename F>
void blockwise(const double* x, double* out, std::ptrdiff_t n, double pad, F f) {
  std::ptrdiff_t q = 0;
  for (; q + 8 <= n; q += 8) Eigen::Map<A8>(out + q) = f(A8(Eigen::Map<const A8>(x + q)));
  if (q < n) {  // the tail, padded: each value still goes through the same 8-lane code
    A8 tail = A8::Constant(pad);
    for (std::ptrdiff_t i = q; i < n; ++i) tail[i - q] = x[i];
    const A8 r = f(tail);
    for (std::ptrdiff_t i = q; i < n; ++i) out[i] = r[i - q];
  }
}

inline int roundUp8(int v) { return (v + 7) & ~7; }

// Calls f(std::integral_constant<int, n>) for n in 1..4: the blocks below keep NB packets in
// registers only when NB is a constant.
template <typename F>
void withBlocks(int n, F f) {
  switch (n) {
    case 1: f(std::integral_constant<int, 1>()); break;
    case 2: f(std::integral_constant<int, 2>()); break;
    case 3: f(std::integral_constant<int, 3>()); break;
    default: f(std::integral_constant<int, 4>()); break;
  }
}

// out[0 .. 8NB) = Σ_{i<k} e_i T[i*stride + 0 .. 8NB) + 1e-100, i in increasing order.
template <int NB>
void normBlock(const double* T, int stride, int k, const double* e, double* out) {
  A8 a[NB];
  for (int q = 0; q < NB; ++q) a[q] = e[0] * Eigen::Map<const A8>(T + 8 * q);
  for (int i = 1; i < k; ++i) {
    const double* row = T + static_cast<std::ptrdiff_t>(i) * stride;
    for (int q = 0; q < NB; ++q) a[q] += e[i] * Eigen::Map<const A8>(row + 8 * q);
  }
  for (int q = 0; q < NB; ++q) Eigen::Map<A8>(out + 8 * q) = a[q] + 1e-100;  // never divide by 0
}

// out[0 .. 8NB) = Σ_{j<m} w_j W[j*stride + 0 .. 8NB). S streams (8 for NB = 1, 4 for NB = 2,
// else 2) keep S·NB independent chains in flight: stream t sums j ≡ t (mod S) in increasing j, and
// the streams are added as a pairwise tree at the end: a fixed order for given m and NB.
template <int NB>
void accBlock(const double* W, int stride, int m, const double* w, double* out) {
  constexpr int S = NB == 1 ? 8 : NB == 2 ? 4 : 2;
  A8 a[S][NB];
  for (int t = 0; t < S; ++t)
    for (int q = 0; q < NB; ++q) a[t][q].setZero();
  int j = 0;
  for (; j + S <= m; j += S) {
    for (int t = 0; t < S; ++t) {
      const double f = w[j + t];
      const double* row = W + static_cast<std::ptrdiff_t>(j + t) * stride;
      for (int q = 0; q < NB; ++q) a[t][q] += Eigen::Map<const A8>(row + 8 * q) * f;
    }
  }
  for (int t = 0; j < m; ++j, ++t) {
    const double* row = W + static_cast<std::ptrdiff_t>(j) * stride;
    for (int q = 0; q < NB; ++q) a[t][q] += Eigen::Map<const A8>(row + 8 * q) * w[j];
  }
  for (int width = S / 2; width >= 1; width /= 2)  // pairwise: (0+1), (2+3), ... then their sums
    for (int t = 0; t < width; ++t)
      for (int q = 0; q < NB; ++q) a[t][q] = a[2 * t][q] + a[2 * t + 1][q];
  for (int q = 0; q < NB; ++q) Eigen::Map<A8>(out + 8 * q) = a[0][q];
}

}  // namespace

void digammaN(const double* x, double* out, std::ptrdiff_t n) {
  blockwise(x, out, n, 1.0, [](const A8& v) { return digamma8(v); });
}

DirichletRows dirichletRows(const Eigen::VectorXd& rowSums) {
  const Eigen::Index k = rowSums.size();
  DirichletRows rows;
  rows.g.resize(k);
  rows.invShift = (rowSums.array() + 8.0).inverse();
  blockwise(rowSums.data(), rows.g.data(), k, 1.0, [](const A8& v) { return psiMinusLog8(v); });
  return rows;
}

Eigen::VectorXd rowSumsOf(const Eigen::MatrixXd& lambda) {
  Eigen::VectorXd sums = Eigen::VectorXd::Zero(lambda.rows());
  for (Eigen::Index w = 0; w < lambda.cols(); ++w) sums += lambda.col(w);  // each row's sum in increasing w
  return sums;
}

void expDirichletColumns(const Eigen::MatrixXd& lambda, const DirichletRows& rows, const int* words, int count,
                         Eigen::MatrixXd& out, int threads) {
  const int k = static_cast<int>(lambda.rows());
  // Column by column, 8 topics at a time (the tail padded): every value is the same 8-lane
  // function of (λ_iw, Σ_w λ_iw), whichever columns are asked for.
  auto column = [&](Eigen::Index w) {
    const double* x = lambda.data() + w * k;
    double* y = out.data() + w * k;
    int i = 0;
    for (; i + 8 <= k; i += 8) {
      Eigen::Map<A8>(y + i) = expPsiDifference8(Eigen::Map<const A8>(x + i), Eigen::Map<const A8>(rows.g.data() + i),
                                                 Eigen::Map<const A8>(rows.invShift.data() + i));
    }
    if (i < k) {
      A8 xt = A8::Ones(), gt = A8::Zero(), st = A8::Ones();
      for (int q = i; q < k; ++q) xt[q - i] = x[q], gt[q - i] = rows.g[q], st[q - i] = rows.invShift[q];
      const A8 r = expPsiDifference8(xt, gt, st);
      for (int q = i; q < k; ++q) y[q] = r[q - i];
    }
  };
  if (words) {
    for (int j = 0; j < count; ++j) column(words[j]);
    return;
  }
  const Eigen::Index d = lambda.cols();
  if (threads <= 0) threads = omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads) if (lambda.size() > (1 << 18))
  for (Eigen::Index w = 0; w < d; ++w) column(w);
}

void EStepScratch::reserve(int k, int mp, int kp) {
  const Eigen::Index blockSize = static_cast<Eigen::Index>(k) * mp;
  if (block_.size() < blockSize) block_.resize(std::max(blockSize, 2 * block_.size()));
  if (counts_.size() < mp) {
    const Eigen::Index n = std::max<Eigen::Index>(mp, 2 * counts_.size());
    counts_.resize(n);
    phiNorm_.resize(n);
    weight_.resize(n);
  }
  const Eigen::Index wordBlockSize = static_cast<Eigen::Index>(mp) * ((k + 7) & ~7);
  if (wordBlock_.size() < wordBlockSize) wordBlock_.resize(std::max(wordBlockSize, 2 * wordBlock_.size()));
  if (psi_.size() < kp) {
    psi_.resize(kp);
    expElogTheta_.resize(kp);
    acc_.resize(kp);
  }
}

EStepScratch& threadScratch() {
  thread_local EStepScratch scratch;
  return scratch;
}

int estep(const Eigen::MatrixXd& B, const double* alpha, const int* words, const double* counts, int m,
          double tolerance, int maxIterations, double* gamma, EStepScratch& s) {
  const int k = static_cast<int>(B.rows());
  const int mp = roundUp8(m), kp = roundUp8(k + 1), k8 = roundUp8(k);
  s.reserve(k, mp, kp);
  double* __restrict T = s.block_.data();      // k x mp, topic-major
  double* __restrict W = s.wordBlock_.data();  // mp x k8, word-major
  double* __restrict cnt = s.counts_.data();
  double* __restrict phi = s.phiNorm_.data();
  double* __restrict wt = s.weight_.data();
  double* __restrict arg = s.psi_.data();
  double* __restrict et = s.expElogTheta_.data();
  double* __restrict acc = s.acc_.data();
  // Gather the document's columns of B twice: word-major (a copy of each column, zero-padded to a
  // multiple of 8 topics) and topic-major (zero-padded to a multiple of 8 words).
  const double* b0 = B.data();
  for (int j = 0; j < m; ++j) {
    const double* col = b0 + static_cast<std::ptrdiff_t>(words[j]) * k;
    double* wj = W + static_cast<std::ptrdiff_t>(j) * k8;
    for (int i = 0; i < k; ++i) wj[i] = col[i];
    for (int i = k; i < k8; ++i) wj[i] = 0.0;
    for (int i = 0; i < k; ++i) T[static_cast<std::ptrdiff_t>(i) * mp + j] = col[i];
    cnt[j] = counts[j];
  }
  for (int j = m; j < mp; ++j) {
    cnt[j] = 0.0;
    for (int i = 0; i < k; ++i) T[static_cast<std::ptrdiff_t>(i) * mp + j] = 0.0;
  }
  for (int i = k + 1; i < kp; ++i) arg[i] = 1.0;

  // exp(E[log θ]) = exp(ψ(γ_i) − ψ(Σγ)): one 8-lane pass over γ_0..γ_{k−1} and Σγ.
  auto updateTheta = [&] {
    double sum = 0.0;
    for (int i = 0; i < k; ++i) {
      arg[i] = gamma[i];
      sum += gamma[i];
    }
    arg[k] = sum;
    for (int q = 0; q < kp; q += 8) Eigen::Map<A8>(et + q) = psiMinusLog8(Eigen::Map<const A8>(arg + q));
    // exp(ψ(γ_i) − ψ(Σγ)) = (γ_i + 8)/(Σγ + 8) · exp(g(γ_i) − g(Σγ)): no logarithm needed.
    const A8 gSum = A8::Constant(et[k]), invShiftSum = A8::Constant(1.0 / (sum + 8.0));
    for (int q = 0; q < kp; q += 8) {
      const A8 a = Eigen::Map<const A8>(arg + q);
      Eigen::Map<A8>(et + q) = ((a + 8.0) * invShiftSum) * (Eigen::Map<const A8>(et + q) - gSum).exp();
    }  // lanes > k (padding 1.0) stay finite and unused
  };
  // phiNorm_j = Σ_i exp(E[log θ_i]) B_i,w_j (+1e-100), i in increasing order; up to 32 words at a
  // time in registers.
  auto updateNorm = [&] {
    for (int j0 = 0; j0 < mp; j0 += 32) {
      withBlocks(std::min(4, (mp - j0) / 8), [&](auto nb) { normBlock<nb()>(T + j0, mp, k, et, phi + j0); });
    }
  };
  // acc_i = Σ_j B_i,w_j c_j/phiNorm_j, j in increasing order; up to 32 topics at a time in registers.
  auto accumulate = [&] {
    for (int j = 0; j < mp; ++j) wt[j] = cnt[j] / phi[j];
    for (int i0 = 0; i0 < k8; i0 += 32) {
      withBlocks(std::min(4, (k8 - i0) / 8), [&](auto nb) { accBlock<nb()>(W + i0, k8, m, wt, acc + i0); });
    }
  };
  updateTheta();
  updateNorm();
  int it = 0;
  while (it < maxIterations) {
    accumulate();
    double change = 0.0;
    for (int i = 0; i < k; ++i) {
      const double g = alpha[i] + et[i] * acc[i];
      change += std::abs(g - gamma[i]);
      gamma[i] = g;
    }
    ++it;
    updateTheta();
    updateNorm();
    if (change / k < tolerance) break;
  }
  return it;
}

}  // namespace dplda::vi_detail
