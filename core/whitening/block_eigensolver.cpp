#include "core/whitening/block_eigensolver.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/common/random.h"

namespace dplda {

namespace {

// Makes the columns of Z orthonormal and orthogonal to the first `used` columns of K (classical
// Gram–Schmidt on the block, twice, which is enough in floating point), then within the block
// column by column. A column that is (numerically) in the span already is replaced by a random
// direction: the Krylov space has become invariant, and any new direction keeps the basis full.
void orthonormaliseAgainst(Eigen::MatrixXd& Z, const Eigen::MatrixXd& K, Eigen::Index used, RandomSource& rng) {
  const Eigen::Index d = Z.rows();
  const Eigen::VectorXd before = Z.colwise().norm().transpose();
  for (int pass = 0; pass < 2 && used > 0; ++pass) {
    const Eigen::MatrixXd coef = K.leftCols(used).transpose() * Z;
    Z.noalias() -= K.leftCols(used) * coef;
  }
  // Within the block (d·b² work): modified Gram–Schmidt, twice. Only a replaced column (rare) is
  // projected against K again.
  for (Eigen::Index j = 0; j < Z.cols(); ++j) {
    for (int attempt = 0;; ++attempt) {
      if (attempt > 0 && used > 0) {
        for (int pass = 0; pass < 2; ++pass)
          Z.col(j).noalias() -= K.leftCols(used) * (K.leftCols(used).transpose() * Z.col(j));
      }
      for (int pass = 0; pass < 2 && j > 0; ++pass)
        Z.col(j).noalias() -= Z.leftCols(j) * (Z.leftCols(j).transpose() * Z.col(j));
      const double n = Z.col(j).norm();
      const double scale = attempt == 0 ? before[j] : 1.0;
      if (n > 1e-10 * scale && std::isfinite(n)) {
        Z.col(j) /= n;
        break;
      }
      for (Eigen::Index i = 0; i < d; ++i) Z(i, j) = standardNormal(rng);
      Z.col(j).normalize();
    }
  }
}

}  // namespace

Result<BlockEigenResult> blockKrylovTopEigenpairs(const std::function<Eigen::MatrixXd(const Eigen::MatrixXd&)>& product,
                                                  Eigen::Index d, int wanted, const BlockEigenOptions& o,
                                                  Feedback* feedback) {
  if (wanted < 1 || wanted > d) {
    return invalidArgument("the number of eigenpairs must be in [1, d = " + std::to_string(d) + "], got " +
                           std::to_string(wanted));
  }
  if (o.krylovBlocks < 2 || o.maxCycles < 1 || !(o.tolerance > 0.0) || o.oversampling < 0) {
    return invalidArgument("block eigensolver options: need krylovBlocks >= 2, maxCycles >= 1, tolerance > 0");
  }
  const Eigen::Index p = o.oversampling > 0 ? o.oversampling : std::max(8, wanted / 2);
  Eigen::Index b = std::min<Eigen::Index>(d, wanted + p);
  // The basis never exceeds d columns; when two blocks do not fit, one block of all d columns
  // gives the exact answer from one product.
  int q = static_cast<int>(std::min<Eigen::Index>(o.krylovBlocks, d / b));
  if (q < 2) {
    b = d;
    q = 1;
  }
  SeededRandom rng(o.seed);

  Eigen::MatrixXd K(d, b * q), AK(d, b * q);
  Eigen::MatrixXd Z(d, b);
  for (Eigen::Index j = 0; j < b; ++j)
    for (Eigen::Index i = 0; i < d; ++i) Z(i, j) = standardNormal(rng);
  orthonormaliseAgainst(Z, K, 0, rng);
  K.leftCols(b) = Z;

  BlockEigenResult out;
  auto apply = [&](const Eigen::MatrixXd& X) -> Result<Eigen::MatrixXd> {
    if (isCanceled(feedback)) return cancelled();
    Eigen::MatrixXd Y = product(X);
    ++out.blockProducts;
    out.vectorProducts += static_cast<int>(X.cols());
    if (Y.rows() != d || Y.cols() != X.cols() || !Y.allFinite()) {
      return numericalFailure("the operator product returned NaN, infinite values or a wrong shape");
    }
    return Y;
  };
  {
    auto y = apply(K.leftCols(b));
    if (!y.ok()) return y.status();
    AK.leftCols(b) = std::move(y).value();
  }
  double worst = 0.0;
  for (int cycle = 0; cycle < o.maxCycles; ++cycle) {
    ++out.cycles;
    // Extend the basis: block j+1 = orth(A · block j).
    Eigen::Index used = b;
    for (int j = 1; j < q; ++j) {
      Z = AK.middleCols(used - b, b);
      orthonormaliseAgainst(Z, K, used, rng);
      K.middleCols(used, b) = Z;
      auto y = apply(Z);
      if (!y.ok()) return y.status();
      AK.middleCols(used, b) = std::move(y).value();
      used += b;
    }
    // Rayleigh–Ritz on the whole basis.
    Eigen::MatrixXd H = K.leftCols(used).transpose() * AK.leftCols(used);
    H = 0.5 * (H + H.transpose()).eval();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> small(H);
    if (small.info() != Eigen::Success) return numericalFailure("the projected eigenproblem did not converge");
    // Largest algebraic first.
    const Eigen::VectorXd theta = small.eigenvalues().reverse().head(b);
    const Eigen::MatrixXd S = small.eigenvectors().rowwise().reverse().leftCols(b);
    Eigen::MatrixXd V = K.leftCols(used) * S;
    Eigen::MatrixXd AV = AK.leftCols(used) * S;
    const double scale = std::max(small.eigenvalues().cwiseAbs().maxCoeff(), 1e-300);
    out.residuals.resize(wanted);
    for (int j = 0; j < wanted; ++j) out.residuals[j] = (AV.col(j) - theta[j] * V.col(j)).norm() / scale;
    worst = out.residuals.maxCoeff();
    // The trailing value-only pairs need ‖r‖ <= valueTolerance: there is an eigenvalue within ‖r‖
    // of θ. Their vectors sit in a dense part of the spectrum and would converge far more slowly.
    const int vectorPairs = std::max(0, wanted - o.valueOnlyTrailing);
    const bool vectorsDone = vectorPairs == 0 || out.residuals.head(vectorPairs).maxCoeff() <= o.tolerance;
    const bool valuesDone = out.residuals.tail(wanted - vectorPairs).maxCoeff() <= o.valueTolerance ||
                            vectorPairs == wanted;
    reportProgress(feedback, std::min(0.99, std::log10(std::max(worst, 1e-300)) / std::log10(o.tolerance)));
    if ((vectorsDone && valuesDone) || q * b >= d) {
      out.values = theta.head(wanted);
      out.vectors = V.leftCols(wanted);
      return out;
    }
    // Restart from the b leading Ritz vectors; A of them is already known (A V = AK S).
    K.leftCols(b) = V;
    AK.leftCols(b) = AV;
  }
  std::ostringstream msg;
  msg << "the block eigensolver did not converge in " << o.maxCycles << " cycles (" << out.blockProducts
      << " block products): largest relative residual " << worst << " > " << o.tolerance;
  return Status(StatusCode::NotConverged, msg.str());
}

}  // namespace dplda
