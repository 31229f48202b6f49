#include "core/whitening/whitening.h"

#include <limits>

#include <Spectra/MatOp/DenseSymMatProd.h>
#include <Spectra/SymEigsSolver.h>

#include "core/linalg/dense_eigen.h"
#include "core/whitening/block_eigensolver.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <type_traits>

namespace dplda {

namespace {

// Eigenvectors are defined up to sign, and W and W+ may come from different decompositions
// (different releases of M2): without a convention their bases disagree and unwhitening
// scrambles the topics. Each column gets its largest-magnitude entry positive; this is
// post-processing of one decomposition, so it costs no privacy.
void fixSigns(Eigen::MatrixXd& vectors) {
  for (Eigen::Index c = 0; c < vectors.cols(); ++c) {
    Eigen::Index arg = 0;
    vectors.col(c).cwiseAbs().maxCoeff(&arg);
    if (vectors(arg, c) < 0.0) vectors.col(c) = -vectors.col(c);
  }
}

// M̂2 for Spectra, counting its products. Products read the 4-byte copy of the counts when one
// can be made (`packed`, kept only for the Lanczos run; the same bits as the doubles).
struct SecondMomentProducts {
  const SecondMomentOperator* op;
  PackedCounts packed;
  mutable int products = 0;
  Eigen::Index rows() const { return op->rows(); }
  Eigen::Index cols() const { return op->cols(); }
  void perform_op(const double* x, double* y) const {
    ++products;
    op->perform_op(x, y, packed);
  }
  Eigen::MatrixXd apply(const Eigen::MatrixXd& V) const { return op->apply(V, packed); }
};

Status checkTopicCount(int k, int d) {
  if (k >= 1 && k <= d) return Status();
  return invalidArgument("the number of topics k = " + std::to_string(k) + " must be in [1, d = " +
                         std::to_string(d) + "]");
}

// The full decomposition up to d = kDenseEigenLimit, and where Lanczos cannot run (it needs
// k + 1 eigenpairs with k + 2 < d); Lanczos above.
bool denseDecompositionPays(int d, int k) { return d <= kDenseEigenLimit || k + 2 >= d; }

struct LanczosCancelled {};

// Op's products, with the feedback's cancel checked before each: Spectra has no cancel of its
// own, and at NYTimes scale a run takes ~90 passes over the counts. Thrown out of Spectra (its
// state is local to lanczosTopK) and caught there.
template <class Op>
struct CancellableOp {
  using Scalar [[maybe_unused]] = double;  // read by Spectra
  Op& op;
  Feedback* feedback;
  Eigen::Index rows() const { return op.rows(); }
  Eigen::Index cols() const { return op.cols(); }
  void perform_op(const double* x, double* y) const {
    if (isCanceled(feedback)) throw LanczosCancelled{};
    op.perform_op(x, y);
  }
};

// Top k+1 eigenpairs by Lanczos (Spectra, fixed-seed start: deterministic) for any operator
// with rows() and perform_op(); the largest algebraic eigenvalues, as M2 needs. Cancelled
// between two products when the feedback says so.
template <class Op>
Result<EigenpairsTopK> lanczosTopK(Op& op, int k, const std::string& method, Feedback* feedback = nullptr) {
  const int d = static_cast<int>(op.rows());
  const int nev = k + 1;
  const int ncv = std::min(d, std::max(2 * nev + 1, nev + 20));
  CancellableOp<Op> cancellable{op, feedback};
  Spectra::SymEigsSolver<CancellableOp<Op>> solver(cancellable, nev, ncv);
  try {
    solver.init();
    solver.compute(Spectra::SortRule::LargestAlge, 1000, 1e-12);
  } catch (const LanczosCancelled&) {
    return cancelled();
  }
  if (solver.info() != Spectra::CompInfo::Successful) {
    return Status(StatusCode::NotConverged, "the Lanczos eigensolver did not converge for the top " +
                                                std::to_string(nev) + " eigenpairs of M2");
  }
  EigenpairsTopK out;
  out.values = solver.eigenvalues();
  out.vectors = solver.eigenvectors();  // all k+1: the caller checks residuals, then keeps k
  out.method = method;
  return out;
}

// max_j ‖A u_j − σ_j u_j‖ / |σ_1| for the pairs (values, vectors), given A·vectors.
double relativeResidual(const Eigen::MatrixXd& product, const Eigen::MatrixXd& vectors, const Eigen::VectorXd& values) {
  if (values.size() == 0) return 0.0;
  const Eigen::Index m = std::min<Eigen::Index>(values.size(), vectors.cols());
  const double scale = std::max(std::abs(values[0]), std::abs(values[values.size() - 1]));
  double worst = 0.0;
  for (Eigen::Index j = 0; j < m; ++j)
    worst = std::max(worst, (product.col(j) - values[j] * vectors.col(j)).norm());
  return scale > 0.0 ? worst / scale : worst;
}

// The k+1 pairs are kept for the residual; the output keeps k vectors with the sign convention.
void finishTopK(EigenpairsTopK& out, int k, const Eigen::MatrixXd& product) {
  out.maxResidual = relativeResidual(product, out.vectors, out.values);
  out.vectors.conservativeResize(Eigen::NoChange, k);
  fixSigns(out.vectors);
}

// The k + 1 pairs of the block method as topEigenpairs' result (k vectors, signs fixed).
EigenpairsTopK fromBlock(const BlockEigenResult& block, int k, const std::string& what) {
  EigenpairsTopK out;
  out.values = block.values;
  out.vectors = block.vectors.leftCols(k);
  fixSigns(out.vectors);
  out.maxResidual = block.residuals.head(k).maxCoeff();
  out.trailingResidual = block.residuals[block.residuals.size() - 1];
  out.converged = block.converged;
  out.operatorProducts = block.vectorProducts;
  out.blockProducts = block.blockProducts;
  out.blockWidth = block.blockWidth;
  out.method = what + " (" + std::to_string(block.blockProducts) + " passes of " + std::to_string(block.blockWidth) +
               " vectors)";
  return out;
}

}  // namespace

Status validateTopicCount(int k, int vocabSize, int docCount) {
  if (k < 1) return invalidArgument("the number of topics k must be >= 1, got " + std::to_string(k));
  if (k > vocabSize) {
    return invalidArgument("the number of topics k = " + std::to_string(k) +
                           " exceeds the vocabulary size d = " + std::to_string(vocabSize));
  }
  if (k >= docCount) {
    return invalidArgument("the number of topics k = " + std::to_string(k) +
                           " must be smaller than the number of documents N = " + std::to_string(docCount));
  }
  return Status::ok();
}

Result<EigenpairsTopK> topEigenpairs(const Eigen::MatrixXd& symmetric, int k) {
  const int d = static_cast<int>(symmetric.rows());
  if (symmetric.cols() != d) return invalidArgument("the second moment must be square");
  DPLDA_RETURN_IF_ERROR(checkTopicCount(k, d));
  if (!symmetric.allFinite()) return numericalFailure("the second moment contains NaN or infinite entries");
  if (!denseDecompositionPays(d, k)) {
    // Large d (e.g. a noisy M2 release): Lanczos on dense products, O(d^2) per product
    // instead of the O(d^3) full decomposition.
    Spectra::DenseSymMatProd<double> op(symmetric);
    auto out = lanczosTopK(op, k, "Spectra Lanczos (dense products)");
    if (!out.ok()) return out;
    finishTopK(out.value(), k, symmetric * out.value().vectors);
    return out;
  }
  // The full decomposition through LAPACK dsyevd (core/linalg: 2-5x faster than Eigen's solver).
  auto full = linalg::symmetricEigen(symmetric);
  if (!full.ok()) return full.status();
  const int m = std::min(k + 1, d);
  EigenpairsTopK out;
  // Ascending order: take the last m, reversed.
  out.values = full.value().values.tail(m).reverse();
  out.vectors = full.value().vectors.rightCols(m).rowwise().reverse();
  out.method = "dense self-adjoint eigensolver (LAPACK dsyevd)";
  finishTopK(out, k, symmetric * out.vectors);
  return out;
}

Result<EigenpairsTopK> topEigenpairs(const SecondMomentOperator& op, int k, Feedback* feedback,
                                     EigenSolverChoice solver) {
  const int d = static_cast<int>(op.rows());
  DPLDA_RETURN_IF_ERROR(checkTopicCount(k, d));
  const bool smallProblem = denseDecompositionPays(d, k);
  if (solver == EigenSolverChoice::Dense || (solver == EigenSolverChoice::Automatic && smallProblem) ||
      (solver == EigenSolverChoice::Spectra && k + 2 >= d)) {  // Lanczos needs nev < d
    auto dense = op.toDense(feedback);
    if (!dense.ok()) return dense.status();
    return topEigenpairs(dense.value(), k);
  }
  if (solver == EigenSolverChoice::Spectra) {
    SecondMomentProducts counting{&op, op.packCounts()};  // ~90 products
    auto out = lanczosTopK(counting, k, "Spectra Lanczos (matrix-free)", feedback);
    if (!out.ok()) return out;
    out.value().operatorProducts = counting.products;
    finishTopK(out.value(), k, counting.apply(out.value().vectors));
    return out;
  }
  // Block Lanczos (block_eigensolver.h). Tolerance on ‖M̂2u − σu‖/|σ_1|: 1e-10 for the k vectors
  // of W (the rounding floor of the products is ~4e-12); σ_{k+1}, wanted for the gap only and inside
  // the noise bulk, to kTrailingValueTolerance. Rayleigh–Ritz after every pass, so the run stops at
  // the first pass that meets both. The passes read the 4-byte copy of the counts when one can be made.
  BlockEigenOptions options;
  options.valueOnlyTrailing = 1;
  options.valueTolerance = kTrailingValueTolerance;
  options.checkEvery = 1;
  const PackedCounts packed = op.packCounts();
  HugePageArray<double> rows;  // the passes' rows, allocated once
  auto block = blockKrylovTopEigenpairs([&](const Eigen::MatrixXd& X) { return op.apply(X, packed, &rows); }, d,
                                        k + 1, options, feedback);
  if (!block.ok()) return block.status();
  return fromBlock(block.value(), k, "block Lanczos (matrix-free)");
}

bool releasedSecondMomentInFloat(int d, int k) { return !denseDecompositionPays(d, k); }

template <class Scalar>
Result<EigenpairsTopK> topEigenpairs(const PackedSymmetric<Scalar>& released, int k, Feedback* feedback) {
  const int d = static_cast<int>(released.rows());
  DPLDA_RETURN_IF_ERROR(checkTopicCount(k, d));
  if (!released.allFinite()) return numericalFailure("the released second moment contains NaN or infinite entries");
  if (denseDecompositionPays(d, k)) return topEigenpairs(released.toDense(), k);
  // Randomized block Krylov (block_eigensolver.h, gap-free mode): a block of b >= k + 1 vectors,
  // kNoisyPasses passes, each one pass over the released matrix's lower triangle, Rayleigh–Ritz
  // over the whole Krylov space; it stops sooner when every pair meets the residual test.
  const int wanted = k + 1;
  BlockEigenOptions options;
  options.blockSize = std::max(kNoisyBlock, (wanted + 7) / 8 * 8);
  options.passBudget = kNoisyPasses;
  options.basisSize = options.blockSize * (options.passBudget + 1);
  options.maxCycles = 1;
  options.checkEvery = 4;
  options.valueOnlyTrailing = 1;
  constexpr bool single = std::is_same_v<Scalar, float>;
  if (single) {
    // The residuals of float products stop near 1e-6·|σ_1| (entries rounded to 6e-8 of themselves,
    // ‖|E|‖ ~ 0.4 √d ‖E‖ for a noise matrix): the early stop asks what they can reach.
    options.tolerance = 1e-5;
    options.valueTolerance = 1e-4;
  }
  HugePageArray<Scalar> scratch;  // the passes' working memory, allocated once
  auto block = blockKrylovTopEigenpairs([&](const Eigen::MatrixXd& X) { return released.times(X, &scratch); }, d,
                                        wanted, options, feedback);
  if (!block.ok()) return block.status();
  return fromBlock(block.value(), k,
                   single ? "randomized block Krylov (single-precision products with the released M2)"
                       : "randomized block Krylov (products with the released M2)");
}
template Result<EigenpairsTopK> topEigenpairs(const PackedSymmetric<double>&, int, Feedback*);
template Result<EigenpairsTopK> topEigenpairs(const PackedSymmetric<float>&, int, Feedback*);

double eigengap(const Eigen::VectorXd& sigma, int k) {
  double g = std::numeric_limits<double>::infinity();
  const int last = std::min<int>(k, static_cast<int>(sigma.size()) - 1);  // gaps σ_i − σ_{i+1}, i < last+1
  for (int i = 0; i < last; ++i) g = std::min(g, sigma[i] - sigma[i + 1]);
  return g;
}

Result<Whitening> whitenFromEigenpairs(const EigenpairsTopK& eig, int k) {
  if (eig.vectors.cols() < k || eig.values.size() < k) {
    return invalidArgument("need " + std::to_string(k) + " eigenpairs, got " + std::to_string(eig.vectors.cols()));
  }
  const double sigmaK = eig.values[k - 1];
  if (!(sigmaK > 0.0)) {
    std::ostringstream msg;
    msg << "whitening is undefined: the k-th eigenvalue of M2 is sigma_k = " << sigmaK
        << " <= 0 (k = " << k << " may exceed the number of topics the data supports, or noise swamped M2)";
    return numericalFailure(msg.str());
  }
  Whitening w;
  w.U = eig.vectors.leftCols(k);
  w.sigma = eig.values;
  const Eigen::VectorXd s = eig.values.head(k);
  w.W = w.U * s.cwiseSqrt().cwiseInverse().asDiagonal();
  w.unwhitening = w.U * s.cwiseSqrt().asDiagonal();
  w.method = eig.method;
  return w;
}

}  // namespace dplda
