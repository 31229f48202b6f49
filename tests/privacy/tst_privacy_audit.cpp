// Empirical differential-privacy audit of one release (SPEC §8, §9): the analytic-Gaussian release
// of M̂2, drawn through the product's own path (secondMomentDense, calibrate, addSymmetricMatrixNoise),
// on two neighbouring corpora D, D′ (one document replaced by an adversarial one).
//
// Method. The release adds i.i.d. N(0, σ²) to the unique entries v = (M_ij, i <= j) of M̂2. Projected
// onto u = (v(D) − v(D′))/‖v(D) − v(D′)‖₂ the two output laws are N(m, σ²) and N(m − ‖Δv‖₂, σ²), and
// by the Neyman–Pearson lemma this statistic, with the half-line sets {x > t} (and {x < t} for the
// reverse direction), is the most powerful test: if these sets satisfy P_D(S) <= e^ε P_D′(S) + δ,
// every set does. For each threshold t on a grid of 400 pooled sample quantiles we bound
// P_D(S) from below and P_D′(S) from above by exact Clopper–Pearson bounds and report
//     ε_lb = max_t ln((P_D,lower(S_t) − δ) / P_D′,upper(S_t)),
// a lower confidence bound on the true ε of the pair. All 4 x 400 one-sided bounds hold jointly with
// probability >= 1 − 1e-6 (Bonferroni), so a correctly calibrated release gives ε_lb <= ε except with
// probability 1e-6; the seeds are fixed, so the result is deterministic.
//
// Cases (ε = 1, δ = 1e-3, 200 000 releases per side; δ is large enough that the tail sets that
// decide ε hold thousands of samples):
//  (a) production calibration σ(Δ2) on the real pair                            -> ε_lb <= ε
//  (b) σ calibrated to the pair's own ℓ2 change ‖Δv‖₂ (the tight worst case)     -> ε_lb <= ε, and > 0.6
//  (c) as (b) with σ halved (a mis-calibration)                                 -> ε_lb > ε (detected)
//  (d) production σ(Δ2), means differing by exactly Δ2 along u (the worst pair the bound allows)
//                                                                                -> ε_lb <= ε, and > 0.6
//  (e) as (d) with σ halved                                                     -> ε_lb > ε (detected)
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/moments/moments.h"
#include "core/privacy/mechanisms.h"
#include "core/privacy/noise.h"
#include "core/privacy/sensitivity.h"
#include "privacy/statistical_tests.h"
#include "test_util.h"

using namespace dplda;

namespace {

constexpr double kEps = 1.0;
constexpr double kDelta = 1e-3;
constexpr int kReleases = 200000;
constexpr int kThresholds = 400;
constexpr double kFamilyAlpha = 1e-6;  // joint failure probability of all Clopper–Pearson bounds
constexpr int kMinCount = 20;          // a set must hold this many D samples to be used

Eigen::MatrixXd symmetricFromUnique(const Eigen::VectorXd& v, Eigen::Index d) {
  Eigen::MatrixXd m(d, d);
  Eigen::Index p = 0;
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = i; j < d; ++j) m(i, j) = m(j, i) = v[p++];
  return m;
}

// kReleases noisy releases of `mean` through the product's sampler, projected onto u (unique entries).
std::vector<double> projectedReleases(const Eigen::MatrixXd& mean, const Eigen::VectorXd& u, double sigma,
                                      std::uint64_t seed) {
  SeededRandom rng(seed);
  std::vector<double> xs(kReleases);
  Eigen::MatrixXd x;
  for (int r = 0; r < kReleases; ++r) {
    x = mean;
    const Status s = addSymmetricMatrixNoise(x, sigma, rng);
    if (!s.isOk()) qFatal("%s", s.message().c_str());
    xs[r] = symmetricUniqueEntries(x).dot(u);
  }
  std::sort(xs.begin(), xs.end());
  return xs;
}

int countAbove(const std::vector<double>& sorted, double t) {
  return static_cast<int>(sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), t));
}

struct AuditResult {
  double epsLowerBound = -std::numeric_limits<double>::infinity();
  double threshold = 0.0;
  int countP = 0, countQ = 0;
};

// ε_lb over the sets {x > t} for (P, Q) = (D, D′) and {x <= t} for (P, Q) = (D′, D).
AuditResult audit(const std::vector<double>& xd, const std::vector<double>& xdp) {
  const int n = static_cast<int>(xd.size());
  std::vector<double> pooled(xd);
  pooled.insert(pooled.end(), xdp.begin(), xdp.end());
  std::sort(pooled.begin(), pooled.end());
  const double alpha = kFamilyAlpha / (4.0 * kThresholds);
  AuditResult best;
  auto consider = [&](int kP, int kQ, double t) {
    if (kP < kMinCount) return;
    const double pLo = stat::clopperPearsonLower(kP, n, alpha);
    const double qHi = stat::clopperPearsonUpper(kQ, n, alpha);
    if (pLo <= kDelta) return;
    const double e = std::log((pLo - kDelta) / qHi);
    if (e > best.epsLowerBound) best = {e, t, kP, kQ};
  };
  for (int i = 1; i < kThresholds; ++i) {
    const double t = pooled[static_cast<std::size_t>(i) * pooled.size() / kThresholds];
    consider(countAbove(xd, t), countAbove(xdp, t), t);
    consider(n - countAbove(xdp, t), n - countAbove(xd, t), t);
  }
  return best;
}

// The exact ε at δ of a 1-D Gaussian shift with mean gap g and noise σ (bisection on Balle & Wang).
double exactEpsilon(double sigma, double gap, double delta) {
  double lo = 0.0, hi = 50.0;
  if (analyticGaussianDelta(sigma, lo, gap) <= delta) return 0.0;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (analyticGaussianDelta(sigma, mid, gap) > delta ? lo : hi) = mid;
  }
  return hi;
}

struct Pair {
  Eigen::MatrixXd m2D, m2Dp;
  Eigen::VectorXd u;  // unit, unique-entry space
  double gap = 0;     // ‖v(D) − v(D′)‖₂
  double l1 = 0;      // ‖M̂2(D) − M̂2(D′)‖₁ (all entries)
  int N = 0;
  double alpha0 = 1.0;
};

// A small LDA corpus and the neighbour that replaces document 0 by the single-repeated-word document
// that moves v(M̂2) the most.
Pair makePair() {
  const int d = 6, N = 20;
  const double a0 = 1.0;
  const Corpus c = test::sampleCorpus(test::randomModel(d, 3, a0, 0.3, 7), N, 3, 30, 8);
  std::vector<CountTriplet> base;
  for (int n = 1; n < N; ++n)
    for (SparseCounts::InnerIterator it(c.counts, n); it; ++it) base.push_back({n, static_cast<int>(it.col()), it.value()});
  auto withDoc0 = [&](const std::vector<CountTriplet>& doc0) {
    std::vector<CountTriplet> t = base;
    t.insert(t.end(), doc0.begin(), doc0.end());
    return secondMomentDense(buildCorpus(N, d, t).value(), a0).value();
  };
  std::vector<CountTriplet> original;
  for (SparseCounts::InnerIterator it(c.counts, 0); it; ++it) original.push_back({0, static_cast<int>(it.col()), it.value()});
  Pair p;
  p.N = N;
  p.alpha0 = a0;
  p.m2D = withDoc0(original);
  for (int w = 0; w < d; ++w) {
    const Eigen::MatrixXd m = withDoc0({{0, w, 5.0}});
    const double gap = (symmetricUniqueEntries(p.m2D) - symmetricUniqueEntries(m)).norm();
    if (gap > p.gap) {
      p.gap = gap;
      p.m2Dp = m;
    }
  }
  p.u = (symmetricUniqueEntries(p.m2D) - symmetricUniqueEntries(p.m2Dp)) / p.gap;
  p.l1 = (p.m2D - p.m2Dp).cwiseAbs().sum();
  return p;
}

double analyticSigma(double sensitivity) {
  const auto c = calibrate(Mechanism::AnalyticGaussian, kEps, kDelta, sensitivity);
  if (!c.ok()) qFatal("%s", c.status().message().c_str());
  return c->scale;
}

AuditResult runAudit(const char* label, const Eigen::MatrixXd& meanD, const Eigen::MatrixXd& meanDp,
                     const Eigen::VectorXd& u, double sigma, std::uint64_t seed) {
  const auto xd = projectedReleases(meanD, u, sigma, deriveSeed(seed, 1));
  const auto xdp = projectedReleases(meanDp, u, sigma, deriveSeed(seed, 2));
  const AuditResult r = audit(xd, xdp);
  const double gap = (symmetricUniqueEntries(meanD) - symmetricUniqueEntries(meanDp)).norm();
  qInfo("%s: sigma %.4g, mean gap %.4g (gap/sigma %.3f), exact eps %.3f, empirical eps lower bound %.3f "
        "(threshold %.4g, counts %d / %d)",
        label, sigma, gap, gap / sigma, exactEpsilon(sigma, gap, kDelta), r.epsLowerBound, r.threshold, r.countP,
        r.countQ);
  return r;
}

}  // namespace

class TestPrivacyAudit : public QObject {
  Q_OBJECT

 private slots:
  // The confidence bounds the audit relies on, against closed forms and a textbook value.
  void clopperPearson() {
    const double a = 0.025;
    QVERIFY(std::abs(stat::clopperPearsonUpper(0, 10, a) - (1 - std::pow(a, 0.1))) < 1e-12);
    QVERIFY(std::abs(stat::clopperPearsonLower(10, 10, a) - std::pow(a, 0.1)) < 1e-12);
    QCOMPARE(stat::clopperPearsonLower(0, 10, a), 0.0);
    QCOMPARE(stat::clopperPearsonUpper(10, 10, a), 1.0);
    // 95% two-sided interval for 5 of 10: [0.187086, 0.812914].
    QVERIFY(std::abs(stat::clopperPearsonLower(5, 10, a) - 0.1870860284) < 1e-8);
    QVERIFY(std::abs(stat::clopperPearsonUpper(5, 10, a) - 0.8129139716) < 1e-8);
    // At the audit's sizes the bounds bracket k/n by about z sqrt(p(1-p)/n) (z ~ 6 at 3e-10).
    const double lo = stat::clopperPearsonLower(2000, kReleases, 3e-10), hi = stat::clopperPearsonUpper(2000, kReleases, 3e-10);
    QVERIFY(lo < 0.01 && hi > 0.01);
    QVERIFY(std::abs((0.01 - lo) / std::sqrt(0.01 * 0.99 / kReleases) - 6.2) < 0.6);
    QVERIFY(std::abs((hi - 0.01) / std::sqrt(0.01 * 0.99 / kReleases) - 6.2) < 0.6);
  }

  void analyticGaussianReleaseOfM2() {
    const Pair p = makePair();
    const double delta2 = secondMomentSensitivity(p.N, p.alpha0);
    qInfo("neighbour pair: ||dM2||_1 = %.4g, ||dv||_2 = %.4g, Delta2 = %.4g", p.l1, p.gap, delta2);
    // The ℓ1 bound covers the unique-entry ℓ2 change that the Gaussian release needs.
    QVERIFY(p.gap <= p.l1 && p.l1 <= delta2 * (1 + 1e-12));

    const double sigmaProd = analyticSigma(delta2);
    const double sigmaPair = analyticSigma(p.gap);

    const AuditResult a = runAudit("(a) production sigma(Delta2), real pair", p.m2D, p.m2Dp, p.u, sigmaProd, 11);
    QVERIFY(a.epsLowerBound <= kEps);

    const AuditResult b = runAudit("(b) sigma(||dv||), real pair", p.m2D, p.m2Dp, p.u, sigmaPair, 12);
    QVERIFY(b.epsLowerBound <= kEps);
    QVERIFY2(b.epsLowerBound > 0.6, "the audit should come close to eps on the tight worst case");

    const AuditResult c = runAudit("(c) sigma(||dv||)/2, real pair", p.m2D, p.m2Dp, p.u, sigmaPair / 2, 13);
    QVERIFY2(c.epsLowerBound > 1.2 * kEps, "halved noise must be detected as violating eps");

    // The worst pair Δ2 allows: means Δ2 apart along u.
    const Eigen::MatrixXd shifted = p.m2D - symmetricFromUnique(delta2 * p.u, p.m2D.rows());
    const AuditResult d = runAudit("(d) production sigma(Delta2), gap Delta2", p.m2D, shifted, p.u, sigmaProd, 14);
    QVERIFY(d.epsLowerBound <= kEps);
    QVERIFY(d.epsLowerBound > 0.6);

    const AuditResult e = runAudit("(e) production sigma(Delta2)/2, gap Delta2", p.m2D, shifted, p.u, sigmaProd / 2, 15);
    QVERIFY(e.epsLowerBound > 1.2 * kEps);
  }
};

QTEST_APPLESS_MAIN(TestPrivacyAudit)
#include "tst_privacy_audit.moc"
