// The document-lanes E-step (core/vi/estep_lanes.h) against the single-document E-step, and its
// promise that a document's result depends on nothing but the document.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/common/random.h"
#include "core/vi/estep.h"
#include "core/vi/estep_lanes.h"
#include "core/vi/variational_lda.h"

using namespace dplda;
using namespace dplda::vi_detail;

namespace {

// Documents over d words with 0 to d distinct words (one empty, one with every word), counts 1-20,
// in a seeded order that puts short documents after long ones.
struct Documents {
  std::vector<std::vector<int>> words;
  std::vector<std::vector<double>> counts;
};

Documents documentsOf(int count, int d, std::uint64_t seed) {
  SeededRandom rng(seed);
  Documents docs;
  for (int n = 0; n < count; ++n) {
    int m = static_cast<int>(uniformIndex(rng, static_cast<std::uint64_t>(d) + 1));
    if (n == 0) m = 0;
    if (n == 1) m = d;
    std::vector<int> all(d);
    for (int w = 0; w < d; ++w) all[w] = w;
    for (int i = d - 1; i > 0; --i) std::swap(all[i], all[uniformIndex(rng, static_cast<std::uint64_t>(i) + 1)]);
    std::vector<int> words(all.begin(), all.begin() + m);
    std::sort(words.begin(), words.end());
    std::vector<double> counts;
    for (int q = 0; q < m; ++q) counts.push_back(1.0 + static_cast<double>(uniformIndex(rng, 20)));
    docs.words.push_back(words);
    docs.counts.push_back(counts);
  }
  return docs;
}

// exp(E[log β]) of a random λ (k x d), and α.
Eigen::MatrixXd topicWeights(int k, int d, std::uint64_t seed) {
  SeededRandom rng(seed);
  Eigen::MatrixXd lambda(k, d);
  for (Eigen::Index q = 0; q < lambda.size(); ++q) lambda.data()[q] = 0.05 + 50.0 * uniform01(rng);
  return expDirichletExpectation(lambda);
}

struct Outputs {
  std::vector<std::vector<double>> gamma, theta, phi;
  std::vector<int> iterations;
};

Outputs lanesOf(const Eigen::MatrixXd& B, const Eigen::VectorXd& alpha, const Documents& docs,
                const std::vector<int>& which, double tol, int maxIt) {
  const int k = static_cast<int>(B.rows());
  Outputs out;
  const std::size_t n = which.size();
  out.gamma.assign(n, std::vector<double>(k));
  out.theta.assign(n, std::vector<double>(k));
  out.phi.resize(n);
  out.iterations.assign(n, -1);
  std::vector<DocumentJob> jobs(n);
  for (std::size_t j = 0; j < n; ++j) {
    const int doc = which[j];
    for (int i = 0; i < k; ++i) out.gamma[j][i] = alpha[i] + 1.0 + 0.3 * i + 0.01 * doc;  // a start per document
    out.phi[j].assign(docs.words[doc].size(), -1.0);
    jobs[j] = {docs.words[doc].data(), docs.counts[doc].data(), static_cast<int>(docs.words[doc].size()),
               out.gamma[j].data(), out.theta[j].data(), out.phi[j].data(), &out.iterations[j]};
  }
  LaneScratch scratch;
  estepDocuments(B, alpha.data(), jobs.data(), static_cast<int>(n), tol, maxIt, scratch);
  return out;
}

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

}  // namespace

class TestEStepLanes : public QObject {
  Q_OBJECT
 private slots:
  void agreesWithTheSingleDocumentEStep() {
    // The same updates in another summation order: after a fixed 9 updates (tolerance 0) γ, exp(E[log θ])
    // and the φ-norms agree with estep() to 1e-12 relative, for every k the lanes take.
    const int d = 37;
    const Documents docs = documentsOf(150, d, 4);
    std::vector<int> all(docs.words.size());
    for (std::size_t j = 0; j < all.size(); ++j) all[j] = static_cast<int>(j);
    for (int k : {1, 3, 5, 8}) {
      QVERIFY(documentLanesPay(k));
      const Eigen::MatrixXd B = topicWeights(k, d, 10 + k);
      const Eigen::VectorXd alpha = Eigen::VectorXd::LinSpaced(k, 0.05, 0.5);
      const Outputs lanes = lanesOf(B, alpha, docs, all, 0.0, 9);
      double worst = 0;
      EStepScratch scratch;
      for (std::size_t j = 0; j < all.size(); ++j) {
        std::vector<double> gamma = lanes.gamma[j];
        for (int i = 0; i < k; ++i) gamma[i] = alpha[i] + 1.0 + 0.3 * i + 0.01 * static_cast<double>(j);
        const int m = static_cast<int>(docs.words[j].size());
        const int its = estep(B, alpha.data(), docs.words[j].data(), docs.counts[j].data(), m, 0.0, 9, gamma.data(), scratch);
        QCOMPARE(lanes.iterations[j], its);
        for (int i = 0; i < k; ++i) {
          worst = std::max(worst, relative(lanes.gamma[j][i], gamma[i]));
          worst = std::max(worst, relative(lanes.theta[j][i], scratch.expElogTheta()[i]));
        }
        for (int q = 0; q < m; ++q) worst = std::max(worst, relative(lanes.phi[j][q], scratch.phiNorm()[q]));
      }
      qInfo("k = %d: worst relative difference %.3g", k, worst);
      QVERIFY2(worst <= 1e-12, qPrintable(QString("k = %1: %2").arg(k).arg(worst)));
    }
    QVERIFY(!documentLanesPay(9));
  }

  void stopsWhereTheSingleDocumentEStepStops() {
    // With the default tolerance the lanes stop each document after the same number of updates as
    // estep() (a tie at the tolerance could differ by rounding; none does here).
    const int d = 50, k = 5;
    const Documents docs = documentsOf(400, d, 6);
    std::vector<int> all(docs.words.size());
    for (std::size_t j = 0; j < all.size(); ++j) all[j] = static_cast<int>(j);
    const Eigen::MatrixXd B = topicWeights(k, d, 21);
    const Eigen::VectorXd alpha = Eigen::VectorXd::Constant(k, 0.2);
    const Outputs lanes = lanesOf(B, alpha, docs, all, 1e-3, 100);
    EStepScratch scratch;
    int differ = 0, total = 0;
    for (std::size_t j = 0; j < all.size(); ++j) {
      std::vector<double> gamma(k);
      for (int i = 0; i < k; ++i) gamma[i] = alpha[i] + 1.0 + 0.3 * i + 0.01 * static_cast<double>(j);
      const int m = static_cast<int>(docs.words[j].size());
      const int its = estep(B, alpha.data(), docs.words[j].data(), docs.counts[j].data(), m, 1e-3, 100, gamma.data(), scratch);
      differ += its != lanes.iterations[j];
      total += its;
      QVERIFY(lanes.iterations[j] >= 1 && lanes.iterations[j] <= 100);
    }
    QCOMPARE(differ, 0);
    QVERIFY(total > 2 * static_cast<int>(all.size()));  // the tolerance, not the first update, stops them
  }

  void aDocumentsResultDependsOnlyOnTheDocument() {
    // Bit for bit the same whether a document shares its lanes with 299 others (long ones before
    // short ones, so stale slots must be cleared), with a reversed set, or runs alone.
    const int d = 60, k = 4;
    const Documents docs = documentsOf(300, d, 8);
    const Eigen::MatrixXd B = topicWeights(k, d, 5);
    const Eigen::VectorXd alpha = Eigen::VectorXd::Constant(k, 0.1);
    std::vector<int> forward(docs.words.size());
    for (std::size_t j = 0; j < forward.size(); ++j) forward[j] = static_cast<int>(j);
    std::vector<int> backward(forward.rbegin(), forward.rend());
    const Outputs a = lanesOf(B, alpha, docs, forward, 1e-3, 100);
    const Outputs b = lanesOf(B, alpha, docs, backward, 1e-3, 100);
    for (int doc : {0, 1, 2, 57, 150, 299}) {
      const Outputs alone = lanesOf(B, alpha, docs, {doc}, 1e-3, 100);
      const std::size_t rb = forward.size() - 1 - doc;
      QCOMPARE(a.iterations[doc], alone.iterations[0]);
      QVERIFY(a.gamma[doc] == alone.gamma[0] && a.theta[doc] == alone.theta[0] && a.phi[doc] == alone.phi[0]);
      QVERIFY(b.gamma[rb] == alone.gamma[0] && b.theta[rb] == alone.theta[0] && b.phi[rb] == alone.phi[0]);
    }
    // The empty document: no words, so γ = α.
    for (int i = 0; i < k; ++i) QCOMPARE(a.gamma[0][i], alpha[i]);
  }
};

QTEST_GUILESS_MAIN(TestEStepLanes)
#include "tst_estep_lanes.moc"
