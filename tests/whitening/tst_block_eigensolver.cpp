// M̂2 + E for a noise-dominated E (the whitened release): residuals ‖A U − U Λ‖ and thread-count
// independence of its threaded products; the pass width of the block products; the block
// eigensolver's early Rayleigh–Ritz checks.
#include <QtTest>
#include <omp.h>

#include "core/common/random.h"
#include "core/moments/moments.h"
#include "core/whitening/block_eigensolver.h"
#include "core/whitening/whitening.h"
#include "test_util.h"

using namespace dplda;
using namespace dplda::test;

namespace {

// A symmetric Gaussian matrix with entries of standard deviation sigma, drawn as the release draws it.
Eigen::MatrixXd symmetricNoise(int d, double sigma, std::uint64_t seed) {
  SeededRandom rng(seed);
  Eigen::MatrixXd E(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = i; j < d; ++j) E(i, j) = E(j, i) = sigma * standardNormal(rng);
  return E;
}

// ‖A U − U Λ‖ / |λ_1| per column, from the dense A.
Eigen::VectorXd residuals(const Eigen::MatrixXd& A, const Eigen::MatrixXd& U, const Eigen::VectorXd& values) {
  const Eigen::MatrixXd R = A * U - U * values.head(U.cols()).asDiagonal();
  return R.colwise().norm().transpose() / std::abs(values[0]);
}

}  // namespace

class TestBlockEigensolver : public QObject {
  Q_OBJECT
 private slots:
  void noiseDominatedSumConverges() {
    // E at the scale that packs the top eigenvalues of M̂2 + E within a few percent of one another
    // (the whitened release at ε ~ 1): the k + 1 pairs, σ_{k+1} included, checked on the dense sum;
    // the same eigenvalues as the full dense decomposition.
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
    const EigenpairsTopK eig = topEigenpairs(op, E, k).value();
    QVERIFY(eig.method.find("matrix-free M2 + dense noise") != std::string::npos);
    QVERIFY(eig.maxResidual <= 1e-10);
    QVERIFY(residuals(sum, eig.vectors, eig.values).maxCoeff() < 1e-9);
    QVERIFY((eig.values - top).cwiseAbs().maxCoeff() < 1e-10 * top[0]);
    QVERIFY(relativeError(eig.vectors.transpose() * eig.vectors, Eigen::MatrixXd::Identity(k, k)) < 1e-12);
  }

  void noisySumDoesNotDependOnThreadCount() {
    // E x runs in fixed chunks of E's lower triangle and M̂2 x in fixed lanes, both threaded: 1 or 3
    // threads, the same bits.
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
      runs.push_back(topEigenpairs(op, E, k).value());
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
};

QTEST_APPLESS_MAIN(TestBlockEigensolver)
#include "tst_block_eigensolver.moc"
