// The error-vs-N slopes (core/experiments/error_vs_n.h): the log–log fit itself, which points a
// fit takes from a sweep, the theory beside each configuration, and the preset at smoke size.
#include <QtTest>
#include <cmath>

#include "core/experiments/error_vs_n.h"
#include "core/experiments/presets.h"
#include "core/experiments/report.h"
#include "core/graph/computation_graph.h"

using namespace dplda;

namespace {

// A finished sweep built by hand: cases with N documents, configurations none and 1, one ε,
// `trials` trials whose utility loss (and error) follow value(config, N, trial).
SweepResult handMadeSweep(const std::vector<int>& docCounts, int trials,
                          const std::function<double(int g, int N, int t)>& loss, double guess) {
  SweepResult r;
  r.spec.configurations = {{"none", 0, {}}, {"1", presetEdges(Preset::Config1), {}}};
  r.spec.epsilons = {1.0};
  r.spec.trials = trials;
  for (int N : docCounts) {
    SweepCaseInfo info;
    info.label = "N=" + std::to_string(N);
    info.docCount = N;
    info.hasTruth = true;
    info.guessErrorL2 = guess;
    info.baselineErrorL2 = loss(0, N, 0);
    r.cases.push_back(info);
    SweepCase c;
    c.label = info.label;
    r.spec.cases.push_back(c);
  }
  for (int c = 0; c < static_cast<int>(docCounts.size()); ++c) {
    for (int g = 0; g < 2; ++g) {
      std::vector<double> err, lss;
      for (int t = 0; t < trials; ++t) {
        SweepRow row;
        row.caseIndex = c;
        row.configIndex = g;
        row.trial = t;
        const double v = loss(g, docCounts[c], t);
        row.released = std::isfinite(v);
        row.lossL2 = v;
        row.errorL2 = g == 0 ? v : v + r.cases[c].baselineErrorL2;
        r.rows.push_back(row);
        if (row.released) {
          err.push_back(row.errorL2);
          lss.push_back(row.lossL2);
        }
      }
      SweepSummaryRow s;
      s.caseIndex = c;
      s.configIndex = g;
      s.trials = trials;
      s.released = static_cast<int>(err.size());
      s.errorL2 = summarize(err, 0.1, 0.9);
      s.lossL2 = summarize(lss, 0.1, 0.9);
      r.summary.push_back(s);
    }
  }
  return r;
}

const ErrorVsNFit& fitOf(const std::vector<ErrorVsNFit>& fits, int g) {
  for (const ErrorVsNFit& f : fits)
    if (f.configIndex == g) return f;
  qFatal("no fit for configuration %d", g);
}

}  // namespace

class TstErrorVsN : public QObject {
  Q_OBJECT

 private slots:
  void fitRecoversAKnownSlope() {
    const std::vector<double> n = {1000, 3162, 10000, 31623, 100000};
    std::vector<double> inverse, root;
    for (double x : n) {
      inverse.push_back(3.0 / x);
      root.push_back(0.2 / std::sqrt(x));
    }
    const LogLogFit a = fitLogLog(n, inverse);
    QVERIFY(a.ok());
    QCOMPARE(a.points, 5);
    QVERIFY(std::abs(a.slope + 1.0) < 1e-12);
    QVERIFY(std::abs(a.intercept - std::log(3.0)) < 1e-10);
    QVERIFY(std::abs(a.at(2000.0) - 3.0 / 2000.0) < 1e-15);
    const LogLogFit b = fitLogLog(n, root);
    QVERIFY(std::abs(b.slope + 0.5) < 1e-12);
    // Points a log cannot take are left out, not turned into NaN slopes.
    std::vector<double> holes = inverse;
    holes[1] = 0.0;
    holes[3] = std::nan("");
    const LogLogFit c = fitLogLog(n, holes);
    QCOMPARE(c.points, 3);
    QVERIFY(std::abs(c.slope + 1.0) < 1e-12);
    // A noisy cloud: the least-squares slope of the logs, checked against the closed form.
    const std::vector<double> x = {1, std::exp(1.0), std::exp(2.0)}, y = {1, std::exp(2.0), std::exp(3.0)};
    QVERIFY(std::abs(fitLogLog(x, y).slope - 1.5) < 1e-12);  // logs (0,0), (1,2), (2,3)
    // No slope from one point or from equal N.
    QVERIFY(!fitLogLog({1000}, {0.1}).ok());
    QVERIFY(!fitLogLog({1000, 1000, 1000}, {0.1, 0.2, 0.3}).ok());
    QVERIFY(std::isnan(fitLogLog({1000, 1000}, {0.1, 0.2}).at(10.0)));
  }

  void theoryNamesItsTheorem() {
    const auto configs = parseConfigurations("none,1,2,3,4,1/gdp,1/clip/gdp,whitened/gdp,dp-vi").value();
    QCOMPARE(predictedRate(configs[0]).exponent, -0.5);
    QVERIFY(predictedRate(configs[0]).source.find("Lemma 29") != std::string::npos);
    const char* theorems[] = {"Theorem 10", "Theorem 12", "Theorem 14", "Theorem 16"};
    for (int i = 1; i <= 4; ++i) {
      const RatePrediction p = predictedRate(configs[i]);
      QCOMPARE(p.exponent, -1.0);
      QVERIFY2(p.source.find(theorems[i - 1]) != std::string::npos, p.source.c_str());
    }
    QCOMPARE(predictedRate(configs[5]).exponent, -1.0);  // an accountant changes constants only
    for (int i : {6, 7, 8}) QVERIFY(std::isnan(predictedRate(configs[i]).exponent));  // no seed theorem
  }

  void fitTakesTheUnsaturatedReleasedPoints() {
    // Config 1's loss is 5/N times a trial factor; at N = 100 it is saturated (above half the guess),
    // at N = 300000 no trial released. none's error is 0.3/sqrt(N).
    const std::vector<int> docs = {100, 1000, 10000, 100000, 300000};
    const double factors[] = {0.8, 1.0, 1.25};
    auto loss = [&](int g, int N, int t) {
      if (g == 0) return 0.3 / std::sqrt(static_cast<double>(N));
      if (N == 300000) return std::nan("");
      if (N == 100) return 0.6;
      return 5.0 / N * factors[t] * (t == 2 && N == 100000 ? 2.0 : 1.0);  // trial 2 bends at the end
    };
    const SweepResult r = handMadeSweep(docs, 3, loss, 1.0);
    const std::vector<ErrorVsNFit> fits = fitErrorVsN(r);
    QCOMPARE(fits.size(), std::size_t(2));
    const ErrorVsNFit& none = fitOf(fits, 0);
    QCOMPARE(none.quantity, std::string("error vs truth"));
    QCOMPARE(none.cases.size(), std::size_t(5));
    QVERIFY(std::abs(none.median.slope + 0.5) < 1e-12);
    QCOMPARE(none.trialFits, 3);
    const ErrorVsNFit& one = fitOf(fits, 1);
    QCOMPARE(one.quantity, std::string("utility loss"));
    QCOMPARE(one.cases, (std::vector<int>{1, 2, 3}));
    QVERIFY(std::abs(one.median.slope + 1.0) < 1e-12);  // the medians are trial 1's: exactly 5/N
    QCOMPARE(one.note, std::string("left out: released in fewer than half the trials at N = 300000; saturated "
                                   "(median error >= 0.5, half the random guess's) at N = 100"));
    QCOMPARE(one.trialFits, 3);
    QVERIFY(std::abs(one.trialMin + 1.0) < 1e-12);  // trials 0 and 1: -1 exactly
    QVERIFY(std::abs(one.trialMax - std::log(0.02) / (2 * std::log(10.0))) < 1e-12);  // trial 2's bent end
    QCOMPARE(one.theory.exponent, -1.0);
    // The excess error is config 1's loss here (its error is the baseline's plus the loss): slope -1 too.
    QVERIFY(std::abs(one.excess.slope + 1.0) < 1e-9);
    const std::string md = errorVsNMarkdown(r);
    QVERIFY(md.find("## Error against N: fitted slopes beside the theory") != std::string::npos);
    QVERIFY(md.find("| 1 | 1 | utility loss | 1000, 10000, 100000 | **-1** |") != std::string::npos);
    QVERIFY(md.find("Theorem 10") != std::string::npos);
    const std::string csv = errorVsNCsv(r);
    QVERIFY(csv.rfind("configuration,epsilon,quantity,n_used,slope,", 0) == 0);
    QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), 3L);
    // A running sweep (the app's live view) has summary rows but no trial rows: slopes, no range.
    SweepResult live = r;
    live.rows.clear();
    const std::vector<ErrorVsNFit> liveFits = fitErrorVsN(live);
    QVERIFY(std::abs(fitOf(liveFits, 1).median.slope + 1.0) < 1e-12);
    QCOMPARE(fitOf(liveFits, 1).trialFits, 0);
    // One case: no slope to fit, no section.
    QVERIFY(errorVsNMarkdown(handMadeSweep({1000}, 2, loss, 1.0)).empty());
  }

  void smokePresetReportsTheSlopeTable() {
    PresetOverrides ov;
    ov.trials = 2;
    ov.threads = 2;
    ExperimentPreset p = makeExperimentPreset("error-vs-n", ov).value();
    QCOMPARE(p.kind, ExperimentKind::ErrorVsN);
    QVERIFY(validateSweepSpec(p.sweep).isOk());
    QCOMPARE(p.sweep.cases.size(), std::size_t(5));
    QCOMPARE(p.sweep.cases.front().source.generator->docCount, 1000);
    QCOMPARE(p.sweep.cases.back().source.generator->docCount, 100000);
    // Smoke size: the three smallest corpora, the largest ε (where configuration 1 is past saturation).
    p.sweep.cases.resize(3);
    p.sweep.epsilons = {100.0};
    const SweepResult r = runSweep(p.sweep).value();
    ReportContext context;
    context.title = p.title;
    context.errorVsN = true;
    const std::string md = sweepReportMarkdown(r, context);
    QVERIFY(md.find("## Error against N: fitted slopes beside the theory") != std::string::npos);
    for (const char* row : {"| none | – | error vs truth |", "| 1 | 100 | utility loss |", "| 4 | 100 | utility loss |"})
      QVERIFY2(md.find(row) != std::string::npos, row);
    const std::vector<ErrorVsNFit> fits = fitErrorVsN(r);
    QCOMPARE(fits.size(), std::size_t(6));
    // The non-private error shrinks with N, and so does configuration 1's loss where it is fitted.
    QVERIFY(fitOf(fits, 0).median.ok());
    QVERIFY(fitOf(fits, 0).median.slope < 0);
    if (fitOf(fits, 1).median.ok()) QVERIFY(fitOf(fits, 1).median.slope < 0);
    // Without the flag (every other preset) there is no such section.
    context.errorVsN = false;
    QVERIFY(sweepReportMarkdown(r, context).find("fitted slopes") == std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TstErrorVsN)
#include "tst_error_vs_n.moc"
