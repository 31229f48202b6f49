// The private held-out evaluation (docs/PRIVACY.md §15): the clipped mean's sensitivity B/N_test
// holds for any replacement and is attained by adversarial held-out documents, the default B
// clips nothing, and on those neighbours the release's empirical distinguishing advantage over
// many draws stays within what ε-DP allows (and is not far below it: the probe has power).
#include <QtTest>
#include <cmath>
#include <limits>

#include "core/eval/private_holdout.h"
#include "core/privacy/mechanisms.h"
#include "statistical_tests.h"
#include "test_util.h"

using namespace dplda;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Two topics over d = 10 words: topic 1 on word 0, topic 2 on word 1 (0.99 each, the rest on
// words 2..8); word 9 has probability 0 in both, so only the smoothing s/d gives it any.
LdaModel peakedModel() {
  LdaModel m;
  m.alpha = Eigen::Vector2d(0.01, 0.01);  // θ̂ follows the observed half closely
  m.topics = Eigen::MatrixXd::Zero(10, 2);
  m.topics(0, 0) = 0.99;
  m.topics(1, 1) = 0.99;
  for (int w = 2; w < 9; ++w) m.topics(w, 0) = m.topics(w, 1) = 0.01 / 7;
  return m;
}

// 20 held-out documents of 9 tokens over words 0..8 (moderate scores), document 0 replaced by
// `first` (word -> count).
Corpus heldOut(const std::vector<std::pair<int, double>>& first) {
  std::vector<CountTriplet> t;
  for (const auto& [w, c] : first) t.push_back({0, w, c});
  for (int n = 1; n < 20; ++n) {
    t.push_back({n, n % 2, 6.0});
    t.push_back({n, 2 + n % 7, 1.0});
    t.push_back({n, (n + 1) % 2, 2.0});
  }
  return buildCorpus(20, 10, t).value();
}

Corpus corpusD() { return heldOut({{9, 10.0}}); }       // the worst document: every token unseen
Corpus corpusDPrime() { return heldOut({{0, 10.0}}); }  // the best: every token the peak of topic 1

double exactMean(const Corpus& c, double clip) {
  const auto p = heldOutPerplexity(peakedModel(), c, 7);
  return clippedMeanLogLikelihood(p.value().documentLogLikelihoodPerToken, clip);
}

}  // namespace

class TestPrivateHoldout : public QObject {
  Q_OBJECT
 private slots:
  void clippingRule() {
    QCOMPARE(clippedMeanLogLikelihood({-1.0, -5.0, 0.0, kNaN}, 2.0), (-1.0 - 2.0 + 0.0 - 2.0) / 4.0);
    QCOMPARE(clippedMeanLogLikelihood({-0.5, -1.5}, 10.0), -1.0);
    QVERIFY(std::isnan(clippedMeanLogLikelihood({}, 1.0)));
    QCOMPARE(defaultHoldoutClip(50, 1e-4), std::log(5e5));
    QVERIFY(std::isnan(defaultHoldoutClip(50, 0.0)));
  }

  // |f(x) − f(x′)| <= B/N for every replacement of one entry, whatever the values (out of range,
  // infinite, NaN): the property the Laplace calibration needs.
  void sensitivityHoldsForAnyReplacement() {
    SeededRandom rng(11);
    const std::vector<double> wild = {0.0, -1e300, 1e300, -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::infinity(), kNaN, 5.0, -0.3};
    double worst = 0.0;
    for (int trial = 0; trial < 2000; ++trial) {
      const int n = 1 + static_cast<int>(uniformIndex(rng, 50));
      const double clip = 0.1 + 20.0 * uniform01(rng);
      std::vector<double> x(n);
      for (double& v : x) v = -30.0 * uniform01(rng);
      std::vector<double> y = x;
      const std::size_t slot = uniformIndex(rng, n);
      y[slot] = uniform01(rng) < 0.5 ? wild[uniformIndex(rng, wild.size())] : -40.0 * uniform01(rng);
      const double ratio = std::abs(clippedMeanLogLikelihood(x, clip) - clippedMeanLogLikelihood(y, clip)) / (clip / n);
      QVERIFY2(ratio <= 1.0 + 1e-12, qPrintable(QString("ratio %1 at n = %2").arg(ratio).arg(n)));
      worst = std::max(worst, ratio);
    }
    QVERIFY(worst > 0.99);  // the bound is attained (an entry at 0 replaced by one below −B)
  }

  // The default B = ln(d/s) is below every smoothed document score: clipping changes nothing even
  // for a document whose every token has probability 0 under the topics.
  void defaultClipClipsNothing() {
    const auto p = heldOutPerplexity(peakedModel(), corpusD(), 7);
    QVERIFY(p.ok());
    const std::vector<double>& x = p->documentLogLikelihoodPerToken;
    QCOMPARE(static_cast<int>(x.size()), 20);
    const double b = defaultHoldoutClip(10, kDefaultPerplexitySmoothing);
    QVERIFY(x[0] < -0.99 * b);  // the worst document is near the floor ln(s/d) ...
    double sum = 0.0;
    for (double v : x) {
      QVERIFY(v >= -b - 1e-12 && v <= 0.0);  // ... and never below it
      sum += v;
    }
    QVERIFY(std::abs(clippedMeanLogLikelihood(x, b) - sum / 20.0) < 1e-12);
  }

  // The adversarial neighbours move the clipped mean by nearly B/N_test, never more.
  void adversarialNeighboursAttainTheSensitivity() {
    const double clip = 3.0;
    const double gap = exactMean(corpusDPrime(), clip) - exactMean(corpusD(), clip);
    QVERIFY2(gap <= clip / 20 * (1 + 1e-12), qPrintable(QString::number(gap)));
    QVERIFY2(gap >= 0.99 * clip / 20, qPrintable(QString::number(gap)));
    PrivateHoldoutOptions o;
    o.epsilon = 1.0;
    o.clip = clip;
    SeededRandom noise(1);
    const auto r = releaseHeldOutLogLikelihood(peakedModel(), corpusD(), 7, o, noise);
    QVERIFY(r.ok());
    QCOMPARE(r->documents, 20);
    QCOMPARE(r->sensitivity, clip / 20);
    QCOMPARE(r->scale, clip / 20);  // b = Δ/ε
    QCOMPARE(r->samplerDelta, laplaceSamplerDelta(1.0));
    QVERIFY(r->meanLogLikelihood >= -clip && r->meanLogLikelihood <= 0.0);
    QCOMPARE(r->perplexity, std::exp(-r->meanLogLikelihood));
  }

  // Many releases on D and D′ (independent noise): for every threshold test "output > t", the
  // Clopper-Pearson bounds (99.9% jointly, Bonferroni over the thresholds) of the probabilities
  // must allow P_D′ <= e^ε P_D and P_D <= e^ε P_D′ (δ here is 2^-51: invisible at this count),
  // and the advantage P_D′ − P_D must allow (e^ε − 1)/(e^ε + 1). The best test's point estimate
  // of ε must reach half of ε: noise calibrated far above B/(N ε) would fail here.
  void distinguishingAdvantageWithinEpsilon() {
    const double epsilon = 1.0, clip = 3.0;
    const int draws = 20000;
    PrivateHoldoutOptions o;
    o.epsilon = epsilon;
    o.clip = clip;
    o.perplexity.threads = 1;
    const Corpus d = corpusD(), dPrime = corpusDPrime();
    std::vector<double> a(draws), b(draws);
    for (int t = 0; t < draws; ++t) {
      SeededRandom na(deriveSeed(100, t)), nb(deriveSeed(200, t));
      a[t] = releaseHeldOutLogLikelihood(peakedModel(), d, 7, o, na).value().meanLogLikelihood;
      b[t] = releaseHeldOutLogLikelihood(peakedModel(), dPrime, 7, o, nb).value().meanLogLikelihood;
    }
    const double lo = exactMean(d, clip), scale = clip / 20 / epsilon;
    const int thresholds = 41;
    const double alpha = 1e-3 / (2.0 * thresholds);
    double bestEpsilon = 0.0;
    for (int i = 0; i < thresholds; ++i) {
      const double t = lo + scale * (-4.0 + 0.2 * i);
      int ka = 0, kb = 0;
      for (int j = 0; j < draws; ++j) ka += a[j] > t, kb += b[j] > t;
      // pb: a lower bound of P_D′(Y > t); qa: an upper bound of P_D(Y > t).
      const double qa = stat::clopperPearsonUpper(ka, draws, alpha), pb = stat::clopperPearsonLower(kb, draws, alpha);
      QVERIFY2(pb <= std::exp(epsilon) * qa, qPrintable(QString("threshold %1: %2 of %3 vs %4").arg(t).arg(kb).arg(draws).arg(ka)));
      QVERIFY2(1 - qa <= std::exp(epsilon) * (1 - pb), qPrintable(QString::number(t)));
      QVERIFY(pb - qa <= (std::exp(epsilon) - 1) / (std::exp(epsilon) + 1));
      if (ka >= 200 && kb >= 200) bestEpsilon = std::max(bestEpsilon, std::log(static_cast<double>(kb) / ka));
    }
    QVERIFY2(bestEpsilon >= 0.5 * epsilon, qPrintable(QString::number(bestEpsilon)));
  }

  void badOptionsNameTheParameter() {
    PrivateHoldoutOptions o;
    o.epsilon = 0.0;
    QVERIFY(validatePrivateHoldout(o, 10, 5).message().find("--holdout-epsilon") != std::string::npos);
    o.epsilon = 1.0;
    o.clip = -1.0;
    QVERIFY(validatePrivateHoldout(o, 10, 5).message().find("--holdout-clip") != std::string::npos);
    o.clip = kNaN;
    QVERIFY(validatePrivateHoldout(o, 10, 5).isOk());
    QVERIFY(!validatePrivateHoldout(o, 10, 0).isOk());
  }
};

QTEST_GUILESS_MAIN(TestPrivateHoldout)
#include "tst_private_holdout.moc"
