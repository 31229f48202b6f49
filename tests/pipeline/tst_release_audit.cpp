// The Audit tab's release drawn exactly as a run draws it (core/pipeline/release_audit.h; issue 23
// §3): the audited row is the run's ledger row (basic and Gaussian-DP shares, the whitened/raw
// rescale), the draws are the run's noise on the run's values, a calibrated run passes the audit,
// and a mis-calibration injected into the run's path (its noise multiplier) is caught — which the
// former audit, calibrating σ itself from Δ and the claim, could not see.
#include <QtTest>
#include <cmath>

#include "core/moments/clipped_moments.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/release_audit.h"
#include "core/privacy/mechanisms.h"
#include "core/privacy/noise.h"
#include "test_util.h"

using namespace dplda;
using namespace dplda::privacy_audit;
using dplda::test::smallLda;

namespace {

const Corpus& corpus() {
  static const Corpus c = smallLda(12, 3, 400, 3);
  return c;
}

SpectralOptions spectral() {
  SpectralOptions so;
  so.topicCount = 3;
  return so;
}

PrivacyOptions config1(Accountant a) {
  PrivacyOptions o;
  o.edges = presetEdges(Preset::Config1);
  o.accountant = a;
  return o;
}

PrivacyOptions whitened(Accountant a, bool raw) {
  PrivacyOptions o;
  o.edges = (1u << 2) | (1u << 5) | (1u << 6);
  o.whitened.enabled = true;
  o.whitened.clipToRowBound = raw;
  o.accountant = a;
  return o;
}

PrivateRunResult runOn(const PrivacyOptions& o, std::uint64_t seed) {
  SpectralPipeline p;
  p.setCorpus(std::make_shared<const Corpus>(corpus()));
  p.setOptions(spectral());
  SeededRandom noise(seed);
  return runPrivate(p, o, noise).value();
}

const LedgerEntry& rowOf(const PrivateRunResult& r, const std::string& node) {
  for (const LedgerEntry& e : r.ledger)
    if (e.node == node) return e;
  qFatal("no %s row", node.c_str());
  return r.ledger.front();
}

ReleaseAudit prepared(const PrivacyOptions& o, AuditedRelease release) {
  auto a = prepareReleaseAudit(corpus(), spectral(), o, release);
  if (!a.ok()) qFatal("prepareReleaseAudit: %s", a.status().message().c_str());
  return std::move(a).value();
}

AuditOutcome audit(const ReleaseAudit& a, double epsilon, int draws, std::uint64_t seed, bool worst = true) {
  AuditSettings s;
  s.epsilon = epsilon;
  s.delta = a.options.delta;
  s.sigma = a.row.sigma;
  s.meanD = a.pair.meanD;
  s.meanDPrime = worst ? a.pair.meanD - a.pair.sensitivity : a.pair.meanDPrime;
  s.draws = draws;
  s.seed = seed;
  return runAudit(s, releaseSampler(a, worst)).value();
}

}  // namespace

class TestReleaseAudit : public QObject {
  Q_OBJECT
 private slots:
  // The audited row is the run's: the same σ, to the bit, under both accountants (the GDP share
  // of M2 differs from basic composition's), for M̂2 and for both whitened releases.
  void ledgerRowIsTheRunsRow() {
    struct Case {
      PrivacyOptions o;
      AuditedRelease release;
      const char* node;
    };
    const std::vector<Case> cases = {
        {config1(Accountant::Basic), AuditedRelease::SecondMoment, "M2"},
        {config1(Accountant::GaussianDp), AuditedRelease::SecondMoment, "M2"},
        {whitened(Accountant::Basic, false), AuditedRelease::WhitenedSecondMoment, "M2"},
        {whitened(Accountant::GaussianDp, false), AuditedRelease::WhitenedTensor, "T"},
        {whitened(Accountant::GaussianDp, true), AuditedRelease::WhitenedSecondMoment, "M2"},
    };
    double basicM2 = 0, gdpM2 = 0;
    for (const Case& c : cases) {
      const ReleaseAudit a = prepared(c.o, c.release);
      const LedgerEntry& run = rowOf(runOn(c.o, 1), c.node);
      qInfo("%s (%s): sigma %.6g, run %.6g, Delta %.6g", auditedReleaseName(c.release), accountantName(c.o.accountant),
            a.row.sigma, run.sigma, a.row.sensitivity);
      QCOMPARE(a.row.sigma, run.sigma);
      QCOMPARE(a.row.sensitivity, run.sensitivity);
      QCOMPARE(a.pair.sensitivity, run.sensitivity);
      QVERIFY(a.edgeNote.empty());  // the session's own run
      if (c.release == AuditedRelease::SecondMoment) (c.o.accountant == Accountant::Basic ? basicM2 : gdpM2) = a.row.sigma;
    }
    QVERIFY(gdpM2 < basicM2);  // the accountants' shares really differ
    // whitened/raw: the T row is the run's rescale at ρ_W of the audit's fixed W: σ/Δ is the run's.
    const PrivacyOptions raw = whitened(Accountant::Basic, true);
    const ReleaseAudit a = prepared(raw, AuditedRelease::WhitenedTensor);
    const LedgerEntry& run = rowOf(runOn(raw, 1), "T");
    QVERIFY(std::abs(a.row.sigma / a.row.sensitivity / (run.sigma / run.sensitivity) - 1) < 1e-12);
    QVERIFY(a.row.sensitivityFormula.find("rho_W = ") != std::string::npos);
    // A session that does not release M2 with a fixed scale is audited as configuration 1, and says so.
    PrivacyOptions c2;
    c2.edges = presetEdges(Preset::Config2);
    const ReleaseAudit sub = prepared(c2, AuditedRelease::SecondMoment);
    QCOMPARE(sub.options.edges, presetEdges(Preset::Config1));
    QVERIFY(!sub.edgeNote.empty());
  }

  // The draws are the run's: the noise the run adds to M̂2 with a given seed, added to the audit's
  // value at the audit's σ, has the eigenvalues the run released; the sampler's statistic is that
  // release projected on u.
  void drawsAreTheRunsDraws() {
    for (const auto& [o, release] : {std::pair{config1(Accountant::GaussianDp), AuditedRelease::SecondMoment},
                                     std::pair{whitened(Accountant::Basic, false), AuditedRelease::WhitenedSecondMoment}}) {
      const ReleaseAudit a = prepared(o, release);
      const PrivateRunResult r = runOn(o, 21);
      Eigen::MatrixXd released = a.m2D;
      SeededRandom same(21);
      QVERIFY(addSymmetricMatrixNoise(released, a.row.sigma, same).isOk());
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(released);
      const Eigen::VectorXd top = eig.eigenvalues().reverse().head(r.diagnostics.releasedEigenvalues.size());
      qInfo("%s: released %s", auditedReleaseName(release),
            qPrintable(QString::number(r.diagnostics.releasedEigenvalues[0], 'g', 12)));
      QVERIFY((top - r.diagnostics.releasedEigenvalues).cwiseAbs().maxCoeff() < 1e-12);
      SeededRandom again(21);
      const double x = releaseSampler(a, false)(0, again);
      QCOMPARE(x, symmetricUniqueEntries(released).dot(a.u));
    }
  }

  // The calibrated runs pass on the worst pair their sensitivity allows (and the real pair).
  void calibratedReleasesPass() {
    struct Case {
      PrivacyOptions o;
      AuditedRelease release;
    };
    for (const Case& c : {Case{config1(Accountant::Basic), AuditedRelease::SecondMoment},
                          Case{config1(Accountant::GaussianDp), AuditedRelease::SecondMoment},
                          Case{whitened(Accountant::GaussianDp, false), AuditedRelease::WhitenedSecondMoment},
                          Case{whitened(Accountant::Basic, false), AuditedRelease::WhitenedTensor},
                          Case{whitened(Accountant::GaussianDp, true), AuditedRelease::WhitenedTensor}}) {
      const ReleaseAudit a = prepared(c.o, c.release);
      QVERIFY(a.pair.gap() > 0);
      QVERIFY(a.pair.gap() <= a.pair.sensitivity * (1 + 1e-9));  // the real pair is within the bound
      const AuditOutcome worst = audit(a, 1.0, 200000, 5);
      const AuditOutcome real = audit(a, 1.0, 100000, 6, false);
      qInfo("%s (%s): eps_lb %.3f worst (exact %.3f), %.3f real", auditedReleaseName(c.release),
            accountantName(c.o.accountant), worst.bound.epsilon, worst.exactEpsilon, real.bound.epsilon);
      QVERIFY(worst.bound.epsilon <= 1.0);
      QVERIFY(real.bound.epsilon <= 1.0);
      QVERIFY(worst.exactEpsilon <= 1.0 + 1e-9);
    }
  }

  // Negative control: the run's noise multiplier (PrivacyOptions::noiseMultiplier, the run's own
  // test hook) at 0.25 mis-calibrates every release of the run. Drawn as the run draws it, the
  // audit finds ε_lb above the claim; the former audit, which calibrated σ itself from Δ and the
  // claimed (ε, δ), drew the correctly calibrated release whatever the run did, and passes.
  void injectedMiscalibrationIsCaught() {
    for (Accountant acc : {Accountant::Basic, Accountant::GaussianDp}) {
      PrivacyOptions o = config1(acc);
      o.noiseMultiplier = 0.25;
      const ReleaseAudit a = prepared(o, AuditedRelease::SecondMoment);
      QCOMPARE(a.row.sigma, rowOf(runOn(o, 2), "M2").sigma);  // the mis-calibrated run's own σ
      const AuditOutcome caught = audit(a, o.epsilon, 400000, 8);
      // The former audit: σ calibrated to (ε, δ) for Δ, the 1-D model, the same pair and draws.
      const double ownSigma = calibrate(Mechanism::AnalyticGaussian, o.epsilon, o.delta, a.pair.sensitivity)->scale;
      AuditSettings s;
      s.epsilon = o.epsilon;
      s.delta = o.delta;
      s.sigma = ownSigma;
      s.meanD = a.pair.meanD;
      s.meanDPrime = a.pair.meanD - a.pair.sensitivity;
      s.draws = 400000;
      s.seed = 8;
      const AuditOutcome former = runAudit(s, gaussianShiftSampler(s.meanD, s.meanDPrime, s.sigma)).value();
      qInfo("%s, noise x 0.25: eps_lb %.3f (exact %.3f) drawn as the run draws; %.3f with the former audit's sigma",
            accountantName(acc), caught.bound.epsilon, caught.exactEpsilon, former.bound.epsilon);
      QVERIFY2(caught.bound.epsilon > o.epsilon, qPrintable(QString::number(caught.bound.epsilon)));
      QVERIFY(former.bound.epsilon <= o.epsilon);
    }
    // A run refused as a run would refuse it: a degenerate clip bound.
    PrivacyOptions bad = whitened(Accountant::GaussianDp, false);
    bad.whitened.whitenedClip = 1e-108;
    const auto r = prepareReleaseAudit(corpus(), spectral(), bad, AuditedRelease::WhitenedTensor);
    QVERIFY(!r.ok());
    QVERIFY(r.status().message().find("1e-108") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestReleaseAudit)
#include "tst_release_audit.moc"
