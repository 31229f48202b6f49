// Edge e6 released by seed 004's Algorithm 3 (TD from T̂ by noisy power queries) instead of
// noise on T̂: the ledger row, its calibration against calibrateTpm, the refusals, and that the
// release recovers the topics when the budget is large.
#include <QtTest>
#include <cmath>

#include "core/corpus/synthetic_generator.h"
#include "core/eval/metrics.h"
#include "core/pipeline/private_run.h"

using namespace dplda;

namespace {
struct Fixture {
  SyntheticCorpus sc;
  SpectralPipeline p;
};
Fixture& fixture() {
  static Fixture f = [] {
    Fixture x;
    GeneratorParams g;
    g.vocabSize = 20;
    g.topicCount = 3;
    g.docCount = 300000;
    g.seed = 5;
    x.sc = generateLdaCorpus(g).value();
    x.p.setCorpus(std::make_shared<const Corpus>(x.sc.corpus));
    SpectralOptions o;
    o.topicCount = 3;
    o.alpha0 = x.sc.truth.alpha0();
    x.p.setOptions(o);
    return x;
  }();
  return f;
}
PrivacyOptions options(double epsilon) {
  PrivacyOptions o;
  o.edges = presetEdges(Preset::Config2);
  o.privateDecomposition = true;
  o.epsilon = epsilon;
  return o;
}
}  // namespace

class TestPrivateDecomposition : public QObject {
  Q_OBJECT
 private slots:
  void ledgerStatesTheQueriesAndTheirNoise() {
    SeededRandom noise(1);
    const PrivateRunResult r = runPrivate(fixture().p, options(1e12), noise).value();
    QVERIFY2(r.released, r.status.message().c_str());
    const LedgerEntry* t = nullptr;
    for (const LedgerEntry& e : r.ledger)
      if (e.node == "T") t = &e;
    QVERIFY(t && t->spent);
    QVERIFY(t->mechanism.find("Algorithm 3") != std::string::npos);
    const TpmQueryCount q = tpmQueryCount(3, defaultPowerRestarts(3), 30, 3);
    QCOMPARE(t->draws, q.draws);
    const TpmCalibration cal = calibrateTpm(TpmAccountant::GaussianExact, t->epsilon, t->delta, q).value();
    QVERIFY(std::abs(t->sigma - cal.multiplier * t->sensitivity) <= 1e-12 * t->sigma);
    // With this much budget the released topics are the non-private ones.
    const TopicErrors err = compareTopics(fixture().sc.truth.topics, fixture().sc.truth.alpha, r.output->topics,
                                          r.output->alpha);
    QVERIFY2(err.l2Mean < 0.05, qPrintable(QString::number(err.l2Mean)));
  }

  void refusedWhereItDoesNotApply() {
    PrivacyOptions o = options(1.0);
    o.edges = presetEdges(Preset::Config1);
    QCOMPARE(validatePrivacyOptions(o).code(), StatusCode::InvalidArgument);
    o = options(1.0);
    o.accountant = Accountant::GaussianDp;
    QVERIFY(validatePrivacyOptions(o).message().find("basic") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestPrivateDecomposition)
#include "tst_private_decomposition.moc"
