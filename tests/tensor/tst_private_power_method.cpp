// Seed 004, Algorithm 3 (differentially private robust tensor power method): zero noise is the
// robust method; the noise of every query is m·Δ_q (ν‖u‖∞², ν‖u‖∞³ for the seed's neighbours);
// the three accountants against formulas evaluated here by hand; a distinguishing test on
// neighbouring tensors, with a negative control whose noise is halved.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/privacy/mechanisms.h"
#include "core/tensor/low_rank_tensor.h"
#include "core/tensor/private_power_method.h"
#include "privacy/statistical_tests.h"
#include "test_util.h"

using namespace dplda;

namespace {

Eigen::MatrixXd randomOrthonormal(int d, int k, std::uint64_t seed) {
  SeededRandom rng(seed);
  Eigen::MatrixXd G(d, k);
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < d; ++i) G(i, j) = standardNormal(rng);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(G);
  return qr.householderQ() * Eigen::MatrixXd::Identity(d, k);
}

// ---- independent formulas ----
double Phi(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }
// δ(ε) of μ-GDP (Dong, Roth & Su), straight from the definition.
double gdpDelta(double mu, double eps) { return Phi(-eps / mu + mu / 2) - std::exp(eps) * Phi(-eps / mu - mu / 2); }
double gdpEpsilonByHand(double mu, double delta) {
  double lo = 0.0, hi = 100.0;
  for (int i = 0; i < 300; ++i) {
    const double mid = 0.5 * (lo + hi);
    (gdpDelta(mu, mid) > delta ? lo : hi) = mid;
  }
  return hi;
}
// Advanced composition (Dwork, Rothblum & Vadhan; Dwork & Roth Thm 3.20) of K classic Gaussian
// queries with multiplier m, δ′ = δ/(2K) each and δ/2 for the composition.
double advancedByHand(double K, double m, double delta) {
  const double epsPrime = std::sqrt(2.0 * std::log(1.25 / (delta / (2.0 * K)))) / m;
  return std::sqrt(2.0 * K * std::log(1.0 / (delta / 2.0))) * epsPrime + K * epsPrime * (std::exp(epsPrime) - 1.0);
}
// The seed's ν (Algorithm 3, line 2).
double printedNuByHand(double K, double eps, double delta) {
  const double deltaPrime = delta / (2.0 * K);
  const double epsPrime = eps / std::sqrt(K * (4.0 + std::log(2.0 / delta)));
  return 6.0 * std::sqrt(2.0 * std::log(1.25 / deltaPrime)) / epsPrime;
}

// ---- the audit of tests/privacy/tst_privacy_audit.cpp (its `audit` helper, copied: Clopper–
// Pearson bounds on half-line sets, jointly valid with probability 1 − 1e-6; here for both orders) ----
constexpr int kReleases = 200000;
constexpr int kThresholds = 400;
constexpr double kFamilyAlpha = 1e-6;
constexpr int kMinCount = 20;

int countAbove(const std::vector<double>& sorted, double t) {
  return static_cast<int>(sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), t));
}

double empiricalEpsilonLowerBound(std::vector<double> xd, std::vector<double> xdp, double delta) {
  std::sort(xd.begin(), xd.end());
  std::sort(xdp.begin(), xdp.end());
  const int n = static_cast<int>(xd.size());
  std::vector<double> pooled(xd);
  pooled.insert(pooled.end(), xdp.begin(), xdp.end());
  std::sort(pooled.begin(), pooled.end());
  const double alpha = kFamilyAlpha / (8.0 * kThresholds);
  double best = -std::numeric_limits<double>::infinity();
  auto consider = [&](int kP, int kQ) {
    if (kP < kMinCount) return;
    const double pLo = stat::clopperPearsonLower(kP, n, alpha);
    const double qHi = stat::clopperPearsonUpper(kQ, n, alpha);
    if (pLo > delta) best = std::max(best, std::log((pLo - delta) / qHi));
  };
  for (int i = 1; i < kThresholds; ++i) {
    const double t = pooled[static_cast<std::size_t>(i) * pooled.size() / kThresholds];
    // Both half-lines and both orders of the pair (the copied helper assumed D has the larger mean).
    consider(countAbove(xd, t), countAbove(xdp, t));
    consider(n - countAbove(xdp, t), n - countAbove(xd, t));
    consider(countAbove(xdp, t), countAbove(xd, t));
    consider(n - countAbove(xd, t), n - countAbove(xdp, t));
  }
  return best;
}

}  // namespace

class TestPrivatePowerMethod : public QObject {
  Q_OBJECT

 private slots:
  // Without noise Algorithm 3 is Algorithm 1: same starts, same eigenpairs (to convergence).
  void zeroNoiseReproducesRobustMethod() {
    const int k = 7;
    const Eigen::MatrixXd V = randomOrthonormal(k, k, 1);
    Eigen::VectorXd lambda(k);
    for (int i = 0; i < k; ++i) lambda[i] = 3.0 - 0.3 * i;
    Tensor3 T = symmetricFromComponents(lambda, V);
    SeededRandom rng(2);
    Tensor3 E(k);
    for (std::size_t i = 0; i < E.size(); ++i) E.data()[i] = 0.01 * standardNormal(rng);
    T += E.symmetrized();
    SeededRandom a(3), b(3), noise(4);
    const TensorEigenpairs robust = RobustPowerMethod({15, 80, 1e-14}).decompose(T, a).value();
    const NoisyPowerResult dp =
        noisyRobustPowerMethod(DenseTensorOperator(T), {0, 15, 80}, 0.0, TpmSensitivity::fixed(1.0), b, noise).value();
    QVERIFY((dp.pairs.lambda - robust.lambda).cwiseAbs().maxCoeff() < 1e-12);
    QVERIFY((dp.pairs.V - robust.V).cwiseAbs().maxCoeff() < 1e-10);
    QCOMPARE(dp.queries.total(), 7LL * 15 * 81);
    QCOMPARE(dp.queries.vector, 7LL * 15 * 80);
    QCOMPARE(dp.queries.draws, 7.0 * 15 * (80 * 7 + 1));
  }

  // Every query's noise is m Δ_q with Δ_q = 6‖u‖∞² (vector) and 6‖u‖∞³ (scalar): for the printed
  // accountant m Δ_q = ν‖u‖∞^p with the seed's ν computed here; the draws are N(0, σ²).
  void perQueryNoiseScale() {
    const int d = 30, r = 3, L = 4, R = 5;
    const LowRankTensorOperator T(Eigen::Vector3d(300, 200, 100), randomOrthonormal(d, 3, 5));
    const double eps = 2.0, delta = 1e-5;
    const double K = r * L * (R + 1.0);
    for (TpmAccountant acc : {TpmAccountant::Printed, TpmAccountant::GaussianExact, TpmAccountant::AdvancedComposition}) {
      const TpmCalibration cal = calibrateTpm(acc, eps, delta, tpmQueryCount(r, L, R, d)).value();
      if (acc == TpmAccountant::Printed) QVERIFY(std::abs(6.0 * cal.multiplier / printedNuByHand(K, eps, delta) - 1) < 1e-13);
      int vectors = 0, scalars = 0;
      std::vector<double> standardised;
      bool scalesOk = true;
      const TpmQueryObserver watch = [&](const TpmQuery& q) {
        const double expected = 6.0 * cal.multiplier * std::pow(q.infNorm, q.scalar ? 3 : 2);
        scalesOk = scalesOk && std::abs(q.sigma / expected - 1.0) < 1e-13 && q.sigma > 0;
        scalesOk = scalesOk && q.noise.size() == (q.scalar ? 1 : d);
        for (double x : q.noise) standardised.push_back(x / q.sigma);
        (q.scalar ? scalars : vectors) += 1;
      };
      SeededRandom init(6), noise(7);
      QVERIFY(noisyRobustPowerMethod(T, {r, L, R}, cal.multiplier, TpmSensitivity::entryLevel(), init, noise, watch).ok());
      QVERIFY(scalesOk);
      QCOMPARE(vectors, r * L * R);
      QCOMPARE(scalars, r * L);
      const double ks = stat::ksStatistic(standardised, [](double x) { return stat::normalCdf(x, 1.0); });
      QVERIFY(stat::ksPValue(ks, static_cast<double>(standardised.size())) > 1e-3);
    }
  }

  // The accounts of a noise multiplier against the formulas written out above; the printed ν at
  // δ = 1e-5: the printed proof gives ≈ 1.29ε, exact composition ≈ 0.12ε (k = 10, L = 20, R = 30).
  void accountantsAgainstHandFormulas() {
    const TpmQueryCount q = tpmQueryCount(10, 20, 30, 10);
    const double K = static_cast<double>(q.total());
    QCOMPARE(q.total(), 6200LL);
    for (double eps : {0.1, 1.0, 4.0}) {
      const double delta = 1e-5;
      const double m = printedTpmMultiplier(q.total(), eps, delta);
      const TpmPrivacyAccount a = accountTpmQueries(q.total(), m, delta);
      QVERIFY(std::abs(a.mu - std::sqrt(K) / m) < 1e-15);
      QVERIFY(std::abs(a.epsilonGaussian / gdpEpsilonByHand(a.mu, delta) - 1) < 1e-8);
      QVERIFY(std::abs(a.epsilonAdvanced / advancedByHand(K, m, delta) - 1) < 1e-12);
      const double rho = K / (2 * m * m);
      QVERIFY(std::abs(a.epsilonZcdp / (rho + 2 * std::sqrt(rho * std::log(1 / delta))) - 1) < 1e-12);
      QVERIFY(a.epsilonZcdp > a.epsilonGaussian);  // the same composition, a looser conversion
      qInfo("printed nu at eps = %g, delta = 1e-5, K = 6200: its proof gives %.4f eps, exact composition %.4f eps, "
            "zCDP %.4f eps",
            eps, a.epsilonAdvanced / eps, a.epsilonGaussian / eps, a.epsilonZcdp / eps);
      QVERIFY(a.epsilonAdvanced / eps > 1.2 && a.epsilonAdvanced / eps < 1.6);
      QVERIFY(a.epsilonGaussian / eps > 0.08 && a.epsilonGaussian / eps < 0.16);
    }
    // At ε = 1 the two printed claims are 1.29ε and 0.12ε (SPEC §14).
    const TpmPrivacyAccount one = accountTpmQueries(q.total(), printedTpmMultiplier(q.total(), 1.0, 1e-5), 1e-5);
    QVERIFY(std::abs(one.epsilonAdvanced - 1.29) < 0.01);
    QVERIFY(std::abs(one.epsilonGaussian - 0.12) < 0.01);
    // No noise, no privacy; a huge multiplier, almost none spent.
    QVERIFY(std::isinf(accountTpmQueries(10, 0.0, 1e-5).epsilonGaussian));
    QVERIFY(accountTpmQueries(10, 1e9, 1e-5).epsilonGaussian < 1e-6);
    QVERIFY(std::isnan(accountTpmQueries(2, 1.0, 1e-5).epsilonAdvanced));  // ε′ >= 1: the classic bound does not apply
  }

  // Each calibration spends what it claims: gaussian exactly (ε, δ) by exact composition,
  // advanced exactly ε by the printed proof's composition, printed ≈ 1.29ε by its own proof.
  void calibrationsSpendWhatTheyClaim() {
    const TpmQueryCount q = tpmQueryCount(5, 18, 30, 50);
    const double K = static_cast<double>(q.total()), eps = 1.0, delta = 1e-5;
    const TpmCalibration g = calibrateTpm(TpmAccountant::GaussianExact, eps, delta, q).value();
    const TpmCalibration adv = calibrateTpm(TpmAccountant::AdvancedComposition, eps, delta, q).value();
    const TpmCalibration pr = calibrateTpm(TpmAccountant::Printed, eps, delta, q).value();
    // gaussian: δ_μ(ε) by hand equals the δ left after the samplers' reserve.
    const double mu = std::sqrt(K) / g.multiplier;
    const double target = delta - g.samplerDelta;
    QVERIFY(g.samplerDelta > 0 && g.samplerDelta < 1e-9);
    QVERIFY(gdpDelta(mu, eps) <= target * (1 + 1e-9));
    QVERIFY(gdpDelta(mu * 1.0001, eps) > target);  // and not more noise than needed
    QVERIFY(std::abs(g.account.epsilonGaussian - eps) < 1e-6);
    // advanced: the hand formula yields ε (δ′ = δ_avail/(2K), δ_avail/2 for the composition).
    const double avail = delta - adv.samplerDelta;
    QVERIFY(advancedByHand(K, adv.multiplier, avail) <= eps * (1 + 1e-9));
    QVERIFY(advancedByHand(K, adv.multiplier * 0.999, avail) > eps);
    QVERIFY(adv.account.epsilonGaussian < eps);  // exact composition shows it spends less
    // printed: its ν, its proof short of ε.
    QVERIFY(std::abs(6 * pr.multiplier / printedNuByHand(K, eps, delta) - 1) < 1e-13);
    QVERIFY(pr.account.epsilonAdvanced > 1.2 * eps);
    QVERIFY(pr.account.epsilonGaussian < 0.2 * eps);
    QVERIFY(g.multiplier < pr.multiplier && pr.multiplier < adv.multiplier);
    qInfo("K = %lld: multipliers gaussian %.2f, printed %.2f, advanced %.2f (printed/gaussian %.2f)",
          q.total(), g.multiplier, pr.multiplier, adv.multiplier, pr.multiplier / g.multiplier);
  }

  // The e6 entry point: a k x k x k tensor, one Δ for both queries; the ledger states the
  // queries, σ of both query types, the accountant and the (ε, δ) under each accounting.
  void releaseLedger() {
    const int k = 5;
    const Eigen::MatrixXd V = randomOrthonormal(k, k, 11);
    const Tensor3 T = symmetricFromComponents(Eigen::VectorXd::LinSpaced(k, 5.0, 1.0), V);
    SeededRandom init(12), noise(13);
    const auto r = releasePrivateDecomposition(T, 1e-4, 1.0, 1e-6, TpmAccountant::GaussianExact, 10, 30, init, noise);
    QVERIFY(r.ok());
    const TpmLedgerEntry& e = r->ledger;
    QCOMPARE(e.queries, 5LL * 10 * 31);
    QCOMPARE(e.vectorQueries, 5LL * 10 * 30);
    QCOMPARE(e.scalarQueries, 5LL * 10);
    QCOMPARE(e.accountant, std::string("gaussian"));
    QVERIFY(std::abs(e.sigmaVectorQuery - e.noiseMultiplier * 1e-4) < 1e-15);
    QCOMPARE(e.sigmaScalarQuery, e.sigmaVectorQuery);
    QVERIFY(e.withinRequest);
    QVERIFY(e.deltaSpent <= 1e-6 * (1 + 1e-12) && e.deltaSpent > 0.99e-6);
    QVERIFY(std::abs(e.epsilonSpent - 1.0) < 1e-6);
    QVERIFY(e.account.epsilonAdvanced > e.account.epsilonGaussian);
    QVERIFY(e.noiseSource.find("seeded") != std::string::npos);
    QVERIFY(e.sensitivity.find("0.0001") != std::string::npos);
    QCOMPARE(r->pairs.lambda.size(), Eigen::Index(k));
    // The printed noise, labelled: its own proof overspends, exact composition shows it within the request.
    SeededRandom i2(12), n2(13);
    const auto printed = releasePrivateDecomposition(T, 1e-4, 1.0, 1e-6, TpmAccountant::Printed, 10, 30, i2, n2);
    QCOMPARE(printed->ledger.accountant, std::string("printed"));
    QVERIFY(printed->ledger.account.epsilonAdvanced > 1.2);
    QVERIFY(printed->ledger.epsilonSpent < 0.2 && printed->ledger.withinRequest);
    QVERIFY(printed->ledger.noiseMultiplier > e.noiseMultiplier);
    // Small noise (Δ = 1e-4: σ ≈ 0.02 per query, λ ≥ 1): the decomposition is recovered.
    for (int i = 0; i < k; ++i) QVERIFY(std::abs(std::abs(r->pairs.V.col(i).dot(V.col(i))) - 1.0) < 1e-2);
  }

  // Neighbouring 1 x 1 x 1 tensors (t and t + 6, the seed's relation: sym(e1⊗e1⊗e1) = 6) with
  // k = L = R = 1: K = 2 queries. The output λ̂ v̂³ is t + noise of the scalar query, a Gaussian
  // shift of Δ/σ = 1/m, while the claim covers both queries (μ = √2/m): the audit's lower bound
  // stays below ε, and halving the noise (μ_eff = 2/m > √2/m) is caught.
  void distinguishingTest() {
    const double eps = 1.0, delta = 1e-3, t = 50.0;
    Tensor3 T(1), Tp(1);
    T(0, 0, 0) = t;
    Tp(0, 0, 0) = t + 6.0;
    const TpmCalibration cal = calibrateTpm(TpmAccountant::GaussianExact, eps, delta, tpmQueryCount(1, 1, 1, 1)).value();
    auto statistic = [](const TensorEigenpairs& p) { return p.lambda[0] * std::pow(p.V(0, 0), 3); };
    auto sample = [&](const Tensor3& x, std::uint64_t seed, double multiplier) {
      SeededRandom init(seed), noise(seed + 1);
      std::vector<double> out(kReleases);
      for (int i = 0; i < kReleases; ++i)
        out[i] = statistic(noisyRobustPowerMethod(DenseTensorOperator(x), {1, 1, 1}, multiplier,
                                                  TpmSensitivity::entryLevel(), init, noise)
                               ->pairs);
      return out;
    };
    // The e6 entry point draws exactly this (Δ = 6 = 6‖u‖∞^p at d = 1, the calibrated multiplier).
    for (std::uint64_t seed : {1, 2, 3}) {
      SeededRandom i1(seed), n1(seed + 10), i2(seed), n2(seed + 10);
      const auto viaRelease = releasePrivateDecomposition(T, 6.0, eps, delta, TpmAccountant::GaussianExact, 1, 1, i1, n1);
      const auto direct =
          noisyRobustPowerMethod(DenseTensorOperator(T), {1, 1, 1}, cal.multiplier, TpmSensitivity::entryLevel(), i2, n2);
      QCOMPARE(statistic(viaRelease->pairs), statistic(direct->pairs));
    }
    const double lb = empiricalEpsilonLowerBound(sample(T, 101, cal.multiplier), sample(Tp, 201, cal.multiplier), delta);
    const double single = gdpEpsilonByHand(1.0 / cal.multiplier, delta);
    const double halved = gdpEpsilonByHand(2.0 / cal.multiplier, delta);
    const double lbHalved =
        empiricalEpsilonLowerBound(sample(T, 301, cal.multiplier / 2), sample(Tp, 401, cal.multiplier / 2), delta);
    qInfo("claimed eps %.3f (K = 2, mu = %.3f); the output's own exact eps %.3f, audit lower bound %.3f; "
          "halved noise: exact %.3f, audit lower bound %.3f",
          eps, std::sqrt(2.0) / cal.multiplier, single, lb, halved, lbHalved);
    QVERIFY(lb <= eps);
    QVERIFY2(lb > 0.5 * single, "the audit should come close to the output's own epsilon");
    QVERIFY2(lbHalved > eps, "halved noise must be caught");
  }

  void rejectsBadInput() {
    const Tensor3 T = symmetricFromComponents(Eigen::Vector2d(2, 1), Eigen::Matrix2d::Identity());
    SeededRandom init(1), noise(2);
    auto release = [&](double sens, double eps, double delta, int L, int R) {
      return releasePrivateDecomposition(T, sens, eps, delta, TpmAccountant::GaussianExact, L, R, init, noise).status();
    };
    QCOMPARE(release(0.0, 1, 1e-5, 5, 5).code(), StatusCode::InvalidArgument);
    QCOMPARE(release(1.0, 0, 1e-5, 5, 5).code(), StatusCode::InvalidArgument);
    QCOMPARE(release(1.0, 1, 1.0, 5, 5).code(), StatusCode::InvalidArgument);
    QCOMPARE(release(1.0, 1, 1e-5, -1, 5).code(), StatusCode::InvalidArgument);
    QCOMPARE(release(1.0, 1, 1e-5, 5, 0).code(), StatusCode::InvalidArgument);
    QVERIFY(release(1.0, 1, 1e-5, 5, 0).message().find("iterations") != std::string::npos);
    QVERIFY(!calibrateTpm(TpmAccountant::AdvancedComposition, 20.0, 1e-5, tpmQueryCount(1, 1, 1, 2)).ok());
    QVERIFY(calibrateTpm(TpmAccountant::AdvancedComposition, 5.0, 1e-5, tpmQueryCount(1, 1, 1, 2)).ok());
    QVERIFY(!noisyRobustPowerMethod(DenseTensorOperator(T), {3, 1, 1}, 1.0, TpmSensitivity::fixed(1), init, noise).ok());
    QVERIFY(!noisyRobustPowerMethod(DenseTensorOperator(T), {}, -1.0, TpmSensitivity::fixed(1), init, noise).ok());
    QCOMPARE(parseTpmAccountant("Advanced").value(), TpmAccountant::AdvancedComposition);
    QCOMPARE(parseTpmAccountant("gdp").value(), TpmAccountant::GaussianExact);
    QVERIFY(!parseTpmAccountant("basic").ok());
    Tensor3 bad = T;
    bad(0, 0, 0) = std::nan("");
    QCOMPARE(releasePrivateDecomposition(bad, 1, 1, 1e-5, TpmAccountant::Printed, 2, 2, init, noise).status().code(),
             StatusCode::NumericalFailure);
  }
};

QTEST_APPLESS_MAIN(TestPrivatePowerMethod)
#include "tst_private_power_method.moc"
