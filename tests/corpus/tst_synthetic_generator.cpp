// Tests of the synthetic LDA generator (SPEC §2): determinism, the distribution of words,
// co-occurrences and lengths, parameter validation and cancellation.
#include <QtTest>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "core/corpus/synthetic_generator.h"
#include "core/corpus/truth_io.h"

using namespace dplda;

namespace {

GeneratorParams smallParams() {
  GeneratorParams p;
  p.vocabSize = 30;
  p.topicCount = 4;
  p.docCount = 2000;
  p.meanLength = 40;
  p.seed = 11;
  return p;
}

bool sameCounts(const Corpus& a, const Corpus& b) {
  if (a.counts.rows() != b.counts.rows() || a.counts.cols() != b.counts.cols() || a.nnz() != b.nnz())
    return false;
  for (int n = 0; n <= a.counts.outerSize(); ++n) {
    if (a.counts.outerIndexPtr()[n] != b.counts.outerIndexPtr()[n]) return false;
  }
  for (long long e = 0; e < a.nnz(); ++e) {
    if (a.counts.innerIndexPtr()[e] != b.counts.innerIndexPtr()[e]) return false;
    if (a.counts.valuePtr()[e] != b.counts.valuePtr()[e]) return false;
  }
  return true;
}

void expectInvalid(const GeneratorParams& p, StatusCode code, const char* mustContain1,
                   const char* mustContain2) {
  const Status s = validateGeneratorParams(p);
  QCOMPARE(statusCodeName(s.code()), statusCodeName(code));
  QVERIFY2(s.message().find(mustContain1) != std::string::npos, s.message().c_str());
  QVERIFY2(s.message().find(mustContain2) != std::string::npos, s.message().c_str());
  const auto r = generateLdaCorpus(p);
  QVERIFY(!r.ok());
  QCOMPARE(statusCodeName(r.status().code()), statusCodeName(code));
}

}  // namespace

class TestSyntheticGenerator : public QObject {
  Q_OBJECT

 private slots:
  void sameSeedGivesIdenticalCorpus() {
    const auto a = generateLdaCorpus(smallParams());
    const auto b = generateLdaCorpus(smallParams());
    QVERIFY2(a.ok(), a.status().toString().c_str());
    QVERIFY(b.ok());
    QVERIFY(sameCounts(a->corpus, b->corpus));
    QVERIFY(a->truth.alpha == b->truth.alpha);
    QVERIFY(a->truth.topics == b->truth.topics);
  }

  void differentSeedGivesDifferentCorpus() {
    GeneratorParams p = smallParams();
    const auto a = generateLdaCorpus(p);
    p.seed = 12;
    const auto b = generateLdaCorpus(p);
    QVERIFY(a.ok() && b.ok());
    QVERIFY(!sameCounts(a->corpus, b->corpus));
    QVERIFY(a->truth.topics != b->truth.topics);
  }

  void truthDoesNotDependOnDocumentCount() {
    // The truth is drawn before the documents from its own stream.
    GeneratorParams p = smallParams();
    const auto a = generateLdaCorpus(p);
    p.docCount = 10;
    p.fixedLength = true;
    p.meanLength = 5;
    const auto b = generateLdaCorpus(p);
    QVERIFY(a.ok() && b.ok());
    QVERIFY(a->truth.topics == b->truth.topics);
    QVERIFY(a->truth.alpha == b->truth.alpha);
  }

  void corpusStructure() {
    const auto r = generateLdaCorpus(smallParams());
    QVERIFY(r.ok());
    const Corpus& c = r->corpus;
    QCOMPARE(c.docCount(), 2000);
    QCOMPARE(c.vocabSize(), 30);
    QCOMPARE(c.droppedDocuments, 0);
    QCOMPARE(static_cast<int>(c.vocab.size()), 30);
    QCOMPARE(QString::fromStdString(c.vocab[0]), QString("w0"));
    QCOMPARE(QString::fromStdString(c.vocab[29]), QString("w29"));
    const Eigen::VectorXd rowSums = c.counts * Eigen::VectorXd::Ones(c.vocabSize());
    QCOMPARE((rowSums - c.lengths).cwiseAbs().maxCoeff(), 0.0);
    QVERIFY(c.lengths.minCoeff() >= kMinDocumentLength);
    for (long long e = 0; e < c.nnz(); ++e) {
      const double v = c.counts.valuePtr()[e];
      QVERIFY(v >= 1.0 && v == std::floor(v));
    }
    // Truth: alpha sums to alpha0, topics are on the simplex.
    const LdaModel& t = r->truth;
    QCOMPARE(t.topicCount(), 4);
    QCOMPARE(t.vocabSize(), 30);
    QVERIFY(std::abs(t.alpha0() - 1.0) < 1e-12);
    QVERIFY(t.alpha.minCoeff() > 0.0);
    QVERIFY(t.topics.minCoeff() >= 0.0);
    for (int i = 0; i < 4; ++i) QVERIFY(std::abs(t.topics.col(i).sum() - 1.0) < 1e-12);
  }

  void symmetricPrior() {
    GeneratorParams p = smallParams();
    p.prior = GeneratorParams::Prior::Symmetric;
    p.alpha0 = 2.0;
    const auto r = generateLdaCorpus(p);
    QVERIFY(r.ok());
    for (int i = 0; i < 4; ++i) QCOMPARE(r->truth.alpha[i], 0.5);
  }

  // Empirical word frequencies against mu * E[theta] = mu * alpha / alpha0. Tokens of one
  // document share theta, so the standard error comes from the document-level spread
  // (ratio estimator). With fixed seed, the 50 z-scores should look standard normal:
  // tolerance max |z| < 5 and sum z^2 in [15, 100] (chi-square with ~49 dof: mean 49, sd 10).
  void wordFrequenciesMatchModel() {
    GeneratorParams p;
    p.vocabSize = 50;
    p.topicCount = 5;
    p.docCount = 20000;
    p.meanLength = 100;
    p.seed = 3;
    const auto r = generateLdaCorpus(p);
    QVERIFY(r.ok());
    const Corpus& c = r->corpus;
    const Eigen::VectorXd expected = r->truth.topics * (r->truth.alpha / r->truth.alpha0());
    const Eigen::MatrixXd dense = Eigen::MatrixXd(c.counts);
    const double total = c.lengths.sum();
    const double meanLen = total / c.docCount();
    double chi = 0.0, maxZ = 0.0;
    for (int w = 0; w < p.vocabSize; ++w) {
      const double phat = dense.col(w).sum() / total;
      const Eigen::VectorXd resid = dense.col(w) - phat * c.lengths;
      const double var = resid.squaredNorm() / (c.docCount() - 1);
      const double se = std::sqrt(var / c.docCount()) / meanLen;
      const double z = (phat - expected[w]) / se;
      chi += z * z;
      maxZ = std::max(maxZ, std::abs(z));
    }
    QVERIFY2(maxZ < 5.0, qPrintable(QString("max |z| = %1").arg(maxZ)));
    QVERIFY2(chi > 15.0 && chi < 100.0, qPrintable(QString("sum z^2 = %1").arg(chi)));
  }

  // Co-occurrences test the per-document Dirichlet(alpha): E[(c c^T - diag c)/(l(l-1))] =
  // mu E[theta theta^T] mu^T with E[theta theta^T] = (diag(alpha) + alpha alpha^T)/(alpha0(alpha0+1)).
  // A wrong theta law (e.g. a wrong alpha0) changes the off-diagonal mass. Tolerance: every
  // entry within 5 standard errors (from the document-level spread), and mean z^2 < 2.
  void cooccurrencesMatchDirichlet() {
    GeneratorParams p;
    p.vocabSize = 10;
    p.topicCount = 3;
    p.docCount = 20000;
    p.meanLength = 20;
    p.alpha0 = 0.7;
    p.beta = 0.5;
    p.seed = 5;
    const auto r = generateLdaCorpus(p);
    QVERIFY(r.ok());
    const LdaModel& t = r->truth;
    const double a0 = t.alpha0();
    const Eigen::MatrixXd thetaMoment =
        (Eigen::MatrixXd(t.alpha.asDiagonal()) + t.alpha * t.alpha.transpose()) / (a0 * (a0 + 1.0));
    const Eigen::MatrixXd expected = t.topics * thetaMoment * t.topics.transpose();
    const int d = p.vocabSize;
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(d, d), sumSq = Eigen::MatrixXd::Zero(d, d);
    const Corpus& c = r->corpus;
    for (int n = 0; n < c.docCount(); ++n) {
      const Eigen::VectorXd cn = Eigen::VectorXd(c.counts.row(n).transpose());
      const double l = c.lengths[n];
      Eigen::MatrixXd m2 = cn * cn.transpose();
      m2.diagonal() -= cn;
      m2 /= l * (l - 1.0);
      sum += m2;
      sumSq += m2.cwiseProduct(m2);
    }
    const double nDocs = c.docCount();
    const Eigen::MatrixXd mean = sum / nDocs;
    const Eigen::MatrixXd var = (sumSq / nDocs - mean.cwiseProduct(mean)) * nDocs / (nDocs - 1.0);
    double maxZ = 0.0, sumZ2 = 0.0;
    for (int i = 0; i < d; ++i) {
      for (int j = 0; j <= i; ++j) {
        const double se = std::sqrt(var(i, j) / nDocs);
        if (se == 0.0) continue;
        const double z = (mean(i, j) - expected(i, j)) / se;
        maxZ = std::max(maxZ, std::abs(z));
        sumZ2 += z * z;
      }
    }
    const double meanZ2 = sumZ2 / (d * (d + 1) / 2);
    QVERIFY2(maxZ < 5.0, qPrintable(QString("max |z| = %1").arg(maxZ)));
    QVERIFY2(meanZ2 < 2.0, qPrintable(QString("mean z^2 = %1").arg(meanZ2)));
  }

  // Poisson(100) conditioned on l >= 3 is Poisson(100) to ~1e-39: mean 100, variance 100.
  // Tolerance: the mean within 5 standard errors (5 * 10 / sqrt(20000) = 0.35), variance within 10%.
  void poissonLengths() {
    GeneratorParams p = smallParams();
    p.docCount = 20000;
    p.meanLength = 100;
    const auto r = generateLdaCorpus(p);
    QVERIFY(r.ok());
    const Eigen::VectorXd& l = r->corpus.lengths;
    const double mean = l.mean();
    const double var = (l.array() - mean).square().sum() / (l.size() - 1);
    QVERIFY2(std::abs(mean - 100.0) < 0.35, qPrintable(QString("mean length %1").arg(mean)));
    QVERIFY2(std::abs(var - 100.0) < 10.0, qPrintable(QString("length variance %1").arg(var)));
  }

  // Short documents: Poisson(1) conditioned on l >= 3 has mean
  // (lambda - lambda e^-lambda - lambda^2 e^-lambda) / (1 - e^-lambda (1 + lambda + lambda^2/2)) = 3.29062...
  // and P(l = 3 | l >= 3) = (e^-1/6) / (1 - 2.5 e^-1) = 0.76369... Tolerance 5 standard errors.
  void shortPoissonLengthsAreConditioned() {
    GeneratorParams p = smallParams();
    p.docCount = 20000;
    p.meanLength = 1.0;
    const auto r = generateLdaCorpus(p);
    QVERIFY(r.ok());
    const Eigen::VectorXd& l = r->corpus.lengths;
    QCOMPARE(r->corpus.docCount(), 20000);
    QVERIFY(l.minCoeff() >= 3.0);
    const double e = std::exp(-1.0);
    const double expectedMean = (1.0 - e - e) / (1.0 - 2.5 * e);
    const double p3 = (e / 6.0) / (1.0 - 2.5 * e);
    const double mean = l.mean();
    const double sd = std::sqrt((l.array() - mean).square().sum() / (l.size() - 1));
    QVERIFY2(std::abs(mean - expectedMean) < 5.0 * sd / std::sqrt(20000.0),
             qPrintable(QString("mean %1 expected %2").arg(mean).arg(expectedMean)));
    const double frac3 = (l.array() == 3.0).cast<double>().mean();
    QVERIFY2(std::abs(frac3 - p3) < 5.0 * std::sqrt(p3 * (1 - p3) / 20000.0),
             qPrintable(QString("P(l=3) %1 expected %2").arg(frac3).arg(p3)));
  }

  void fixedLengths() {
    GeneratorParams p = smallParams();
    p.fixedLength = true;
    p.meanLength = 37;
    const auto r = generateLdaCorpus(p);
    QVERIFY(r.ok());
    QCOMPARE(r->corpus.lengths.minCoeff(), 37.0);
    QCOMPARE(r->corpus.lengths.maxCoeff(), 37.0);
    const Eigen::VectorXd rowSums = r->corpus.counts * Eigen::VectorXd::Ones(p.vocabSize);
    QCOMPARE(rowSums.minCoeff(), 37.0);
    QCOMPARE(rowSums.maxCoeff(), 37.0);
  }

  void extremeConcentrationsStayFinite() {
    GeneratorParams p = smallParams();
    p.beta = 1e-4;
    p.alpha0 = 1e-3;
    p.prior = GeneratorParams::Prior::Symmetric;
    p.docCount = 500;
    const auto r = generateLdaCorpus(p);
    QVERIFY2(r.ok(), r.status().toString().c_str());
    QVERIFY(r->truth.topics.allFinite());
    QVERIFY(r->truth.alpha.allFinite());
    for (int i = 0; i < p.topicCount; ++i) QVERIFY(std::abs(r->truth.topics.col(i).sum() - 1.0) < 1e-9);
    QCOMPARE(r->corpus.docCount(), 500);
    QVERIFY(r->corpus.lengths.allFinite());
  }

  void validation() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    GeneratorParams p;
    p.alpha0 = nan;
    expectInvalid(p, StatusCode::InvalidArgument, "alpha0", "nan");
    p = {};
    p.alpha0 = 0.0;
    expectInvalid(p, StatusCode::InvalidArgument, "alpha0", "0");
    p = {};
    p.alpha0 = -1.5;
    expectInvalid(p, StatusCode::InvalidArgument, "alpha0", "-1.5");
    p = {};
    p.beta = inf;
    expectInvalid(p, StatusCode::InvalidArgument, "beta", "inf");
    p = {};
    p.beta = -0.1;
    expectInvalid(p, StatusCode::InvalidArgument, "beta", "-0.1");
    p = {};
    p.vocabSize = 0;
    expectInvalid(p, StatusCode::InvalidArgument, "vocabSize", "0");
    p = {};
    p.topicCount = 0;
    expectInvalid(p, StatusCode::InvalidArgument, "topicCount", "0");
    p = {};
    p.topicCount = 51;
    expectInvalid(p, StatusCode::InvalidArgument, "topicCount", "51");
    p = {};
    p.docCount = -3;
    expectInvalid(p, StatusCode::InvalidArgument, "docCount", "-3");
    p = {};
    p.meanLength = nan;
    expectInvalid(p, StatusCode::InvalidArgument, "meanLength", "nan");
    p = {};
    p.meanLength = -2;
    expectInvalid(p, StatusCode::InvalidArgument, "meanLength", "-2");
    p = {};
    p.fixedLength = true;
    p.meanLength = 2;
    expectInvalid(p, StatusCode::InvalidArgument, "meanLength", "2");
    p = {};
    p.fixedLength = true;
    p.meanLength = 10.5;
    expectInvalid(p, StatusCode::InvalidArgument, "meanLength", "10.5");
    p = {};
    p.prior = static_cast<GeneratorParams::Prior>(7);
    expectInvalid(p, StatusCode::InvalidArgument, "prior", "7");
    p = {};
    p.vocabSize = 1000000;
    p.topicCount = 1000;
    expectInvalid(p, StatusCode::ResourceLimit, "vocabSize", "topic entries");
    p = {};
    p.docCount = 2000000000;
    p.meanLength = 1000;
    expectInvalid(p, StatusCode::ResourceLimit, "docCount", "tokens");
    // Issue 15: values the generator let through and the fit then choked on.
    p = {};
    p.alpha0 = 1e308;
    expectInvalid(p, StatusCode::InvalidArgument, "alpha0", "1e+308");
    p = {};
    p.alpha0 = kMaxAlpha0 * 1.5;
    expectInvalid(p, StatusCode::InvalidArgument, "alpha0", "1000000");
    p = {};
    p.beta = 1e308;  // the topics' gamma draws overflowed: topics summing to 0 in truth.json
    expectInvalid(p, StatusCode::InvalidArgument, "beta", "1000000");
    p = {};
    p.vocabSize = kMaxVocabularySize + 1;
    p.topicCount = 1;
    expectInvalid(p, StatusCode::InvalidArgument, "vocabSize", "1000001");
    // Valid boundary cases.
    p = {};
    p.alpha0 = kMaxAlpha0;
    p.beta = kMaxBeta;
    QVERIFY(validateGeneratorParams(p).isOk());
    p.docCount = 50;
    const auto atLimit = generateLdaCorpus(p);  // its truth.json is accepted too (rounding of the shares)
    QVERIFY(atLimit.ok());
    QVERIFY(validateLdaModel(atLimit->truth).isOk());
    p = {};
    p.topicCount = p.vocabSize;
    QVERIFY(validateGeneratorParams(p).isOk());
    p = {};
    p.fixedLength = true;
    p.meanLength = 3;
    QVERIFY(validateGeneratorParams(p).isOk());
  }

  void cancelBeforeStart() {
    Feedback fb;
    fb.cancel();
    const auto r = generateLdaCorpus(smallParams(), &fb);
    QVERIFY(!r.ok());
    QCOMPARE(statusCodeName(r.status().code()), statusCodeName(StatusCode::Cancelled));
  }

  void cancelMidway() {
    Feedback fb;
    double seen = 0.0;
    fb.setProgressCallback([&](double f) {
      seen = std::max(seen, f);
      if (f >= 0.25) fb.cancel();
    });
    GeneratorParams p = smallParams();
    p.docCount = 20000;
    const auto r = generateLdaCorpus(p, &fb);
    QVERIFY(!r.ok());
    QCOMPARE(statusCodeName(r.status().code()), statusCodeName(StatusCode::Cancelled));
    QVERIFY(seen >= 0.25 && seen < 1.0);
  }

  // One huge document: the cancel must be noticed inside the token loop, not only between
  // documents. If it were not, this would return a corpus (9.9e6 tokens take well over 10 ms).
  void cancelInsideLongDocument() {
    Feedback fb;
    GeneratorParams p = smallParams();
    p.docCount = 1;
    p.fixedLength = true;
    p.meanLength = 9.9e6;  // the longest the generator allows (documents hold at most 10^7 tokens)
    std::thread canceller([&fb] {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      fb.cancel();
    });
    const auto start = std::chrono::steady_clock::now();
    const auto r = generateLdaCorpus(p, &fb);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    canceller.join();
    QCOMPARE(statusCodeName(r.status().code()), statusCodeName(StatusCode::Cancelled));
    QVERIFY2(seconds < 5.0, qPrintable(QString("cancel took %1 s").arg(seconds)));
  }

  void progressReachesOne() {
    Feedback fb;
    const auto r = generateLdaCorpus(smallParams(), &fb);
    QVERIFY(r.ok());
    QCOMPARE(fb.progress(), 1.0);
  }
};

QTEST_APPLESS_MAIN(TestSyntheticGenerator)
#include "tst_synthetic_generator.moc"
