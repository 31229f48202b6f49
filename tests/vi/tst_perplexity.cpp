// Held-out evaluation: the public split (core/corpus/holdout) and the perplexity of any model
// (core/eval/perplexity) against values computed by hand.
#include <QtTest>
#include <cmath>

#include "core/common/random.h"
#include "core/corpus/holdout.h"
#include "core/corpus/synthetic_generator.h"
#include "core/eval/perplexity.h"
#include "core/eval/simplex.h"

using namespace dplda;

namespace {

Corpus corpusFrom(int docs, int d, const std::vector<CountTriplet>& t) {
  auto r = buildCorpus(docs, d, t);
  if (!r.ok()) qFatal("%s", r.status().message().c_str());
  return std::move(r).value();
}

SyntheticCorpus synthetic(int docs, std::uint64_t seed) {
  GeneratorParams p;
  p.vocabSize = 40;
  p.topicCount = 4;
  p.docCount = docs;
  p.seed = seed;
  auto r = generateLdaCorpus(p);
  if (!r.ok()) qFatal("%s", r.status().message().c_str());
  return std::move(r).value();
}

}  // namespace

class TestPerplexity : public QObject {
  Q_OBJECT
 private slots:
  void uniformTopicsGiveTheVocabularySize() {
    const SyntheticCorpus s = synthetic(300, 2);
    LdaModel uniform;
    uniform.alpha = Eigen::VectorXd::Constant(4, 0.25);
    uniform.topics = Eigen::MatrixXd::Constant(40, 4, 1.0 / 40);
    auto p = heldOutPerplexity(uniform, s.corpus, 7);
    QVERIFY2(p.ok(), p.status().message().c_str());
    QVERIFY2(std::abs(p->perplexity - 40.0) < 1e-9, qPrintable(QString::number(p->perplexity, 'g', 17)));
    // The ELBO bound is an upper bound on the perplexity of whole documents (= 40 here).
    QVERIFY(p->elboBoundPerplexity >= 40.0 * (1 - 1e-12));
    QCOMPARE(p->documents, 300);
    QCOMPARE(p->scoredTokens + p->observedTokens, p->boundTokens);
    QCOMPARE(static_cast<double>(p->boundTokens), s.corpus.lengths.sum());
    QVERIFY(p->estimator.find("Wallach") != std::string::npos);
    QVERIFY(p->smoothing.find("0.0001") != std::string::npos);
  }

  void equalsAHandComputedValueOnATinyCorpus() {
    // d = 2, two disjoint topics β1 = (1, 0), β2 = (0, 1), α = (1, 1), no smoothing.
    // Document A = word 0 four times: the observed half is 2 × word 0, so φ = (1, 0),
    // γ = (1 + 2, 1) = (3, 1), θ = (3/4, 1/4); its 2 scored tokens have p = 3/4.
    // Document B = word 1 six times: observed 3 × word 1, γ = (1, 4), θ = (1/5, 4/5); 3 tokens, p = 4/5.
    // Whatever the permutation, each half holds one word only, so:
    //   perplexity = exp(−(2 ln 3/4 + 3 ln 4/5) / 5).
    const Corpus c = corpusFrom(2, 2, {{0, 0, 4}, {1, 1, 6}});
    LdaModel m;
    m.alpha = Eigen::Vector2d(1, 1);
    m.topics = Eigen::Matrix2d::Identity();
    PerplexityOptions o;
    o.smoothing = 0;
    o.tolerance = 1e-12;
    auto p = heldOutPerplexity(m, c, 3, o);
    QVERIFY2(p.ok(), p.status().message().c_str());
    const double expected = std::exp(-(2 * std::log(0.75) + 3 * std::log(0.8)) / 5);
    QVERIFY2(std::abs(p->perplexity - expected) < 1e-12, qPrintable(QString::number(p->perplexity, 'g', 17)));
    QCOMPARE(p->scoredTokens, 5LL);
    QCOMPARE(p->observedTokens, 5LL);
    // One topic: θ = 1, E[log θ] = 0 and the KL term vanishes, so the ELBO is the exact
    // log-likelihood Σ c_w ln β_w: (2 ln 3/4 + 2 ln 1/4) for word counts (2, 2) over 4 tokens.
    const Corpus one = corpusFrom(1, 2, {{0, 0, 2}, {0, 1, 2}});
    LdaModel single;
    single.alpha = Eigen::VectorXd::Constant(1, 0.7);
    single.topics = Eigen::Vector2d(0.75, 0.25);
    auto q = heldOutPerplexity(single, one, 3, o);
    QVERIFY(q.ok());
    QVERIFY(std::abs(q->elboBoundPerplexity - 1.0 / std::sqrt(0.75 * 0.25)) < 1e-12);
    // Smoothing s: β~ = (1 − s) β + s/d, here word 0 of topic 1 in document A: checked with k = 1.
    o.smoothing = 0.1;
    const Corpus a = corpusFrom(1, 2, {{0, 0, 4}});
    auto r = heldOutPerplexity(single, a, 3, o);
    QVERIFY(std::abs(r->perplexity - 1.0 / (0.9 * 0.75 + 0.05)) < 1e-12);
  }

  void theTrueModelBeatsAPerturbedOne() {
    const SyntheticCorpus s = synthetic(2000, 5);
    SeededRandom rng(3);
    LdaModel perturbed = s.truth;
    for (int i = 0; i < 4; ++i) {
      Eigen::VectorXd noise(40);
      for (int w = 0; w < 40; ++w) noise[w] = uniform01(rng);
      perturbed.topics.col(i) = 0.8 * s.truth.topics.col(i) + 0.2 * noise / noise.sum();
    }
    auto t = heldOutPerplexity(s.truth, s.corpus, 1);
    auto p = heldOutPerplexity(perturbed, s.corpus, 1);
    QVERIFY(t.ok() && p.ok());
    qInfo("truth %.4f, perturbed %.4f", t->perplexity, p->perplexity);
    QVERIFY(t->perplexity < p->perplexity);
    QVERIFY(t->elboBoundPerplexity < p->elboBoundPerplexity);
    QVERIFY(t->perplexity < 40);
  }

  void zeroEntriesAreSmoothedNotInfinite() {
    // A projected spectral topic with exact zeros: finite, and worse than the model without them.
    const SyntheticCorpus s = synthetic(200, 8);
    LdaModel z = s.truth;
    z.topics(0, 0) = 0.0;  // as a simplex projection leaves it
    z.topics.col(0) /= z.topics.col(0).sum();
    QVERIFY(z.topics.col(0).minCoeff() == 0.0);
    auto p = heldOutPerplexity(z, s.corpus, 1);
    QVERIFY(p.ok() && std::isfinite(p->perplexity));
  }

  void tinyAlphaKeepsTheElboBoundFinite() {
    // A spectral α entry of 0 (floored at 1e-6) made exp(E[log θ_i]) underflow to 0 and the
    // bound NaN (seen on the Debian descriptions, k = 10, alpha0 = 0.1).
    const SyntheticCorpus s = synthetic(200, 9);
    LdaModel m = s.truth;
    m.alpha[0] = 0.0;
    m.alpha[1] = 1e-9;
    auto p = heldOutPerplexity(m, s.corpus, 1);
    QVERIFY(p.ok());
    QVERIFY2(std::isfinite(p->elboBoundPerplexity), qPrintable(QString::number(p->elboBoundPerplexity)));
    QVERIFY(std::isfinite(p->perplexity));
  }

  void identicalForAnyThreadCount() {
    const SyntheticCorpus s = synthetic(500, 4);
    PerplexityOptions o;
    o.threads = 1;
    auto a = heldOutPerplexity(s.truth, s.corpus, 9, o);
    o.threads = 2;
    auto b = heldOutPerplexity(s.truth, s.corpus, 9, o);
    QCOMPARE(a->perplexity, b->perplexity);
    QCOMPARE(a->elboBoundPerplexity, b->elboBoundPerplexity);
    auto c = heldOutPerplexity(s.truth, s.corpus, 10, o);  // another split of the tokens
    QVERIFY(c->perplexity != a->perplexity);
  }

  void refusesBadModels() {
    const SyntheticCorpus s = synthetic(50, 4);
    LdaModel m = s.truth;
    m.topics.conservativeResize(39, 4);
    QCOMPARE(heldOutPerplexity(m, s.corpus, 1).status().code(), StatusCode::BadInput);
    m = s.truth;
    m.topics(0, 0) = -0.1;
    QCOMPARE(heldOutPerplexity(m, s.corpus, 1).status().code(), StatusCode::BadInput);
    m = s.truth;
    m.alpha[1] = std::nan("");
    QCOMPARE(heldOutPerplexity(m, s.corpus, 1).status().code(), StatusCode::BadInput);
    PerplexityOptions o;
    o.smoothing = 1;
    QCOMPARE(heldOutPerplexity(s.truth, s.corpus, 1, o).status().code(), StatusCode::InvalidArgument);
  }

  void holdoutSplitIsSeededDisjointAndComplete() {
    const SyntheticCorpus s = synthetic(1000, 4);
    auto a = splitHoldout(s.corpus, 0.1, 42);
    QVERIFY(a.ok());
    QCOMPARE(static_cast<int>(a->testIds.size()), 100);
    QCOMPARE(a->test.docCount(), 100);
    QCOMPARE(a->train.docCount(), 900);
    std::vector<int> all = a->testIds;
    all.insert(all.end(), a->trainIds.begin(), a->trainIds.end());
    std::sort(all.begin(), all.end());
    for (int i = 0; i < 1000; ++i) QCOMPARE(all[i], i);  // disjoint and complete
    QVERIFY(std::is_sorted(a->testIds.begin(), a->testIds.end()));
    // Rows are copied exactly.
    const int src = a->testIds[5];
    QCOMPARE((Eigen::RowVectorXd(a->test.counts.row(5)) - Eigen::RowVectorXd(s.corpus.counts.row(src))).norm(), 0.0);
    QCOMPARE(a->test.lengths[5], s.corpus.lengths[src]);
    auto b = splitHoldout(s.corpus, 0.1, 42);
    QVERIFY(a->testIds == b->testIds);
    auto c = splitHoldout(s.corpus, 0.1, 43);
    QVERIFY(a->testIds != c->testIds);
    auto none = splitHoldout(s.corpus, 0.0, 1);
    QVERIFY(none.ok() && none->test.docCount() == 0 && none->train.docCount() == 1000);
    QVERIFY(!splitHoldout(s.corpus, 1.0, 1).ok());
    QVERIFY(!splitHoldout(s.corpus, -0.1, 1).ok());
    QVERIFY(!splitHoldout(s.corpus, std::nan(""), 1).ok());
    QVERIFY(!splitHoldout(s.corpus, 1e-4, 1).ok());  // 0.1 documents: nothing to test
  }
};

QTEST_GUILESS_MAIN(TestPerplexity)
#include "tst_perplexity.moc"
