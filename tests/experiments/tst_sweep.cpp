// The experiment engine: noise-free trials reproduce the non-private run, cached trials equal
// uncached ones, seeds fix the tables (whatever the thread count), error falls with ε, the
// summaries follow from the rows, cancellation, validation, and the presets.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <memory>

#include "core/corpus/synthetic_generator.h"
#include "core/eval/metrics.h"
#include "core/experiments/presets.h"
#include "core/experiments/report.h"
#include "core/experiments/sweep.h"
#include "core/pipeline/private_run.h"
#include "tests/experiments/sweep_test_case.h"

using namespace dplda;

namespace {

using sweep_test::loadedCase;
using sweep_test::makeCorpus;

std::vector<SweepConfiguration> allConfigurations() { return parseConfigurations("none,1,2,3,4").value(); }

// A small sweep that releases in every configuration (printed bounds, large ε).
SweepSpec smallSpec(const SyntheticCorpus& sc) {
  SweepSpec s;
  s.cases = {loadedCase(sc)};
  s.configurations = allConfigurations();
  s.epsilons = {2.0, 50.0};
  s.bounds = BoundSet::Printed;
  s.trials = 3;
  s.seeds = SweepSeeds::fromSeed(11);
  s.threads = 2;
  return s;
}

const SyntheticCorpus& smallCorpus() {
  static const SyntheticCorpus sc = makeCorpus(30, 3, 5000, 2);  // sigma_k = 0.014, well above Delta2
  return sc;
}

}  // namespace

class TestSweep : public QObject {
  Q_OBJECT
 private slots:
  void noiseFreeTrialsReproduceTheNonPrivateOutput_data() {
    QTest::addColumn<int>("bounds");
    QTest::newRow("sound") << static_cast<int>(BoundSet::Sound);
    QTest::newRow("printed") << static_cast<int>(BoundSet::Printed);
  }
  void noiseFreeTrialsReproduceTheNonPrivateOutput() {
    // With every noise scale multiplied by 0, configurations 1-4 must give the non-private
    // topics bit for bit: the private path recomputes W, T and the decomposition from the
    // same inputs with the same seeds.
    QFETCH(int, bounds);
    const SyntheticCorpus& sc = smallCorpus();
    SpectralPipeline pipeline;
    pipeline.setCorpus(std::make_shared<const Corpus>(sc.corpus));
    SpectralOptions o;
    o.topicCount = 3;
    o.alpha0 = sc.truth.alpha0();
    pipeline.setOptions(o);
    const SpectralModel model = pipeline.run().value();
    for (Preset p : {Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4}) {
      PrivacyOptions po;
      po.edges = presetEdges(p);
      po.epsilon = 1.0;
      po.bounds = static_cast<BoundSet>(bounds);
      po.noiseMultiplier = 0.0;
      SeededRandom noise(5);
      const PrivateRunResult r = runPrivate(pipeline, po, noise).value();
      if (po.bounds == BoundSet::Sound && (p == Preset::Config3 || p == Preset::Config4)) {
        // Δ_T is far above γ_s on this corpus: outside Theorem 6's regime, so nothing is released.
        QVERIFY2(!r.released && r.status.message().find("Theorem 6 regime") != std::string::npos,
                 r.status.message().c_str());
        continue;
      }
      QVERIFY2(r.released, r.status.message().c_str());
      // To rounding: configuration 1 contracts the explicit M̂3 with the released W, and a
      // released T̂ or TD is put back into the eigenvectors' frame by sign flips (exact).
      const double dTopics = (r.output->topics - model.output.topics).cwiseAbs().maxCoeff();
      const double dAlpha = (r.output->alpha - model.output.alpha).cwiseAbs().maxCoeff();
      QVERIFY2(dTopics < 1e-9 && dAlpha < 1e-9 * model.output.alpha.cwiseAbs().maxCoeff(),
               qPrintable(QString("%1: %2 %3").arg(presetName(p)).arg(dTopics).arg(dAlpha)));
    }
    // The same through the engine: zero utility loss and the baseline error in every row.
    SweepSpec s = smallSpec(sc);
    s.bounds = static_cast<BoundSet>(bounds);
    s.noiseMultiplier = 0.0;
    const SweepResult res = runSweep(s).value();
    for (const SweepRow& row : res.rows) {
      const EdgeSet edges = s.configurations[row.configIndex].edges;
      if (s.bounds == BoundSet::Sound && (edges == presetEdges(Preset::Config3) || edges == presetEdges(Preset::Config4))) {
        QVERIFY2(!row.released && row.reason.find("Theorem 6 regime") != std::string::npos, row.reason.c_str());
        continue;
      }
      QVERIFY2(row.released, row.reason.c_str());
      QVERIFY(row.lossL2 < 1e-9 && row.lossL1 < 1e-9 && row.lossAlpha < 1e-9);
      QVERIFY(std::abs(row.errorL2 - res.cases[0].baselineErrorL2) < 1e-9);
    }
  }

  void cachedTrialsEqualUncachedOnes() {
    // Every row of a parallel sweep (per-thread copies of the cached pipeline) equals a run
    // on a freshly built pipeline with the same noise seed, exactly.
    const SyntheticCorpus& sc = smallCorpus();
    const SweepSpec s = smallSpec(sc);
    const SweepResult res = runSweep(s).value();
    int checked = 0;
    for (const SweepRow& row : res.rows) {
      if (row.trial != 1) continue;
      SpectralPipeline fresh;
      fresh.setCorpus(std::make_shared<const Corpus>(sc.corpus));
      SpectralOptions o;
      o.topicCount = 3;
      o.alpha0 = sc.truth.alpha0();
      o.initSeed = s.seeds.init;
      fresh.setOptions(o);
      const SpectralModel model = fresh.run().value();
      PrivacyOptions po;
      po.edges = s.configurations[row.configIndex].edges;
      po.epsilon = row.epsilon;
      po.delta = s.delta;
      po.bounds = s.bounds;
      SeededRandom noise(deriveSeed(s.seeds.noise, 1));
      QCOMPARE(row.noiseSeed, deriveSeed(s.seeds.noise, 1));
      const PrivateRunResult r = runPrivate(fresh, po, noise).value();
      QCOMPARE(row.released, r.released);
      QCOMPARE(row.noiseScales.size(), r.ledger.size());
      for (std::size_t i = 0; i < r.ledger.size(); ++i) {
        QVERIFY(row.noiseScales[i].sigma == r.ledger[i].sigma ||
                (std::isnan(row.noiseScales[i].sigma) && std::isnan(r.ledger[i].sigma)));
      }
      if (!r.released) continue;
      const TopicErrors e = compareTopics(sc.truth.topics, sc.truth.alpha, r.output->topics, r.output->alpha);
      const TopicErrors l =
          compareTopics(model.output.topics, model.output.alpha, r.output->topics, r.output->alpha);
      QVERIFY(row.errorL2 == e.l2Mean);
      QVERIFY(row.errorAlpha == e.alphaError);
      QVERIFY(row.lossL1 == l.l1Mean);
      ++checked;
    }
    QVERIFY(checked >= 4);  // released rows of at least config none, 1 and others were compared
  }

  void seedsFixTheTables() {
    const SyntheticCorpus& sc = smallCorpus();
    SweepSpec s = smallSpec(sc);
    const SweepResult a = runSweep(s).value();
    const SweepResult b = runSweep(s).value();
    QCOMPARE(sweepResultsCsv(a), sweepResultsCsv(b));
    QCOMPARE(sweepSummaryCsv(a), sweepSummaryCsv(b));
    // Another noise seed changes the private rows, not the baseline.
    s.seeds.noise += 1;
    const SweepResult c = runSweep(s).value();
    QVERIFY(sweepResultsCsv(a) != sweepResultsCsv(c));
    int differing = 0;
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
      if (s.configurations[a.rows[i].configIndex].edges == 0) {
        QVERIFY(a.rows[i].errorL2 == c.rows[i].errorL2);
      } else if (a.rows[i].released && c.rows[i].released && a.rows[i].errorL2 != c.rows[i].errorL2) {
        ++differing;
      }
    }
    QVERIFY(differing > 10);
  }

  void threadCountDoesNotChangeResults() {
    const SyntheticCorpus& sc = smallCorpus();
    SweepSpec s = smallSpec(sc);
    s.threads = 1;
    const SweepResult one = runSweep(s).value();
    s.threads = 2;
    const SweepResult two = runSweep(s).value();
    s.threads = 3;  // more workers than cores: still the same
    const SweepResult three = runSweep(s).value();
    QCOMPARE(one.threadsUsed, 1);
    QCOMPARE(two.threadsUsed, 2);
    QCOMPARE(sweepResultsCsv(one), sweepResultsCsv(two));
    QCOMPARE(sweepResultsCsv(one), sweepResultsCsv(three));
  }

  void commonRandomNumbersAcrossConfigurations() {
    // Trial t of every configuration and ε draws from the same seed.
    const SweepResult r = runSweep(smallSpec(smallCorpus())).value();
    for (const SweepRow& row : r.rows) QCOMPARE(row.noiseSeed, deriveSeed(r.spec.seeds.noise, row.trial));
    QCOMPARE(r.rows.size(), std::size_t(1 * 5 * 2 * 3));
    const SweepRow& x = r.row(0, 3, 1, 2);
    QCOMPARE(x.configIndex, 3);
    QCOMPARE(x.epsilonIndex, 1);
    QCOMPARE(x.trial, 2);
  }

  void errorFallsWithEpsilon() {
    // A reduced figure2 corpus (d = 50, k = 5, N = 20000). With sound bounds only configuration
    // 1 releases at these sizes, and with printed bounds configurations 2-4 release only at
    // large ε with noise that still swamps the output, so the monotone trend is asserted for
    // configuration 1 (printed bounds): over 8 trials with fixed seeds, the median error must
    // fall at each step of ε = 0.5 -> 8 -> 128, by at least 0.02 each (observed: 0.41, 0.32, 0.08).
    const SyntheticCorpus sc = makeCorpus(50, 5, 20000, 3);
    SweepSpec s;
    s.cases = {loadedCase(sc, "N=20000")};
    s.configurations = parseConfigurations("none,1").value();
    s.epsilons = {0.5, 8.0, 128.0};
    s.bounds = BoundSet::Printed;
    s.trials = 8;
    s.seeds = SweepSeeds::fromSeed(3);
    const SweepResult r = runSweep(s).value();
    std::vector<double> med;
    for (int e = 0; e < 3; ++e) {
      const SweepSummaryRow& row = r.summaryRow(0, 1, e);
      QCOMPARE(row.released, 8);
      med.push_back(row.errorL2.median);
    }
    qInfo("config 1 median l2 error: %.4f %.4f %.4f (non-private %.4f)", med[0], med[1], med[2],
          r.cases[0].baselineErrorL2);
    QVERIFY(med[1] < med[0] - 0.02);
    QVERIFY(med[2] < med[1] - 0.02);
    QVERIFY(med[2] > r.cases[0].baselineErrorL2);  // privacy still costs something
    // Reading the sweep at an ε: grid points exactly, log-interpolation between them, nothing outside.
    const double mid = std::sqrt(s.epsilons[0] * s.epsilons[1]);
    QCOMPARE(readSweep(r, 0, 1, s.epsilons[1]).expectedErrorL2, med[1]);
    QVERIFY(std::abs(readSweep(r, 0, 1, mid).expectedErrorL2 - 0.5 * (med[0] + med[1])) < 1e-12);
    QVERIFY(std::isnan(readSweep(r, 0, 1, s.epsilons[0] / 2).expectedErrorL2));
    QCOMPARE(readSweep(r, 0, 1, 1.0).releasesFrom, s.epsilons[0]);  // configuration 1 releases everywhere
    // The random guess (uniform topics) is far worse than the non-private model, and finite.
    QVERIFY(std::isfinite(r.cases[0].guessErrorL2));
    QVERIFY(r.cases[0].guessErrorL2 > 10 * r.cases[0].baselineErrorL2);
    QVERIFY(med[0] < r.cases[0].guessErrorL2);
    // The non-private baseline does not depend on ε.
    QVERIFY(r.summaryRow(0, 0, 0).errorL2.median == r.summaryRow(0, 0, 2).errorL2.median);
  }

  void privateOutputsLieOnTheSimplex() {
    // OUT is a projection onto the simplex, so two outputs are at most sqrt(2) apart in l2,
    // whatever the noise (configuration 4 with printed bounds adds noise of scale up to 1e18
    // at N = 20000, which a projection must still map onto the simplex).
    const SyntheticCorpus sc = makeCorpus(50, 5, 20000, 3);
    SweepSpec s;
    s.cases = {loadedCase(sc, "N=20000")};
    s.configurations = parseConfigurations("2,3,4").value();
    s.epsilons = {8.0, 32.0};
    s.bounds = BoundSet::Printed;
    s.trials = 8;
    s.seeds = SweepSeeds::fromSeed(3);
    const SweepResult r = runSweep(s).value();
    int released = 0;
    for (const SweepRow& row : r.rows) {
      if (!row.released) continue;
      ++released;
      QVERIFY2(std::isfinite(row.errorL2) && row.errorL2 <= std::sqrt(2.0) + 1e-9,
               qPrintable(QString("config %1 at epsilon %2: l2 error %3 (noise %4)")
                              .arg(QString::fromStdString(s.configurations[row.configIndex].label))
                              .arg(row.epsilon)
                              .arg(row.errorL2)
                              .arg(row.noiseScales.back().sigma)));
      QVERIFY(row.lossL2 <= std::sqrt(2.0) + 1e-9);
    }
    QVERIFY(released > 10);
  }

  void summariesFollowFromTheRows() {
    const SweepResult r = runSweep(smallSpec(smallCorpus())).value();
    for (const SweepSummaryRow& s : r.summary) {
      std::vector<double> errors;
      int released = 0;
      for (int t = 0; t < r.spec.trials; ++t) {
        const SweepRow& row = r.row(s.caseIndex, s.configIndex, s.epsilonIndex, t);
        if (row.released) {
          ++released;
          errors.push_back(row.errorL2);
        }
      }
      QCOMPARE(s.released, released);
      QCOMPARE(s.releaseRate, static_cast<double>(released) / r.spec.trials);
      if (released == 0) {
        QVERIFY(std::isnan(s.errorL2.median));  // no fake error when nothing was released
      } else {
        std::sort(errors.begin(), errors.end());
        QVERIFY(s.errorL2.median == quantile(errors, 0.5));
        QVERIFY(s.errorL2.lower <= s.errorL2.median && s.errorL2.median <= s.errorL2.upper);
        QVERIFY(s.errorL2.lower >= errors.front() && s.errorL2.upper <= errors.back());
      }
    }
    // The CSVs: a header plus one line per row / summary row.
    const std::string results = sweepResultsCsv(r);
    QCOMPARE(static_cast<std::size_t>(std::count(results.begin(), results.end(), '\n')), r.rows.size() + 1);
    const std::string summary = sweepSummaryCsv(r);
    QCOMPARE(static_cast<std::size_t>(std::count(summary.begin(), summary.end(), '\n')),
             r.summary.size() + 1);
    QVERIFY(summary.find("error_l2_q10") != std::string::npos &&
            summary.find("error_l2_q90") != std::string::npos);
  }

  void listenerSeesEveryPointOnceWithTheFinalSummary() {
    // The live view: casesReady once before any point, then one pointDone per (case, config, ε)
    // whose row equals the final summary row; emptySummary has the same layout with NaN values.
    SweepSpec s = smallSpec(smallCorpus());
    std::vector<SweepSummaryRow> seen;
    int casesCalls = 0;
    bool pointBeforeCases = false;
    SweepListener listener;
    listener.casesReady = [&](const std::vector<SweepCaseInfo>& cases) {
      ++casesCalls;
      QCOMPARE(cases.size(), std::size_t(1));
    };
    listener.pointDone = [&](const SweepSummaryRow& row) {
      if (casesCalls == 0) pointBeforeCases = true;
      seen.push_back(row);
    };
    const SweepResult r = runSweep(s, nullptr, &listener).value();
    QCOMPARE(casesCalls, 1);
    QVERIFY(!pointBeforeCases);
    QCOMPARE(seen.size(), r.summary.size());
    std::vector<int> hits(r.summary.size(), 0);
    for (const SweepSummaryRow& row : seen) {
      const std::size_t i = summaryIndex(s, row.caseIndex, row.configIndex, row.epsilonIndex);
      ++hits[i];
      const SweepSummaryRow& fin = r.summary[i];
      QCOMPARE(row.released, fin.released);
      QCOMPARE(row.trials, fin.trials);
      QVERIFY(row.errorL2.median == fin.errorL2.median ||
              (std::isnan(row.errorL2.median) && std::isnan(fin.errorL2.median)));
    }
    for (int h : hits) QCOMPARE(h, 1);
    // ε-major scheduling: with one thread, every configuration of the first ε finishes first.
    s.threads = 1;
    seen.clear();
    runSweep(s, nullptr, &listener).value();
    const int G = static_cast<int>(s.configurations.size());
    for (int i = 0; i < G; ++i) QCOMPARE(seen[i].epsilonIndex, 0);
    const std::vector<SweepSummaryRow> empty = emptySummary(s, 1);
    QCOMPARE(empty.size(), r.summary.size());
    for (std::size_t i = 0; i < empty.size(); ++i) {
      QCOMPARE(empty[i].configIndex, r.summary[i].configIndex);
      QCOMPARE(empty[i].epsilon, r.summary[i].epsilon);
      QCOMPARE(empty[i].trials, 0);
      QVERIFY(std::isnan(empty[i].releaseRate) && std::isnan(empty[i].errorL2.median));
    }
  }

  void preparedPipelineGivesTheSameTables() {
    // A case that starts from the app's already-run pipeline must give the tables of a fresh one.
    const SyntheticCorpus& sc = smallCorpus();
    SweepSpec fresh = smallSpec(sc);
    SweepSpec reused = fresh;
    auto pipeline = std::make_shared<SpectralPipeline>();
    pipeline->setCorpus(reused.cases[0].source.corpus);
    SpectralOptions o;
    o.topicCount = reused.cases[0].topicCount;
    o.alpha0 = reused.cases[0].alpha0;
    o.initSeed = reused.seeds.init;
    pipeline->setOptions(o);
    QVERIFY(pipeline->run().ok());
    reused.cases[0].source.pipeline = pipeline;
    QCOMPARE(sweepResultsCsv(runSweep(reused).value()), sweepResultsCsv(runSweep(fresh).value()));
    // A pipeline of another corpus is not used (the case's own corpus decides).
    SweepSpec other = fresh;
    auto foreign = std::make_shared<SpectralPipeline>();
    foreign->setCorpus(std::make_shared<const Corpus>(makeCorpus(30, 3, 3000, 9).corpus));
    foreign->setOptions(o);
    QVERIFY(foreign->run().ok());
    other.cases[0].source.pipeline = foreign;
    QCOMPARE(sweepResultsCsv(runSweep(other).value()), sweepResultsCsv(runSweep(fresh).value()));
  }

  void splitWeightsReachTheLedger() {
    // Configuration 2 has three releases (M2, σ_k, T); weights 2:1:1 give M2 half of ε.
    SweepSpec s = smallSpec(smallCorpus());
    s.configurations = parseConfigurations("2").value();
    s.configurations[0].splitWeights = {2.0, 1.0, 1.0};
    s.epsilons = {4.0};
    s.trials = 1;
    const SweepResult r = runSweep(s).value();
    const std::vector<NoiseScale>& scales = r.rows[0].noiseScales;
    QCOMPARE(scales.size(), std::size_t(3));
    QCOMPARE(scales[0].epsilon, 2.0);
    QCOMPARE(scales[1].epsilon + scales[2].epsilon, 2.0);
    s.configurations[0].splitWeights = {1.0, 1.0};  // wrong count: refused before any work
    QCOMPARE(runSweep(s).status().code(), StatusCode::InvalidArgument);
  }

  void invalidSpecsAreRefused() {
    const SyntheticCorpus& sc = smallCorpus();
    auto refused = [](const SweepSpec& s, const char* needle) {
      const Status st = validateSweepSpec(s);
      if (st.isOk()) return false;
      if (st.message().find(needle) == std::string::npos) qWarning("message: %s", st.message().c_str());
      return st.message().find(needle) != std::string::npos && !runSweep(s).ok();
    };
    SweepSpec s = smallSpec(sc);
    QVERIFY(validateSweepSpec(s).isOk());
    {
      SweepSpec x = s;
      x.epsilons.clear();
      QVERIFY(refused(x, "epsilon"));
    }
    {
      SweepSpec x = s;
      x.epsilons = {0.5, -1};
      QVERIFY(refused(x, "-1"));
    }
    {
      SweepSpec x = s;
      x.trials = 0;
      QVERIFY(refused(x, "trials"));
    }
    {
      SweepSpec x = s;
      x.delta = 1.5;
      QVERIFY(refused(x, "1.5"));
    }
    {
      SweepSpec x = s;
      x.configurations.push_back(x.configurations[1]);
      QVERIFY(refused(x, "twice"));
    }
    {
      SweepSpec x = s;
      x.cases.push_back(x.cases[0]);
      QVERIFY(refused(x, "twice"));
    }
    {
      SweepSpec x = s;
      x.cases.clear();
      QVERIFY(refused(x, "no corpus"));
    }
    {
      SweepSpec x = s;
      x.bandLower = 0.9;
      x.bandUpper = 0.1;
      QVERIFY(refused(x, "band"));
    }
    {
      SweepSpec x = s;
      x.cases[0].topicCount = 2;
      QVERIFY(refused(x, "truth has 3 topics"));
    }
    {
      SweepSpec x = s;
      x.cases[0].source.generator = GeneratorParams{};
      QVERIFY(refused(x, "not both"));
    }
    {
      SweepSpec x = s;
      x.mechanism = Mechanism::PrintedClosedForm;
      QVERIFY(refused(x, "not differentially private"));
    }
    {
      SweepSpec x = s;
      x.decomposer = "nope";
      QVERIFY(refused(x, "nope"));
    }
    {
      SweepSpec x = s;
      x.threads = -1;
      QVERIFY(refused(x, "threads"));
    }
  }

  // Seed 004's online method as the sweep's decomposer: the non-private baseline only.
  void onlineDecomposerRunsTheBaselineOnly() {
    const SyntheticCorpus& sc = smallCorpus();
    SweepSpec s = smallSpec(sc);
    s.decomposer = "online";
    auto refusedRun = runSweep(s);
    QVERIFY(!refusedRun.ok());
    QVERIFY(QString::fromStdString(refusedRun.status().message()).contains("online decomposer"));
    s.configurations = parseConfigurations("none").value();
    const SweepResult r = runSweep(s).value();
    QVERIFY2(r.cases[0].baselineErrorL2 < 0.05, qPrintable(QString::number(r.cases[0].baselineErrorL2)));
  }

  void cancellationStopsTheSweep() {
    const SyntheticCorpus& sc = smallCorpus();
    SweepSpec s = smallSpec(sc);
    s.trials = 50;
    Feedback before;
    before.cancel();
    QCOMPARE(runSweep(s, &before).status().code(), StatusCode::Cancelled);
    // Cancelled from the progress callback part-way through.
    Feedback during;
    during.setProgressCallback([&](double f) {
      if (f > 0.2) during.cancel();
    });
    QCOMPARE(runSweep(s, &during).status().code(), StatusCode::Cancelled);
    QVERIFY(during.progress() < 1.0);
    // Progress reaches 1 on a full run.
    Feedback full;
    s.trials = 2;
    QVERIFY(runSweep(s, &full).ok());
    QCOMPARE(full.progress(), 1.0);
  }

  void failingCaseNamesItself() {
    // An impossible case (k larger than the vocabulary) is refused up front, naming the case.
    SweepSpec s = smallSpec(smallCorpus());
    s.cases[0].label = "tiny";
    s.cases[0].topicCount = 31;
    const Status st = runSweep(s).status();
    QVERIFY(!st.isOk());
    QVERIFY2(st.message().find("31") != std::string::npos, st.message().c_str());
    QVERIFY2(st.message().find("\"tiny\"") != std::string::npos, st.message().c_str());
  }

  void gridExpandsCases() {
    SweepCase base;
    base.label = "syn";
    base.source.generator = GeneratorParams{};
    SweepGrid grid;
    grid.docCounts = {1000, 2000};
    grid.alpha0s = {0.1, 10};
    const auto cases = expandGrid(base, grid).value();
    QCOMPARE(cases.size(), std::size_t(4));
    QCOMPARE(cases[3].source.generator->docCount, 2000);
    QCOMPARE(cases[3].alpha0, 10.0);
    QCOMPARE(cases[3].source.generator->alpha0, 10.0);
    QCOMPARE(cases[1].label, std::string("syn N=1000 alpha0=10"));
    SweepCase loaded = loadedCase(smallCorpus());
    QVERIFY(!expandGrid(loaded, grid).ok());  // N is fixed for a loaded corpus
    grid.docCounts.clear();
    QCOMPARE(expandGrid(loaded, grid).value().size(), std::size_t(2));
  }

  void reportNamesSeedsBoundsAndRates() {
    const SweepResult r = runSweep(smallSpec(smallCorpus())).value();
    ReportContext c;
    c.title = "test sweep";
    c.figures = {{"error", {"figures/error_l2.png", "figures/error_l2.csv"}}};
    const std::string md = sweepReportMarkdown(r, c);
    QVERIFY(md.find(std::to_string(r.spec.seeds.noise)) != std::string::npos);
    QVERIFY(md.find(std::to_string(r.spec.seeds.data)) != std::string::npos);
    QVERIFY(md.find(std::to_string(r.spec.seeds.init)) != std::string::npos);
    QVERIFY(md.find("printed") != std::string::npos);
    QVERIFY(md.find(DPLDA_VERSION) != std::string::npos);
    QVERIFY(md.find("seeded (mt19937_64)") != std::string::npos);
    QVERIFY(md.find("![error](figures/error_l2.png)") != std::string::npos);
    const SweepSummaryRow& s = r.summaryRow(0, 4, 1);
    QVERIFY(md.find(std::to_string(s.released) + "/" + std::to_string(s.trials)) != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestSweep)
#include "tst_sweep.moc"
