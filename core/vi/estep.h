#pragma once
// The hot loops of core/vi (internal): a vectorised digamma, exp(ψ(x) − ψ(y)) without a logarithm
// (Eigen's packet exp: within 2 ulp of std::exp, subnormals kept, 0 below −745, and no errno slow
// path on underflow, which cost 11% of DP-VI with a tiny α), and the per-document
// E-step on a gathered, dense block of the document's distinct words, with per-thread scratch
// (no heap allocation per document once the scratch has grown).
//
// Vectorisation without changing results across thread counts: every special-function value is
// computed in 8-lane blocks (Eigen's fixed-size packets; a short tail is padded), so ψ(x) and
// exp(x) are pure functions of x, whatever position or buffer they come from. Every sum has a
// fixed order that depends only on the document (never on the thread or on buffer alignment).
#include <Eigen/Dense>
#include <cstddef>

namespace dplda::vi_detail {

// ψ(x) for x > 0 elementwise, out[q] = ψ(x[q]) for q < n (out may alias x).
//   ψ(x) = ψ(x + 8) − Σ_{i=0}^{7} 1/(x + i), the sum formed as one fraction P/Q of positive terms
//   (relative error < 30u, u = 2^-53), ψ(z) for z = x + 8 >= 8 by ln z − 1/(2z) − Σ_{n=1}^{8}
//   B_2n/(2n z^2n) (first omitted term B_18/(18 z^18) < 2e-16 at z = 8). For x > 1e15 the sum uses
//   x = 1e15 (it is < 8e-15 there, and ψ(x) > 34). Stated bound, checked by tst_variational_lda
//   against a long-double reference on a dense grid and mpmath values: |error| <= 1e-13 max(1, |ψ(x)|), relative error <= 1e-10
//   wherever |ψ(x)| >= 1e-3 (near the root x0 = 1.4616..., no double-precision routine can promise
//   a relative bound: an ulp of x moves ψ by ~2e-16).
void digammaN(const double* x, double* out, std::ptrdiff_t n);

// ψ of the row sums Λ_i = Σ_w λ_iw of λ, kept as g(Λ_i) = ψ(Λ_i) − ln(Λ_i + 8) and 1/(Λ_i + 8):
// exp(ψ(x) − ψ(Λ)) = (x + 8)/(Λ + 8) · exp(g(x) − g(Λ)) is then computed without a logarithm
// (g is digammaN's method without its ln term; same accuracy).
struct DirichletRows {
  Eigen::VectorXd g, invShift;
};
DirichletRows dirichletRows(const Eigen::VectorXd& rowSums);
Eigen::VectorXd rowSumsOf(const Eigen::MatrixXd& lambda);  // each row summed in increasing w

// exp(E[log β]) = exp(ψ(λ_iw) − ψ(Σ_w λ_iw)) for the columns `words` (or all columns when
// words == nullptr, count = d) of λ (k x d), written into the same columns of `out` (k x d, other
// columns untouched); every value is the same function of (λ_iw, Λ_i) whichever columns are asked
// for. threads: OpenMP threads for the all-columns case (0 = OpenMP's default).
void expDirichletColumns(const Eigen::MatrixXd& lambda, const DirichletRows& rows, const int* words, int count,
                         Eigen::MatrixXd& out, int threads = 0);

// Per-thread scratch of the E-step, grown on demand and never shrunk.
class EStepScratch {
 public:
  // After estep(): exp(E[log θ]) of the final γ (k values) and phiNorm_j = Σ_i exp(E[log θ_i]) B_iw_j
  // + 1e-100 for the document's non-zeros j < m.
  const double* expElogTheta() const { return expElogTheta_.data(); }
  const double* phiNorm() const { return phiNorm_.data(); }

 private:
  friend int estep(const Eigen::MatrixXd&, const double*, const int*, const double*, int, double, int, double*,
                   EStepScratch&);
  void reserve(int k, int mp, int kp);
  Eigen::ArrayXd block_;         // k x mp, topic-major: block_[i*mp + j] = B(i, words[j]), 0 for j >= m
  Eigen::ArrayXd wordBlock_;     // mp x k8 (k rounded up to 8), word-major: a copy of each column, 0-padded
  Eigen::ArrayXd counts_;        // mp, 0 for j >= m
  Eigen::ArrayXd phiNorm_;       // mp
  Eigen::ArrayXd weight_;        // mp: counts_j / phiNorm_j
  Eigen::ArrayXd psi_;           // kp: γ_0..γ_{k-1}, Σγ, then padding 1.0 (ψ computed in place)
  Eigen::ArrayXd expElogTheta_;  // kp
  Eigen::ArrayXd acc_;           // kp: Σ_j B_i,w_j c_j / phiNorm_j
};
EStepScratch& threadScratch();  // thread_local

// The E-step of one document (inferDocument's contract, variational_lda.h): B is k x d (column w =
// the k weights of word w), gamma (k values) the start and the result; iterates until the mean
// absolute change of γ is < tolerance or maxIterations updates. Returns the updates done. Every
// sum has an order fixed by the document alone: φ-norms over i in increasing order; Σ_j c_j
// B_ij/φ-norm_j in increasing j within 8, 4 or 2 interleaved streams (j mod S; S = 8 for k <= 8,
// 4 for k <= 16, else 2) added as a pairwise tree; Σγ and the change over i.
int estep(const Eigen::MatrixXd& B, const double* alpha, const int* words, const double* counts, int m,
          double tolerance, int maxIterations, double* gamma, EStepScratch& s);

}  // namespace dplda::vi_detail
