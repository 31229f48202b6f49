// Whitening: WᵀM̂2W = I, eigen residuals ‖M U − U Σ‖, dense and matrix-free solvers agree,
// σ_k <= 0 and bad k give clear statuses.
#include <QtTest>

#include <limits>
#include <omp.h>

#include "core/moments/moments.h"
#include "core/whitening/block_eigensolver.h"
#include "core/whitening/whitening.h"
#include "test_util.h"

using namespace dplda;
using namespace dplda::test;

class TestWhitening : public QObject {
  Q_OBJECT
 private slots:
  void whiteningIsIsometric() {
    const LdaModel model = randomModel(40, 5, 1.0, 0.1, 2);
    const Corpus c = sampleCorpus(model, 2000, 20, 80, 3);
    const Eigen::MatrixXd M2 = secondMomentDense(c, 1.0).value();
    const EigenpairsTopK eig = topEigenpairs(M2, 5).value();
    QCOMPARE(eig.values.size(), Eigen::Index(6));
    for (int i = 0; i + 1 < eig.values.size(); ++i) QVERIFY(eig.values[i] >= eig.values[i + 1]);
    const Whitening w = whitenFromEigenpairs(eig, 5).value();
    QVERIFY(relativeError(w.W.transpose() * M2 * w.W, Eigen::MatrixXd::Identity(5, 5)) < 1e-10);
    // Residual of the eigenpairs and orthonormality.
    const Eigen::MatrixXd residual = M2 * w.U - w.U * eig.values.head(5).asDiagonal();
    QVERIFY(residual.norm() < 1e-12 * M2.norm());
    QVERIFY(relativeError(w.U.transpose() * w.U, Eigen::MatrixXd::Identity(5, 5)) < 1e-12);
    // (Wᵀ)⁺ is the pseudo-inverse of Wᵀ: Wᵀ (Wᵀ)⁺ = I.
    QVERIFY(relativeError(w.W.transpose() * w.unwhitening, Eigen::MatrixXd::Identity(5, 5)) < 1e-12);
    QVERIFY(w.gap() > 0.0);
  }

  void lanczosMatchesDense() {
    // d above the dense limit forces Spectra.
    const int d = kDenseEigenLimit + 200;
    const LdaModel model = randomModel(d, 6, 1.0, 0.05, 4);
    const Corpus c = sampleCorpus(model, 3000, 30, 120, 5);
    const SecondMomentOperator op(c, 1.0);
    const EigenpairsTopK lanczos = topEigenpairs(op, 6, nullptr, EigenSolverChoice::Spectra).value();
    QVERIFY(lanczos.method.find("Spectra") != std::string::npos);
    QVERIFY(lanczos.maxResidual < 1e-9);
    QVERIFY(lanczos.operatorProducts > 0);
    const Eigen::MatrixXd M2 = op.toDense().value();
    const EigenpairsTopK dense = topEigenpairs(M2, 6).value();  // d above the limit: dense products
    QVERIFY(dense.method.find("dense products") != std::string::npos);
    // The reference: the full dense decomposition.
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> full(M2);
    QVERIFY(relativeError(dense.values, full.eigenvalues().tail(7).reverse()) < 1e-9);
    QVERIFY(relativeError(lanczos.values, dense.values) < 1e-9);
    const Eigen::MatrixXd residual = M2 * lanczos.vectors - lanczos.vectors * lanczos.values.head(6).asDiagonal();
    QVERIFY(residual.norm() < 1e-9 * M2.norm());
  }

  void blockMatchesDenseOnSmallD() {
    // The block Lanczos method forced on a small vocabulary: eigenvalues, eigenvectors (after the
    // sign convention) and residuals against the full dense decomposition.
    const LdaModel model = randomModel(300, 6, 1.0, 0.1, 21);
    const Corpus c = sampleCorpus(model, 4000, 20, 80, 22);
    const SecondMomentOperator op(c, 1.0);
    const EigenpairsTopK block = topEigenpairs(op, 6, nullptr, EigenSolverChoice::Block).value();
    QVERIFY(block.method.find("block Lanczos") != std::string::npos);
    QVERIFY(block.blockProducts > 0);
    const Eigen::MatrixXd M2 = op.toDense().value();
    const EigenpairsTopK dense = topEigenpairs(M2, 6).value();
    QCOMPARE(block.values.size(), Eigen::Index(7));
    QVERIFY(relativeError(block.values.head(6), dense.values.head(6)) < 1e-10);
    // σ_{k+1}: value only, from below (a Ritz value), within its residual tolerance.
    QVERIFY(block.values[6] <= dense.values[6] + 1e-12 * dense.values[0]);
    QVERIFY(dense.values[6] - block.values[6] <= kTrailingValueTolerance * dense.values[0]);
    QVERIFY(block.trailingResidual <= kTrailingValueTolerance);
    QVERIFY(relativeError(block.vectors, dense.vectors) < 1e-8);
    QVERIFY(block.maxResidual < 1e-10);
    QVERIFY(dense.maxResidual < 1e-12);
    const Eigen::MatrixXd residual = M2 * block.vectors - block.vectors * block.values.head(6).asDiagonal();
    QVERIFY(residual.norm() < 1e-9 * M2.norm());
    // Deterministic: same input, same bits.
    const EigenpairsTopK again = topEigenpairs(op, 6, nullptr, EigenSolverChoice::Block).value();
    QVERIFY(again.values == block.values && again.vectors == block.vectors);
  }

  void blockMatchesSpectraOnMediumCorpus() {
    // Above the dense limit: the block method (the automatic choice) against Spectra.
    const int d = kDenseEigenLimit + 500;
    const LdaModel model = randomModel(d, 8, 1.0, 0.05, 31);
    const Corpus c = sampleCorpus(model, 6000, 30, 150, 32);
    const SecondMomentOperator op(c, 1.0);
    const EigenpairsTopK block = topEigenpairs(op, 8, nullptr, EigenSolverChoice::Block).value();
    const EigenpairsTopK lanczos = topEigenpairs(op, 8, nullptr, EigenSolverChoice::Spectra).value();
    // Above the dense limit the automatic choice is the block method.
    const EigenpairsTopK automatic = topEigenpairs(op, 8).value();
    QVERIFY(automatic.values == block.values && automatic.vectors == block.vectors);
    QVERIFY(lanczos.method.find("Spectra") != std::string::npos);
    QVERIFY(block.method.find("block Lanczos") != std::string::npos);
    // σ_{k+1} is held to a residual of kTrailingValueTolerance·σ_1 by the block method, the others to 1e-10.
    QVERIFY(relativeError(block.values.head(8), lanczos.values.head(8)) < 1e-9);
    QVERIFY(std::abs(block.values[8] - lanczos.values[8]) <= kTrailingValueTolerance * lanczos.values[0]);
    QVERIFY(relativeError(block.vectors, lanczos.vectors) < 1e-7);
    QVERIFY(block.maxResidual < 1e-10);
    // Fewer passes over the counts than Lanczos' one per vector.
    QVERIFY(block.blockProducts < lanczos.operatorProducts);
    const Whitening wb = whitenFromEigenpairs(block, 8).value(), wl = whitenFromEigenpairs(lanczos, 8).value();
    QVERIFY(relativeError(wb.W, wl.W) < 1e-6);
  }

  void releasedSumMatchesTheDenseSum() {
    // M̃2 = M̂2 + E formed column by column (the whitened release): against LAPACK on the dense
    // sum, below the dense limit (the same dense decomposition, M̃2 held in double) and above it
    // (the gap-free block Krylov method on float products).
    for (const int d : {300, kDenseEigenLimit + 200}) {
      const LdaModel model = randomModel(d, 6, 1.0, 0.05, 51);
      const Corpus c = sampleCorpus(model, 3000, 30, 120, 52);
      const SecondMomentOperator op(c, 1.0);
      const Eigen::MatrixXd M2 = op.toDense().value();
      Eigen::MatrixXd E = Eigen::MatrixXd::Random(d, d);
      E = 1e-4 * (E + E.transpose()).eval();
      const Eigen::MatrixXd dense = M2 + E;
      const EigenpairsTopK ref = topEigenpairs(dense, 6).value();
      if (!releasedSecondMomentInFloat(d, 6)) {
        const EigenpairsTopK sum = topEigenpairs(releasedSum<double>(op, E), 6).value();
        QVERIFY(sum.method == ref.method);
        QVERIFY((sum.values - ref.values).cwiseAbs().maxCoeff() <= 1e-12 * ref.values[0]);
        QVERIFY(relativeError(sum.vectors, ref.vectors) < 1e-9);
        continue;
      }
      const EigenpairsTopK sum = topEigenpairs(releasedSum<float>(op, E), 6).value();
      QVERIFY(sum.method.find("single-precision products with the released M2") != std::string::npos);
      // Within the gap-free method's stated accuracy (from below, up to M̃2's float rounding), with
      // the residuals it reports being the true ones (to the float products' ~1e-6·|σ_1|): E's bulk
      // reaches the lower pairs, which do not converge in the budget.
      for (int j = 0; j < 7; ++j) {
        QVERIFY(sum.values[j] <= ref.values[j] + 1e-6 * ref.values[0]);
        QVERIFY(ref.values[j] - sum.values[j] <= kGapFreeValueAccuracy * std::abs(ref.values[j]));
      }
      const Eigen::MatrixXd residual = dense * sum.vectors - sum.vectors * sum.values.head(6).asDiagonal();
      QVERIFY(std::abs(residual.colwise().norm().maxCoeff() / ref.values[0] - sum.maxResidual) <= 1e-3 * sum.maxResidual + 1e-6);
      QVERIFY(relativeError(sum.vectors.transpose() * sum.vectors, Eigen::MatrixXd::Identity(6, 6)) < 1e-12);
      // Cancelled between two products, in the block method and in Spectra's Lanczos.
      Feedback fb;
      fb.cancel();
      QCOMPARE(topEigenpairs(releasedSum<float>(op, E), 6, &fb).status().code(), StatusCode::Cancelled);
      QCOMPARE(topEigenpairs(op, 6, &fb, EigenSolverChoice::Spectra).status().code(), StatusCode::Cancelled);
    }
    QCOMPARE(topEigenpairs(PackedSymmetricMatrix(19), 30).status().code(), StatusCode::InvalidArgument);  // k > d
    Eigen::MatrixXd bad = Eigen::MatrixXd::Identity(1300, 1300);
    bad(1200, 7) = std::numeric_limits<double>::quiet_NaN();
    QCOMPARE(topEigenpairs(PackedSymmetricFloat::fromLower(bad), 5).status().code(), StatusCode::NumericalFailure);
  }

  void matrixFreeProductDoesNotDependOnThreadCount() {
    // Lanczos' product x -> M̂2 x runs in fixed lanes of documents (16 here) summed in order: one
    // thread or three give the same bits, for the product and for the eigenpairs built on it.
    const int d = kDenseEigenLimit + 200;
    const LdaModel model = randomModel(d, 6, 1.0, 0.05, 41);
    const Corpus c = sampleCorpus(model, 6000, 30, 150, 42);
    QVERIFY(c.counts.nonZeros() > 16 * 16 * d);  // 16 lanes, and above the threading threshold
    const SecondMomentOperator op(c, 1.0);
    const Eigen::VectorXd x = Eigen::VectorXd::Random(d);
    std::vector<EigenpairsTopK> blocks;  // the block method's pairs, with 1 and 3 threads
    auto run = [&](int threads, Eigen::VectorXd& y) {
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      y.resize(d);
      op.perform_op(x.data(), y.data());
      EigenpairsTopK eig = topEigenpairs(op, 6, nullptr, EigenSolverChoice::Spectra).value();
      blocks.push_back(topEigenpairs(op, 6, nullptr, EigenSolverChoice::Block).value());
      omp_set_num_threads(before);
      return eig;
    };
    Eigen::VectorXd yOne, yThree;
    const EigenpairsTopK one = run(1, yOne), three = run(3, yThree);
    QVERIFY(yOne == yThree);
    QVERIFY(one.values == three.values && one.vectors == three.vectors);
    QVERIFY(blocks[0].values == blocks[1].values && blocks[0].vectors == blocks[1].vectors);
    QCOMPARE(one.operatorProducts, three.operatorProducts);
    const Eigen::MatrixXd M2 = op.toDense().value();
    QVERIFY(relativeError(yOne, M2 * x) < 1e-12);
    QVERIFY(relativeError(yOne, op.apply(x)) < 1e-12);
  }

  void packedCountsGiveTheSameProducts() {
    // The 4-byte copy of the counts (word << 16 | count) must give the products of the doubles bit
    // for bit, single and block, odd block widths included (the last pass is zero-padded).
    const int d = kDenseEigenLimit + 100;
    const LdaModel model = randomModel(d, 5, 1.0, 0.05, 51);
    const Corpus c = sampleCorpus(model, 4000, 30, 150, 52);
    const SecondMomentOperator op(c, 1.0);
    QVERIFY(op.packCounts().empty());  // below the default size threshold: not worth a copy
    const PackedCounts packed = op.packCounts(0);
    QCOMPARE(packed.size(), static_cast<std::size_t>(c.counts.nonZeros()));
    const Eigen::VectorXd x = Eigen::VectorXd::Random(d);
    Eigen::VectorXd plain(d), fromPacked(d);
    op.perform_op(x.data(), plain.data());
    op.perform_op(x.data(), fromPacked.data(), packed);
    QVERIFY(plain == fromPacked);
    const Eigen::MatrixXd X = Eigen::MatrixXd::Random(d, 3);
    const Eigen::MatrixXd block = op.apply(X), blockPacked = op.apply(X, packed);
    QVERIFY(block == blockPacked);
    const Eigen::MatrixXd M2 = op.toDense().value();
    QVERIFY(relativeError(block, M2 * X) < 1e-12);
    // A count that does not fit in 16 bits (or a fractional one) keeps the doubles.
    Corpus big = c;
    big.counts.valuePtr()[0] = 70000.0;
    QVERIFY(SecondMomentOperator(big, 1.0).packCounts(0).empty());
    Corpus fractional = c;
    fractional.counts.valuePtr()[5] = 2.5;
    QVERIFY(SecondMomentOperator(fractional, 1.0).packCounts(0).empty());
  }

  void blockTakesLargestAlgebraic() {
    // Large negative eigenvalues must not crowd out the small positive ones asked for.
    const int d = 400;
    Eigen::VectorXd diag = Eigen::VectorXd::LinSpaced(d, -1e-3, 1e-3);
    diag.head(5) << -50.0, -40.0, -30.0, -20.0, -10.0;
    diag.tail(3) << 3.0, 2.0, 1.0;
    const Eigen::MatrixXd Q = Eigen::HouseholderQR<Eigen::MatrixXd>(Eigen::MatrixXd::Random(d, d)).householderQ();
    const Eigen::MatrixXd A = Q * diag.asDiagonal() * Q.transpose();
    auto r = blockKrylovTopEigenpairs([&](const Eigen::MatrixXd& X) { return Eigen::MatrixXd(A * X); }, d, 4);
    QVERIFY(r.ok());
    QVERIFY(std::abs(r.value().values[0] - 3.0) < 1e-9);
    QVERIFY(std::abs(r.value().values[2] - 1.0) < 1e-9);
    std::vector<double> sorted(diag.data(), diag.data() + d);
    std::sort(sorted.rbegin(), sorted.rend());
    QVERIFY(std::abs(r.value().values[3] - sorted[3]) < 1e-9);
    QVERIFY(r.value().residuals.maxCoeff() < 1e-10);
    // A product that returns NaN, and a cancelled run, give statuses.
    auto nan = blockKrylovTopEigenpairs(
        [&](const Eigen::MatrixXd& X) { return Eigen::MatrixXd(Eigen::MatrixXd::Constant(d, X.cols(), std::nan(""))); }, d, 4);
    QCOMPARE(nan.status().code(), StatusCode::NumericalFailure);
    Feedback fb;
    fb.cancel();
    QCOMPARE(blockKrylovTopEigenpairs([&](const Eigen::MatrixXd& X) { return Eigen::MatrixXd(A * X); }, d, 4, {}, &fb)
                 .status()
                 .code(),
             StatusCode::Cancelled);
    QCOMPARE(blockKrylovTopEigenpairs([&](const Eigen::MatrixXd& X) { return Eigen::MatrixXd(A * X); }, d, 0)
                 .status()
                 .code(),
             StatusCode::InvalidArgument);
  }

  void signsFollowOneConvention() {
    // Two decompositions of slightly different matrices (e.g. two releases of M2) must give
    // the same signs, or unwhitening with one and whitening with the other scrambles topics.
    const LdaModel model = randomModel(30, 4, 1.0, 0.1, 9);
    const Corpus c = sampleCorpus(model, 5000, 20, 60, 1);
    const Eigen::MatrixXd M2 = secondMomentDense(c, 1.0).value();
    const EigenpairsTopK base = topEigenpairs(M2, 4).value();
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      SeededRandom rng(seed);
      Eigen::MatrixXd E(30, 30);
      for (int i = 0; i < 30; ++i)
        for (int j = 0; j <= i; ++j) E(i, j) = E(j, i) = 1e-7 * standardNormal(rng);
      const EigenpairsTopK other = topEigenpairs(M2 + E, 4).value();
      for (int col = 0; col < 4; ++col) QVERIFY(base.vectors.col(col).dot(other.vectors.col(col)) > 0.9);
      // The convention itself: the largest-magnitude entry is positive.
      for (int col = 0; col < 4; ++col) QVERIFY(other.vectors.col(col).maxCoeff() >= -other.vectors.col(col).minCoeff());
    }
  }

  void nonPositiveSigmaKFails() {
    // A rank-2 matrix asked for 3 topics: σ_3 = 0, whitening undefined.
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(5, 5);
    A(0, 0) = 2.0;
    A(1, 1) = 1.0;
    auto w = whitenFromEigenpairs(topEigenpairs(A, 3).value(), 3);
    QVERIFY(!w.ok());
    QCOMPARE(w.status().code(), StatusCode::NumericalFailure);
    QVERIFY(w.status().message().find("sigma_k") != std::string::npos);
    // Negative after noise.
    A(2, 2) = -0.5;
    QCOMPARE(whitenFromEigenpairs(topEigenpairs(A, 3).value(), 3).status().code(), StatusCode::NumericalFailure);
  }

  void badTopicCounts() {
    QCOMPARE(validateTopicCount(0, 10, 100).code(), StatusCode::InvalidArgument);
    const Status tooMany = validateTopicCount(11, 10, 100);
    QCOMPARE(tooMany.code(), StatusCode::InvalidArgument);
    QVERIFY(tooMany.message().find("exceeds the vocabulary size d = 10") != std::string::npos);
    QVERIFY(validateTopicCount(5, 10, 5).message().find("documents") != std::string::npos);
    QVERIFY(validateTopicCount(5, 10, 6).isOk());
    Eigen::MatrixXd nanM = Eigen::MatrixXd::Identity(4, 4);
    nanM(1, 2) = std::nan("");
    QCOMPARE(topEigenpairs(nanM, 2).status().code(), StatusCode::NumericalFailure);
  }
};

QTEST_APPLESS_MAIN(TestWhitening)
#include "tst_whitening.moc"
