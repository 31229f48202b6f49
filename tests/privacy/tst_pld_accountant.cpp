// The PLD accountant (docs/PRIVACY.md §16): pessimistic discretisation and composition by
// convolution, checked against closed forms (Gaussian-DP for Gaussian compositions, the Laplace
// mechanism's δ(ε)) and, on random mixtures, against an independent computation: the Gaussian
// part merged exactly (μ² = Σμ_i²) and the Laplace losses integrated by Gauss–Legendre
// quadrature in long double. Every discretised δ(ε) must be at or above the exact one, and
// within the grid's rounding (n·h for n mechanisms) of it.
#include <QtTest>
#include <array>
#include <cmath>
#include <functional>
#include <random>

#include "core/common/random.h"
#include "core/privacy/pld_accountant.h"

using namespace dplda;

namespace {

using Real = long double;

Real Phi(Real x) { return 0.5L * std::erfc(-x / std::sqrt(2.0L)); }
// Gaussian-DP (Dong, Roth & Su 2022, Cor. 2.13), valid for every real x: P[L > x] − e^x Q[L > x].
Real gdpDelta(Real x, Real mu) { return Phi(-x / mu + mu / 2) - std::exp(x) * Phi(-x / mu - mu / 2); }
Real gdpEpsilon(Real delta, Real mu) {
  Real lo = 0, hi = 1;
  while (gdpDelta(hi, mu) > delta) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const Real mid = (lo + hi) / 2;
    (gdpDelta(mid, mu) > delta ? lo : hi) = mid;
  }
  return hi;
}
Real laplaceDelta(Real epsilon, Real a) { return epsilon >= a ? 0.0L : 1.0L - std::exp((epsilon - a) / 2); }

// E[f(L)] for the Laplace mechanism's loss L (a = Δ/b): atoms ½ at a and ½e^{-a} at −a, density
// ¼e^{−(a−t)/2} on (−a, a); the integral by 10-point Gauss–Legendre on 64 panels.
Real laplaceExpectation(Real a, const std::function<Real(Real)>& f) {
  static const std::array<Real, 5> x = {0.1488743389816312108848260L, 0.4333953941292471907992659L,
                                         0.6794095682990244062343274L, 0.8650633666889845107320967L,
                                         0.9739065285171717200779640L};
  static const std::array<Real, 5> w = {0.2955242247147528701738930L, 0.2692667193099963550912269L,
                                         0.2190863625159820439955349L, 0.1494513491505805931457763L,
                                         0.0666713443086881375935688L};
  const int panels = 64;
  const Real width = 2 * a / panels;
  Real integral = 0;
  for (int p = 0; p < panels; ++p) {
    const Real mid = -a + (p + 0.5L) * width;
    for (int i = 0; i < 5; ++i)
      for (Real s : {-1.0L, 1.0L}) {
        const Real t = mid + s * x[i] * width / 2;
        integral += w[i] * width / 2 * 0.25L * std::exp(-(a - t) / 2) * f(t);
      }
  }
  return 0.5L * f(a) + 0.5L * std::exp(-a) * f(-a) + integral;
}

// δ(ε) of a Gaussian (μ > 0) composed with Laplace mechanisms, computed without any grid.
Real mixtureDelta(Real epsilon, Real mu, const std::vector<double>& laplace, std::size_t from = 0) {
  if (from == laplace.size()) return gdpDelta(epsilon, mu);
  return laplaceExpectation(laplace[from], [&](Real t) { return mixtureDelta(epsilon - t, mu, laplace, from + 1); });
}

PrivacyLossDistribution gaussian(double sigma, double sensitivity, double h = kPldInterval) {
  auto r = PrivacyLossDistribution::gaussian(sigma, sensitivity, h);
  if (!r.ok()) qFatal("%s", r.status().message().c_str());
  return r.value();
}
PrivacyLossDistribution laplace(double scale, double sensitivity, double h = kPldInterval) {
  auto r = PrivacyLossDistribution::laplace(scale, sensitivity, h);
  if (!r.ok()) qFatal("%s", r.status().message().c_str());
  return r.value();
}
PrivacyLossDistribution compose(const PrivacyLossDistribution& a, const PrivacyLossDistribution& b) {
  auto r = a.compose(b);
  if (!r.ok()) qFatal("%s", r.status().message().c_str());
  return r.value();
}

}  // namespace

class TestPldAccountant : public QObject {
  Q_OBJECT
 private slots:
  // Pure Gaussian compositions by convolution: δ(ε) at or above Gaussian-DP's closed form with
  // μ = √Σ(Δ_i/σ_i)², and within the rounding of n mechanisms (each loss raised by < h).
  void gaussianCompositionsMatchGaussianDp() {
    const std::vector<std::vector<std::pair<double, double>>> cases = {
        {{1.0, 1.0}},
        {{4.0, 1.0}, {3.0, 0.5}},
        {{2.0, 0.3}, {5.0, 2.0}, {1.5, 0.4}},
        {{10.0, 1.0}, {10.0, 1.0}, {10.0, 1.0}, {10.0, 1.0}, {10.0, 1.0}},
    };
    for (const auto& mechanisms : cases) {
      PrivacyLossDistribution pld;
      Real mu2 = 0;
      for (auto [sigma, delta2] : mechanisms) {
        pld = compose(pld, gaussian(sigma, delta2));
        mu2 += std::pow(static_cast<Real>(delta2) / sigma, 2);
      }
      const Real mu = std::sqrt(mu2);
      const double n = static_cast<double>(mechanisms.size());
      for (double epsilon : {0.0, 0.05, 0.2, 0.5, 1.0, 2.0, 4.0}) {
        const Real exact = gdpDelta(epsilon, mu);
        const double got = pld.deltaForEpsilon(epsilon);
        if (got < exact) qWarning("mu %Lg eps %g: pld %.17g < gdp %.17Lg", mu, epsilon, got, exact);
        QVERIFY(got >= exact);
        const Real upper = gdpDelta(epsilon - n * kPldInterval, mu);
        // Above the grid's rounding only by the infinite mass: the tails and the bound on the
        // FFT's rounding (docs/PRIVACY.md §16.3), which must stay negligible.
        QVERIFY(pld.infinityMass() < 1e-10);
        QVERIFY(got <= upper + pld.infinityMass() + 1e-15L);
      }
      for (double delta : {1e-3, 1e-5, 1e-8}) {
        const Real exact = gdpEpsilon(delta, mu);
        const double got = pld.epsilonForDelta(delta);
        QVERIFY(got >= exact);
        QVERIFY(got <= exact + n * kPldInterval + 1e-9L);
        QVERIFY(pld.deltaForEpsilon(got) <= delta);
      }
    }
  }

  // One Laplace mechanism: δ(ε) = 1 − e^{(ε−a)/2} for ε < a = Δ/b, and 0 beyond.
  void singleLaplaceMatchesItsClosedForm() {
    for (auto [b, delta1] : std::vector<std::pair<double, double>>{{1.0, 0.7}, {2.0, 0.1}, {0.5, 1.5}, {1.0, 3.0}}) {
      const PrivacyLossDistribution pld = laplace(b, delta1);
      const Real a = static_cast<Real>(delta1) / b;
      QCOMPARE(pld.infinityMass(), 0.0);
      for (double f : {0.0, 0.1, 0.3, 0.5, 0.8, 0.95, 0.9999, 1.0, 1.2}) {
        const double epsilon = static_cast<double>(f * a);
        const Real exact = laplaceDelta(epsilon, a);
        const double got = pld.deltaForEpsilon(epsilon);
        QVERIFY(got >= exact * (1 - 1e-14L));
        QVERIFY(got <= laplaceDelta(epsilon - kPldInterval, a) + 1e-14L);
      }
      // Pure ε-DP: ε(δ) never exceeds a (up to the grid) and is 0 once δ covers the whole TV distance.
      QVERIFY(pld.epsilonForDelta(1e-12) <= static_cast<double>(a) + kPldInterval);
      QVERIFY(pld.epsilonForDelta(1e-12) >= static_cast<double>(a) - 1e-9);
      QCOMPARE(pld.epsilonForDelta(0.99), 0.0);
    }
  }

  // A pure ε-DP release by randomized response: δ(ε') = (e^ε − e^ε')/(1 + e^ε) below ε; it
  // dominates the Laplace mechanism of the same ε.
  void pureDpMatchesRandomizedResponse() {
    for (double a : {0.05, 0.5, 2.0}) {
      auto rr = PrivacyLossDistribution::pureDp(a);
      QVERIFY(rr.ok());
      const PrivacyLossDistribution lap = laplace(1.0, a);
      for (double f : {0.0, 0.25, 0.5, 0.9, 1.0}) {
        const double epsilon = f * a;
        const Real exact = (std::exp(static_cast<Real>(a)) - std::exp(static_cast<Real>(epsilon))) / (1 + std::exp(static_cast<Real>(a)));
        const double got = rr.value().deltaForEpsilon(epsilon);
        QVERIFY(got >= exact * (1 - 1e-14L));
        QVERIFY(got <= exact + kPldInterval);  // the atom at ε moves up by less than h
        QVERIFY(lap.deltaForEpsilon(epsilon) <= got + 1e-15);
      }
    }
    QVERIFY(!PrivacyLossDistribution::pureDp(0.0).ok());
  }

  // Random mixtures of Gaussians and Laplace mechanisms, composed one by one on the grid, against
  // the grid-free computation.
  void randomMixturesMatchAnIndependentIntegral() {
    std::mt19937_64 rng(2026);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int trial = 0; trial < 12; ++trial) {
      PrivacyLossDistribution pld;
      Real mu2 = 0;
      std::vector<double> laplaceRatios;
      const int gaussians = 1 + static_cast<int>(unit(rng) * 3), laplaces = 1 + static_cast<int>(unit(rng) * 2);
      for (int g = 0; g < gaussians; ++g) {
        const double sigma = 0.5 + 4.0 * unit(rng), delta2 = 0.1 + unit(rng);
        pld = compose(pld, gaussian(sigma, delta2));
        mu2 += std::pow(static_cast<Real>(delta2) / sigma, 2);
      }
      for (int l = 0; l < laplaces; ++l) {
        const double b = 0.5 + 2.0 * unit(rng), delta1 = 0.05 + unit(rng);
        pld = compose(pld, laplace(b, delta1));
        laplaceRatios.push_back(delta1 / b);
      }
      const Real mu = std::sqrt(mu2);
      const double n = gaussians + laplaces;
      for (double epsilon : {0.1, 0.5, 1.0, 2.0}) {
        const Real exact = mixtureDelta(epsilon, mu, laplaceRatios);
        const double got = pld.deltaForEpsilon(epsilon);
        qInfo("trial %d (%d gaussian, %d laplace, mu %.3Lg) eps %g: pld %.10g, exact %.10Lg", trial, gaussians,
              laplaces, mu, epsilon, got, exact);
        QVERIFY(got >= exact * (1 - 1e-12L) - 1e-18L);  // the quadrature's own accuracy
        const Real upper = mixtureDelta(epsilon - n * kPldInterval, mu, laplaceRatios);
        QVERIFY(pld.infinityMass() < 1e-10);
        QVERIFY(got <= upper + pld.infinityMass() + 1e-15L);
      }
    }
  }

  // Empirical probe with the project's samplers: a Laplace release and a Gaussian release on
  // neighbours at the sensitivity (the worst case), their outputs drawn as a run draws them, the
  // privacy loss of each draw computed from the densities, and δ(ε) = E[(1 − e^{ε−L})₊] estimated
  // over 400 000 draws: within 5 standard errors below the discretised δ(ε).
  void samplersDrawWhatThePldAssumes() {
    const double b = 2.0, delta1 = 0.8, sigma = 1.5, delta2 = 1.0;
    const PrivacyLossDistribution pld = compose(laplace(b, delta1), gaussian(sigma, delta2));
    SeededRandom rng(11);
    const int draws = 400000;
    const std::array<double, 4> epsilons = {0.0, 0.3, 0.8, 1.5};
    std::array<double, 4> sum{}, sumSquares{};
    for (int n = 0; n < draws; ++n) {
      const double x = laplace(rng, b), y = sigma * standardNormal(rng);  // outputs under D (f(D) = 0)
      const double loss = (std::abs(x - delta1) - std::abs(x)) / b + (delta2 * delta2 - 2 * y * delta2) / (2 * sigma * sigma);
      for (std::size_t i = 0; i < epsilons.size(); ++i) {
        const double v = std::max(0.0, -std::expm1(epsilons[i] - loss));
        sum[i] += v;
        sumSquares[i] += v * v;
      }
    }
    for (std::size_t i = 0; i < epsilons.size(); ++i) {
      const double mean = sum[i] / draws, se = std::sqrt((sumSquares[i] / draws - mean * mean) / draws);
      const double got = pld.deltaForEpsilon(epsilons[i]);
      qInfo("eps %g: sampled %.6g +- %.2g, pld %.6g", epsilons[i], mean, se, got);
      QVERIFY(mean <= got + 5 * se);
      QVERIFY(mean >= got - 5 * se - 2 * kPldInterval);  // and the PLD is not loose beyond its grid
    }
  }

  // More compositions never spend less: δ(ε) and ε(δ) grow with the number of compositions.
  void monotoneInTheNumberOfCompositions() {
    const PrivacyLossDistribution one = compose(gaussian(3.0, 1.0), laplace(10.0, 1.0));
    double previousEpsilon = 0.0;
    std::vector<double> previousDelta(5, 0.0);
    for (long long k = 1; k <= 16; k *= 2) {
      auto composed = one.selfCompose(k);
      QVERIFY(composed.ok());
      const double epsilon = composed.value().epsilonForDelta(1e-5);
      QVERIFY(epsilon > previousEpsilon);
      previousEpsilon = epsilon;
      int i = 0;
      for (double e : {0.1, 0.5, 1.0, 2.0, 4.0}) {
        const double d = composed.value().deltaForEpsilon(e);
        QVERIFY(d >= previousDelta[i]);
        previousDelta[i++] = d;
      }
      // k equal Gaussians are one Gaussian of √k μ: the Laplace parts make it only larger.
      QVERIFY(epsilon >= static_cast<double>(gdpEpsilon(1e-5L, std::sqrt(static_cast<Real>(k)) / 3)));
    }
    auto identity = one.selfCompose(0);
    QVERIFY(identity.ok());
    QCOMPARE(identity.value().deltaForEpsilon(0.0), 0.0);
  }

  // Large spends: the mass beyond the loss cap is tracked as infinite, and ε becomes +∞ when it
  // alone exceeds δ.
  void infiniteLossMassIsTracked() {
    const PrivacyLossDistribution g = gaussian(1.0, 40.0, 1e-2);  // mean loss 800 > kPldLossCap
    QVERIFY(g.infinityMass() > 1.0 - 1e-12);
    QVERIFY(std::isinf(g.epsilonForDelta(1e-5)));
    // a = 600: all but P[L <= 500] = ½e^{-50} of the loss lies above the cap.
    const PrivacyLossDistribution l = laplace(1.0, 600.0, 1e-2);
    QVERIFY(l.infinityMass() >= 1.0 - 1e-15);
    QVERIFY(l.deltaForEpsilon(10.0) >= 1.0 - 1e-15);
    // a = 400: below the cap, nothing infinite; the atom ½ at 400 makes δ(ε) = 1 − e^{(ε−400)/2}.
    const PrivacyLossDistribution m = laplace(1.0, 400.0, 1e-2);
    QCOMPARE(m.infinityMass(), 0.0);
    QVERIFY(std::abs(m.deltaForEpsilon(398.0) - (1.0 - std::exp(-1.0))) < 1e-2);
    // A tiny tail: the Gaussian's discretisation stops 8σ above the mean.
    const PrivacyLossDistribution small = gaussian(1.0, 1.0);
    QVERIFY(small.infinityMass() > 0.0 && small.infinityMass() < 1e-14);
    QVERIFY(std::abs(small.finiteMass() + small.infinityMass() - 1.0) < 1e-12);
  }

  // A run's composition: the Gaussians merged exactly, Laplaces convolved, added δ respected.
  void runCompositionIsSoundAndTight() {
    ComposedReleases r;
    r.gaussianMu = {0.2, 0.35, 0.1};
    r.laplaceRatio = {0.05, 0.02};
    r.fixedDelta = 2e-7;
    r.perExpEpsilonDelta = 1e-9;
    auto acc = accountWithPld(r, 1e-5);
    QVERIFY(acc.ok());
    const double epsilon = acc.value().epsilon;
    const Real mu = std::sqrt(0.2L * 0.2L + 0.35L * 0.35L + 0.1L * 0.1L);
    QVERIFY(std::abs(acc.value().gaussianMu - static_cast<double>(mu)) < 1e-15);
    auto total = [&](Real e) { return mixtureDelta(e, mu, r.laplaceRatio) + 2e-7L + (1 + std::exp(e)) * 1e-9L; };
    qInfo("run: epsilon %.8g, grid %g, %zu points", epsilon, acc.value().interval, acc.value().points);
    QVERIFY(total(epsilon) <= 1e-5L);                                    // sound
    QVERIFY(total(epsilon - 3 * acc.value().interval - 1e-6) > 1e-5L);  // and within the grid's rounding
    // No Laplace, no added δ: Gaussian-DP exactly, up to the grid.
    ComposedReleases pure;
    pure.gaussianMu = {0.3, 0.4};
    auto p = accountWithPld(pure, 1e-6);
    QVERIFY(p.ok());
    const Real exact = gdpEpsilon(1e-6L, 0.5L);
    QVERIFY(p.value().epsilon >= exact && p.value().epsilon <= exact + p.value().interval + 1e-9L);
    // No noise: no finite ε.
    pure.gaussianMu.push_back(std::numeric_limits<double>::infinity());
    QVERIFY(std::isinf(accountWithPld(pure, 1e-6).value().epsilon));
  }

  void badParametersAreRefused() {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (double sigma : {0.0, -1.0, nan, inf}) {
      auto r = PrivacyLossDistribution::gaussian(sigma, 1.0);
      QVERIFY(!r.ok());
      QVERIFY2(r.status().message().find("sigma") != std::string::npos, r.status().message().c_str());
    }
    for (double delta2 : {0.0, -2.0, nan}) QVERIFY(!PrivacyLossDistribution::gaussian(1.0, delta2).ok());
    for (double b : {0.0, -1.0, nan}) {
      auto r = PrivacyLossDistribution::laplace(b, 1.0);
      QVERIFY(!r.ok());
      QVERIFY2(r.status().message().find("scale b") != std::string::npos, r.status().message().c_str());
    }
    for (double h : {0.0, -1e-4, nan, 2.0}) {
      auto r = PrivacyLossDistribution::gaussian(1.0, 1.0, h);
      QVERIFY(!r.ok());
      QVERIFY(r.status().message().find("interval") != std::string::npos);
    }
    auto tooFine = PrivacyLossDistribution::gaussian(1.0, 10.0, 1e-6);  // 160 / 1e-6 points
    QVERIFY(!tooFine.ok());
    QVERIFY(tooFine.status().message().find("coarser") != std::string::npos);
    QVERIFY(!gaussian(1.0, 1.0, 1e-4).compose(gaussian(1.0, 1.0, 1e-3)).ok());
    QVERIFY(!gaussian(1.0, 1.0).selfCompose(-1).ok());
    ComposedReleases r;
    r.gaussianMu = {nan};
    QVERIFY(!accountWithPld(r, 1e-5).ok());
    r.gaussianMu = {-0.5};
    QVERIFY(!accountWithPld(r, 1e-5).ok());
    r.gaussianMu = {0.5};
    for (double delta : {0.0, 1.0, nan}) QVERIFY(!accountWithPld(r, delta).ok());
    r.fixedDelta = nan;
    QVERIFY(!accountWithPld(r, 1e-5).ok());
  }
};

QTEST_APPLESS_MAIN(TestPldAccountant)
#include "tst_pld_accountant.moc"
