#include "core/whitening/block_eigensolver.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "core/common/huge_pages.h"
#include "core/common/random.h"
#include "core/linalg/dense_eigen.h"

namespace dplda {

namespace {

// The d x (wide) products below run on the OpenMP threads in fixed chunks of rows: how many
// chunks depends on d only, and partial sums are added in chunk order, so the bits do not
// depend on the thread count.
constexpr Eigen::Index kRowChunk = 512;

Eigen::Index rowChunks(Eigen::Index d) { return (d + kRowChunk - 1) / kRowChunk; }

// Aᵀ B (a sum over the rows), chunk partials added in order.
Eigen::MatrixXd transposeTimes(const Eigen::Ref<const Eigen::MatrixXd>& A, const Eigen::Ref<const Eigen::MatrixXd>& B) {
  const Eigen::Index d = A.rows(), chunks = rowChunks(d);
  std::vector<Eigen::MatrixXd> part(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (Eigen::Index c = 0; c < chunks; ++c) {
    const Eigen::Index r0 = c * kRowChunk, n = std::min(kRowChunk, d - r0);
    part[static_cast<std::size_t>(c)].noalias() = A.middleRows(r0, n).transpose() * B.middleRows(r0, n);
  }
  Eigen::MatrixXd out = std::move(part[0]);
  for (Eigen::Index c = 1; c < chunks; ++c) out += part[static_cast<std::size_t>(c)];
  return out;
}

// out = A C (rows independent), chunk by chunk; `subtract`: out −= A C.
void timesInto(const Eigen::Ref<const Eigen::MatrixXd>& A, const Eigen::MatrixXd& C, Eigen::Ref<Eigen::MatrixXd> out,
               bool subtract) {
  const Eigen::Index d = A.rows(), chunks = rowChunks(d);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (Eigen::Index c = 0; c < chunks; ++c) {
    const Eigen::Index r0 = c * kRowChunk, n = std::min(kRowChunk, d - r0);
    if (subtract)
      out.middleRows(r0, n).noalias() -= A.middleRows(r0, n) * C;
    else
      out.middleRows(r0, n).noalias() = A.middleRows(r0, n) * C;
  }
}

// Makes the columns of Z orthonormal and orthogonal to the first `used` columns of K (classical
// Gram–Schmidt on the block, twice, which is enough in floating point), then within the block
// column by column. A column that is (numerically) in the span already is replaced by a random
// direction: the Krylov space has become invariant, and any new direction keeps the basis full.
void orthonormaliseAgainst(Eigen::MatrixXd& Z, const Eigen::MatrixXd& K, Eigen::Index used, RandomSource& rng) {
  const Eigen::Index d = Z.rows();
  const Eigen::VectorXd before = Z.colwise().norm().transpose();
  for (int pass = 0; pass < 2 && used > 0; ++pass) timesInto(K.leftCols(used), transposeTimes(K.leftCols(used), Z), Z, true);
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
  if (o.blockSize < 1 || o.maxCycles < 1 || !(o.tolerance > 0.0) || o.oversampling < 0 || o.basisSize < 0 ||
      o.passBudget < 0) {
    return invalidArgument("block eigensolver options: need blockSize >= 1, maxCycles >= 1, tolerance > 0, "
                           "passBudget >= 0");
  }
  // keep: Ritz vectors kept at a restart; m: the basis size at which a cycle ends. When the basis
  // would hold all of R^d, one cycle with m = d gives the exact answer.
  const Eigen::Index s = std::min<Eigen::Index>(o.blockSize, d);
  const Eigen::Index keep = std::min<Eigen::Index>(d, wanted + (o.oversampling > 0 ? o.oversampling : std::max(2, wanted / 4)));
  Eigen::Index m = o.basisSize > 0 ? o.basisSize : std::max<Eigen::Index>(2 * wanted + 1, wanted + 20);
  m = std::max(m, keep + s);
  if (m + s > d) m = d;
  SeededRandom rng(o.seed);

  // H = Kᵀ A K, filled a block of columns at a time (and its transpose), diagonal after a restart.
  Eigen::MatrixXd K(d, m), AK(d, m), H(m, m);
  // Untouched yet: on huge pages they fault in 2 MiB at a time (26 MB each in the whitened release).
  adviseHugePages(K.data(), sizeof(double) * static_cast<std::size_t>(K.size()));
  adviseHugePages(AK.data(), sizeof(double) * static_cast<std::size_t>(AK.size()));
  Eigen::MatrixXd Z(d, s);
  for (Eigen::Index j = 0; j < s; ++j)
    for (Eigen::Index i = 0; i < d; ++i) Z(i, j) = standardNormal(rng);
  orthonormaliseAgainst(Z, K, 0, rng);

  BlockEigenResult out;
  out.blockWidth = static_cast<int>(s);
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
  Eigen::Index used = 0;
  double worst = 0.0;
  out.cycles = 1;
  int blocksSinceCheck = 0;
  const int vectorPairs = std::max(0, wanted - o.valueOnlyTrailing);
  for (;;) {
    // Extend the basis by a block: K gets Z, then Z = orth(A Z) against all of K (the pending block:
    // A K lies in span(K, Z), so after a restart the kept Ritz vectors' residuals lie in span(Z)).
    // Full blocks only, except a last narrow one that completes R^d (the answer is then exact).
    const Eigen::Index width = std::min(s, d - used);
    const bool budgetLeft = o.passBudget == 0 || out.blockProducts < o.passBudget;
    if (used + width <= m && budgetLeft) {
      if (width < Z.cols()) Z.conservativeResize(Eigen::NoChange, width);
      K.middleCols(used, width) = Z;
      auto y = apply(Z);
      if (!y.ok()) return y.status();
      AK.middleCols(used, width) = y.value();
      const Eigen::MatrixXd column = transposeTimes(K.leftCols(used + width), AK.middleCols(used, width));
      H.block(0, used, used + width, width) = column;
      H.block(used, 0, width, used) = column.topRows(used).transpose();
      H.block(used, used, width, width) = 0.5 * (column.bottomRows(width) + column.bottomRows(width).transpose());
      used += width;
      Z = std::move(y).value();
      if (used < d) orthonormaliseAgainst(Z, K, used, rng);
      ++blocksSinceCheck;
    }
    // Rayleigh–Ritz when the basis is full or the budget spent, and every checkEvery blocks once
    // it holds the kept vectors and a block (a check costs O(d m·keep + m³), a small part of a pass).
    const bool full = used + std::min(s, d - used) > m || used >= d;
    const bool spent = o.passBudget > 0 && out.blockProducts >= o.passBudget;
    const bool early = o.checkEvery > 0 && blocksSinceCheck >= o.checkEvery && used >= std::min<Eigen::Index>(keep + s, m);
    if (!full && !spent && !early) continue;
    blocksSinceCheck = 0;
    // Largest algebraic first (M̂2 is indefinite); LAPACK's dsyevd, ascending.
    auto small = linalg::symmetricEigen(H.topLeftCorner(used, used));
    if (!small.ok()) return numericalFailure("the projected eigenproblem did not converge");
    const Eigen::Index kept = std::min(keep, used);
    const Eigen::VectorXd theta = small.value().values.reverse().head(kept);
    const Eigen::MatrixXd S = small.value().vectors.rowwise().reverse().leftCols(kept);
    // Relative to |θ_1| as documented (the top of M̂2 + E, not the bottom end of the noise, which
    // can be larger in magnitude); the largest |θ| only when θ_1 is 0.
    const double scale = std::max(theta[0] != 0.0 ? std::abs(theta[0]) : small.value().values.cwiseAbs().maxCoeff(), 1e-300);
    // Before the explicit check, its cost (forming V and A V, 2 d·used·kept flops) spared at the
    // passes that cannot meet it: A K = K H + Z (Zᵀ A K) up to rounding (full reorthogonalisation:
    // only the newest block's products leave span(K), into the pending block Z), so ‖A u − θ u‖
    // = ‖Zᵀ A K s‖ for u = K s. The explicit residuals still decide; the estimate, a factor of 4
    // above the tolerances, only skips checks whose outcome it knows (rounding moves it by far less).
    if (!full && !spent && used < d) {
      const Eigen::MatrixXd estimate = transposeTimes(Z, AK.leftCols(used)) * S.leftCols(wanted);
      bool hopeless = false;
      for (int j = 0; j < wanted; ++j) {
        const double limit = 4.0 * (j < vectorPairs ? o.tolerance : o.valueTolerance);
        hopeless = hopeless || estimate.col(j).norm() / scale > limit;
      }
      if (hopeless) continue;
    }
    Eigen::MatrixXd V(d, kept), AV(d, kept);
    timesInto(K.leftCols(used), S, V, false);
    timesInto(AK.leftCols(used), S, AV, false);
    out.residuals.resize(wanted);
    for (int j = 0; j < wanted; ++j) out.residuals[j] = (AV.col(j) - theta[j] * V.col(j)).norm() / scale;
    worst = out.residuals.maxCoeff();
    // The trailing value-only pairs need ‖r‖ <= valueTolerance only: their vectors sit in a dense
    // part of the spectrum and would converge far more slowly.
    const bool vectorsDone = vectorPairs == 0 || out.residuals.head(vectorPairs).maxCoeff() <= o.tolerance;
    const bool valuesDone =
        vectorPairs == wanted || out.residuals.tail(wanted - vectorPairs).maxCoeff() <= o.valueTolerance;
    reportProgress(feedback, std::min(0.99, std::log10(std::max(worst, 1e-300)) / std::log10(o.tolerance)));
    const bool converged = (vectorsDone && valuesDone) || used >= d;
    if (converged || spent) {
      out.converged = converged;
      out.values = theta.head(wanted);
      out.vectors = V.leftCols(wanted);
      return out;
    }
    if (!full) continue;
    if (out.cycles >= o.maxCycles) break;
    // Thick restart: keep the leading Ritz vectors (A of them is known: A V = AK S; VᵀAV = diag θ)
    // and go on from the pending block, re-orthogonalised against them (it already is, up to rounding).
    ++out.cycles;
    K.leftCols(kept) = V;
    AK.leftCols(kept) = AV;
    H.topLeftCorner(kept, kept) = theta.asDiagonal();
    used = kept;
    orthonormaliseAgainst(Z, K, used, rng);
  }
  std::ostringstream msg;
  msg << "the block eigensolver did not converge in " << o.maxCycles << " cycles (" << out.blockProducts
      << " block products): largest relative residual " << worst << " > " << o.tolerance;
  return Status(StatusCode::NotConverged, msg.str());
}

}  // namespace dplda
