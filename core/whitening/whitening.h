#pragma once
// Whitening (SPEC §4): top-k eigenpairs (U, Σ) of the symmetric M̂2 (or of a noisy release of
// it), W = U Σ^{-1/2} with WᵀM̂2W = I, and the unwhitening matrix (Wᵀ)⁺ = U Σ^{1/2}.
#include <Eigen/Dense>
#include <string>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/linalg/packed_symmetric.h"
#include "core/moments/moments.h"

namespace dplda {

struct EigenpairsTopK {
  Eigen::MatrixXd vectors;       // d x k, orthonormal columns, sorted by eigenvalue descending
  Eigen::VectorXd values;        // σ_1 .. σ_{k+1} (only k when d == k)
  std::string method;            // the solver, e.g. "dense self-adjoint eigensolver (LAPACK dsyevd)"
  int operatorProducts = 0;      // matrix-free products used, counted per vector (0 for dense)
  int blockProducts = 0;         // block products of the block method (0 otherwise)
  int blockWidth = 0;            // vectors per block product (0 unless the block method)
  // max_j ‖M̂2 u_j − σ_j u_j‖ / |σ_1|: the check of every solver (~1e-15 dense, <= 1e-10 block
  // Krylov, Spectra's 1e-12 relative to each σ_j). Over σ_1..σ_{k+1}, except for the block method,
  // which reports the k pairs of W and holds σ_{k+1}'s residual (a bound on its error) to 1e-5 on M̂2
  // alone, 1e-7 on M̂2 + E (where the pass budget may stop it sooner: `converged`).
  double maxResidual = 0.0;
  double trailingResidual = 0.0;  // the block method: σ_{k+1}'s ‖M u − σ u‖ / |σ_1| (0 otherwise)
  // false when the gap-free block Krylov method (M̂2 + E) stopped at its pass budget: the values
  // are then within its stated accuracy, not within the residual test's (see topEigenpairs below).
  bool converged = true;
};

struct Whitening {
  Eigen::MatrixXd U;           // d x k
  Eigen::VectorXd sigma;       // σ_1 .. σ_{k+1} of the input matrix (σ_{k+1} absent if d == k)
  Eigen::MatrixXd W;           // U Σ_k^{-1/2}
  Eigen::MatrixXd unwhitening; // (Wᵀ)⁺ = U Σ_k^{1/2}
  std::string method;
  int topicCount() const { return static_cast<int>(U.cols()); }
  double sigmaK() const { return sigma[topicCount() - 1]; }
  // σ_k − σ_{k+1}; σ_k itself when d == k.
  double gap() const { return sigma.size() > topicCount() ? sigmaK() - sigma[topicCount()] : sigmaK(); }
  // Flips the whitened coordinates: columns of U, W and (Wᵀ)⁺ times signs (±1 each).
  void applyColumnSigns(const Eigen::VectorXd& signs) {
    U = U * signs.asDiagonal();
    W = W * signs.asDiagonal();
    unwhitening = unwhitening * signs.asDiagonal();
  }
};

// g = min_{i<=k} (σ_i − σ_{i+1}) over σ_1..σ_{k+1} (only the k−1 gaps within the top k when
// d = k; +∞ when k = d = 1): the separation the sound whitening bounds need (docs/PRIVACY.md §3).
double eigengap(const Eigen::VectorXd& sigmaDescending, int k);

// Vocabularies up to this size use a dense eigensolver; above it a matrix-free solver.
inline constexpr int kDenseEigenLimit = 1000;

// The gap-free block Krylov method on M̂2 + E: vectors per block (at least k + 1) and passes
// (the accuracy stated for it: kGapFreeValueAccuracy, block_eigensolver.h).
inline constexpr int kNoisyBlock = 16;
inline constexpr int kNoisyPasses = 24;

// σ_{k+1} of M̂2 is wanted for its value only (the eigengap σ_k − σ_{k+1}); the block method stops
// it at ‖M̂2 u − θ u‖ <= this · |θ_1|, the k vectors of W at 1e-10. θ <= σ_{k+1} (interlacing) and
// its error falls with the square of the residual: on the NYT-sized corpora of issue 27 it is
// 4.7e-6·σ_1 and 6.9e-6·σ_1, the eigengap within 0.04 % and 0.07 % of itself, from 23 and 28
// passes where a residual of 1e-5 took 29 and 38 (its vector sits at the edge of the noise bulk,
// 0.8 % from its neighbour on seed 5, and converges slowly; docs/BENCHMARKS.md).
inline constexpr double kTrailingValueTolerance = 1e-4;

// Which solver topEigenpairs(operator) uses. Automatic: dense up to kDenseEigenLimit, else Block,
// the thick-restart block Lanczos of block_eigensolver.h (2 vectors per pass over the counts; only
// σ_{k+1}'s value is asked for): measured in issue 11 (docs/BENCHMARKS.md) it needs 37 passes where
// Spectra's Lanczos needs 88 at NYTimes scale (k = 20), with the same topics, about 2x faster.
// Spectra: Lanczos, one pass per vector, kept as the reference. Dense: forms M̂2 (d² doubles).
enum class EigenSolverChoice { Automatic, Dense, Spectra, Block };

Status validateTopicCount(int k, int vocabSize, int docCount);

// Top k+1 eigenpairs of a dense symmetric matrix.
Result<EigenpairsTopK> topEigenpairs(const Eigen::MatrixXd& symmetric, int k);
// Top k+1 eigenpairs from products with M̂2 (deterministic starts), O(nnz) per product.
Result<EigenpairsTopK> topEigenpairs(const SecondMomentOperator& op, int k, Feedback* feedback = nullptr,
                                     EigenSolverChoice solver = EigenSolverChoice::Automatic);
// Top k+1 eigenpairs of a released symmetric matrix, packed (core/linalg/packed_symmetric.h): the
// whitened release M̃2 = M̂2ᶜ + E, formed in double (symmetricMatrixNoise with M̂2ᶜ's columns).
// Where topEigenpairs(dense) would decompose fully (d <= kDenseEigenLimit or k + 2 >= d), it is
// decomposed so (then hold it in double). Otherwise the randomized block Krylov method
// (block_eigensolver.h, gap-free mode) with kNoisyBlock vectors on its products (the tiles read
// once per pass, in fixed chunks): it stops when every pair has ‖M̃2 u − σu‖ <= 1e-10·|σ_1|
// (σ_{k+1}: 1e-7) or after kNoisyPasses passes, whatever the gaps (at ε ~ 1 the noise packs the
// top eigenvalues within ~2e-6 of one another, and converged pairs would need ~200 passes). At
// the budget, `converged` is false and the values are within kGapFreeValueAccuracy of the exact
// ones (and below them); the residuals are reported. There, hold M̃2 in float
// (releasedSecondMomentInFloat): the products' rounding (~1e-6 relative) is far below that
// accuracy, and they run twice as fast; the early stop then asks 1e-5 (σ_{k+1}: 1e-4). The result does not depend on the thread count.
bool releasedSecondMomentInFloat(int d, int k);
template <class Scalar>
Result<EigenpairsTopK> topEigenpairs(const PackedSymmetric<Scalar>& released, int k, Feedback* feedback = nullptr);

// Builds W and (Wᵀ)⁺ from eigenpairs. Fails with NumericalFailure when σ_k <= 0 (whitening is
// undefined, which noise can cause), naming σ_k.
Result<Whitening> whitenFromEigenpairs(const EigenpairsTopK& eig, int k);

}  // namespace dplda
