// Per-document topic proportions (core/model/topic_inference.h): the VI E-step itself
// (inferDocument) with the model's topics and α, checked three ways: agreement with a direct
// call of the E-step, the fixed point of the mean-field equations recomputed here from ψ, and
// results independent of the thread count.
#include <QtTest>
#include <cmath>

#include "core/model/topic_inference.h"
#include "core/vi/variational_lda.h"
#include "test_util.h"

using namespace dplda;

namespace {

struct Fixture {
  LdaModel model = test::randomModel(40, 4, 1.0, 0.3, 5);
  Corpus corpus = test::sampleCorpus(model, 60, 5, 80, 9);
};

}  // namespace

class TestTopicInference : public QObject {
  Q_OBJECT
 private slots:
  void agreesWithTheViEStep() {
    const Fixture f;
    InferenceOptions o;
    o.tolerance = 1e-6;
    o.maxIterations = 500;
    const DocumentTopics r = inferTopics(f.model, f.corpus, o).value();
    QCOMPARE(r.proportions.cols(), static_cast<Eigen::Index>(f.corpus.docCount()));
    const Eigen::MatrixXd B = f.model.topics.transpose();
    double worst = 0.0;
    for (int n = 0; n < f.corpus.docCount(); ++n) {
      const auto& c = f.corpus.counts;
      const int begin = c.outerIndexPtr()[n], nnz = c.outerIndexPtr()[n + 1] - begin;
      Eigen::VectorXd gamma = f.model.alpha.array() + f.corpus.lengths[n] / 4.0;  // Blei et al.'s start
      Eigen::VectorXd e, p;
      inferDocument(B, f.model.alpha, c.innerIndexPtr() + begin, c.valuePtr() + begin, nnz, 1e-6, 500, gamma, e, p);
      worst = std::max(worst, (r.gamma.col(n) - gamma).cwiseAbs().maxCoeff());
      worst = std::max(worst, (r.proportions.col(n) - gamma / gamma.sum()).cwiseAbs().maxCoeff());
    }
    QVERIFY2(worst <= 1e-10, qPrintable(QString::number(worst)));
  }

  // γ = α + Σ_w c_w φ_w with φ_wi = exp(ψ(γ_i) − ψ(Σγ)) β_wi / Σ_j exp(ψ(γ_j) − ψ(Σγ)) β_wj,
  // recomputed here: a converged E-step is its fixed point.
  void resultIsTheMeanFieldFixedPoint() {
    const Fixture f;
    InferenceOptions o;
    o.tolerance = 1e-13;
    o.maxIterations = 20000;
    const DocumentTopics r = inferTopics(f.model, f.corpus, o).value();
    QCOMPARE(r.notConverged, 0);
    double worst = 0.0;
    for (int n = 0; n < f.corpus.docCount(); ++n) {
      const Eigen::VectorXd g = r.gamma.col(n);
      Eigen::VectorXd e(4);
      for (int i = 0; i < 4; ++i) e[i] = std::exp(digamma(g[i]) - digamma(g.sum()));
      Eigen::VectorXd next = f.model.alpha;
      for (SparseCounts::InnerIterator it(f.corpus.counts, n); it; ++it) {
        const Eigen::VectorXd phi = e.cwiseProduct(f.model.topics.row(it.col()).transpose());
        next += it.value() * phi / phi.sum();
      }
      worst = std::max(worst, ((next - g).cwiseAbs().array() / g.array()).maxCoeff());
    }
    QVERIFY2(worst <= 1e-10, qPrintable(QString::number(worst)));
  }

  void threadCountDoesNotChangeResults() {
    const Fixture f;
    InferenceOptions one, two;
    one.threads = 1;
    two.threads = 2;
    QVERIFY(inferTopics(f.model, f.corpus, one).value().gamma == inferTopics(f.model, f.corpus, two).value().gamma);
  }

  void emptyDocumentGetsThePriorMean() {
    const Fixture f;
    Corpus c;  // row 0: five tokens; row 1: none (a text with no word of the model's vocabulary)
    std::vector<Eigen::Triplet<double, int>> t{{0, 3, 4.0}, {0, 7, 1.0}};
    c.counts.resize(2, 40);
    c.counts.setFromTriplets(t.begin(), t.end());
    c.lengths = Eigen::VectorXd::Zero(2);
    c.lengths[0] = 5.0;
    const DocumentTopics r = inferTopics(f.model, c).value();
    QVERIFY((r.proportions.col(1) - f.model.alpha / f.model.alpha0()).norm() < 1e-15);
    QCOMPARE(r.iterations[1], 0);
    QVERIFY(std::abs(r.proportions.col(0).sum() - 1.0) < 1e-12);
  }

  void oneTopicIsCertain() {
    LdaModel m = test::randomModel(10, 1, 0.5, 1.0, 3);
    Corpus c = buildCorpus(1, 10, {{0, 1, 3.0}, {0, 4, 2.0}}).value();
    const DocumentTopics r = inferTopics(m, c).value();
    QCOMPARE(r.proportions(0, 0), 1.0);
    QVERIFY(std::abs(r.gamma(0, 0) - 5.5) < 1e-9);  // α + every token
  }

  void refusals() {
    const Fixture f;
    InferenceOptions bad;
    bad.tolerance = 0;
    QCOMPARE(inferTopics(f.model, f.corpus, bad).status().code(), StatusCode::InvalidArgument);
    bad = {};
    bad.maxIterations = 0;
    QCOMPARE(inferTopics(f.model, f.corpus, bad).status().code(), StatusCode::InvalidArgument);
    const Corpus other = buildCorpus(1, 39, {{0, 1, 3.0}}).value();
    const auto r = inferTopics(f.model, other);
    QCOMPARE(r.status().code(), StatusCode::BadInput);
    QVERIFY(r.status().message().find("39 words") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestTopicInference)
#include "tst_topic_inference.moc"
