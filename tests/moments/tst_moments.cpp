// The moment estimators: exact unbiasedness (by averaging), the whitened tensor against the
// explicit M̂3, the matrix-free operator against the dense M̂2, and the memory guard.
#include <QtTest>
#include <omp.h>

#include "core/moments/moment_lanes.h"
#include "core/moments/moments.h"
#include "core/whitening/whitening.h"
#include "test_util.h"

using namespace dplda;
using namespace dplda::test;

namespace {

// M̂2 without the same-document exclusion in its a-term: biased. Must fail the unbiasedness test.
Eigen::MatrixXd biasedSecondMoment(const Corpus& c, double alpha0) {
  const double a = MomentConstants::fromAlpha0(alpha0).a;
  const Eigen::VectorXd m1 = firstMoment(c);
  const double N = c.docCount();
  const Eigen::MatrixXd unbiased = secondMomentDense(c, alpha0).value();
  // Unbiased a-term is a/(N(N−1))(S1S1ᵀ − Σ m mᵀ); replace it by a m1 m1ᵀ.
  Eigen::MatrixXd sumOuter = Eigen::MatrixXd::Zero(c.vocabSize(), c.vocabSize());
  for (int n = 0; n < c.docCount(); ++n) {
    const Eigen::VectorXd m = c.counts.row(n).transpose() / c.lengths[n];
    sumOuter += m * m.transpose();
  }
  const Eigen::VectorXd S1 = m1 * N;
  const Eigen::MatrixXd unbiasedTerm = a / (N * (N - 1.0)) * (S1 * S1.transpose() - sumOuter);
  return unbiased + unbiasedTerm - a * m1 * m1.transpose();
}

struct Accumulator {
  Eigen::ArrayXd sum, sumSq;
  int count = 0;
  explicit Accumulator(Eigen::Index n) : sum(Eigen::ArrayXd::Zero(n)), sumSq(Eigen::ArrayXd::Zero(n)) {}
  void add(const Eigen::ArrayXd& x) {
    sum += x;
    sumSq += x * x;
    ++count;
  }
  // max over entries of |mean − truth| / (standard error of the mean)
  double maxZ(const Eigen::ArrayXd& truth) const {
    const Eigen::ArrayXd mean = sum / count;
    const Eigen::ArrayXd var = ((sumSq / count - mean * mean) * count / (count - 1.0)).max(1e-300);
    return ((mean - truth).abs() / (var / count).sqrt()).maxCoeff();
  }
};

Eigen::ArrayXd flat(const Tensor3& t) { return Eigen::Map<const Eigen::ArrayXd>(t.data(), t.size()); }
Eigen::ArrayXd flat(const Eigen::MatrixXd& m) { return Eigen::Map<const Eigen::ArrayXd>(m.data(), m.size()); }

}  // namespace

class TestMoments : public QObject {
  Q_OBJECT
 private slots:
  void estimatorsAreUnbiased() {
    // Average M̂2 and M̂3 over many small corpora from one model. Every entry must lie within
    // 5 standard errors of the population moment (252 entries: a false alarm has probability
    // < 1e-3); the biased M̂2 must fail by far. Short documents (3-6 tokens) and few documents
    // (N = 12) make the same-document corrections large, so an error in them shows.
    const int d = 6, k = 3, N = 12, reps = 6000;
    const LdaModel model = randomModel(d, k, 1.5, 0.6, 3);
    Accumulator m2(d * d), m3(d * d * d), biased(d * d);
    for (int r = 0; r < reps; ++r) {
      const Corpus c = sampleCorpus(model, N, 3, 6, 1000 + r);
      m2.add(flat(secondMomentDense(c, model.alpha0()).value()));
      m3.add(flat(thirdMomentExplicit(c, model.alpha0()).value()));
      biased.add(flat(biasedSecondMoment(c, model.alpha0())));
    }
    const double z2 = m2.maxZ(flat(populationM2(model)));
    const double z3 = m3.maxZ(flat(populationM3(model)));
    const double zBiased = biased.maxZ(flat(populationM2(model)));
    qInfo("max z: M2 %.2f, M3 %.2f, biased M2 %.2f", z2, z3, zBiased);
    QVERIFY2(z2 < 5.0, "M2 is biased");
    QVERIFY2(z3 < 5.0, "M3 is biased");
    QVERIFY2(zBiased > 8.0, "the power check failed: the test cannot see a biased estimator");
  }

  void estimatesAreProbabilityObjects() {
    // Each M̃ⁿ sums to 1; so do M̂1, M̂2 and M̂3 (their corrections cancel in the sum).
    const LdaModel model = randomModel(9, 3, 1.0, 0.3, 5);
    const Corpus c = sampleCorpus(model, 50, 3, 20, 9);
    QVERIFY(std::abs(firstMoment(c).sum() - 1.0) < 1e-12);
    QVERIFY(std::abs(secondMomentDense(c, 1.0).value().sum() - (1.0 - MomentConstants::fromAlpha0(1.0).a)) < 1e-12);
  }

  void whitenedTensorMatchesExplicit() {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const int d = 14, k = 4;
      const LdaModel model = randomModel(d, k, 0.8, 0.2, seed);
      const Corpus c = sampleCorpus(model, 300, 3, 40, 100 + seed);
      const double a0 = model.alpha0();
      const Eigen::MatrixXd M2 = secondMomentDense(c, a0).value();
      const Whitening w = whitenFromEigenpairs(topEigenpairs(M2, k).value(), k).value();
      const Tensor3 fromDocs = whitenedThirdMoment(c, a0, w.W).value();
      const Tensor3 explicitT = thirdMomentExplicit(c, a0).value().multilinear(w.W);
      const double err = relativeError(fromDocs, explicitT);
      qInfo("seed %d: relative error %.3e", int(seed), err);
      QVERIFY2(err < 1e-10, "whitened tensor differs from M3(W,W,W)");
      QVERIFY(fromDocs.isSymmetric(1e-13));
      // Any W (not only a whitening one), including more columns than topics.
      Eigen::MatrixXd R = Eigen::MatrixXd::Random(d, 6);
      QVERIFY(relativeError(whitenedThirdMoment(c, a0, R).value(), thirdMomentExplicit(c, a0).value().multilinear(R)) <
              1e-10);
    }
  }

  void operatorMatchesDense() {
    const LdaModel model = randomModel(30, 4, 1.0, 0.1, 8);
    const Corpus c = sampleCorpus(model, 400, 3, 60, 4);
    const Eigen::MatrixXd M2 = secondMomentDense(c, 1.0).value();
    // Reference: the SPEC §3 formula entry by entry, document by document.
    const double N = c.docCount(), a = MomentConstants::fromAlpha0(1.0).a;
    Eigen::MatrixXd S2 = Eigen::MatrixXd::Zero(30, 30), outer = S2;
    Eigen::VectorXd S1 = Eigen::VectorXd::Zero(30);
    for (int n = 0; n < c.docCount(); ++n) {
      const Eigen::VectorXd x = c.counts.row(n).transpose();
      const double l = c.lengths[n];
      S2 += (x * x.transpose() - Eigen::MatrixXd(x.asDiagonal())) / (l * (l - 1.0));
      outer += x * x.transpose() / (l * l);
      S1 += x / l;
    }
    const Eigen::MatrixXd reference = S2 / N - a / (N * (N - 1.0)) * (S1 * S1.transpose() - outer);
    QVERIFY(relativeError(M2, reference) < 1e-12);
    const SecondMomentOperator op(c, 1.0);
    const Eigen::MatrixXd X = Eigen::MatrixXd::Random(30, 3);
    QVERIFY(relativeError(op.apply(X), reference * X) < 1e-12);
    Eigen::VectorXd y(30);
    op.perform_op(X.col(0).data(), y.data());
    QVERIFY(relativeError(y, reference * X.col(0)) < 1e-12);
  }

  void explicitThirdMomentIsGuarded() {
    const LdaModel model = randomModel(40, 2, 1.0, 0.5, 1);
    const Corpus c = sampleCorpus(model, 20, 3, 5, 1);
    auto r = thirdMomentExplicit(c, 1.0, /*maxBytes=*/1000);
    QVERIFY(!r.ok());
    QCOMPARE(r.status().code(), StatusCode::ResourceLimit);
    QVERIFY(r.status().message().find("MiB") != std::string::npos);
    QVERIFY(r.status().message().find("40") != std::string::npos);
  }

  void badInputsAreRejected() {
    const LdaModel model = randomModel(10, 2, 1.0, 0.5, 1);
    const Corpus c = sampleCorpus(model, 20, 3, 5, 1);
    QCOMPARE(secondMomentDense(c, 0.0).status().code(), StatusCode::InvalidArgument);
    QCOMPARE(secondMomentDense(c, std::nan("")).status().code(), StatusCode::InvalidArgument);
    QVERIFY(secondMomentDense(c, -1.0).status().message().find("alpha0") != std::string::npos);
    const Corpus two = sampleCorpus(model, 2, 3, 5, 1);
    QCOMPARE(whitenedThirdMoment(two, 1.0, Eigen::MatrixXd::Identity(10, 2)).status().code(), StatusCode::BadInput);
    QCOMPARE(whitenedThirdMoment(c, 1.0, Eigen::MatrixXd::Identity(9, 2)).status().code(),
             StatusCode::InvalidArgument);
    Eigen::MatrixXd nanW = Eigen::MatrixXd::Identity(10, 2);
    nanW(0, 0) = std::nan("");
    QCOMPARE(whitenedThirdMoment(c, 1.0, nanW).status().code(), StatusCode::NumericalFailure);
  }

  void resultsDoNotDependOnThreadCount() {
    // The passes run in fixed lanes summed in order: 1 and 3 threads must agree bit for bit.
    const LdaModel model = randomModel(40, 4, 1.0, 0.2, 6);
    const Corpus c = sampleCorpus(model, 30000, 3, 30, 2);
    const Eigen::MatrixXd W = Eigen::MatrixXd::Random(40, 4);
    const int before = omp_get_max_threads();
    omp_set_num_threads(1);
    const Eigen::MatrixXd m2One = secondMomentDense(c, 1.0).value();
    const Tensor3 tOne = whitenedThirdMoment(c, 1.0, W).value();
    const SecondMomentOperator op(c, 1.0);
    const Eigen::MatrixXd X = Eigen::MatrixXd::Random(40, 9);
    const Eigen::MatrixXd blockOne = op.apply(X);  // the block eigensolver's product
    omp_set_num_threads(3);
    const Eigen::MatrixXd m2Three = secondMomentDense(c, 1.0).value();
    const Tensor3 tThree = whitenedThirdMoment(c, 1.0, W).value();
    const Eigen::MatrixXd blockThree = op.apply(X);
    // The tensor pass takes 16 lanes here (issue 27 §3): 16 threads run them all at once.
    QCOMPARE(moments_detail::laneCountFor(moments_detail::whitenedTensorLaneBytes(40, 4)), moments_detail::kWideLanes);
    omp_set_num_threads(16);
    const Tensor3 tSixteen = whitenedThirdMoment(c, 1.0, W).value();
    omp_set_num_threads(before);
    QVERIFY(std::equal(tOne.data(), tOne.data() + tOne.size(), tSixteen.data()));
    QVERIFY(m2One == m2Three);
    QVERIFY(blockOne == blockThree);
    QVERIFY(relativeError(blockOne, m2One * X) < 1e-12);
    QVERIFY(std::equal(tOne.data(), tOne.data() + tOne.size(), tThree.data()));
  }

  // Issue 28: above kSharedTensorBytes (k >= 320) one R is shared by the threads instead of one per
  // lane. The sub-tensor of the first m whitened coordinates is the tensor whitened by the first m
  // columns (T̂ is multilinear in W), which the lane path computes: the two paths must agree, and
  // the shared path must not depend on the thread count.
  void sharedTensorPathMatchesLanes() {
    const int d = 340, k = 330, m = 12;
    const LdaModel model = randomModel(d, 6, 1.0, 0.3, 8);
    const Corpus c = sampleCorpus(model, 40, 5, 40, 3);
    SeededRandom rng(5);
    Eigen::MatrixXd W(d, k);
    for (Eigen::Index i = 0; i < W.size(); ++i) W.data()[i] = standardNormal(rng);
    QVERIFY(static_cast<double>(k) * k * (k + 1) / 2 * sizeof(double) > moments_detail::kSharedTensorBytes);
    const int before = omp_get_max_threads();
    omp_set_num_threads(1);
    const Tensor3 one = whitenedThirdMoment(c, 1.0, W).value();
    omp_set_num_threads(2);
    const Tensor3 two = whitenedThirdMoment(c, 1.0, W).value();
    omp_set_num_threads(before);
    QVERIFY(std::equal(one.data(), one.data() + one.size(), two.data()));
    const Tensor3 small = whitenedThirdMoment(c, 1.0, W.leftCols(m)).value();
    double diff = 0.0, norm = 0.0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j)
        for (int l = 0; l < m; ++l) {
          diff = std::max(diff, std::abs(one(i, j, l) - small(i, j, l)));
          norm = std::max(norm, std::abs(small(i, j, l)));
        }
    QVERIFY2(diff <= 1e-11 * norm, qPrintable(QString("max difference %1 of %2").arg(diff).arg(norm)));
  }

  void cancellationStopsTheTensor() {
    const LdaModel model = randomModel(10, 2, 1.0, 0.5, 1);
    const Corpus c = sampleCorpus(model, 50, 3, 5, 1);
    Feedback fb;
    fb.cancel();
    QCOMPARE(whitenedThirdMoment(c, 1.0, Eigen::MatrixXd::Identity(10, 2), &fb).status().code(),
             StatusCode::Cancelled);
  }
};

QTEST_APPLESS_MAIN(TestMoments)
#include "tst_moments.moc"
