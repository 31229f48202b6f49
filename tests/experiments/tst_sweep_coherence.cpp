// Coherence in sweeps (SweepSpec::coherenceTopWords, issue 26 §2): every released model's NPMI and
// UMass on the training documents, equal to core/eval/coherence.h's values; columns only when
// asked for and never in a release-only output (a non-private diagnostic).
#include <QtTest>
#include <cmath>

#include "core/eval/coherence.h"
#include "core/experiments/sweep.h"
#include "core/experiments/sweep_models.h"
#include "core/vi/variational_lda.h"
#include "tests/experiments/sweep_test_case.h"

using namespace dplda;

namespace {

const SyntheticCorpus& corpus() {
  static const SyntheticCorpus sc = sweep_test::makeCorpus(30, 3, 2000, 4);
  return sc;
}

SweepSpec spec(int topWords) {
  SweepSpec s;
  s.cases = {sweep_test::loadedCase(corpus())};
  s.configurations = parseConfigurations("none,whitened/gdp,vi").value();
  s.epsilons = {2.0, 20.0};
  s.trials = 2;
  s.vi.method = ViMethod::Batch;
  s.vi.iterations = 5;
  s.coherenceTopWords = topWords;
  s.threads = 2;
  return s;
}

bool hasColumn(const std::string& csv, const std::string& name) {
  const std::string header = csv.substr(0, csv.find('\n'));
  return ("," + header + ",").find("," + name + ",") != std::string::npos;
}

}  // namespace

class TestSweepCoherence : public QObject {
  Q_OBJECT
 private slots:
  void rowsHoldTheCoherenceOfTheirModel() {
    const SweepResult r = runSweep(spec(5)).value();
    int scored = 0;
    for (const SweepRow& row : r.rows) {
      if (!row.released) {
        QVERIFY(std::isnan(row.coherenceNpmi));
        continue;
      }
      QVERIFY(row.coherenceNpmi >= -1.0 && row.coherenceNpmi <= 1.0);
      QVERIFY(std::isfinite(row.coherenceUmass) && row.coherenceUmass <= std::log(2.0));
      ++scored;
    }
    QVERIFY(scored >= 4);  // "none" and "vi" release at every ε
    // The "none" rows are the non-private spectral fit: the baseline's value, computed directly.
    const SweepRow& baseline = r.row(0, 0, 0, 0);
    QCOMPARE(baseline.coherenceNpmi, r.cases[0].baselineCoherenceNpmi);
    const std::string results = sweepResultsCsv(r), summary = sweepSummaryCsv(r);
    QVERIFY(hasColumn(results, "coherence_npmi") && hasColumn(results, "coherence_umass"));
    QVERIFY(hasColumn(summary, "coherence_npmi_median"));
    QVERIFY(!std::isnan(r.summaryRow(0, 0, 0).coherenceNpmi.median));
  }

  void viRowAgreesWithTheCoherenceModule() {
    // Trial t's "vi" row: the VI fit of viOptionsFor(spec, case, t), refitted here and scored directly.
    const SweepSpec s = spec(6);
    const SweepResult r = runSweep(s).value();
    for (int t = 0; t < s.trials; ++t) {
      const LdaModel vi = fitVi(corpus().corpus, 3, viOptionsFor(s, s.cases[0], t)).value().model;
      const CoherenceResult c = topicCoherence(vi.topics, corpus().corpus, 6).value();
      const SweepRow& row = r.row(0, 2, 1, t);
      QCOMPARE(row.coherenceNpmi, c.meanNpmi);
      QCOMPARE(row.coherenceUmass, c.meanUmass);
    }
    // Another N reaches the computation.
    QVERIFY(runSweep(spec(10)).value().row(0, 2, 0, 0).coherenceNpmi != r.row(0, 2, 0, 0).coherenceNpmi);
  }

  void offAndReleaseOnlyLeaveTheColumnsOut() {
    const SweepResult off = runSweep(spec(0)).value();
    QVERIFY(!hasColumn(sweepResultsCsv(off), "coherence_npmi"));
    QVERIFY(std::isnan(off.rows.front().coherenceNpmi));
    SweepSpec s = spec(5);
    s.releaseOnly = true;
    const SweepResult ro = runSweep(s).value();
    QVERIFY(!hasColumn(sweepResultsCsv(ro), "coherence_npmi"));
    QVERIFY(!hasColumn(sweepSummaryCsv(ro), "coherence_npmi_median"));
    QVERIFY(!releasedColumn("coherence_npmi"));
  }

  void badTopWordsAreRefused() {
    SweepSpec s = spec(1);
    QCOMPARE(validateSweepSpec(s).code(), StatusCode::InvalidArgument);
    s.coherenceTopWords = -2;
    QCOMPARE(validateSweepSpec(s).code(), StatusCode::InvalidArgument);
  }
};

QTEST_APPLESS_MAIN(TestSweepCoherence)
#include "tst_sweep_coherence.moc"
