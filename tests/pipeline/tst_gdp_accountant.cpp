// The Gaussian-DP accountant (docs/PRIVACY.md §4.1): the node releases of a run compose as one
// Gaussian mechanism, μ² = Σ (Δ_i/σ_i)², which must meet the pooled (ε_G, δ_G) by the exact
// conversion δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), evaluated here independently.
#include <QtTest>
#include <cmath>

#include "core/corpus/synthetic_generator.h"
#include "core/pipeline/private_run.h"

using namespace dplda;

namespace {

long double Phi(long double x) { return 0.5L * std::erfc(-x / std::sqrt(2.0L)); }
long double gdpDelta(long double epsilon, long double mu) {
  return Phi(-epsilon / mu + mu / 2) - std::exp(epsilon) * Phi(-epsilon / mu - mu / 2);
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

PrivateRunResult run(Preset preset, Accountant a, double epsilon) {
  PrivacyOptions o;
  o.edges = presetEdges(preset);
  o.epsilon = epsilon;
  o.accountant = a;
  o.shareReleases = false;  // configuration 1's three releases, as the papers made them
  SeededRandom noise(3);
  return runPrivate(pipeline(), o, noise).value();
}

}  // namespace

class TestGdpAccountant : public QObject {
  Q_OBJECT
 private slots:
  void composedReleasesMeetTheTotalExactly() {
    for (double epsilon : {0.3, 1.0, 4.0}) {
      const PrivateRunResult r = run(Preset::Config1, Accountant::GaussianDp, epsilon);
      QVERIFY2(r.released, r.status.message().c_str());
      long double mu2 = 0;
      for (const LedgerEntry& e : r.ledger) mu2 += std::pow(static_cast<long double>(e.sensitivity / e.sigma), 2);
      const long double delta = gdpDelta(epsilon, std::sqrt(mu2));
      qInfo("epsilon %g: mu %.6Lg, delta %.6Lg", epsilon, std::sqrt(mu2), delta);
      QVERIFY(delta <= 1e-5L);
      QVERIFY(delta > 0.999e-5L);  // the budget is spent, not wasted
      QVERIFY(r.composition.find("gaussian-dp") != std::string::npos);
    }
  }

  void lessNoiseThanBasicComposition() {
    const PrivateRunResult basic = run(Preset::Config1, Accountant::Basic, 1.0);
    const PrivateRunResult gdp = run(Preset::Config1, Accountant::GaussianDp, 1.0);
    QCOMPARE(basic.ledger.size(), gdp.ledger.size());
    for (std::size_t i = 0; i < basic.ledger.size(); ++i) {
      QCOMPARE(gdp.ledger[i].sensitivity, basic.ledger[i].sensitivity);
      QVERIFY(gdp.ledger[i].sigma < 0.7 * basic.ledger[i].sigma);  // three releases: about 1/√3
    }
    QCOMPARE(gdp.epsilonSpent, basic.epsilonSpent);
  }

  void procedureOneComposesOnTop() {
    // Configuration 2: the Laplace lower bounds keep their basic shares; the Gaussian releases
    // (M2 via e5, T via e6) share the rest.
    const PrivateRunResult basic = run(Preset::Config2, Accountant::Basic, 50.0);
    const PrivateRunResult gdp = run(Preset::Config2, Accountant::GaussianDp, 50.0);
    QCOMPARE(gdp.ledger[0].node, std::string("sigma_k"));
    QCOMPARE(gdp.ledger[0].sigma, basic.ledger[0].sigma);
    QCOMPARE(gdp.ledger[1].sigma, basic.ledger[1].sigma);
    QVERIFY(std::isnan(gdp.ledger[0].mu));
    long double mu2 = 0;
    double epsilonG = 0, deltaG = 0;
    for (const LedgerEntry& e : gdp.ledger) {
      if (std::isnan(e.mu)) continue;
      mu2 += std::pow(static_cast<long double>(e.sensitivity / e.sigma), 2);
      epsilonG += e.epsilon;
      deltaG += e.delta;
    }
    QVERIFY(gdpDelta(epsilonG, std::sqrt(mu2)) <= deltaG);
    QCOMPARE(gdp.epsilonSpent, basic.epsilonSpent);
  }

  void onlyForTheAnalyticGaussian() {
    PrivacyOptions o;
    o.edges = presetEdges(Preset::Config1);
    o.accountant = Accountant::GaussianDp;
    o.mechanism = Mechanism::Laplace;
    o.edges = parseEdgeSet("e2,e5").value() | 1u;
    QCOMPARE(validatePrivacyOptions(o).code(), StatusCode::InvalidArgument);
    o.mechanism = Mechanism::ClassicGaussian;
    QVERIFY(validatePrivacyOptions(o).message().find("gaussian-dp") != std::string::npos);
    QCOMPARE(parseAccountant("gdp").value(), Accountant::GaussianDp);
    QCOMPARE(parseAccountant("basic").value(), Accountant::Basic);
    QVERIFY(!parseAccountant("rdp").ok());
  }
};

QTEST_APPLESS_MAIN(TestGdpAccountant)
#include "tst_gdp_accountant.moc"
