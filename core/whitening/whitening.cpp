#include "core/whitening/whitening.h"

#include <limits>

#include <Spectra/MatOp/DenseSymMatProd.h>
#include <Spectra/SymEigsSolver.h>

#include <algorithm>
#include <cmath>
#include <sstream>

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

// Top k+1 eigenpairs by Lanczos (Spectra, fixed-seed start: deterministic) for any operator
// with rows() and perform_op(); the largest algebraic eigenvalues, as M2 needs.
template <class Op>
Result<EigenpairsTopK> lanczosTopK(Op& op, int k, const std::string& method) {
  const int d = static_cast<int>(op.rows());
  const int nev = k + 1;
  const int ncv = std::min(d, std::max(2 * nev + 1, nev + 20));
  Spectra::SymEigsSolver<Op> solver(op, nev, ncv);
  solver.init();
  solver.compute(Spectra::SortRule::LargestAlge, 1000, 1e-12);
  if (solver.info() != Spectra::CompInfo::Successful) {
    return Status(StatusCode::NotConverged, "the Lanczos eigensolver did not converge for the top " +
                                                std::to_string(nev) + " eigenpairs of M2");
  }
  EigenpairsTopK out;
  out.values = solver.eigenvalues();
  out.vectors = solver.eigenvectors().leftCols(k);
  out.method = method;
  fixSigns(out.vectors);
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
  if (k < 1 || k > d) {
    return invalidArgument("the number of topics k = " + std::to_string(k) + " must be in [1, d = " +
                           std::to_string(d) + "]");
  }
  if (!symmetric.allFinite()) return numericalFailure("the second moment contains NaN or infinite entries");
  if (d > kDenseEigenLimit && k + 2 < d) {
    // Large d (e.g. a noisy M2 release): Lanczos on dense products, O(d^2) per product
    // instead of the O(d^3) full decomposition.
    Spectra::DenseSymMatProd<double> op(symmetric);
    return lanczosTopK(op, k, "Spectra Lanczos (dense products)");
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(symmetric);
  if (solver.info() != Eigen::Success) return numericalFailure("the dense eigensolver did not converge");
  const int m = std::min(k + 1, d);
  EigenpairsTopK out;
  // Eigen sorts ascending: take the last m, reversed.
  out.values = solver.eigenvalues().tail(m).reverse();
  out.vectors = solver.eigenvectors().rightCols(k).rowwise().reverse();
  out.method = "dense self-adjoint eigensolver";
  fixSigns(out.vectors);
  return out;
}

Result<EigenpairsTopK> topEigenpairs(const SecondMomentOperator& op, int k, Feedback* feedback) {
  const int d = static_cast<int>(op.rows());
  if (k < 1 || k > d) {
    return invalidArgument("the number of topics k = " + std::to_string(k) + " must be in [1, d = " +
                           std::to_string(d) + "]");
  }
  if (d <= kDenseEigenLimit || k + 2 >= d) {
    auto dense = op.toDense(feedback);
    if (!dense.ok()) return dense.status();
    return topEigenpairs(dense.value(), k);
  }
  // Spectra wants a non-const perform_op(const double*, double*).
  struct CountingOp {
    using Scalar = double;
    const SecondMomentOperator* op;
    mutable int products = 0;
    Eigen::Index rows() const { return op->rows(); }
    Eigen::Index cols() const { return op->cols(); }
    void perform_op(const double* x, double* y) const {
      ++products;
      op->perform_op(x, y);
    }
  } counting{&op};
  auto out = lanczosTopK(counting, k, "Spectra Lanczos (matrix-free)");
  if (isCanceled(feedback)) return cancelled();
  if (out.ok()) out.value().operatorProducts = counting.products;
  return out;
}

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
