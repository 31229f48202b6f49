#pragma once
// Top eigenpairs of a large symmetric operator from *block* products (SPEC §4, large d).
//
// Why a block method: at d = 2·10⁴ and nnz = 6.7·10⁷ a product with M̂2 is a pass over the
// counts, and a pass is bound by memory traffic, not arithmetic. Lanczos (Spectra) needs one
// pass per vector (~130 passes for k = 20); a block of b vectors costs about one pass too
// (SecondMomentOperator::apply streams the counts once per block, on all cores), so a block
// Krylov method needs ~10 passes for the same accuracy.
//
// The method: restarted block Krylov with full reorthogonalisation. A cycle builds the basis
// K = [Q, AQ, …, A^{q−1}Q] (orthonormalised block by block), takes the Rayleigh–Ritz pairs of
// Kᵀ A K (the products A K are the cycle's q block products, nothing else touches A), and
// restarts from the b leading Ritz vectors until every wanted pair has a residual
// ‖A u − θ u‖ ≤ tolerance · |θ_1| (valueTolerance for trailing pairs wanted for their value only). Ritz values are taken largest algebraic first (M̂2 is
// indefinite after the diagonal correction). Deterministic: the start block is drawn from a fixed
// seed, and the products are deterministic (fixed lanes), so the output does not depend on the
// thread count.
#include <Eigen/Dense>
#include <cstdint>
#include <functional>

#include "core/common/feedback.h"
#include "core/common/status.h"

namespace dplda {

struct BlockEigenOptions {
  int oversampling = 0;      // extra block columns p (b = wanted + p); 0: max(8, wanted / 2)
  int krylovBlocks = 6;      // q: basis blocks per cycle (q − 1 new block products after the first)
  int maxCycles = 100;
  double tolerance = 1e-10;  // on ‖A u − θ u‖ / |θ_1| for the pairs whose vectors are used
  // The last `valueOnlyTrailing` pairs are wanted for their value only (σ_{k+1} for the gap): they
  // stop at ‖A u − θ u‖ / |θ_1| <= valueTolerance, which bounds |θ − λ| by the same amount.
  int valueOnlyTrailing = 0;
  double valueTolerance = 1e-7;
  std::uint64_t seed = 1;    // the start block
};

struct BlockEigenResult {
  Eigen::VectorXd values;   // the `wanted` largest algebraic eigenvalues, descending
  Eigen::MatrixXd vectors;  // d x wanted, orthonormal
  Eigen::VectorXd residuals;  // ‖A u_j − θ_j u_j‖ / |θ_1| per pair
  int blockProducts = 0;
  int vectorProducts = 0;   // block products × block width (comparable with Lanczos' count)
  int cycles = 0;
};

// `product(X)` returns A X for a d x m block X. Needs wanted + oversampling <= d; NotConverged
// after maxCycles (naming the largest residual), NumericalFailure on NaN, Cancelled.
Result<BlockEigenResult> blockKrylovTopEigenpairs(const std::function<Eigen::MatrixXd(const Eigen::MatrixXd&)>& product,
                                                  Eigen::Index d, int wanted, const BlockEigenOptions& options = {},
                                                  Feedback* feedback = nullptr);

}  // namespace dplda
