// The verdict of a sweep with DP-VI and private spectral configurations (core/experiments/verdict):
// the best releasing spectral configuration competes, a side wins only with disjoint bands, and a
// side that released in fewer than half the trials gives no verdict. On hand-made summaries, so
// each rule is checked by a cell built to break it.
#include <QtTest>

#include "core/experiments/verdict.h"

using namespace dplda;

namespace {

void set(SweepResult& r, int g, int e, double median, double lower, double upper, double rate = 1.0) {
  SweepSummaryRow& row = r.summary[summaryIndex(r.spec, 0, g, e)];
  row.releaseRate = rate;
  row.trials = 4;
  row.released = static_cast<int>(rate * 4);
  row.errorL2 = {row.released, median, lower, upper};
}

SweepResult sweepOf(const std::string& configs, int epsilons) {
  SweepResult r;
  r.spec.configurations = parseConfigurations(configs).value();
  for (int e = 0; e < epsilons; ++e) r.spec.epsilons.push_back(0.1 * (e + 1));
  SweepCaseInfo c;
  c.label = "N=1000";
  c.hasTruth = true;
  r.cases = {c};
  r.summary = emptySummary(r.spec, 1);
  return r;
}

}  // namespace

class TestVerdict : public QObject {
  Q_OBJECT
 private slots:
  void eachRuleDecidesItsCell() {
    // Configurations: 0 none, 1 "1", 2 "whitened/gdp", 3 dp-vi.
    SweepResult r = sweepOf("none,1,whitened/gdp,dp-vi", 5);
    for (int e = 0; e < 5; ++e) set(r, 0, e, 0.001, 0.001, 0.001);  // the baseline never competes
    // ε0: spectral's best is "whitened/gdp" (0.05), bands disjoint from DP-VI's: spectral.
    set(r, 1, 0, 0.30, 0.20, 0.40);
    set(r, 2, 0, 0.05, 0.04, 0.06);
    set(r, 3, 0, 0.20, 0.15, 0.25);
    // ε1: DP-VI below with disjoint bands.
    set(r, 1, 1, 0.30, 0.28, 0.32);
    set(r, 2, 1, 0.35, 0.30, 0.40);
    set(r, 3, 1, 0.10, 0.08, 0.12);
    // ε2: medians differ but the bands overlap: no verdict.
    set(r, 1, 2, 0.10, 0.05, 0.20);
    set(r, 2, 2, 0.50, 0.40, 0.60);
    set(r, 3, 2, 0.15, 0.12, 0.18);
    // ε3: the better spectral median released in 1 of 4 trials: it does not compete; "1" does.
    set(r, 1, 3, 0.30, 0.29, 0.31);
    set(r, 2, 3, 0.01, 0.01, 0.01, 0.25);
    set(r, 3, 3, 0.10, 0.09, 0.11);
    // ε4: no spectral configuration released in half the trials.
    set(r, 1, 4, 0.01, 0.01, 0.01, 0.25);
    set(r, 2, 4, 0.01, 0.01, 0.01, 0.0);
    set(r, 3, 4, 0.10, 0.09, 0.11);
    const std::vector<VerdictCell> v = spectralVersusDpVi(r);
    QCOMPARE(v.size(), std::size_t(5));
    QCOMPARE(v[0].winner, std::string("spectral"));
    QCOMPARE(v[0].spectralConfig, 2);
    QCOMPARE(v[1].winner, std::string("dp-vi"));
    QCOMPARE(v[1].spectralConfig, 1);
    QCOMPARE(v[2].winner, std::string("overlap"));
    QCOMPARE(v[3].spectralConfig, 1);
    QCOMPARE(v[3].winner, std::string("dp-vi"));
    QCOMPARE(v[4].spectralConfig, -1);
    QCOMPARE(v[4].winner, std::string("no release"));
    const std::string md = verdictMarkdown(r);
    QVERIFY(md.find("spectral better in 1, DP-VI better in 2, no verdict in 2 (1 with overlapping bands)") !=
            std::string::npos);
    QVERIFY(md.find("whitened/gdp: 0.05 [0.04, 0.06]") != std::string::npos);
  }

  void noVerdictWithoutBothSidesOrATruth() {
    SweepResult spectralOnly = sweepOf("none,1,2", 1);
    QVERIFY(spectralVersusDpVi(spectralOnly).empty());
    QVERIFY(verdictMarkdown(spectralOnly).empty());
    SweepResult viOnly = sweepOf("vi,dp-vi", 1);
    QVERIFY(spectralVersusDpVi(viOnly).empty());
    SweepResult noTruth = sweepOf("1,dp-vi", 1);
    noTruth.cases[0].hasTruth = false;
    QVERIFY(spectralVersusDpVi(noTruth).empty());  // and no held-out documents
  }

  // A real corpus has no truth: its cells are judged on held-out perplexity, whatever the l2
  // columns hold (NaN there, as the sweep leaves them).
  void aRealCorpusIsJudgedOnHeldOutPerplexity() {
    SweepResult r = sweepOf("1/clip/gdp,dp-vi", 2);
    r.cases[0].hasTruth = false;
    r.cases[0].heldOutDocuments = 100;
    r.cases[0].label = "real k=10";
    auto perplexity = [&](int g, int e, double median, double lower, double upper) {
      SweepSummaryRow& row = r.summary[summaryIndex(r.spec, 0, g, e)];
      row.releaseRate = 1.0;
      row.trials = row.released = 4;
      row.errorL2 = {0, std::nan(""), std::nan(""), std::nan("")};
      row.perplexity = {4, median, lower, upper};
    };
    perplexity(0, 0, 2100, 2000, 2200);  // ε0: spectral's perplexity is higher: DP-VI
    perplexity(1, 0, 1500, 1450, 1550);
    perplexity(0, 1, 900, 880, 920);  // ε1: spectral lower
    perplexity(1, 1, 1400, 1350, 1450);
    const std::vector<VerdictCell> v = spectralVersusDpVi(r);
    QCOMPARE(v.size(), std::size_t(2));
    QCOMPARE(v[0].winner, std::string("dp-vi"));
    QCOMPARE(v[1].winner, std::string("spectral"));
    const std::string md = verdictMarkdown(r);
    QVERIFY2(md.find("| real k=10 | held-out perplexity | 0.2 | 1/clip/gdp: 900 [880, 920] | 1400 [1350, 1450] | "
                     "**spectral** |") != std::string::npos,
             md.c_str());
  }
};

QTEST_APPLESS_MAIN(TestVerdict)
#include "tst_verdict.moc"
