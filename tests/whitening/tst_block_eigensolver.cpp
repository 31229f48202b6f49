// M̂2 + E for a noise-dominated E (the whitened release): residuals ‖A U − U Λ‖ and thread-count
// independence of its threaded products; the pass width of the block products; the block
// eigensolver's early Rayleigh–Ritz checks.
#include <QtTest>
#include <omp.h>

#include "core/common/random.h"
#include "core/moments/moments.h"
#include "core/privacy/noise.h"
#include "core/whitening/block_eigensolver.h"
#include "core/whitening/whitening.h"
#include "test_util.h"

using namespace dplda;
using namespace dplda::test;

namespace {

// A symmetric Gaussian matrix with entries of standard deviation sigma, drawn as the release draws it.
Eigen::MatrixXd symmetricNoise(int d, double sigma, std::uint64_t seed) {
  SeededRandom rng(seed);
  return symmetricMatrixNoise<double>(d, sigma, rng).value().toDense();
}

// ‖A U − U Λ‖ / |λ_1| per column, from the dense A.
Eigen::VectorXd residuals(const Eigen::MatrixXd& A, const Eigen::MatrixXd& U, const Eigen::VectorXd& values) {
  const Eigen::MatrixXd R = A * U - U * values.head(U.cols()).asDiagonal();
  return R.colwise().norm().transpose() / std::abs(values[0]);
}

// Q diag(values) Qᵀ for a random orthogonal Q: a symmetric matrix with a known spectrum.
Eigen::MatrixXd withSpectrum(const Eigen::VectorXd& values, std::uint64_t seed) {
  const Eigen::Index d = values.size();
  SeededRandom rng(seed);
  Eigen::MatrixXd G(d, d);
  for (Eigen::Index j = 0; j < d; ++j)
    for (Eigen::Index i = 0; i < d; ++i) G(i, j) = standardNormal(rng);
  const Eigen::MatrixXd Q = Eigen::HouseholderQR<Eigen::MatrixXd>(G).householderQ();
  return Q * values.asDiagonal() * Q.transpose();
}

}  // namespace

class TestBlockEigensolver : public QObject {
  Q_OBJECT
 private slots:
  void noiseDominatedSumWithinStatedAccuracy() {
    // E at the scale that packs the top eigenvalues of M̂2 + E within a few percent of one another
    // (the whitened release at ε ~ 1): the gap-free block Krylov method stops at its pass budget;
    // each of the k + 1 values is a lower bound of the exact one (dense LAPACK on the sum) and
    // within kGapFreeValueAccuracy of it; the residuals it reports are the true ones.
    const int d = kDenseEigenLimit + 200, k = 6;
    const LdaModel model = randomModel(d, k, 1.0, 0.05, 61);
    const Corpus c = sampleCorpus(model, 3000, 30, 120, 62);
    const SecondMomentOperator op(c, 1.0);
    const Eigen::MatrixXd M2 = op.toDense().value();
    const Eigen::MatrixXd E = symmetricNoise(d, 2.0 * M2.norm() / std::sqrt(double(d)), 63);
    const Eigen::MatrixXd sum = M2 + E;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> full(sum);
    const Eigen::VectorXd top = full.eigenvalues().tail(k + 1).reverse();
    QVERIFY(top[k] > 0.9 * top[0]);  // the noise dominates: the spectrum is packed
    const EigenpairsTopK eig = topEigenpairs(releasedSum<float>(op, E), k).value();
    QVERIFY(eig.method.find("block Krylov (single-precision products with the released M2)") != std::string::npos);
    QVERIFY(eig.blockProducts <= kNoisyPasses && eig.blockWidth >= k + 1);
    for (int j = 0; j <= k; ++j) {
      QVERIFY(eig.values[j] <= top[j] + 1e-12 * top[0]);
      QVERIFY2(top[j] - eig.values[j] <= kGapFreeValueAccuracy * top[j],
               qPrintable(QString("pair %1: %2 vs %3").arg(j).arg(eig.values[j]).arg(top[j])));
    }
    const double trueResidual = residuals(sum, eig.vectors, eig.values).maxCoeff();
    // (This E's bottom eigenvalue is larger in magnitude than its top one: the residuals are
    // relative to σ_1 all the same.)
    QVERIFY(-full.eigenvalues()[0] > top[0]);
    // The reported residuals come from float products: within ~1e-6·|σ_1| of the true ones.
    QVERIFY(std::abs(trueResidual - eig.maxResidual) <= 1e-3 * trueResidual);
    QVERIFY(relativeError(eig.vectors.transpose() * eig.vectors, Eigen::MatrixXd::Identity(k, k)) < 1e-12);
  }

  void noisySumWithAClearGapConverges() {
    // Spikes well above the noise (a strong signal at small d): every pair meets the residual
    // test before the budget, and the pairs are LAPACK's.
    const int d = kDenseEigenLimit + 200, k = 5;
    const LdaModel model = randomModel(d, k, 1.0, 0.05, 65);
    const Corpus c = sampleCorpus(model, 3000, 30, 120, 66);
    const SecondMomentOperator op(c, 1.0);
    const Eigen::MatrixXd M2 = op.toDense().value();
    const Eigen::MatrixXd E = symmetricNoise(d, 1e-3 * M2.norm() / std::sqrt(double(d)), 67);
    const Eigen::MatrixXd sum = M2 + E;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> full(sum);
    const Eigen::VectorXd top = full.eigenvalues().tail(k + 1).reverse();
    // In double, to the residual test's 1e-10; in float (the release above kDenseEigenLimit), to
    // its 1e-5, the values then within the float rounding of M̃2.
    const EigenpairsTopK exact = topEigenpairs(releasedSum<double>(op, E), k).value();
    QVERIFY(exact.converged && exact.blockProducts < kNoisyPasses && exact.maxResidual <= 1e-10);
    QVERIFY((exact.values.head(k) - top.head(k)).cwiseAbs().maxCoeff() < 1e-10 * top[0]);
    QVERIFY(residuals(sum, exact.vectors, exact.values).maxCoeff() < 1e-9);
    const EigenpairsTopK eig = topEigenpairs(releasedSum<float>(op, E), k).value();
    QVERIFY(eig.converged);
    QVERIFY(eig.blockProducts < kNoisyPasses);
    QVERIFY(eig.maxResidual <= 1e-5);
    QVERIFY2((eig.values.head(k) - top.head(k)).cwiseAbs().maxCoeff() < 1e-6 * top[0],
             qPrintable(QString::number((eig.values.head(k) - top.head(k)).cwiseAbs().maxCoeff() / top[0])));
    QVERIFY(residuals(sum, eig.vectors, eig.values).maxCoeff() < 2e-5);
  }

  void noisySumDoesNotDependOnThreadCount() {
    // M̃2 is formed column by column and its products run in fixed chunks of its lower triangle,
    // both threaded: 1 or 3 threads, the same bits.
    const int d = kDenseEigenLimit + 100, k = 5;
    const LdaModel model = randomModel(d, k, 1.0, 0.05, 71);
    const Corpus c = sampleCorpus(model, 6000, 30, 150, 72);
    QVERIFY(c.counts.nonZeros() > 200000);  // the count passes are threaded
    const SecondMomentOperator op(c, 1.0);
    const Eigen::MatrixXd E = symmetricNoise(d, 1e-3, 73);
    std::vector<EigenpairsTopK> runs;
    for (int threads : {1, 3}) {
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      runs.push_back(topEigenpairs(releasedSum<float>(op, E), k).value());
      omp_set_num_threads(before);
    }
    QVERIFY(runs[0].values == runs[1].values && runs[0].vectors == runs[1].vectors);
    QCOMPARE(runs[0].operatorProducts, runs[1].operatorProducts);
  }

  void passWidthChangesNoBit() {
    // The count pass takes 2, 4 or 8 vectors at a time by the block's width and d; each column's
    // sums are formed in the same order whatever the width, so the columns agree bit for bit (a
    // single column is left out: its rank-one correction is a dot product, not a GEMM).
    const int d = 600;
    const LdaModel model = randomModel(d, 5, 1.0, 0.05, 81);
    const Corpus c = sampleCorpus(model, 4000, 30, 150, 82);
    const SecondMomentOperator op(c, 1.0);
    const Eigen::MatrixXd X = Eigen::MatrixXd::Random(d, 11);
    const Eigen::MatrixXd wide = op.apply(X);
    QVERIFY(wide.leftCols(2) == op.apply(X.leftCols(2)));
    QVERIFY(wide.leftCols(4) == op.apply(X.leftCols(4)));
    QVERIFY(wide.middleCols(8, 3) == op.apply(X.middleCols(8, 3)));  // 8 per pass, then 4
    QVERIFY(relativeError(wide, op.toDense().value() * X) < 1e-12);
  }

  void trailingValueStopsAtItsTolerance() {
    // Four separated eigenvalues above a packed cluster: σ_5 (value only) sits in the cluster, where
    // its residual falls slowly. Its tolerance of the NYT setting (kTrailingValueTolerance) takes
    // fewer products than 1e-7 and leaves its value within that tolerance ·λ_1 of the exact one,
    // from below (a Ritz value is a lower bound); the four vector pairs are the same to 1e-10.
    const int d = 900;
    Eigen::VectorXd spectrum = Eigen::VectorXd::LinSpaced(d, 0.0, 1.0);
    spectrum.tail(4) << 1.5, 1.7, 2.0, 2.4;
    for (int i = 0; i < 40; ++i) spectrum[d - 5 - i] = 1.0 - 2e-4 * i;  // the cluster under σ_5 = 1
    const Eigen::MatrixXd A = withSpectrum(spectrum, 91);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> full(A);
    const Eigen::VectorXd exact = full.eigenvalues().tail(5).reverse();
    auto product = [&](const Eigen::MatrixXd& X) { return Eigen::MatrixXd(A * X); };
    BlockEigenOptions tight;
    tight.valueOnlyTrailing = 1;
    tight.checkEvery = 1;
    tight.maxCycles = 1000;
    BlockEigenOptions loose = tight;
    loose.valueTolerance = kTrailingValueTolerance;
    const BlockEigenResult slow = blockKrylovTopEigenpairs(product, d, 5, tight).value();
    const BlockEigenResult fast = blockKrylovTopEigenpairs(product, d, 5, loose).value();
    QVERIFY(fast.converged && slow.converged);
    QVERIFY2(fast.blockProducts < slow.blockProducts,
             qPrintable(QString("%1 vs %2 products").arg(fast.blockProducts).arg(slow.blockProducts)));
    QVERIFY(fast.residuals.head(4).maxCoeff() <= 1e-10 && fast.residuals[4] <= kTrailingValueTolerance);
    QVERIFY((fast.values.head(4) - exact.head(4)).cwiseAbs().maxCoeff() < 1e-10);
    QVERIFY(fast.values[4] <= exact[4] + 1e-14);
    QVERIFY2(exact[4] - fast.values[4] <= kTrailingValueTolerance * exact[0],
             qPrintable(QString::number(exact[4] - fast.values[4])));
  }

  void gapFreeModeStopsEarlyOnAClearGap() {
    // The pass budget is an upper bound: with a clear gap every pair meets the residual test first
    // (converged), and the pairs are LAPACK's (values to 1e-10, vectors up to sign).
    const int d = 700, wanted = 6;
    Eigen::VectorXd spectrum = Eigen::VectorXd::LinSpaced(d, -1.0, 1.0);
    spectrum.tail(wanted) << 3.0, 3.5, 4.0, 5.0, 6.0, 8.0;
    const Eigen::MatrixXd A = withSpectrum(spectrum, 93);
    auto product = [&](const Eigen::MatrixXd& X) { return Eigen::MatrixXd(A * X); };
    BlockEigenOptions o;
    o.blockSize = 8;
    o.passBudget = 30;
    o.basisSize = 8 * 31;
    o.maxCycles = 1;
    o.checkEvery = 2;
    const BlockEigenResult r = blockKrylovTopEigenpairs(product, d, wanted, o).value();
    QVERIFY(r.converged);
    QVERIFY(r.blockProducts < 30);
    QVERIFY(r.residuals.maxCoeff() <= 1e-10);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> full(A);
    const Eigen::VectorXd exact = full.eigenvalues().tail(wanted).reverse();
    QVERIFY((r.values - exact).cwiseAbs().maxCoeff() < 1e-10);
    const Eigen::MatrixXd U = full.eigenvectors().rightCols(wanted).rowwise().reverse();
    QVERIFY(((U.transpose() * r.vectors).cwiseAbs() - Eigen::MatrixXd::Identity(wanted, wanted)).cwiseAbs().maxCoeff() < 1e-9);
  }

  void earlyChecksStopSooner() {
    // Rayleigh–Ritz after every block stops at the first block that meets the tolerance; with
    // checks only at a full basis the same run goes on to the basis' end. Both meet the tolerance.
    const int d = 500;
    Eigen::VectorXd diag = Eigen::VectorXd::LinSpaced(d, 0.0, 1.0);
    diag.tail(4) << 2.0, 3.0, 4.0, 5.0;
    const Eigen::MatrixXd Q = Eigen::HouseholderQR<Eigen::MatrixXd>(Eigen::MatrixXd::Random(d, d)).householderQ();
    const Eigen::MatrixXd A = Q * diag.asDiagonal() * Q.transpose();
    auto product = [&](const Eigen::MatrixXd& X) { return Eigen::MatrixXd(A * X); };
    BlockEigenOptions late;
    late.blockSize = 8;
    late.basisSize = 200;
    BlockEigenOptions early = late;
    early.checkEvery = 1;
    const BlockEigenResult a = blockKrylovTopEigenpairs(product, d, 4, late).value();
    const BlockEigenResult b = blockKrylovTopEigenpairs(product, d, 4, early).value();
    QVERIFY(a.residuals.maxCoeff() <= 1e-10 && b.residuals.maxCoeff() <= 1e-10);
    QVERIFY(b.blockProducts < a.blockProducts);
    QCOMPARE(a.blockProducts, 25);  // 200 columns in blocks of 8
    QCOMPARE(b.blockWidth, 8);
    QVERIFY((b.values - Eigen::Vector4d(5.0, 4.0, 3.0, 2.0)).cwiseAbs().maxCoeff() < 1e-10);
  }

  void cheapEstimateNeverMovesTheStop() {
    // The explicit residual check is skipped at passes whose estimate ‖Zᵀ A K s‖ is far above the
    // tolerances. It must stop exactly where checking explicitly after every pass stops: the first
    // pass p at which a run with a budget of p passes (explicit residuals at its last pass) meets
    // both tolerances. The trailing-value case above, NYT-like block 2, through restarts; mutated
    // to skip every check but the explicit one at a full basis, it fails.
    const int d = 900;
    Eigen::VectorXd spectrum = Eigen::VectorXd::LinSpaced(d, 0.0, 1.0);
    spectrum.tail(4) << 1.5, 1.7, 2.0, 2.4;
    for (int i = 0; i < 40; ++i) spectrum[d - 5 - i] = 1.0 - 2e-4 * i;
    const Eigen::MatrixXd A = withSpectrum(spectrum, 95);
    auto product = [&](const Eigen::MatrixXd& X) { return Eigen::MatrixXd(A * X); };
    BlockEigenOptions o;
    o.valueOnlyTrailing = 1;
    o.valueTolerance = 1e-5;
    o.checkEvery = 1;
    o.maxCycles = 1000;
    const BlockEigenResult run = blockKrylovTopEigenpairs(product, d, 5, o).value();
    QVERIFY(run.converged && run.cycles > 1);
    int first = 0;  // the last 6 passes (all of them took minutes): a stop on the estimate comes late or early there
    for (int p = std::max(1, run.blockProducts - 5); p <= run.blockProducts && first == 0; ++p) {
      BlockEigenOptions budget = o;
      budget.passBudget = p;
      const BlockEigenResult r = blockKrylovTopEigenpairs(product, d, 5, budget).value();
      if (r.converged) {
        first = p;
        QVERIFY(r.values == run.values && r.residuals == run.residuals);
      }
    }
    QCOMPARE(first, run.blockProducts);
  }
};

QTEST_APPLESS_MAIN(TestBlockEigensolver)
#include "tst_block_eigensolver.moc"
