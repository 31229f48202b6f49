// "/clip" configurations in sweeps (docs/PRIVACY.md §12): their trials run on the clipped
// moments, with Lemma C4's smaller sensitivities, and their exact σ_k and γ_s columns are those of
// the clipped moments they perturb, not the unclipped baseline's.
#include <QtTest>
#include <cmath>
#include <memory>

#include "core/pipeline/spectral_pipeline.h"
#include "tests/experiments/sweep_test_case.h"

using namespace dplda;

class TestSweepClip : public QObject {
  Q_OBJECT
 private slots:
  void clippedRowsDescribeTheClippedMoments() {
    const SweepCase c = sweep_test::loadedCase(sweep_test::makeCorpus(30, 3, 5000, 2));
    SweepSpec s;
    s.cases = {c};
    s.configurations = parseConfigurations("1/gdp,1/clip/gdp").value();
    s.epsilons = {1.0, 10.0};
    s.trials = 2;
    s.seeds = SweepSeeds::fromSeed(3);
    s.threads = 2;
    s.momentClip = {true, 0.3, 0.1, 0.03};  // tight enough that many documents are clipped
    auto r = runSweep(s);
    QVERIFY2(r.ok(), r.ok() ? "" : r.status().message().c_str());

    // The exact diagnostics of the clipped moments, computed independently.
    SpectralPipeline plain, clipped;
    SpectralOptions o;
    o.topicCount = 3;
    o.alpha0 = c.alpha0;
    o.initSeed = s.seeds.init;
    plain.setCorpus(c.source.corpus);
    plain.setOptions(o);
    o.clip = s.momentClip;
    clipped.setCorpus(c.source.corpus);
    clipped.setOptions(o);
    auto pm = plain.run();
    auto cm = clipped.run();
    QVERIFY(pm.ok() && cm.ok());
    QVERIFY(std::abs(cm->whitening.sigmaK() - pm->whitening.sigmaK()) > 1e-6 * pm->whitening.sigmaK());

    for (int e = 0; e < 2; ++e) {
      for (int t = 0; t < 2; ++t) {
        const SweepRow& unclippedRow = r->row(0, 0, e, t);
        const SweepRow& clippedRow = r->row(0, 1, e, t);
        QCOMPARE(unclippedRow.sigmaK, pm->whitening.sigmaK());
        QCOMPARE(unclippedRow.gammaS, pm->gammaS);
        QCOMPARE(clippedRow.sigmaK, cm->whitening.sigmaK());
        QCOMPARE(clippedRow.gammaS, cm->gammaS);
        // Same ε, smaller sensitivity: the clipped row's M2 noise is smaller.
        QVERIFY(!unclippedRow.noiseScales.empty() && !clippedRow.noiseScales.empty());
        QVERIFY2(clippedRow.noiseScales[0].sigma < unclippedRow.noiseScales[0].sigma,
                 qPrintable(QString("%1 vs %2").arg(clippedRow.noiseScales[0].sigma).arg(unclippedRow.noiseScales[0].sigma)));
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestSweepClip)
#include "tst_sweep_clip.moc"
