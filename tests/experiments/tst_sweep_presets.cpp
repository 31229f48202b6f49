// The sweep's pure parts: quantiles and the parsers of its options, and the papers' presets.
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "core/experiments/presets.h"
#include "core/experiments/sweep.h"

using namespace dplda;

class TestSweepPresets : public QObject {
  Q_OBJECT
 private slots:
  void quantilesAndParsers() {
    // Log-spaced grids keep their ends and round the inside to 12 significant digits.
    const std::vector<double> decades = logSpaced(1, 1000, 4);
    QCOMPARE(decades, (std::vector<double>{1, 10, 100, 1000}));

    // Type-7 quantiles (R's default): for 1..4, q = 0.1 gives 1.3, the median 2.5.
    QCOMPARE(quantile({4, 1, 3, 2}, 0.1), 1.3);
    QCOMPARE(quantile({4, 1, 3, 2}, 0.5), 2.5);
    QCOMPARE(quantile({7}, 0.9), 7.0);
    QVERIFY(std::isnan(quantile({std::nan("")}, 0.5)));
    QCOMPARE(quantile({1, std::nan(""), 3}, 0.5), 2.0);  // NaN (not applicable) is left out

    const std::vector<double> eps = parseEpsilons("0.1:2:10").value();
    QCOMPARE(eps.size(), std::size_t(10));
    QCOMPARE(eps.front(), 0.1);
    QCOMPARE(eps.back(), 2.0);
    for (std::size_t i = 1; i + 1 < eps.size(); ++i) {
      QVERIFY(std::abs(eps[i] * eps[i] - eps[i - 1] * eps[i + 1]) < 1e-11 * eps[i] * eps[i]);  // geometric
    }
    QCOMPARE(parseEpsilons("0.5, 1,4").value(), (std::vector<double>{0.5, 1.0, 4.0}));
    for (const char* bad : {"", "0:1:3", "1:0.5:3", "0.1:2:0", "0.1:2", "a,b", "1,-2", "0.1:2:x", "1:1:3"}) {
      QVERIFY2(!parseEpsilons(bad).ok(), bad);
    }
    const auto configs = parseConfigurations("none, 1,config4,e5+e6").value();
    QCOMPARE(configs.size(), std::size_t(4));
    QCOMPARE(configs[0].edges, 0u);
    QCOMPARE(configs[2].edges, presetEdges(Preset::Config4));
    QCOMPARE(configs[3].edges, (1u << 5) | (1u << 6));
    QCOMPARE(configs[3].label, std::string("e5+e6"));
    for (const char* bad : {"", "1,,2", "7", "5+6", "e5+6", "e12", "none,foo"})
      QVERIFY2(!parseConfigurations(bad).ok(), bad);
  }

  void presetsMatchThePapers() {
    const ExperimentPreset f2 = makeExperimentPreset("figure2").value();
    QCOMPARE(f2.kind, ExperimentKind::ErrorSweep);
    QVERIFY(validateSweepSpec(f2.sweep).isOk());
    QCOMPARE(f2.sweep.epsilons.size(), std::size_t(10));
    QCOMPARE(f2.sweep.epsilons.front(), 0.1);
    QCOMPARE(f2.sweep.epsilons.back(), 2.0);
    QCOMPARE(f2.sweep.delta, 1e-5);
    QCOMPARE(f2.sweep.bounds, BoundSet::Sound);
    QCOMPARE(f2.sweep.configurations.size(), std::size_t(5));
    QCOMPARE(f2.sweep.configurations[0].edges, 0u);
    QCOMPARE(f2.sweep.configurations[1].edges, presetEdges(Preset::Config1));
    QCOMPARE(f2.sweep.cases[0].source.generator->docCount, 100000);
    QCOMPARE(f2.sweep.cases[0].source.generator->vocabSize, 50);
    QCOMPARE(f2.sweep.cases[0].topicCount, 5);
    QCOMPARE(makeExperimentPreset("figure2-small-corpus").value().sweep.cases[0].source.generator->docCount,
             10000);
    const ExperimentPreset fa = makeExperimentPreset("figure2-alpha").value();
    QCOMPARE(fa.sweep.cases.size(), std::size_t(2));
    QCOMPARE(fa.sweep.cases[0].alpha0, 0.1);
    QCOMPARE(fa.sweep.cases[1].alpha0, 10.0);
    const ExperimentPreset f4 = makeExperimentPreset("figure4").value();
    QCOMPARE(f4.kind, ExperimentKind::Diagnostics);
    QVERIFY(validateSweepSpec(f4.sweep).isOk());
    QVERIFY(f4.sweep.cases.size() >= 5);
    for (const SweepCase& c : f4.sweep.cases) {
      QCOMPARE(c.source.generator->topicCount, c.topicCount);
      QCOMPARE(c.source.generator->docCount, 100000);
    }
    const ExperimentPreset tpm = makeExperimentPreset("tpm-noise").value();
    QCOMPARE(tpm.kind, ExperimentKind::TpmNoise);
    QVERIFY(validateTpmNoiseSpec(tpm.tpm).isOk());
    QCOMPARE(tpm.tpm.dims.front(), 25);
    QCOMPARE(tpm.tpm.dims.back(), 200);

    PresetOverrides ov;
    ov.trials = 4;
    ov.bounds = BoundSet::Printed;
    ov.seed = 9;
    ov.threads = 1;
    const ExperimentPreset o = makeExperimentPreset("figure2", ov).value();
    QCOMPARE(o.sweep.trials, 4);
    QCOMPARE(o.sweep.bounds, BoundSet::Printed);
    QCOMPARE(o.sweep.seeds.noise, SweepSeeds::fromSeed(9).noise);
    QCOMPARE(o.sweep.threads, 1);
    QVERIFY(!makeExperimentPreset("figure9").ok());
    QVERIFY(makeExperimentPreset("figure9").status().message().find("figure2") != std::string::npos);
    QVERIFY(!makeExperimentPreset("tpm-noise", ov).ok());  // no bounds there
    ov.bounds.reset();
    ov.trials = 0;
    QVERIFY(!makeExperimentPreset("figure2", ov).ok());
  }
};

QTEST_APPLESS_MAIN(TestSweepPresets)
#include "tst_sweep_presets.moc"
