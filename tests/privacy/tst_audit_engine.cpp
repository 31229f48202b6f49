// The audit engine of the app's Audit tab (core/privacy/audit.h): the calibrated analytic Gaussian
// passes the empirical audit (ε_lb ≤ ε) and the half-noise negative control fails it (ε_lb > ε),
// on the worst pair the sensitivity allows and on a real adversarial neighbour of an LDA corpus.
#include <QtTest>
#include <cmath>

#include "core/corpus/synthetic_generator.h"
#include "core/moments/moments.h"
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
    const AuditOutcome o = runAudit(s).value();
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
    const AuditOutcome ok = runAudit(s).value();
    qInfo("calibrated: eps_lb %.3f (exact %.3f), counts %d / %d", ok.bound.epsilon, ok.exactEpsilon, ok.bound.countP,
          ok.bound.countQ);
    QVERIFY(ok.bound.found());
    QVERIFY(ok.bound.epsilon <= eps);
    QVERIFY2(ok.bound.epsilon > 0.5, "the audit should come near ε on the worst pair");
    QVERIFY(std::abs(ok.exactEpsilon - eps) < 1e-3);  // the calibration is tight on this pair

    s.sigma /= 2;
    const AuditOutcome bad = runAudit(s).value();
    qInfo("half noise: eps_lb %.3f (exact %.3f)", bad.bound.epsilon, bad.exactEpsilon);
    QVERIFY2(bad.bound.epsilon > eps, qPrintable(QString::number(bad.bound.epsilon)));
    // The curve grows with the draws and ends at the final bound.
    QVERIFY(bad.curve.size() >= 5);
    QCOMPARE(bad.curve.back().draws, s.draws);
    QCOMPARE(bad.curve.back().epsilon, bad.bound.epsilon);
    QVERIFY(bad.curve.back().epsilon > bad.curve.front().epsilon);
  }

  // The real adversarial neighbour of an LDA corpus: D′ replaces document 0; the gap is within
  // the sensitivity, and the calibrated release passes.
  void realNeighbourPairs() {
    const Corpus c = smallLda(12, 3, 300, 3);
    AuditPairOptions o;
    o.topicCount = 3;
    for (AuditedRelease r :
         {AuditedRelease::SecondMoment, AuditedRelease::WhitenedSecondMoment, AuditedRelease::WhitenedTensor}) {
      const AuditPair p = adversarialPair(c, r, o).value();
      qInfo("%s: gap %.4g, sensitivity %.4g (%s), replacement %s", auditedReleaseName(r), p.gap(), p.sensitivity,
            p.sensitivityFormula.c_str(), p.replacement.c_str());
      QVERIFY(p.gap() > 0);
      QVERIFY(p.gap() <= p.sensitivity * (1 + 1e-9));
      QCOMPARE(p.docCount, 300);
    }
    // The M2 pair really is a neighbour: same N, document 0 changed.
    const AuditPair p = adversarialPair(c, AuditedRelease::SecondMoment, o).value();
    QVERIFY(std::abs(p.sensitivity - secondMomentSensitivity(300, 1.0)) < 1e-15);
    AuditSettings s;
    s.epsilon = 1.0;
    s.delta = 1e-5;
    s.meanD = p.meanD;
    s.meanDPrime = p.meanDPrime;
    s.draws = 200000;
    s.sigma = analyticSigma(1.0, 1e-5, p.sensitivity);
    const AuditOutcome a = runAudit(s).value();
    QVERIFY(a.bound.epsilon <= 1.0);
    QVERIFY(a.exactEpsilon <= 1.0 + 1e-9);
  }

  void cancellation() {
    Feedback fb;
    fb.cancel();
    AuditSettings s;
    s.sigma = 1;
    s.draws = 100000;
    const auto r = runAudit(s, &fb);
    QVERIFY(!r.ok());
    QCOMPARE(r.status().code(), StatusCode::Cancelled);
  }
};

QTEST_APPLESS_MAIN(TestAuditEngine)
#include "tst_audit_engine.moc"
