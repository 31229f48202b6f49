// The words no document uses, taken out for a non-private fit and put back for its output
// (core/corpus/vocabulary_compaction.h, issue 28).
#include <QtTest>
#include <omp.h>

#include <algorithm>

#include "core/corpus/vocabulary_compaction.h"

using namespace dplda;

namespace {

Corpus sparseCorpus(bool named) {
  // d = 10; words 1, 4 and 8 (0-based) are used.
  std::vector<std::string> vocab;
  if (named)
    for (int w = 0; w < 10; ++w) vocab.push_back("word" + std::to_string(w));
  return buildCorpus(3, 10, {{0, 1, 2}, {0, 4, 1}, {1, 8, 3}, {1, 1, 1}, {2, 4, 4}, {2, 8, 1}}, vocab).value();
}

}  // namespace

class TestVocabularyCompaction : public QObject {
  Q_OBJECT
 private slots:
  void keepsOnlyTheUsedWordsAndRestoresThem_data() {
    QTest::addColumn<bool>("named");
    QTest::newRow("vocab.txt") << true;
    QTest::newRow("no vocab.txt") << false;
  }
  void keepsOnlyTheUsedWordsAndRestoresThem() {
    QFETCH(bool, named);
    Corpus c = sparseCorpus(named);
    const Eigen::MatrixXd dense = Eigen::MatrixXd(c.counts);
    VocabularyCompaction v = compactVocabulary(c);
    QVERIFY(v.compacted());
    QCOMPARE(v.vocabSize, 10);
    QCOMPARE(v.wordIds, (std::vector<int>{1, 4, 8}));
    QCOMPARE(c.vocabSize(), 3);
    QCOMPARE(c.nnz(), 6LL);
    // Column j of the compacted corpus is word wordIds[j], with its name.
    for (int j = 0; j < 3; ++j) {
      QVERIFY(Eigen::VectorXd(Eigen::MatrixXd(c.counts).col(j)) == dense.col(v.wordIds[j]));
      QCOMPARE(c.wordName(j), named ? "word" + std::to_string(v.wordIds[j]) : "w" + std::to_string(v.wordIds[j]));
    }
    QCOMPARE(c.lengths, (Eigen::VectorXd(3) << 3, 4, 5).finished());
    // Rows of a fitted d' x k matrix back at their ids, zeros elsewhere.
    const Eigen::MatrixXd fitted = (Eigen::MatrixXd(3, 2) << 0.5, 0.1, 0.25, 0.2, 0.25, 0.7).finished();
    const Eigen::MatrixXd full = expandWordRows(fitted, v);
    QCOMPARE(full.rows(), Eigen::Index{10});
    QCOMPARE(full.row(4), fitted.row(1));
    QCOMPARE(full.row(8), fitted.row(2));
    QCOMPARE(full.row(0).norm(), 0.0);
    QVERIFY(std::abs(full.col(1).sum() - 1.0) < 1e-15);
    restoreVocabulary(c, v);
    QCOMPARE(c.vocabSize(), 10);
    QVERIFY(Eigen::MatrixXd(c.counts) == dense);
    QCOMPARE(c.vocab.size(), named ? std::size_t{10} : std::size_t{0});
    QCOMPARE(c.wordName(8), named ? std::string("word8") : std::string("w8"));
    QCOMPARE(expandWordRows(fitted, v), full);  // the map outlives the restore
  }

  // The words are marked from blocks of 8 192 documents on the threads: words used only in the
  // first, a middle and the last of 20 000 documents are all kept, on one thread and on several.
  void wordsOfEveryBlockAreKept() {
    std::vector<CountTriplet> entries;
    for (int n = 0; n < 20000; ++n) entries.push_back({n, 0, 3.0});
    entries.push_back({0, 2, 1.0});
    entries.push_back({9000, 5, 1.0});
    entries.push_back({19999, 7, 1.0});
    const int threads = omp_get_max_threads();
    for (int t : {1, std::max(2, threads)}) {
      omp_set_num_threads(t);
      Corpus c = buildCorpus(20000, 9, entries).value();
      const VocabularyCompaction v = compactVocabulary(c);
      QCOMPARE(v.wordIds, (std::vector<int>{0, 2, 5, 7}));
    }
    omp_set_num_threads(threads);
  }

  void changesNothingWhenEveryWordIsUsed() {
    Corpus c = buildCorpus(2, 3, {{0, 0, 1}, {0, 1, 1}, {0, 2, 1}, {1, 2, 3}}).value();
    const Eigen::MatrixXd dense = Eigen::MatrixXd(c.counts);
    VocabularyCompaction v = compactVocabulary(c);
    QVERIFY(!v.compacted());
    QVERIFY(Eigen::MatrixXd(c.counts) == dense);
    QVERIFY(c.vocab.empty());
    const Eigen::MatrixXd m = Eigen::MatrixXd::Random(3, 2);
    QCOMPARE(expandWordRows(m, v), m);
  }
};

QTEST_APPLESS_MAIN(TestVocabularyCompaction)
#include "tst_vocabulary_compaction.moc"
