// The audit engine of the app's Audit tab (core/privacy/audit.h) on its 1-D model
// (gaussianShiftSampler): the calibrated analytic Gaussian passes the empirical audit (ε_lb ≤ ε)
// and the half-noise negative control fails it (ε_lb > ε) on the worst pair the sensitivity allows;
// the adversarial neighbour. The release drawn as a run draws it: pipeline/tst_release_audit.
#include <QtTest>
#include <cmath>

#include "core/corpus/synthetic_generator.h"
#include "core/privacy/audit.h"
#include "core/privacy/mechanisms.h"
#include "core/privacy/sensitivity.h"
#include "test_util.h"

using namespace dplda;
using dplda::test::smallLda;
using namespace dplda::privacy_audit;

namespace {

double analyticSigma(double eps, double delta, double sensitivity) {
  const auto c = calibrate(Mechanism::AnalyticGaussian, eps, delta, sensitivity);
  if (!c.ok()) qFatal("%s", c.status().message().c_str());
  return c->scale;
}

}  // namespace

class TestAuditEngine : public QObject {
  Q_OBJECT
 private slots:
  void clopperPearsonClosedForms() {
    const double a = 0.025;
    QVERIFY(std::abs(clopperPearsonUpper(0, 10, a) - (1 - std::pow(a, 0.1))) < 1e-12);
    QVERIFY(std::abs(clopperPearsonLower(10, 10, a) - std::pow(a, 0.1)) < 1e-12);
    QVERIFY(std::abs(clopperPearsonLower(5, 10, a) - 0.1870860284) < 1e-8);
    QVERIFY(std::abs(clopperPearsonUpper(5, 10, a) - 0.8129139716) < 1e-8);
  }

  // Identical distributions: no threshold may give a positive bound beyond chance.
  void identicalLawsGiveNoPositiveBound() {
    AuditSettings s;
    s.sigma = 1.0;
    s.meanD = s.meanDPrime = 0.0;
    s.draws = 100000;
    s.delta = 1e-5;
    const AuditOutcome o = runAudit(s, gaussianShiftSampler(s.meanD, s.meanDPrime, s.sigma)).value();
    QVERIFY(o.bound.found());
    QVERIFY2(o.bound.epsilon <= 0.0, qPrintable(QString::number(o.bound.epsilon)));
    QCOMPARE(o.exactEpsilon, 0.0);
  }

  // The worst pair Δ allows, ε = 1, δ = 1e-5: the calibrated σ holds, σ/2 is detected.
  void calibratedHoldsHalfNoiseBreaks() {
    const double eps = 1.0, delta = 1e-5, sens = 0.01;
    AuditSettings s;
    s.epsilon = eps;
    s.delta = delta;
    s.meanD = 0.3;
    s.meanDPrime = 0.3 - sens;
    s.draws = 1000000;
    s.seed = 7;
    s.sigma = analyticSigma(eps, delta, sens);
    const AuditOutcome ok = runAudit(s, gaussianShiftSampler(s.meanD, s.meanDPrime, s.sigma)).value();
    qInfo("calibrated: eps_lb %.3f (exact %.3f), counts %d / %d", ok.bound.epsilon, ok.exactEpsilon, ok.bound.countP,
          ok.bound.countQ);
    QVERIFY(ok.bound.found());
    QVERIFY(ok.bound.epsilon <= eps);
    QVERIFY2(ok.bound.epsilon > 0.5, "the audit should come near ε on the worst pair");
    QVERIFY(std::abs(ok.exactEpsilon - eps) < 1e-3);  // the calibration is tight on this pair

    s.sigma /= 2;
    const AuditOutcome bad = runAudit(s, gaussianShiftSampler(s.meanD, s.meanDPrime, s.sigma)).value();
    qInfo("half noise: eps_lb %.3f (exact %.3f)", bad.bound.epsilon, bad.exactEpsilon);
    QVERIFY2(bad.bound.epsilon > eps, qPrintable(QString::number(bad.bound.epsilon)));
    // The curve grows with the draws and ends at the final bound.
    QVERIFY(bad.curve.size() >= 5);
    QCOMPARE(bad.curve.back().draws, s.draws);
    QCOMPARE(bad.curve.back().epsilon, bad.bound.epsilon);
    QVERIFY(bad.curve.back().epsilon > bad.curve.front().epsilon);
  }

  // The adversarial neighbour: the same N and d, document 0 replaced by one word ×3 — the rarest
  // word outside document 0, or the word with the largest row of a given W.
  void adversarialNeighbours() {
    const Corpus c = smallLda(12, 3, 300, 3);
    const AdversarialNeighbour n = adversarialNeighbour(c).value();
    QCOMPARE(n.corpus.docCount(), 300);
    QCOMPARE(n.corpus.vocabSize(), 12);
    QCOMPARE(n.corpus.lengths[0], 3.0);
    int word = -1;
    for (SparseCounts::InnerIterator it(n.corpus.counts, 0); it; ++it) word = static_cast<int>(it.col());
    for (SparseCounts::InnerIterator it(c.counts, 0); it; ++it) QVERIFY(it.col() != word);  // outside document 0
    for (int n2 = 1; n2 < 300; ++n2)  // every other document unchanged
      QCOMPARE(n.corpus.lengths[n2], c.lengths[n2]);
    Eigen::MatrixXd W = Eigen::MatrixXd::Zero(12, 3);
    W(7, 1) = 5.0;
    const AdversarialNeighbour t = adversarialNeighbour(c, &W).value();
    for (SparseCounts::InnerIterator it(t.corpus.counts, 0); it; ++it) QCOMPARE(static_cast<int>(it.col()), 7);
    QVERIFY(!adversarialNeighbour(smallLda(12, 3, 1, 3)).ok());
  }

  void cancellation() {
    Feedback fb;
    fb.cancel();
    AuditSettings s;
    s.sigma = 1;
    s.draws = 100000;
    const auto r = runAudit(s, gaussianShiftSampler(0, 0, 1), &fb);
    QVERIFY(!r.ok());
    QCOMPARE(r.status().code(), StatusCode::Cancelled);
  }
};

QTEST_APPLESS_MAIN(TestAuditEngine)
#include "tst_audit_engine.moc"
