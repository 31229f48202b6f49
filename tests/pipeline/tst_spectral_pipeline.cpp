// The end-to-end non-private pipeline: consistency (error falls with N), caching (a change
// recomputes only what depends on it, with identical results), statuses for bad options.
#include <QtTest>

#include "core/corpus/synthetic_generator.h"
#include "core/eval/metrics.h"
#include "core/pipeline/spectral_pipeline.h"
#include "test_util.h"

using namespace dplda;
using namespace dplda::test;

namespace {

SyntheticCorpus generate(int N, std::uint64_t seed = 1) {
  GeneratorParams p;
  p.vocabSize = 50;
  p.topicCount = 5;
  p.docCount = N;
  p.alpha0 = 1.0;
  p.seed = seed;
  return generateLdaCorpus(p).value();
}

double errorFor(const SyntheticCorpus& sc, const std::string& decomposer) {
  SpectralPipeline pipeline;
  pipeline.setCorpus(std::make_shared<Corpus>(sc.corpus));
  SpectralOptions o;
  o.topicCount = 5;
  o.alpha0 = sc.truth.alpha0();
  o.decomposer = decomposer;
  pipeline.setOptions(o);
  const SpectralModel m = pipeline.run().value();
  return compareTopics(sc.truth.topics, sc.truth.alpha, m.output.topics, m.output.alpha).l1Mean;
}

const StageTiming& timing(const SpectralPipeline& p, const std::string& stage) {
  for (const auto& t : p.timings())
    if (t.stage == stage) return t;
  qFatal("no stage %s", stage.c_str());
}

}  // namespace

class TestSpectralPipeline : public QObject {
  Q_OBJECT
 private slots:
  void errorFallsWithN_data() {
    QTest::addColumn<QString>("decomposer");
    QTest::newRow("robust") << "robust";
    QTest::newRow("simultaneous") << "simultaneous";
  }
  void errorFallsWithN() {
    // Same truth (seed), growing N. The l1 error should shrink roughly like 1/sqrt(N); we ask
    // for a clear monotone fall and a small error at the largest N.
    QFETCH(QString, decomposer);
    const std::vector<int> sizes = {2000, 20000, 200000};
    std::vector<double> errors;
    for (int N : sizes) errors.push_back(errorFor(generate(N, 7), decomposer.toStdString()));
    qInfo("%s l1 errors: %.4f %.4f %.4f", qPrintable(decomposer), errors[0], errors[1], errors[2]);
    QVERIFY(errors[1] < errors[0]);
    QVERIFY(errors[2] < errors[1]);
    QVERIFY(errors[2] < 0.1);
  }

  void outputIsOnTheSimplex() {
    const SyntheticCorpus sc = generate(5000, 3);
    SpectralPipeline pipeline;
    pipeline.setCorpus(std::make_shared<Corpus>(sc.corpus));
    const SpectralModel m = pipeline.run().value();
    for (int i = 0; i < 5; ++i) {
      QVERIFY(std::abs(m.output.topics.col(i).sum() - 1.0) < 1e-12);
      QVERIFY(m.output.topics.col(i).minCoeff() >= 0.0);
      QVERIFY(m.output.alpha[i] > 0.0);
    }
    QCOMPARE(m.eigen.values.size(), Eigen::Index(6));
    QVERIFY(m.gammaS > 0.0);
  }

  void cachingRecomputesOnlyDownstream() {
    const SyntheticCorpus sc = generate(5000, 3);
    SpectralPipeline pipeline;
    pipeline.setCorpus(std::make_shared<Corpus>(sc.corpus));
    SpectralOptions o;
    pipeline.setOptions(o);
    const SpectralModel first = pipeline.run().value();
    for (const auto& t : pipeline.timings()) QVERIFY(!t.cached);

    // A new decomposer seed: moments, eigen and tensor are reused.
    o.initSeed = 99;
    pipeline.setOptions(o);
    const SpectralModel second = pipeline.run().value();
    QVERIFY(timing(pipeline, "second_moment").cached);
    QVERIFY(timing(pipeline, "tensor").cached);
    QVERIFY(!timing(pipeline, "decompose").cached);
    QCOMPARE(second.tensor.frobeniusNorm(), first.tensor.frobeniusNorm());

    // Back to the first seed: bit-identical to the uncached first run.
    o.initSeed = 1;
    pipeline.setOptions(o);
    const SpectralModel third = pipeline.run().value();
    QVERIFY(third.output.topics == first.output.topics);

    // k changes: moments reused, everything after recomputed.
    o.topicCount = 4;
    pipeline.setOptions(o);
    const SpectralModel fourth = pipeline.run().value();
    QVERIFY(timing(pipeline, "second_moment").cached);
    QVERIFY(!timing(pipeline, "eigen").cached);
    QCOMPARE(fourth.output.topics.cols(), Eigen::Index(4));

    // A fresh pipeline gives the same answer as the cached one.
    SpectralPipeline fresh;
    fresh.setCorpus(std::make_shared<Corpus>(sc.corpus));
    fresh.setOptions(o);
    QVERIFY(fresh.run().value().output.topics == fourth.output.topics);
  }

  void badOptionsGiveStatuses() {
    const SyntheticCorpus sc = generate(100, 3);
    SpectralPipeline pipeline;
    QCOMPARE(pipeline.run().status().code(), StatusCode::InvalidArgument);  // no corpus
    pipeline.setCorpus(std::make_shared<Corpus>(sc.corpus));
    SpectralOptions o;
    o.topicCount = 51;
    pipeline.setOptions(o);
    QVERIFY(pipeline.run().status().message().find("exceeds the vocabulary") != std::string::npos);
    o.topicCount = 5;
    o.alpha0 = -2;
    pipeline.setOptions(o);
    QCOMPARE(pipeline.run().status().code(), StatusCode::InvalidArgument);
    o.alpha0 = 1;
    o.decomposer = "nope";
    pipeline.setOptions(o);
    QCOMPARE(pipeline.run().status().code(), StatusCode::InvalidArgument);
  }
};

QTEST_APPLESS_MAIN(TestSpectralPipeline)
#include "tst_spectral_pipeline.moc"
