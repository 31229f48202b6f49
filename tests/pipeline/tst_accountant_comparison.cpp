// A run's ledger under basic composition, Gaussian-DP and the PLD accountant (docs/PRIVACY.md
// §16.4), on real runs: the Gaussian-DP column reproduces a --accountant gdp run's ε; the PLD
// column is sound against an independent computation from the ledger (the Gaussian rows merged,
// Procedure 1's Laplace rows integrated by quadrature, their δ and the samplers' tails added) and
// never above Gaussian-DP by more than the grid; the vocabulary selection's threshold is added.
#include <QtTest>
#include <cmath>

#include "core/corpus/synthetic_generator.h"
#include "core/pipeline/accountant_comparison.h"
#include "core/pipeline/private_run.h"
#include "core/privacy/vocabulary_selection.h"

using namespace dplda;

namespace {

using Real = long double;
Real Phi(Real x) { return 0.5L * std::erfc(-x / std::sqrt(2.0L)); }
Real gdpDelta(Real x, Real mu) { return Phi(-x / mu + mu / 2) - std::exp(x) * Phi(-x / mu - mu / 2); }

// E over one scalar Laplace loss (a = Δ/b) of f: atoms and the density ¼e^{−(a−t)/2}, 10-point
// Gauss–Legendre on 64 panels.
Real laplaceExpectation(Real a, const std::function<Real(Real)>& f) {
  static const Real x[5] = {0.1488743389816312108848260L, 0.4333953941292471907992659L, 0.6794095682990244062343274L,
                            0.8650633666889845107320967L, 0.9739065285171717200779640L};
  static const Real w[5] = {0.2955242247147528701738930L, 0.2692667193099963550912269L, 0.2190863625159820439955349L,
                            0.1494513491505805931457763L, 0.0666713443086881375935688L};
  const int panels = 64;
  const Real width = 2 * a / panels;
  Real integral = 0;
  for (int p = 0; p < panels; ++p)
    for (int i = 0; i < 5; ++i)
      for (Real s : {-1.0L, 1.0L}) {
        const Real t = -a + (p + 0.5L) * width + s * x[i] * width / 2;
        integral += w[i] * width / 2 * 0.25L * std::exp(-(a - t) / 2) * f(t);
      }
  return 0.5L * f(a) + 0.5L * std::exp(-a) * f(-a) + integral;
}
Real mixtureDelta(Real epsilon, Real mu, const std::vector<Real>& laplace, std::size_t from = 0) {
  if (from == laplace.size()) return gdpDelta(epsilon, mu);
  return laplaceExpectation(laplace[from], [&](Real t) { return mixtureDelta(epsilon - t, mu, laplace, from + 1); });
}

SpectralPipeline& pipeline() {
  static SpectralPipeline p = [] {
    GeneratorParams g;
    g.vocabSize = 30;
    g.topicCount = 3;
    g.docCount = 200000;
    g.seed = 2;
    SpectralPipeline q;
    q.setCorpus(std::make_shared<const Corpus>(generateLdaCorpus(g).value().corpus));
    SpectralOptions o;
    o.topicCount = 3;
    q.setOptions(o);
    return q;
  }();
  return p;
}

PrivateRunResult run(Preset preset, Accountant a, double epsilon, double noiseMultiplier = 1.0) {
  PrivacyOptions o;
  o.edges = presetEdges(preset);
  o.epsilon = epsilon;
  o.accountant = a;
  o.noiseMultiplier = noiseMultiplier;
  o.nonPrivateDiagnostics = false;
  SeededRandom noise(3);
  return runPrivate(pipeline(), o, noise).value();
}

// δ_exact(ε) + the added δ of the run's spent rows, by the independent computation (the Gaussian
// rows merged, the Laplace rows integrated): what ε_PLD must satisfy.
Real exactDelta(const PrivateRunResult& r, Real epsilon) {
  Real mu2 = 0, fixed = 0, tails = 0;
  std::vector<Real> laplace;
  for (const LedgerEntry& e : r.ledger) {
    if (!e.spent || e.node == "vocabulary") continue;
    if (e.mechanism.rfind("laplace", 0) == 0) {
      laplace.push_back(static_cast<Real>(e.sensitivity) / e.sigma);
      fixed += e.delta;
      tails += e.draws * 0x1p-52L;
    } else {
      mu2 += std::pow(static_cast<Real>(e.sensitivity) / e.sigma, 2);
      tails += e.draws * 0x1p-53L;
    }
  }
  return mixtureDelta(epsilon, std::sqrt(mu2), laplace) + fixed + (1 + std::exp(epsilon)) * tails;
}

}  // namespace

class TestAccountantComparison : public QObject {
  Q_OBJECT
 private slots:
  // A --accountant gdp run: the Gaussian-DP column is the requested ε; PLD is no larger beyond
  // its grid and agrees with the exact ε of the merged Gaussian.
  void gaussianDpColumnReproducesAGdpRun() {
    for (double epsilon : {0.3, 1.0, 4.0}) {
      const PrivateRunResult r = run(Preset::Config1, Accountant::GaussianDp, epsilon);
      const AccountantComparison& c = r.accounts;
      qInfo("config 1 gdp, eps %g: %s", epsilon, accountantComparisonText(c).c_str());
      QVERIFY(c.computed);
      QCOMPARE(c.delta, r.deltaSpent);
      QVERIFY(std::abs(c.gaussianDp - epsilon) < 1e-6 * epsilon);
      QVERIFY(c.pld <= c.gaussianDp + 2 * c.pldInterval);
      QVERIFY(exactDelta(r, c.pld) <= r.deltaSpent);                             // sound
      QVERIFY(exactDelta(r, c.pld - 2 * c.pldInterval - 1e-7) > r.deltaSpent);  // within the grid
    }
  }

  // Basic composition's three releases: Gaussian-DP and PLD certify less than the ledger's sum.
  void basicRunsSpendLessUnderTheTighterAccountants() {
    const PrivateRunResult r = run(Preset::Config1, Accountant::Basic, 1.0);
    const AccountantComparison& c = r.accounts;
    qInfo("config 1 basic: %s", accountantComparisonText(c).c_str());
    QVERIFY(c.gaussianDp < 0.9 * c.ledger);
    QVERIFY(c.pld <= c.gaussianDp + 2 * c.pldInterval);
    QVERIFY(exactDelta(r, c.pld) <= r.deltaSpent);
    QCOMPARE(c.best(), std::min(c.pld, c.gaussianDp));
  }

  // Configuration 2: Procedure 1's Laplace lower bounds are composed by their PLD with the
  // Gaussian releases; their δ (failure probabilities) and the samplers' tails are added.
  void procedureOneIsComposedAndItsDeltaAdded() {
    for (Accountant a : {Accountant::Basic, Accountant::GaussianDp}) {
      const PrivateRunResult r = run(Preset::Config2, a, 5.0);
      int gaussianRows = 0;
      for (const LedgerEntry& e : r.ledger) gaussianRows += e.spent && e.mechanism.rfind("laplace", 0) != 0;
      QVERIFY2(gaussianRows > 0, r.status.message().c_str());
      const AccountantComparison& c = r.accounts;
      qInfo("config 2 %s: %s", accountantName(a), accountantComparisonText(c).c_str());
      QVERIFY(c.computed);
      QVERIFY(exactDelta(r, c.pld) <= r.deltaSpent);
      QVERIFY(exactDelta(r, c.pld - 4 * c.pldInterval - 1e-6) > r.deltaSpent);
      QVERIFY(c.pld < c.ledger);
      // Without Procedure 1's δ the account would be smaller: it is counted.
      std::vector<AccountedRelease> releases = accountedReleases(r.ledger);
      QCOMPARE(releases[0].noise, AccountedRelease::Noise::LowerBound);
      const double withDelta = compareAccountants(releases, c.ledger, c.delta).pld;
      for (AccountedRelease& x : releases)
        if (x.noise == AccountedRelease::Noise::LowerBound) x.delta = 0.0;
      QCOMPARE(withDelta, c.pld);
      QVERIFY(compareAccountants(releases, c.ledger, c.delta).pld < c.pld);
    }
  }

  // The vocabulary selection: its Gaussian part composed, (1 + e^ε)·p_B added for the threshold.
  void vocabularySelectionIsComposedWithItsThreshold() {
    PrivateRunResult r = run(Preset::Config1, Accountant::GaussianDp, 1.0);
    const double before = r.accounts.pld;
    CorpusProvenance p;
    p.vocabulary = VocabularyOrigin::PrivateSelection;
    p.selection = calibrateVocabularySelection({}, 200000).value();  // ε_v = 1, δ_v = 1e-6, m = 20
    chargeVocabularySelection(r, p);
    const AccountantComparison c = compareRunAccountants(r.ledger, r.epsilonSpent, r.deltaSpent);
    qInfo("config 1 gdp + vocabulary: %s", accountantComparisonText(c).c_str());
    QVERIFY(std::abs(c.ledger - 2.0) < 1e-12);
    QVERIFY(c.pld > before);
    QVERIFY(c.pld < c.gaussianDp);  // the selection's Gaussian joins the composition
    const AccountedRelease v = vocabularyRelease(p.selection);
    const Real pB = 1e-6L / (2 * (1 + std::exp(1.0L)));
    QVERIFY(v.perExpEpsilonDelta >= pB);
    // The exact account with the selection's Gaussian merged and its added δ: sound.
    Real mu2 = std::pow(static_cast<Real>(v.ratio), 2), tails = v.perExpEpsilonDelta;
    for (const LedgerEntry& e : r.ledger)
      if (e.node != "vocabulary") {
        mu2 += std::pow(static_cast<Real>(e.sensitivity) / e.sigma, 2);
        tails += e.draws * 0x1p-53L;
      }
    QVERIFY(gdpDelta(c.pld, std::sqrt(mu2)) + (1 + std::exp(static_cast<Real>(c.pld))) * tails <= r.deltaSpent);
  }

  // DP-VI: zCDP beside Gaussian-DP and PLD of its T releases; the zCDP conversion is the loosest.
  void dpViLedger() {
    DpViLedger L;
    L.releases = 50;
    L.sensitivity = 20.0;
    auto cal = calibrateDpVi(1.0, 1e-5, 50, 10.0, 1000.0);
    QVERIFY(cal.ok());
    L.sigma = cal.value().sigma;
    L.draws = cal.value().draws;
    L.epsilon = 1.0;
    L.delta = 1e-5;
    const AccountantComparison c = compareDpViAccountants(L, CorpusProvenance{});
    qInfo("dp-vi: %s", accountantComparisonText(c).c_str());
    QCOMPARE(c.ledgerAccountant, std::string("zcdp"));
    QVERIFY(c.gaussianDp < 0.8);
    QVERIFY(c.pld >= c.gaussianDp - 1e-9 && c.pld <= c.gaussianDp + 2 * c.pldInterval);
  }

  // No noise (tests of the noise-free path): no finite ε under either new accountant.
  void noNoiseHasNoFiniteEpsilon() {
    const PrivateRunResult r = run(Preset::Config1, Accountant::Basic, 1.0, 0.0);
    QVERIFY(std::isinf(r.accounts.gaussianDp));
    QVERIFY(std::isinf(r.accounts.pld));
    QVERIFY(accountantComparisonText(r.accounts).find("pld unbounded") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestAccountantComparison)
#include "tst_accountant_comparison.moc"
