// Variational LDA (core/vi): digamma, topic recovery, monotone ELBO, batch vs online, and
// results that do not depend on the thread count.
#include <QtTest>
#include <cmath>
#include <vector>

#include "core/corpus/synthetic_generator.h"
#include "core/eval/metrics.h"
#include "core/vi/estep.h"
#include "core/vi/variational_lda.h"

using namespace dplda;

namespace {

SyntheticCorpus corpusOf(int docs, std::uint64_t seed = 3) {
  GeneratorParams p;
  p.vocabSize = 30;
  p.topicCount = 3;
  p.docCount = docs;
  p.alpha0 = 1.0;
  p.prior = GeneratorParams::Prior::Symmetric;
  p.seed = seed;
  auto r = generateLdaCorpus(p);
  if (!r.ok()) qFatal("%s", r.status().message().c_str());
  return std::move(r).value();
}

ViOptions optionsFor(const LdaModel& truth, ViMethod method, int iterations) {
  ViOptions o;
  o.method = method;
  o.iterations = iterations;
  o.alpha = truth.alpha;  // the model's prior, as the spectral side's α0 is public
  return o;
}

}  // namespace

class TestVariationalLda : public QObject {
  Q_OBJECT
 private slots:
  void digammaMatchesReference() {
    // mpmath.digamma at 30 digits.
    const double x[] = {1e-3, 0.5, 1.0, 3.7, 10.0, 123.456};
    const double ref[] = {-1000.5755719318103, -1.9635100260214235, -0.5772156649015329,
                          1.1671535393615114, 2.2517525890667211, 4.8118293238289854};
    for (int i = 0; i < 6; ++i) {
      QVERIFY2(std::abs(digamma(x[i]) - ref[i]) <= 1e-13 * std::max(1.0, std::abs(ref[i])),
               qPrintable(QString("psi(%1) = %2, expected %3").arg(x[i]).arg(digamma(x[i]), 0, 'g', 17).arg(ref[i], 0, 'g', 17)));
    }
  }

  void digammaIsAccurateOnADenseGrid() {
    // The bound stated in variational_lda.h / estep.h, against a long-double reference (recurrence
    // to x >= 30, asymptotic series to B_20: error < 1e-17 relative): |error| <= 1e-13 max(1, |ψ|)
    // everywhere, relative error <= 1e-10 wherever |ψ(x)| >= 1e-3. Log-spaced x in [1e-8, 1e14]
    // and a fine linear grid over (0, 20], where the shift and the series meet.
    auto reference = [](long double x) {
      long double r = 0;
      while (x < 30) {
        r -= 1 / x;
        x += 1;
      }
      const long double f = 1 / (x * x);
      const long double b[] = {1.0L / 6, -1.0L / 30, 1.0L / 42, -1.0L / 30, 5.0L / 66, -691.0L / 2730, 7.0L / 6,
                               -3617.0L / 510, 43867.0L / 798, -174611.0L / 330};
      long double series = 0, power = f;
      for (int n = 1; n <= 10; ++n, power *= f) series += b[n - 1] / (2 * n) * power;
      return r + std::log(x) - 0.5L / x - series;
    };
    std::vector<double> xs;
    for (int i = 0; i <= 4400; ++i) xs.push_back(std::pow(10.0, -8.0 + i * 0.005));
    for (int i = 1; i <= 20000; ++i) xs.push_back(i * 0.001);
    double worstMixed = 0, worstRelative = 0;
    for (double x : xs) {
      const long double ref = reference(x);
      const double got = digamma(x);
      const double err = static_cast<double>(std::abs(got - ref));
      worstMixed = std::max(worstMixed, err / std::max(1.0, static_cast<double>(std::abs(ref))));
      if (std::abs(ref) >= 1e-3) worstRelative = std::max(worstRelative, err / static_cast<double>(std::abs(ref)));
    }
    qInfo("digamma: worst |error|/max(1,|psi|) %.3g, worst relative error (|psi| >= 1e-3) %.3g", worstMixed,
          worstRelative);
    QVERIFY2(worstMixed <= 1e-13, qPrintable(QString::number(worstMixed)));
    QVERIFY2(worstRelative <= 1e-10, qPrintable(QString::number(worstRelative)));
    // A pure function of x: the same value from any position of a vectorised call.
    std::vector<double> out(xs.size());
    vi_detail::digammaN(xs.data() + 3, out.data(), static_cast<std::ptrdiff_t>(xs.size()) - 3);
    for (std::size_t i = 3; i < xs.size(); i += 97) QCOMPARE(out[i - 3], digamma(xs[i]));
  }

  void expDirichletExpectationMatchesTheLogForm() {
    // exp(ψ(λ) − ψ(Λ)) is computed as (λ + 8)/(Λ + 8) · exp(g(λ) − g(Λ)) without a logarithm; it
    // must equal exp(a), a = ψ(λ) − ψ(Λ) from digamma(), to relative 1e-13·(1 + |a|) (an error of
    // e in a moves exp(a) by the relative e; digamma's bound is ~1e-15·|ψ|), where the value is
    // above 1e-300, over λ from 1e-6 to 1e6 and k = 5, 13 (a padded tail) and 50.
    for (int k : {5, 13, 50}) {
      Eigen::MatrixXd lambda(k, 40);
      for (Eigen::Index q = 0; q < lambda.size(); ++q) lambda.data()[q] = std::pow(10.0, -6.0 + 12.0 * ((q * 37) % 101) / 100.0);
      const Eigen::MatrixXd e = expDirichletExpectation(lambda);
      double worst = 0;
      for (int i = 0; i < k; ++i) {
        double sum = 0;
        for (Eigen::Index w = 0; w < lambda.cols(); ++w) sum += lambda(i, w);
        for (Eigen::Index w = 0; w < lambda.cols(); ++w) {
          const double a = digamma(lambda(i, w)) - digamma(sum), ref = std::exp(a);
          if (ref > 1e-300) worst = std::max(worst, std::abs(e(i, w) - ref) / ref / (1 + std::abs(a)));
          else QVERIFY(e(i, w) < 1e-290);
        }
      }
      qInfo("k = %d: worst relative error / (1 + |a|) %.3g", k, worst);
      QVERIFY2(worst <= 1e-13, qPrintable(QString("k = %1: relative error %2").arg(k).arg(worst)));
    }
  }

  void recoversTopicsErrorFallsWithN() {
    double previous = 1e9;
    for (int docs : {300, 3000, 30000}) {
      const SyntheticCorpus s = corpusOf(docs);
      auto fit = fitVi(s.corpus, 3, optionsFor(s.truth, ViMethod::Online, 10));
      QVERIFY2(fit.ok(), qPrintable(QString::fromStdString(fit.status().message())));
      const TopicErrors e = compareTopics(s.truth.topics, s.truth.alpha, fit->model.topics, fit->model.alpha);
      qInfo("N = %d: l1 error %.4f", docs, e.l1Mean);
      QVERIFY(e.l1Mean < previous);
      previous = e.l1Mean;
      // Topics on the simplex.
      for (int i = 0; i < 3; ++i) {
        QVERIFY(std::abs(fit->model.topics.col(i).sum() - 1.0) < 1e-12);
        QVERIFY(fit->model.topics.col(i).minCoeff() > 0);
      }
    }
    QVERIFY2(previous < 0.05, qPrintable(QString("l1 error at N = 30000: %1").arg(previous)));
  }

  void learnedAlphaFindsAnAsymmetricPrior() {
    // A corpus drawn with α = α0·Dir(1) (asymmetric): fitted with a symmetric α the α error is
    // the truth's spread; learned (α0 kept, shares from λ) it is several times smaller, sums to α0,
    // and the topics stay as good. Online VB and Poisson minibatches alike.
    GeneratorParams p;
    p.vocabSize = 30;
    p.topicCount = 3;
    p.docCount = 20000;
    p.alpha0 = 1.0;
    p.prior = GeneratorParams::Prior::Random;
    p.seed = 8;
    auto s = generateLdaCorpus(p);
    QVERIFY(s.ok());
    for (ViMethod m : {ViMethod::Online, ViMethod::Poisson}) {
      ViOptions o;
      o.method = m;
      o.iterations = 5;
      o.alpha0 = 1.0;
      auto symmetric = fitVi(s->corpus, 3, o);
      o.learnAlpha = true;
      auto learned = fitVi(s->corpus, 3, o);
      QVERIFY(symmetric.ok() && learned.ok());
      const TopicErrors es = compareTopics(s->truth.topics, s->truth.alpha, symmetric->model.topics, symmetric->model.alpha);
      const TopicErrors el = compareTopics(s->truth.topics, s->truth.alpha, learned->model.topics, learned->model.alpha);
      qInfo("%s: alpha error %.4f symmetric, %.4f learned; l1 %.4f / %.4f", viMethodName(m), es.alphaError,
            el.alphaError, es.l1Mean, el.l1Mean);
      QVERIFY(std::abs(learned->model.alpha.sum() - 1.0) < 1e-9);
      QVERIFY(el.alphaError < es.alphaError / 3);
      QVERIFY(el.l1Mean < 2 * es.l1Mean + 0.01);
    }
    // The shares: α0 times the topics' token shares of λ beyond the prior η, floored above 0.
    const Eigen::VectorXd a = alphaFromTopicShares(Eigen::Vector3d(10 + 30 * 0.5, 30 * 0.5, 5 + 30 * 0.5), 30, 0.5, 2.0);
    QVERIFY((a - Eigen::Vector3d(2.0 * 10 / 15, 0.0 + 2e-6, 2.0 * 5 / 15)).cwiseAbs().maxCoeff() < 1e-12);
  }

  void elboNeverDecreasesOverBatchIterations() {
    const SyntheticCorpus s = corpusOf(2000, 5);
    ViOptions o = optionsFor(s.truth, ViMethod::Batch, 30);
    o.computeElbo = true;
    auto fit = fitVi(s.corpus, 3, o);
    QVERIFY(fit.ok());
    QCOMPARE(static_cast<int>(fit->elbo.size()), 30);
    for (std::size_t t = 1; t < fit->elbo.size(); ++t) {
      QVERIFY2(fit->elbo[t] >= fit->elbo[t - 1] - 1e-10 * std::abs(fit->elbo[t - 1]),
               qPrintable(QString("ELBO fell at iteration %1: %2 -> %3").arg(t).arg(fit->elbo[t - 1], 0, 'g', 17).arg(fit->elbo[t], 0, 'g', 17)));
    }
    QVERIFY(fit->elbo.back() > fit->elbo.front());  // and it did move
  }

  void batchAndOnlineAgreeInTheLimit() {
    const SyntheticCorpus s = corpusOf(4000, 7);
    auto batch = fitVi(s.corpus, 3, optionsFor(s.truth, ViMethod::Batch, 200));
    ViOptions on = optionsFor(s.truth, ViMethod::Online, 100);
    on.batchSize = 200;
    auto online = fitVi(s.corpus, 3, on);
    QVERIFY(batch.ok() && online.ok());
    const TopicErrors e = compareTopics(batch->model.topics, batch->model.alpha, online->model.topics, online->model.alpha);
    qInfo("batch vs online: l1 %.5f, l2 %.5f", e.l1Mean, e.l2Mean);
    QVERIFY2(e.l1Mean < 0.02, qPrintable(QString("batch and online differ by l1 %1").arg(e.l1Mean)));
  }

  void resultsDoNotDependOnTheThreadCount() {
    const SyntheticCorpus s = corpusOf(6000, 11);  // large enough for the parallel path in batch mode
    // k = 3 runs on the document-lanes E-step, k = 10 on the single-document one (estep_lanes.h).
    for (int k : {3, 10}) {
      for (ViMethod m : {ViMethod::Batch, ViMethod::Online}) {
        ViOptions o = optionsFor(s.truth, m, 3);
        o.alpha = Eigen::VectorXd::Constant(k, 0.3);
        o.batchSize = 3000;
        o.threads = 1;
        auto one = fitVi(s.corpus, k, o);
        o.threads = 2;
        auto two = fitVi(s.corpus, k, o);
        o.threads = 3;
        auto three = fitVi(s.corpus, k, o);
        QVERIFY(one.ok() && two.ok() && three.ok());
        QVERIFY(one->lambda == two->lambda);  // bit for bit
        QVERIFY(one->lambda == three->lambda);
        QCOMPARE(one->estepIterations, two->estepIterations);
      }
    }
  }

  void sameSeedSameFitOtherSeedOtherFit() {
    const SyntheticCorpus s = corpusOf(500, 2);
    ViOptions o = optionsFor(s.truth, ViMethod::Online, 2);
    auto a = fitVi(s.corpus, 3, o);
    auto b = fitVi(s.corpus, 3, o);
    o.seed = 99;
    auto c = fitVi(s.corpus, 3, o);
    QVERIFY(a->lambda == b->lambda);
    QVERIFY(a->lambda != c->lambda);
  }

  void refusesBadOptions() {
    const SyntheticCorpus s = corpusOf(100);
    auto check = [&](ViOptions o, int k, const char* needle) {
      auto r = fitVi(s.corpus, k, o);
      QVERIFY(!r.ok());
      QCOMPARE(r.status().code(), StatusCode::InvalidArgument);
      QVERIFY2(r.status().message().find(needle) != std::string::npos, r.status().message().c_str());
    };
    ViOptions o;
    check(o, 31, "topic count");
    check(o, 0, "topic count");
    o.iterations = 0;
    check(o, 3, "iterations");
    o = {};
    o.kappa = 0.5;
    check(o, 3, "kappa");
    o = {};
    o.tau0 = 0.5;
    check(o, 3, "tau0");
    o = {};
    o.batchSize = 0;
    check(o, 3, "batch size");
    o = {};
    o.alpha = Eigen::VectorXd::Constant(2, 0.5);
    check(o, 3, "alpha has 2");
    o.alpha = Eigen::Vector3d(0.5, -1, 0.5);
    check(o, 3, "alpha[1]");
    o = {};
    o.alpha0 = std::nan("");
    check(o, 3, "alpha0");
    o = {};
    o.estepTolerance = 0;
    check(o, 3, "tolerance");
  }
};

QTEST_GUILESS_MAIN(TestVariationalLda)
#include "tst_variational_lda.moc"
