// Error against ε for configurations 2, 3 and 4 on the figure2 corpus (d = 50, k = 5, N = 1e5,
// α0 = 1, drawn once with the preset's generator parameters and data seed), with the sound
// bounds, the preset's seeds and 16 trials per point. Configuration 1 has its own trend test in
// tst_sweep (errorFallsWithEpsilon).
//
// What is true on this corpus (σ_k = 0.00264, γ_s = 0.0105, non-private l2 error 0.0012), seen
// with 16 trials and six different sweep seeds (medians of the l2 error vs the truth):
//  - configuration 2 releases from ε ≈ 1 (6-25% of trials at ε = 0.5, all from ε = 1) and its
//    error falls steadily: 0.82, 0.70, 0.48, 0.20, 0.05 at ε = 1, 10, 100, 1e3, 1e4 (every step
//    at least 0.10 on every seed);
//  - configuration 3 releases nothing up to ε = 1e4: Procedure 1's γ̃_s is 0 because the γ_s
//    release's Laplace margin, (Δ_T(σ̃_k)/2)/ε₁ · ln(1/(2δ₁)), exceeds γ_s itself until
//    ε ≈ 2e4-3e4. From ε = 3.16e4 every trial releases, but the TD noise (median σ = 420 at
//    3.16e4, 20 at 1e6, 1.9 at 1e8, against unit vectors μ̄_i) keeps the error on a plateau of ~0.8
//    up to ε ≈ 1e6; it falls only beyond: 0.74-0.83, 0.64-0.71, 0.47-0.55 at 1e6, 1e7, 1e8;
//  - configuration 4 releases from ε = 3.16e4 too, but its error does not fall at any ε up to
//    1e8, with either bound set: the U noise (median σ = 8.0e6 at ε = 3.16e4, 6.4e4 at 1e8 with
//    sound bounds; 1.6e4 at 1e8 with printed bounds) is 10^4-10^7 times the topic entries, so
//    the simplex projection returns the vertex at each noisy column's largest entry, which
//    under common random numbers is the same draw at every ε: the error is the same number
//    at every ε. σ_U falls like 1/√ε at large ε (analytic Gaussian), so it would take
//    ε ~ 1e19-1e20 to bring it near the topic entries. Printed bounds release from ε = 0.5 but sit
//    on the same plateau. The test asserts what is true instead: the release rate rises with
//    ε, σ_U falls with ε, and σ_U is still far above the signal where the error is flat.
// ε values far above 10 are not meaningful privacy; they locate where each mechanism starts to
// carry signal.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/corpus/synthetic_generator.h"
#include "core/experiments/presets.h"
#include "core/experiments/sweep.h"

using namespace dplda;

namespace {

constexpr int kTrials = 16;

struct Figure2Corpus {
  SweepSpec preset;  // the figure2 preset's sweep (its seeds and case)
  SyntheticCorpus corpus;
};

const Figure2Corpus& figure2() {
  static const Figure2Corpus f = [] {
    Figure2Corpus out;
    out.preset = makeExperimentPreset("figure2").value().sweep;
    GeneratorParams g = *out.preset.cases.at(0).source.generator;
    g.seed = out.preset.seeds.data;  // as the sweep itself draws it
    out.corpus = generateLdaCorpus(g).value();
    return out;
  }();
  return f;
}

// A sweep over the figure2 corpus (loaded, so it is drawn only once for all sweeps).
SweepResult sweep(const std::string& configurations, const std::vector<double>& epsilons, BoundSet bounds) {
  const Figure2Corpus& f = figure2();
  SweepSpec s = f.preset;
  SweepCase& c = s.cases.at(0);
  c.source.generator.reset();
  c.source.corpus = std::make_shared<const Corpus>(f.corpus.corpus);
  c.source.truth = f.corpus.truth;
  s.configurations = parseConfigurations(configurations).value();
  s.epsilons = epsilons;
  s.bounds = bounds;
  s.trials = kTrials;
  return runSweep(s).value();
}

// The median noise scale of one release over the trials that released.
double medianSigma(const SweepResult& r, int config, int epsilon, const std::string& releasePrefix) {
  std::vector<double> sigmas;
  for (int t = 0; t < r.spec.trials; ++t) {
    const SweepRow& row = r.row(0, config, epsilon, t);
    if (!row.released) continue;
    for (const NoiseScale& n : row.noiseScales)
      if (n.release.rfind(releasePrefix, 0) == 0) sigmas.push_back(n.sigma);
  }
  return quantile(sigmas, 0.5);
}

std::string line(const SweepResult& r, int config) {
  std::string s;
  char buf[96];
  for (std::size_t e = 0; e < r.spec.epsilons.size(); ++e) {
    const SweepSummaryRow& row = r.summaryRow(0, config, static_cast<int>(e));
    std::snprintf(buf, sizeof buf, " eps %g: released %d/%d, median l2 %.4f;", row.epsilon, row.released,
                  row.trials, row.errorL2.median);
    s += buf;
  }
  return s;
}

}  // namespace

class TestSweepTrend : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    const Figure2Corpus& f = figure2();
    QCOMPARE(f.corpus.corpus.docCount(), 100000);
    QCOMPARE(f.corpus.corpus.vocabSize(), 50);
  }

  void configuration2ErrorFallsWithEpsilon() {
    // Sound bounds. Tolerance: each step of ε (x10) must lower the median error by 0.05 or
    // more (seen: 0.10 to 0.30 over six seeds), and every trial from ε = 1 on must release.
    const std::vector<double> eps = {0.5, 1.0, 10.0, 100.0, 1e3, 1e4};
    const SweepResult r = sweep("2", eps, BoundSet::Sound);
    qInfo("configuration 2 (sound):%s non-private %.4f", line(r, 0).c_str(), r.cases[0].baselineErrorL2);
    QVERIFY(r.summaryRow(0, 0, 0).releaseRate < 0.5);  // ε = 0.5: σ̃_k mostly <= Δ2
    std::vector<double> med;
    for (std::size_t e = 1; e < eps.size(); ++e) {
      const SweepSummaryRow& row = r.summaryRow(0, 0, static_cast<int>(e));
      QCOMPARE(row.released, kTrials);
      med.push_back(row.errorL2.median);
    }
    for (std::size_t i = 1; i < med.size(); ++i) {
      QVERIFY2(
          med[i] < med[i - 1] - 0.05,
          qPrintable(
              QString("eps %1 -> %2: %3 -> %4").arg(eps[i]).arg(eps[i + 1]).arg(med[i - 1]).arg(med[i])));
    }
    QVERIFY(med.back() < 0.1);
    QVERIFY(med.back() > r.cases[0].baselineErrorL2);  // privacy still costs something
  }

  void configuration3ReleasesOnlyAtLargeEpsilonThenErrorFalls() {
    // Sound bounds (printed bounds release from ε = 1, but sit on the same ~0.8 plateau up to
    // ε ≈ 1e5, so they show nothing the sound set does not). Nothing is released up to
    // ε = 1e4 (γ̃_s = 0); every trial releases from 3.16e4. The error falls over ε = 1e6, 1e7,
    // 1e8 by at least 0.03 per step (seen: 0.07 to 0.21 over six seeds).
    const std::vector<double> eps = {1e4, 3.16e4, 1e6, 1e7, 1e8};
    const SweepResult r = sweep("3", eps, BoundSet::Sound);
    qInfo("configuration 3 (sound):%s", line(r, 0).c_str());
    qInfo("configuration 3 TD noise sigma (median): %.4g %.4g %.4g %.4g at eps 3.16e4 .. 1e8",
          medianSigma(r, 0, 1, "TD"), medianSigma(r, 0, 2, "TD"), medianSigma(r, 0, 3, "TD"),
          medianSigma(r, 0, 4, "TD"));
    const SweepSummaryRow& none = r.summaryRow(0, 0, 0);
    QCOMPARE(none.released, 0);
    QCOMPARE(r.row(0, 0, 0, 0).status, StatusCode::NothingReleased);
    QVERIFY(r.row(0, 0, 0, 0).reason.find("gamma_s_tilde") != std::string::npos);
    std::vector<double> med;
    for (int e = 1; e < 5; ++e) {
      QCOMPARE(r.summaryRow(0, 0, e).released, kTrials);
      med.push_back(r.summaryRow(0, 0, e).errorL2.median);
    }
    QVERIFY(med[1] < med[0] + 1e-12);  // the plateau does not rise
    QVERIFY(med[2] < med[1] - 0.03);
    QVERIFY(med[3] < med[2] - 0.03);
    QVERIFY(med[3] < 0.6);
  }

  void configuration4ReleasesButItsErrorCannotFall() {
    // No ε up to 1e8 lowers configuration 4's error with either bound set (see the header):
    // asserted here are what does hold. Sound bounds: nothing released at ε = 1e4, every
    // trial from 3.16e4; the median σ_U falls at every step, by a factor of at least 8 from
    // ε = 1e6 to 1e8 (1/√ε: seen 10.2); and it is still above 1e4 at ε = 1e8, so every
    // released output is the same vertex pattern: the median error is the same at every ε.
    // If a better bound brings σ_U down to the signal, the last two checks fail: replace them
    // with an error trend.
    const std::vector<double> eps = {1e4, 3.16e4, 1e6, 1e7, 1e8};
    const SweepResult r = sweep("4", eps, BoundSet::Sound);
    std::vector<double> sigma;
    for (int e = 1; e < 5; ++e) sigma.push_back(medianSigma(r, 0, e, "U"));
    qInfo("configuration 4 (sound):%s", line(r, 0).c_str());
    qInfo("configuration 4 U noise sigma (median): %.4g %.4g %.4g %.4g at eps 3.16e4 .. 1e8", sigma[0],
          sigma[1], sigma[2], sigma[3]);
    QCOMPARE(r.summaryRow(0, 0, 0).released, 0);
    for (int e = 1; e < 5; ++e) QCOMPARE(r.summaryRow(0, 0, e).released, kTrials);
    for (std::size_t i = 1; i < sigma.size(); ++i) QVERIFY(sigma[i] < sigma[i - 1]);
    QVERIFY(sigma[1] / sigma[3] > 8.0);
    QVERIFY(sigma[3] > 1e4);
    const double plateau = r.summaryRow(0, 0, 1).errorL2.median;
    for (int e = 2; e < 5; ++e) QVERIFY(std::abs(r.summaryRow(0, 0, e).errorL2.median - plateau) < 1e-12);
    QVERIFY(plateau > 0.9);  // vertices, not topics

    // Printed bounds: releases from ε = 0.5 (not at 0.1), and the same plateau up to 1e8.
    const std::vector<double> printedEps = {0.1, 0.5, 1e2, 1e4, 1e6, 1e8};
    const SweepResult p = sweep("4", printedEps, BoundSet::Printed);
    qInfo("configuration 4 (printed):%s U sigma at eps 1e8: %.4g", line(p, 0).c_str(),
          medianSigma(p, 0, 5, "U"));
    QCOMPARE(p.summaryRow(0, 0, 0).released, 0);
    for (int e = 1; e < 6; ++e) {
      QCOMPARE(p.summaryRow(0, 0, e).released, kTrials);
      QVERIFY(std::abs(p.summaryRow(0, 0, e).errorL2.median - plateau) < 1e-12);
    }
  }
};

QTEST_APPLESS_MAIN(TestSweepTrend)
#include "tst_sweep_trend.moc"
