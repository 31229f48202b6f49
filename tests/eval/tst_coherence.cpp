// Topic coherence (core/eval/coherence.h) against values worked out by hand on a tiny corpus.
//
// Words a b c d e (ids 0..4); reference documents (a document counts a word once):
//   D0: a a b c   D1: a b   D2: a c d   D3: b d   D4: (empty: not counted, R = 4)
// Document frequencies: D(a) = 3, D(b) = 3, D(c) = 2, D(d) = 2, D(e) = 0;
// co-occurrences: D(a,b) = 2, D(a,c) = 2, D(b,c) = 1, D(c,d) = 1, D(a,d) = 1, D(b,d) = 1.
// NPMI(w, v) = log(P(w,v) / (P(w) P(v))) / −log P(w,v) with P = D/R; −1 when D(w,v) = 0.
// UMass(w_i, w_j) = log((D(w_i,w_j) + 1) / D(w_j)), w_j ranked above w_i; D(w_j) = 0 counts as 1.
// Both averaged over the N(N−1)/2 pairs of the top N = 3 words.
#include <QtTest>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/eval/coherence.h"

using namespace dplda;

namespace {

Corpus tinyReference() {
  Corpus c;
  std::vector<Eigen::Triplet<double, int>> t{{0, 0, 2.0}, {0, 1, 1.0}, {0, 2, 1.0}, {1, 0, 1.0}, {1, 1, 1.0},
                                             {2, 0, 1.0}, {2, 2, 1.0}, {2, 3, 1.0}, {3, 1, 1.0}, {3, 3, 1.0}};
  c.counts.resize(5, 5);
  c.counts.setFromTriplets(t.begin(), t.end());
  c.lengths = Eigen::VectorXd(5);
  c.lengths << 4, 2, 3, 2, 0;
  c.emptyDocuments = 1;
  return c;
}

Eigen::MatrixXd topicsOf(std::initializer_list<std::initializer_list<double>> columns) {
  Eigen::MatrixXd m(5, static_cast<Eigen::Index>(columns.size()));
  int i = 0;
  for (const auto& col : columns) {
    int w = 0;
    for (double x : col) m(w++, i) = x;
    ++i;
  }
  return m;
}

}  // namespace

class TestCoherence : public QObject {
  Q_OBJECT
 private slots:
  void handComputedValues() {
    // Topic 0: top words a, b, c. Topic 1: e, d, c (e occurs nowhere). Topic 2: c, a, b (the
    // set of topic 0 in another order: the same NPMI, another UMass, which is ordered).
    const Eigen::MatrixXd topics =
        topicsOf({{0.4, 0.3, 0.2, 0.1, 0.0}, {0.0, 0.0, 0.2, 0.3, 0.5}, {0.3, 0.2, 0.5, 0.0, 0.0}});
    const CoherenceResult r = topicCoherence(topics, tinyReference(), 3).value();
    QCOMPARE(r.referenceDocuments, 4);
    QCOMPARE(r.topWordCount, 3);
    QVERIFY(r.topics[0].topWords == std::vector<int>({0, 1, 2}));
    QVERIFY(r.topics[1].topWords == std::vector<int>({4, 3, 2}));
    QVERIFY(r.topics[2].topWords == std::vector<int>({2, 0, 1}));
    // Topic 0. NPMI(b,a): P(a,b) = 2/4, P(a) = P(b) = 3/4: log((1/2)/(9/16)) / log 2 = log(8/9)/log 2.
    // NPMI(c,a): P = 2/4, P(a) 3/4, P(c) 2/4: log((1/2)/(3/8)) / log 2 = log(4/3)/log 2.
    // NPMI(c,b): P = 1/4, P(b) 3/4, P(c) 2/4: log((1/4)/(3/8)) / log 4 = log(2/3)/log 4.
    const double npmi0 = (std::log(8.0 / 9.0) / std::log(2.0) + std::log(4.0 / 3.0) / std::log(2.0) +
                          std::log(2.0 / 3.0) / std::log(4.0)) / 3.0;
    // UMass: (b,a) log((2+1)/3) = 0; (c,a) log((2+1)/3) = 0; (c,b) log((1+1)/3) = log(2/3).
    const double umass0 = std::log(2.0 / 3.0) / 3.0;
    // By hand: (−0.1699250 + 0.4150375 − 0.2924813) / 3 = −0.0157896.
    QVERIFY(std::abs(npmi0 - (-0.0157896)) < 1e-7);
    QVERIFY(std::abs(r.topics[0].npmi - npmi0) < 1e-12);
    QVERIFY(std::abs(r.topics[0].umass - umass0) < 1e-12);
    QCOMPARE(r.topics[0].absentWords, 0);
    // Topic 1. (d,e), (c,e): never together: NPMI −1; UMass log((0+1)/1) = 0 (D(e) = 0 counts as 1).
    // (c,d): P(c,d) = 1/4 = P(c) P(d): NPMI 0; UMass log((1+1)/2) = 0.
    QVERIFY(std::abs(r.topics[1].npmi - (-2.0 / 3.0)) < 1e-12);
    QVERIFY(std::abs(r.topics[1].umass - 0.0) < 1e-12);
    QCOMPARE(r.topics[1].absentWords, 1);
    // Topic 2 (c, a, b). UMass: (a,c) log((2+1)/2) = log(3/2); (b,c) log((1+1)/2) = 0; (b,a) log(3/3) = 0.
    QVERIFY(std::abs(r.topics[2].npmi - npmi0) < 1e-12);
    QVERIFY(std::abs(r.topics[2].umass - std::log(1.5) / 3.0) < 1e-12);
    QVERIFY(std::abs(r.meanNpmi - (2.0 * npmi0 - 2.0 / 3.0) / 3.0) < 1e-12);
    QVERIFY(std::abs(r.meanUmass - (umass0 + std::log(1.5) / 3.0) / 3.0) < 1e-12);
  }

  // The documents are counted in blocks of 8 192 on the OpenMP threads: 5 000 copies of the tiny
  // reference (25 000 documents, 4 blocks) give its probabilities, so its NPMI, and UMass from
  // the counts times 5 000, on one thread and on several alike.
  void blocksOnThreadsCountEveryDocument() {
    const Corpus tiny = tinyReference();
    constexpr int copies = 5000;
    Corpus c;
    std::vector<Eigen::Triplet<double, int>> t;
    for (int copy = 0; copy < copies; ++copy)
      for (int n = 0; n < tiny.counts.outerSize(); ++n)
        for (SparseCounts::InnerIterator it(tiny.counts, n); it; ++it) t.emplace_back(copy * 5 + n, it.col(), it.value());
    c.counts.resize(5 * copies, 5);
    c.counts.setFromTriplets(t.begin(), t.end());
    c.lengths = tiny.lengths.replicate(copies, 1);
    c.emptyDocuments = copies;
    const Eigen::MatrixXd topics = topicsOf({{0.4, 0.3, 0.2, 0.1, 0.0}});
    const CoherenceResult one = topicCoherence(topics, tiny, 3).value();
    const int threads = omp_get_max_threads();
    for (int n : {1, std::max(2, threads)}) {
      omp_set_num_threads(n);
      const CoherenceResult r = topicCoherence(topics, c, 3).value();
      QCOMPARE(r.referenceDocuments, 4 * copies);
      QVERIFY(std::abs(r.topics[0].npmi - one.topics[0].npmi) < 1e-12);
      // UMass: (b,a) log((2·5000+1)/(3·5000)), (c,a) the same, (c,b) log((5000+1)/(3·5000)).
      const double umass = (2.0 * std::log(10001.0 / 15000.0) + std::log(5001.0 / 15000.0)) / 3.0;
      QVERIFY(std::abs(r.topics[0].umass - umass) < 1e-12);
    }
    omp_set_num_threads(threads);
  }

  void pairInEveryDocumentHasNpmiOne() {
    Corpus c;
    std::vector<Eigen::Triplet<double, int>> t{{0, 0, 1.0}, {0, 1, 2.0}, {1, 0, 1.0}, {1, 1, 1.0}, {1, 2, 1.0}};
    c.counts.resize(2, 5);
    c.counts.setFromTriplets(t.begin(), t.end());
    c.lengths = Eigen::VectorXd::Constant(2, 3.0);
    const CoherenceResult r = topicCoherence(topicsOf({{0.6, 0.4, 0, 0, 0}}), c, 2).value();
    QCOMPARE(r.topics[0].npmi, 1.0);
    QVERIFY(std::abs(r.topics[0].umass - std::log(1.5)) < 1e-15);  // log((2+1)/2)
  }

  void tiesAreBrokenByWordId() {
    const CoherenceResult r = topicCoherence(topicsOf({{0.2, 0.2, 0.2, 0.2, 0.2}}), tinyReference(), 4).value();
    QVERIFY(r.topics[0].topWords == std::vector<int>({0, 1, 2, 3}));
  }

  void refusals() {
    const Corpus ref = tinyReference();
    const Eigen::MatrixXd topics = topicsOf({{0.4, 0.3, 0.2, 0.1, 0.0}});
    QCOMPARE(topicCoherence(topics, ref, 1).status().code(), StatusCode::InvalidArgument);
    QCOMPARE(topicCoherence(topics, ref, 6).status().code(), StatusCode::InvalidArgument);
    Corpus small;
    small.counts.resize(1, 4);
    small.lengths = Eigen::VectorXd::Zero(1);
    QCOMPARE(topicCoherence(topics, small, 3).status().code(), StatusCode::BadInput);
    Corpus empty;
    empty.counts.resize(2, 5);
    empty.lengths = Eigen::VectorXd::Zero(2);
    const auto none = topicCoherence(topics, empty, 3);
    QCOMPARE(none.status().code(), StatusCode::BadInput);
    QVERIFY(none.status().message().find("no document") != std::string::npos);
    Eigen::MatrixXd nan = topics;
    nan(0, 0) = std::nan("");
    QCOMPARE(topicCoherence(nan, ref, 3).status().code(), StatusCode::BadInput);
  }
};

QTEST_APPLESS_MAIN(TestCoherence)
#include "tst_coherence.moc"
