#pragma once
// Top eigenpairs of a large symmetric operator from *block* products (SPEC §4, large d).
//
// Why: at d = 2·10⁴ and nnz = 6.7·10⁷ a product with M̂2 is a pass over the counts. A pass with
// 2 vectors costs ~1.4 single-vector passes (SecondMomentOperator::apply reads each count once for
// both), and the method below asks only the trailing pair σ_{k+1} for its value, where Spectra's
// Lanczos must converge every wanted pair to its tolerance: σ_{k+1} sits at the edge of the noise
// bulk and took 35 of Spectra's 88 products at NYTimes scale.
//
// The method: thick-restart block Lanczos with full reorthogonalisation. A cycle extends the basis
// K block by block (block j+1 = orth(A · block j) against all of K, twice-classical Gram–Schmidt),
// up to m columns; takes the Rayleigh–Ritz pairs of Kᵀ A K (A K is stored: nothing else touches A,
// and every residual ‖A u − θ u‖ that decides is computed explicitly, not from a recurrence; a
// cheap estimate from the pending block only skips the checks it shows cannot pass); and restarts from
// the `keep` leading Ritz vectors plus the pending block (which holds their residuals), until every
// wanted pair has ‖A u − θ u‖ <= tolerance · |θ_1| (the trailing value-only pairs: see below).
// Ritz values are taken largest algebraic first (M̂2 is indefinite after the diagonal correction).
// Every Ritz value is a lower bound of its eigenvalue (θ_j <= λ_j, Cauchy interlacing) and rises
// monotonically with the passes (the kept Ritz vectors stay in the basis).
//
// With a pass budget and no restart (basisSize >= blockSize · (passBudget + 1)) it is the
// randomized block Krylov method of Musco & Musco (NeurIPS 2015): q passes from a random start
// block of b >= wanted vectors give Ritz values whose error does not depend on the eigengaps
// (with high probability |θ_j − λ_j| <= ε (λ_j − λ_min), ε ~ (log d / q)²), where the residual
// test would need passes in proportion to 1/√gap. The residuals are reported either way.
//
// Deterministic: the start block is drawn from a fixed seed and the products, projections and
// Rayleigh–Ritz steps are formed in fixed chunks, so the output does not depend on the thread count.
#include <Eigen/Dense>
#include <cstdint>
#include <functional>

#include "core/common/feedback.h"
#include "core/common/status.h"

namespace dplda {

// The accuracy stated for the values of the gap-free mode as the whitened release runs it
// (topEigenpairs(released M̃2, k): 24 passes of >= 16 vectors): |θ_j − λ_j| <= this · |λ_j|, θ_j <= λ_j.
// Measured: at most 2.6e-3 at d = 8000 with a noise-packed top (docs/BENCHMARKS.md, issue 27 §1);
// checked against LAPACK in tests/whitening/tst_block_eigensolver.cpp.
inline constexpr double kGapFreeValueAccuracy = 1e-2;

struct BlockEigenOptions {
  int blockSize = 2;         // vectors per product
  int oversampling = 0;      // Ritz vectors kept at a restart beyond `wanted`; 0: max(2, wanted / 4)
  int basisSize = 0;         // basis columns per cycle; 0: max(2 wanted + 1, wanted + 20), as Spectra's ncv
  int maxCycles = 100;
  // Rayleigh–Ritz (and the residual check) every checkEvery blocks as well as when the basis is
  // full; 0: only when it is full.
  int checkEvery = 0;
  double tolerance = 1e-10;  // on ‖A u − θ u‖ / |θ_1| for the pairs whose vectors are used
  // The last `valueOnlyTrailing` pairs are wanted for their value only (σ_{k+1} for the gap): they
  // stop at ‖A u − θ u‖ / |θ_1| <= valueTolerance: there is an eigenvalue within ‖r‖ of θ, and θ is
  // below its own (interlacing). Their vectors sit in a dense part of the spectrum and converge far
  // more slowly. (A stop on a small rise of θ was tried and dropped: in a packed spectrum θ stalls
  // while still 27× further from λ than its last rise; tests/whitening/tst_block_eigensolver.cpp.)
  int valueOnlyTrailing = 0;
  double valueTolerance = 1e-7;
  // > 0: at most this many block products; then the Ritz pairs reached are returned with their
  // residuals and converged = false, instead of NotConverged (the gap-free mode above).
  int passBudget = 0;
  std::uint64_t seed = 1;    // the start block
};

struct BlockEigenResult {
  Eigen::VectorXd values;   // the `wanted` largest algebraic eigenvalues, descending
  Eigen::MatrixXd vectors;  // d x wanted, orthonormal
  Eigen::VectorXd residuals;  // ‖A u_j − θ_j u_j‖ / |θ_1| per pair
  bool converged = true;    // false: the pass budget ended the run before the tolerances were met
  int blockProducts = 0;
  int blockWidth = 0;       // vectors per block product
  int vectorProducts = 0;   // block products × block width (comparable with Lanczos' count)
  int cycles = 0;
};

// `product(X)` returns A X for a d x m block X. Needs wanted + oversampling <= d; NotConverged
// after maxCycles (naming the largest residual), NumericalFailure on NaN, Cancelled.
Result<BlockEigenResult> blockKrylovTopEigenpairs(const std::function<Eigen::MatrixXd(const Eigen::MatrixXd&)>& product,
                                                  Eigen::Index d, int wanted, const BlockEigenOptions& options = {},
                                                  Feedback* feedback = nullptr);

}  // namespace dplda
