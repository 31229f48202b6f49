// The sweep engine's variational baselines and held-out evaluation (SPEC §15): "vi" and "dp-vi"
// configurations, perplexity columns, the Frobenius error, and the paper-claim checks.
#include <QtTest>
#include <cmath>
#include <memory>

#include "core/corpus/synthetic_generator.h"
#include "core/experiments/paper_claims.h"
#include "core/experiments/presets.h"
#include "core/experiments/report.h"
#include "core/experiments/sweep.h"
#include "core/experiments/sweep_models.h"
#include "core/vi/dp_vi.h"
#include "tests/experiments/sweep_test_case.h"

using namespace dplda;

namespace {

SweepCase smallCase() {
  static const SyntheticCorpus sc = sweep_test::makeCorpus(30, 3, 3000, 2);
  return sweep_test::loadedCase(sc);
}

SweepSpec viSpec() {
  SweepSpec s;
  s.cases = {smallCase()};
  s.configurations = parseConfigurations("none,1,vi,dp-vi").value();
  s.epsilons = {1.0, 10.0};
  s.trials = 2;
  s.holdout = 0.2;
  s.vi.method = ViMethod::Batch;
  s.vi.iterations = 30;
  // VI has local optima: about 1 start in 5 merges two topics on this corpus (measured over 24
  // starts); these seeds' starts all reach the global one, so the error check below is meaningful.
  s.seeds = SweepSeeds::fromSeed(2);
  s.threads = 2;
  return s;
}

// A hand-made result: configuration "2" against "dp-vi" on one case, three ε values.
SweepResult handMade(const std::vector<double>& spectral, const std::vector<double>& dpvi) {
  SweepResult r;
  r.spec.configurations = parseConfigurations("2,dp-vi").value();
  r.spec.epsilons = {0.1, 1.0, 2.0};
  r.spec.trials = 1;
  SweepCaseInfo info;
  info.label = "c";
  info.hasTruth = true;
  r.cases = {info};
  for (int g = 0; g < 2; ++g)
    for (int e = 0; e < 3; ++e) {
      const double v = g == 0 ? spectral[e] : dpvi[e];
      SweepRow row;
      row.configIndex = g;
      row.epsilonIndex = e;
      row.released = !std::isnan(v);
      row.reason = row.released ? "" : "sigma_k~ <= Delta2";
      r.rows.push_back(row);
      SweepSummaryRow s;
      s.configIndex = g;
      s.epsilonIndex = e;
      s.trials = 1;
      s.released = row.released ? 1 : 0;
      s.errorL2.median = v;
      r.summary.push_back(s);
    }
  return r;
}

}  // namespace

class TestSweepModels : public QObject {
  Q_OBJECT

 private slots:
  void parsesTheVariationalConfigurations() {
    const auto c = parseConfigurations("none,vi,dp-vi,e5+e6").value();
    QCOMPARE(c.size(), std::size_t(4));
    QVERIFY(c[1].model == SweepModel::Vi && c[1].edges == 0);
    QVERIFY(c[2].model == SweepModel::DpVi && c[2].edges == 0);
    QVERIFY(c[3].model == SweepModel::Spectral && c[3].edges != 0);
    QVERIFY(!parseConfigurations("none,dpvi").ok());
  }

  void viRowsAreFlatAndDpViSpendsItsBudget() {
    const SweepSpec s = viSpec();
    auto r = runSweep(s);
    QVERIFY2(r.ok(), r.status().message().c_str());
    const SweepResult& res = r.value();
    QCOMPARE(res.cases[0].heldOutDocuments, 600);
    QCOMPARE(res.cases[0].docCount, 2400);  // fitted on the training part only
    QVERIFY(std::isfinite(res.cases[0].baselinePerplexity));
    for (int t = 0; t < s.trials; ++t) {
      // "none" is the case's non-private model: its perplexity and bound are the case's, at every ε.
      for (int e = 0; e < 2; ++e) {
        QCOMPARE(res.row(0, 0, e, t).perplexity, res.cases[0].baselinePerplexity);
        QCOMPARE(res.row(0, 0, e, t).perplexityBound, res.cases[0].baselinePerplexityBound);
      }
      // Non-private VI: the same model at every ε (one fit per trial).
      const SweepRow& a = res.row(0, 2, 0, t);
      const SweepRow& b = res.row(0, 2, 1, t);
      QVERIFY(a.released && b.released);
      QCOMPARE(a.errorL2, b.errorL2);
      QCOMPARE(a.perplexity, b.perplexity);
      QCOMPARE(a.lossL2, 0.0);
      QVERIFY2(a.errorL2 < 0.05, std::to_string(a.errorL2).c_str());
      // Perplexity of a fitted model beats the uniform model's d = 30.
      QVERIFY(a.perplexity > 1.0 && a.perplexity < 30.0);
      // DP-VI spends exactly the requested budget (zCDP calibration) and is scored like the rest.
      for (int e = 0; e < 2; ++e) {
        const SweepRow& d = res.row(0, 3, e, t);
        QVERIFY2(d.released, d.reason.c_str());
        QVERIFY(std::abs(d.epsilonSpent - s.epsilons[e]) < 1e-6 * s.epsilons[e]);
        QVERIFY(d.deltaSpent <= s.delta);
        QVERIFY(std::isfinite(d.perplexity) && std::isfinite(d.errorFrobenius) && std::isfinite(d.lossL2));
        QCOMPARE(d.noiseScales.size(), std::size_t(1));
      }
      // More budget, less noise: DP-VI's utility loss at ε = 10 is below that at ε = 1.
      QVERIFY(res.row(0, 3, 1, t).lossL2 < res.row(0, 3, 0, t).lossL2);
    }
    // ||.||_F = sqrt(sum of squared per-topic l2) lies between sqrt(k) and k times the mean l2.
    const SweepRow& n = res.row(0, 0, 0, 0);
    QVERIFY(n.errorFrobenius >= std::sqrt(3.0) * n.errorL2 - 1e-12 && n.errorFrobenius <= 3.0 * n.errorL2 + 1e-12);
    const std::string csv = sweepResultsCsv(res);
    QVERIFY(csv.find("error_frobenius") != std::string::npos && csv.find(",perplexity,") != std::string::npos);
    QVERIFY(csv.find(",dp-vi,") != std::string::npos);
    const std::string report = sweepReportMarkdown(res, ReportContext{});
    QVERIFY(report.find("Median held-out perplexity") != std::string::npos);
    QVERIFY(report.find("zCDP") != std::string::npos);
  }

  void noiseFreeDpViEqualsVi() {
    SweepSpec s = viSpec();
    s.noiseMultiplier = 0.0;
    s.dpViClip = 1e6;  // nothing clipped either
    auto r = runSweep(s);
    QVERIFY2(r.ok(), r.status().message().c_str());
    for (int t = 0; t < s.trials; ++t) {
      const SweepRow& vi = r.value().row(0, 2, 0, t);
      const SweepRow& dp = r.value().row(0, 3, 0, t);
      QCOMPARE(dp.errorL2, vi.errorL2);
      QCOMPARE(dp.perplexity, vi.perplexity);
      QCOMPARE(dp.lossL2, 0.0);
    }
  }

  void aRefusedPerplexityLeavesItsReasonInTheRow() {
    // A model the held-out scoring refuses (a NaN topic weight) gives NaN perplexity and says why,
    // instead of an empty cell without a reason.
    PreparedCase pc;
    pc.heldOut = smallCase().source.corpus;
    SweepSpec spec;
    LdaModel bad;
    bad.alpha = Eigen::VectorXd::Constant(3, 0.3);
    bad.topics = Eigen::MatrixXd::Constant(30, 3, 1.0 / 30);
    bad.topics(4, 1) = std::nan("");
    const PerplexityScore score = scorePerplexity(pc, spec, bad);
    QVERIFY(std::isnan(score.perplexity) && std::isnan(score.bound));
    QVERIFY2(score.problem.find("held-out perplexity not computed") == 0, score.problem.c_str());
    SweepRow row;
    row.released = true;
    applyScore(score, row);
    QCOMPARE(QString::fromStdString(row.reason), QString::fromStdString(score.problem));
    // The same model made valid is scored, with no reason.
    bad.topics(4, 1) = 1.0 / 30;
    const PerplexityScore good = scorePerplexity(pc, spec, bad);
    QVERIFY(good.problem.empty());
    QVERIFY(std::abs(good.perplexity - 30.0) < 1e-9);  // uniform topics: the vocabulary size
  }

  void invalidHoldoutAndClipAreRefused() {
    SweepSpec s = viSpec();
    s.holdout = 0.95;
    QVERIFY(runSweep(s).status().message().find("held-out fraction") != std::string::npos);
    s = viSpec();
    s.dpViClip = std::nan("");
    QVERIFY(runSweep(s).status().message().find("clipping norm") != std::string::npos);
  }

  void claimVerdictsFollowTheMedians() {
    const double nan = std::nan("");
    auto verdictOf = [](const SweepResult& r, const std::string& prefix) {
      for (const PaperClaimCheck& p : checkPaperClaims(r))
        if (p.claim.rfind(prefix, 0) == 0 && p.claim.find("DP-VI") != std::string::npos) return p;
      return PaperClaimCheck{};
    };
    PaperClaimCheck p = verdictOf(handMade({0.1, 0.1, 0.1}, {0.5, 0.4, 0.3}), "configuration 2");
    QCOMPARE(std::string(claimVerdictName(p.verdict)), std::string("reproduced"));
    // Beaten at one epsilon where both released: the ordering claim fails (there is no "partly").
    p = verdictOf(handMade({0.1, 0.5, 0.1}, {0.5, 0.4, 0.3}), "configuration 2");
    QCOMPARE(std::string(claimVerdictName(p.verdict)), std::string("not reproduced"));
    // Lower wherever both released, nothing released at the smallest epsilon: reproduced, and said so.
    p = verdictOf(handMade({nan, 0.1, 0.1}, {0.5, 0.4, 0.3}), "configuration 2");
    QCOMPARE(std::string(claimVerdictName(p.verdict)), std::string("reproduced"));
    QVERIFY2(p.measured.find("lower at 2 of 2 epsilon values where both released (at the other 1 one of them "
                             "released nothing)") != std::string::npos, p.measured.c_str());
    // DP-VI released nothing where configuration 2 did: no epsilon to compare at.
    p = verdictOf(handMade({0.1, nan, nan}, {nan, 0.4, 0.3}), "configuration 2");
    QCOMPARE(std::string(claimVerdictName(p.verdict)), std::string("not checked"));
    QVERIFY(p.measured.find("no epsilon where both released") != std::string::npos);
    p = verdictOf(handMade({nan, nan, nan}, {0.5, 0.4, 0.3}), "configuration 2");
    QCOMPARE(std::string(claimVerdictName(p.verdict)), std::string("not reproduced"));
    QVERIFY(p.measured.find("sigma_k~ <= Delta2") != std::string::npos);
    const std::string md = paperClaimsMarkdown(handMade({0.9, 0.9, 0.9}, {0.5, 0.4, 0.3}));
    QVERIFY(md.find("**not reproduced**") != std::string::npos);
  }

  void figure3NeedsACorpusAndHoldsOut() {
    QVERIFY(!makeExperimentPreset("figure3").ok());
    PresetOverrides ov;
    ov.corpus = smallCase().source.corpus;
    ov.corpusDescription = "test";
    auto p = makeExperimentPreset("figure3", ov);
    QVERIFY(p.ok());
    QCOMPARE(p.value().sweep.holdout, 0.1);
    QCOMPARE(p.value().sweep.delta, 1e-4);
    QCOMPARE(p.value().sweep.cases.size(), std::size_t(2));
    QCOMPARE(p.value().sweep.cases[0].alpha0, 0.01);
    auto f2 = makeExperimentPreset("figure2-vi");
    bool vi = false, dpvi = false;
    for (const auto& c : f2.value().sweep.configurations) {
      vi = vi || c.model == SweepModel::Vi;
      dpvi = dpvi || c.model == SweepModel::DpVi;
    }
    QVERIFY(vi && dpvi);
  }

  // headline: synthetic only by default; --corpus adds the real corpus (k = 10, alpha0 = 0.1) and a
  // public 10% split whose held-out perplexity the verdict judges it on.
  void headlineTakesARealCorpusWhenGiven() {
    auto plain = makeExperimentPreset("headline");
    QVERIFY(plain.ok());
    QCOMPARE(plain.value().sweep.cases.size(), std::size_t(3));
    QCOMPARE(plain.value().sweep.holdout, 0.0);
    // N = 10^6: 10x larger minibatches, one pass: the same sampling rate q and document visits as
    // N = 10^5's 1000 x 10 passes: DP-VI's account has the same q and a tenth of the releases.
    const SweepSpec& hs = plain.value().sweep;
    const ViOptions v5 = viOptionsFor(hs, hs.cases[1], 0), v6 = viOptionsFor(hs, hs.cases[2], 0);
    QCOMPARE(hs.cases[2].source.generator->docCount, 1000000);
    QCOMPARE(v6.batchSize, 10 * v5.batchSize);
    QCOMPARE(v6.iterations, 1);
    QCOMPARE(v6.kappa, 0.51);
    QCOMPARE(v6.tau0, 1.0);
    QCOMPARE(v5.kappa, hs.vi.kappa);
    QCOMPARE(dpViReleaseCount(v6, 1000000), dpViReleaseCount(v5, 100000) / 10);
    SweepSpec bad = hs;
    bad.cases[0].viPasses = -1;
    QVERIFY(!validateSweepSpec(bad).isOk());
    bad = hs;
    bad.cases[0].viKappa = 0.5;  // (0.5, 1] as --kappa
    QVERIFY(!validateSweepSpec(bad).isOk());
    PresetOverrides ov;
    ov.corpus = smallCase().source.corpus;
    ov.corpusDescription = "test corpus";
    auto real = makeExperimentPreset("headline", ov);
    QVERIFY(real.ok());
    QCOMPARE(real.value().sweep.cases.size(), std::size_t(4));
    const SweepCase& c = real.value().sweep.cases[3];
    QCOMPARE(c.source.corpus, ov.corpus);
    QCOMPARE(c.topicCount, 10);
    QCOMPARE(c.alpha0, 0.1);
    QCOMPARE(real.value().sweep.holdout, 0.1);
    QVERIFY(real.value().description.find("held-out perplexity") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestSweepModels)
#include "tst_sweep_models.moc"
