// Issue 28's constructions, each run as a user would (and under a memory limit where the issue
// measured one): huge counts, a sparse header-sized vocabulary, k beyond what fits, truth files
// and text imports whose memory grew with the input, files the tool wrote but could not read,
// and NaN or infinity in any output.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"

namespace {

using cli_test::dplda;
using cli_test::dpldaWithEnvironment;
using cli_test::dpldaWithMemoryLimit;
using cli_test::Outcome;
using cli_test::readJson;

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// A number printed from NaN or infinity ("nan", "-nan", "inf", "-inf" as a word), or JSON null.
bool hasNonFinite(const QString& text) {
  static const QRegularExpression re("(^|[^A-Za-z_])-?(nan|inf)([^A-Za-z_]|$)|:\\s*null");
  return re.match(text).hasMatch();
}

// Replaces the count of entry line `entry` (0-based, after the 3 header lines) of docword.txt.
bool setCount(const QString& docword, int entry, const QByteArray& count) {
  QList<QByteArray> lines = readAll(docword).split('\n');
  if (lines.size() < 4 + entry) return false;
  QList<QByteArray> f = lines[3 + entry].split(' ');
  if (f.size() != 3) return false;
  f[2] = count;
  lines[3 + entry] = f.join(' ');
  return writeAll(docword, lines.join('\n'));
}

}  // namespace

class TestCliResources : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;
  QString m_small;  // N = 300, d = 30, 5 topics (the corpus size)

  QString copyOfSmall(const QString& name) {
    const QString dir = m_dir.filePath(name);
    QDir().mkpath(dir);
    for (const char* f : {"docword.txt", "vocab.txt", "truth.json"}) QFile::copy(m_small + "/" + f, dir + "/" + f);
    return dir;
  }

 private slots:
  void initTestCase() {
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    m_small = m_dir.filePath("small");
    const Outcome g = dplda({"generate", "--vocab", "30", "--topics", "5", "--docs", "300", "--seed", "3", "--out", m_small});
    QVERIFY2(g.code == 0, qPrintable(g.err));
  }

  // §1: one count of 2^40 in a 30 KB corpus aborted `run --holdout` (one int per token, in a
  // worker thread). Refused by the reader, naming the file, line, value and limit.
  void hugeCountIsRefusedWithItsLine_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("spectral") << "spectral";
    QTest::newRow("vi") << "vi";
  }
  void hugeCountIsRefusedWithItsLine() {
    QFETCH(QString, model);
    const QString c = copyOfSmall("huge-" + model);
    QVERIFY(setCount(c + "/docword.txt", 5, "1099511627776"));
    const Outcome r = dpldaWithMemoryLimit(
        {"run", "--corpus", c, "--topics", "5", "--holdout", "0.2", "--model", model, "--no-cache"}, 4096, 120000);
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("docword.txt line 9") && r.err.contains("1099511627776") && r.err.contains("10000000"),
             qPrintable(r.err));
    QVERIFY(!r.err.contains("internal error"));
  }

  // Counts each below the limit that add up beyond it in one document.
  void documentLongerThanTheLimitIsRefused() {
    const QString c = copyOfSmall("long-doc");
    QVERIFY(setCount(c + "/docword.txt", 0, "6000000"));
    QVERIFY(setCount(c + "/docword.txt", 1, "6000000"));
    const Outcome r = dplda({"run", "--corpus", c, "--topics", "3", "--holdout", "0.2", "--no-cache"});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("document 1") && r.err.contains("more than 10000000"), qPrintable(r.err));
  }

  // §2: a 1.5 KB docword.txt declaring W = 10^6 ended in std::bad_alloc under 4 GB. The fit now
  // holds the 150 words used; the output speaks of the original ids.
  void sparseHugeVocabularyFitsInLittleMemory_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("spectral") << "spectral";
    QTest::newRow("vi") << "vi";
  }
  void sparseHugeVocabularyFitsInLittleMemory() {
    QFETCH(QString, model);
    const QString dir = m_dir.filePath("sparse-" + model);
    QDir().mkpath(dir);
    // 50 documents, 3 entries each over 3 clusters of word ids spread up to 10^6.
    QByteArray body;
    QSet<int> used;
    for (int n = 1; n <= 50; ++n) {
      for (int j = 0; j < 3; ++j) {
        const int word = n == 50 && j == 2 ? 1000000 : 1 + ((n % 3) * 333331 + j * 7919 + n * 13) % 999999;
        used.insert(word);
        body += QByteArray::number(n) + " " + QByteArray::number(word) + " " + QByteArray::number(2 + (n + j) % 4) + "\n";
      }
    }
    // Entries of one document must have distinct words; they do (j * 7919 apart).
    QVERIFY(writeAll(dir + "/docword.txt", "50\n1000000\n150\n" + body));
    const QString json = dir + "/out.json";
    const Outcome r = dpldaWithMemoryLimit(
        {"run", "--corpus", dir, "--topics", "3", "--model", model, "--json", json, "--no-cache"}, 1536, 120000);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("vocabulary 1000000 (" + QString::number(used.size()) + " used"), qPrintable(r.out));
    const QJsonObject o = readJson(json);
    QCOMPARE(o["corpus"].toObject()["vocab"].toInt(), 1000000);
    QCOMPARE(o["corpus"].toObject()["words_fitted"].toInt(), used.size());
    const QJsonArray topics = o["topics"].toArray();
    QCOMPARE(topics.size(), 3);
    for (const QJsonValue& t : topics) {
      const QJsonArray col = t.toArray();
      QCOMPARE(col.size(), 1000000);
      double sum = 0.0;
      for (int w = 0; w < col.size(); ++w) {
        const double x = col[w].toDouble();
        if (x != 0.0) QVERIFY2(used.contains(w + 1), qPrintable(QString("word id %1 is used by no document").arg(w + 1)));
        sum += x;
      }
      QVERIFY(std::abs(sum - 1.0) < 1e-6);
    }
    // Top words are named by their original ids (w0 is word id 1).
    for (const QJsonValue& t : o["top_words"].toArray()) {
      for (const QJsonValue& w : t.toArray()) {
        const int id = w.toString().mid(1).toInt() + 1;
        QVERIFY2(used.contains(id), qPrintable(w.toString()));
      }
    }
    // More topics than words used: a clear refusal, not 6.3 GB of k x d matrices.
    const Outcome big = dpldaWithMemoryLimit({"run", "--corpus", dir, "--topics", "200", "--model", model, "--no-cache"},
                                             1536, 120000);
    QCOMPARE(big.code, 3);
    QVERIFY(!big.err.contains("internal error"));
    if (model == "vi")  // (spectral refuses first: k must be below N = 50)
      QVERIFY2(big.err.contains("use only " + QString::number(used.size()) + " of the 1000000 words"), qPrintable(big.err));
  }

  // §1/§2: --topics 800 on d = 1000, N = 3000 aborted under 4 GB after minutes (a k³ copy per
  // thread). Now refused before any stage starts, saying what it needs and what fits.
  void topicsBeyondMemoryAreRefusedBeforeStarting() {
    if (!cli_test::kMemoryLimitsApply) QSKIP("no address-space limit under AddressSanitizer");
    const QString c = m_dir.filePath("d1000");
    const Outcome g = dplda({"generate", "--vocab", "1000", "--topics", "5", "--docs", "3000", "--doc-length", "20",
                             "--seed", "5", "--out", c});
    QVERIFY2(g.code == 0, qPrintable(g.err));
    QElapsedTimer timer;
    timer.start();
    const Outcome r = dpldaWithMemoryLimit({"run", "--corpus", c, "--topics", "800", "--no-cache"}, 4096, 120000);
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("--topics 800 needs about") && r.err.contains("whitened tensor") &&
                 r.err.contains("at most --topics"),
             qPrintable(r.err));
    // The k it names does fit: it runs through the memory check (the first stages follow).
    const QRegularExpressionMatch m = QRegularExpression("at most --topics (\\d+) fits").match(r.err);
    QVERIFY(m.hasMatch());
    QVERIFY(m.captured(1).toInt() >= 50 && m.captured(1).toInt() < 800);
  }

  // DPLDA_MEMORY_LIMIT bounds a run where an address-space limit cannot (AddressSanitizer reserves
  // terabytes of it; a cgroup's limit ends a process with the OOM killer): a sanitized run of
  // --topics 500 on d = 1000 started and filled its memory where the normal build under 2 GiB of
  // address space refused it at once. A run that needs more is refused before it starts, naming
  // the limit; a malformed value is refused by every command, naming the variable.
  void memoryLimitVariableBoundsTheRun() {
    const QString c = m_dir.filePath("d1000-limit");
    const Outcome g = dplda({"generate", "--vocab", "1000", "--topics", "5", "--docs", "3000", "--doc-length", "20",
                             "--seed", "5", "--out", c});
    QVERIFY2(g.code == 0, qPrintable(g.err));
    const Outcome r = dpldaWithEnvironment({"run", "--corpus", c, "--topics", "150", "--no-cache"},
                                           {"DPLDA_MEMORY_LIMIT=256M"}, 120000);
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.startsWith("dplda run: bad input: --topics 150 needs about") &&
                 r.err.contains(" under DPLDA_MEMORY_LIMIT=256M: at most --topics "),
             qPrintable(r.err));
    const Outcome fits = dpldaWithEnvironment({"run", "--corpus", m_small, "--topics", "5", "--no-cache"},
                                              {"DPLDA_MEMORY_LIMIT=1G"}, 120000);
    QVERIFY2(fits.code == 0, qPrintable(fits.err));
    const Outcome bad = dpldaWithEnvironment({"run", "--corpus", m_small, "--topics", "5", "--no-cache"},
                                             {"DPLDA_MEMORY_LIMIT=2GB"}, 120000);
    QCOMPARE(bad.code, 3);
    QVERIFY2(bad.err.startsWith("dplda run: bad input: DPLDA_MEMORY_LIMIT '2GB' is not a memory size") &&
                 bad.err.contains("DPLDA_MEMORY_LIMIT=2G"),
             qPrintable(bad.err));
    const QString out = m_dir.filePath("not-generated");
    const Outcome gen = dpldaWithEnvironment({"generate", "--vocab", "30", "--topics", "3", "--docs", "10", "--out", out},
                                             {"DPLDA_MEMORY_LIMIT=-1"}, 120000);
    QCOMPARE(gen.code, 3);
    QVERIFY2(gen.err.startsWith("dplda generate: bad input: DPLDA_MEMORY_LIMIT '-1'"), qPrintable(gen.err));
    QVERIFY(!QFile::exists(out + "/docword.txt"));
  }

  // Pure-DP configuration 1 draws Laplace noise on the explicit d x d x d M3 (216 MB at d = 300):
  // under 400 MiB it ended in "internal error: std::bad_alloc" (the check counted the fit only,
  // and OpenBLAS's buffer was mapped after it). Now refused before the release, naming the tensor;
  // under 1 GiB it runs.
  void laplaceNoiseTensorIsCountedBeforeTheRelease() {
    if (!cli_test::kMemoryLimitsApply) QSKIP("no address-space limit under AddressSanitizer");
    const QString c = m_dir.filePath("d300");
    const Outcome g = dplda({"generate", "--vocab", "300", "--topics", "3", "--docs", "1000", "--doc-length", "20",
                             "--seed", "3", "--out", c});
    QVERIFY2(g.code == 0, qPrintable(g.err));
    const QStringList run = {"run", "--corpus", c, "--topics", "3", "--config", "1", "--mechanism", "laplace",
                             "--epsilon", "1", "--noise-seed", "1", "--no-cache"};
    const Outcome small = dpldaWithMemoryLimit(run, 400, 120000);
    QCOMPARE(small.code, 3);
    QVERIFY2(small.err.contains("needs about") && small.err.contains("Laplace noise on M3") &&
                 small.err.contains("300 x 300 x 300") && !small.err.contains("internal error"),
             qPrintable(small.err));
    const Outcome enough = dpldaWithMemoryLimit(run, 1024, 120000);
    QVERIFY2(enough.code == 0, qPrintable(enough.err));
  }

  // §2: a truth of 40 MB of "0," took 12.7x its size before its shape was checked. A topic longer
  // than the corpus vocabulary is refused as it is read.
  void oversizedTruthIsRefusedWhileRead() {
    const QString t = m_dir.filePath("long-truth.json");
    QByteArray text = "{\"alpha\": [1], \"topics\": [[";
    text.reserve(42 << 20);
    for (int i = 0; i < (20 << 20); ++i) text += "0,";
    text += "1]]}";
    QVERIFY(writeAll(t, text));
    const Outcome r = dpldaWithMemoryLimit({"run", "--corpus", m_small, "--topics", "5", "--truth", t, "--no-cache"},
                                           400, 120000);
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("topics[0] has more than 30 numbers"), qPrintable(r.err));
  }

  // §2: generate --vocab 1000000 --topics 50 wrote a 1.17 GB truth.json that run --truth refuses.
  void generateRefusesATruthItsReaderWouldRefuse() {
    const QString out = m_dir.filePath("huge-truth");
    const Outcome r = dplda({"generate", "--vocab", "1000000", "--topics", "50", "--docs", "10", "--out", out});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("truth.json") && r.err.contains("1 GiB"), qPrintable(r.err));
    QVERIFY(!QFile::exists(out + "/docword.txt"));
  }

  // §2: import-text kept words of 1 MiB and more, which `run` then refused.
  void importTextWritesOnlyWordsItsReaderAccepts() {
    const QString text = m_dir.filePath("long-word.txt");
    QByteArray body;
    for (int n = 0; n < 20; ++n) body += "apple pear plum cherry grape lemon\n";
    body += QByteArray(1 << 20, 'x') + " apple pear plum\n";
    QVERIFY(writeAll(text, body));
    const QString out = m_dir.filePath("long-word-corpus");
    const Outcome imp = dplda({"import-text", "--input", text, "--vocab", "100", "--vocab-from-counts", "--out", out});
    QVERIFY2(imp.code == 0, qPrintable(imp.err));
    const QList<QByteArray> words = readAll(out + "/vocab.txt").split('\n');
    QVERIFY(words.contains("apple"));
    for (const QByteArray& line : words) QVERIFY(line.size() < (1 << 20));
    // The reader accepts what import-text wrote (a fit of these few repeated lines may still find
    // no second topic: exit 4 is a numerical outcome, exit 3 would be the reader's refusal).
    const Outcome run = dplda({"run", "--corpus", out, "--topics", "2", "--no-cache"});
    QVERIFY2(run.code == 0 || run.code == 4, qPrintable(run.err));
    QVERIFY2(!run.err.contains("vocab.txt"), qPrintable(run.err));
  }

  // §2: import-text kept every distinct token (64 MB of text took 1.06 GB): bounded, with a message.
  void importTextBoundsItsDistinctTokens() {
    const QString text = m_dir.filePath("distinct.txt");
    QByteArray body;
    body.reserve(40 << 20);
    for (int i = 0; i < 4100000; ++i) {  // base-26 words of 5 letters and more: all distinct
      QByteArray w = "q";
      for (int v = i; v > 0; v /= 26) w += static_cast<char>('a' + v % 26);
      body += w + ((i % 20) == 19 ? "\n" : " ");
    }
    QVERIFY(writeAll(text, body));
    const Outcome r = dpldaWithMemoryLimit({"import-text", "--input", text, "--vocab", "1000", "--min-token-length", "1",
                                            "--out", m_dir.filePath("distinct-corpus")},
                                           1024, 300000);
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("more than 4000000 distinct tokens"), qPrintable(r.err));
  }

  // §6: a configuration-2 release refused after Procedure 1 printed "scale nan (not spent)" and
  // JSON null. Every ledger number is finite or says "not computed".
  void refusedReleaseSaysNotComputed() {
    const QString json = m_dir.filePath("refused.json");
    const Outcome r = dplda({"run", "--corpus", m_small, "--topics", "5", "--config", "2", "--seed", "0", "--noise-seed",
                             "1", "--epsilon", "0.01", "--release-only", "--json", json, "--no-cache"});
    QVERIFY2(r.code == 0 || r.code == 4, qPrintable(r.err));
    QVERIFY2(!hasNonFinite(r.out), qPrintable(r.out));
    const QString text = QString::fromUtf8(readAll(json));
    QVERIFY2(!hasNonFinite(text), qPrintable(text.left(2000)));
    if (r.code == 4) {  // nothing released: the release's scale was never computed
      QVERIFY2(r.out.contains("not computed"), qPrintable(r.out));
      bool marked = false;
      for (const QJsonValue& e : readJson(json)["privacy"].toObject()["ledger"].toArray())
        marked = marked || e.toObject()["sigma"].toString() == "not computed";
      QVERIFY(marked);
    }
  }

  // §6: at epsilon >= 1e12 delta_as_drawn was JSON null (infinite) and messages said "add inf".
  void deltaAsDrawnStaysFiniteAtHugeEpsilon() {
    const QString json = m_dir.filePath("eps.json");
    const Outcome r = dplda({"run", "--corpus", m_small, "--topics", "5", "--config", "4", "--epsilon", "1e15",
                             "--noise-seed", "1", "--json", json, "--no-cache"});
    QVERIFY2(r.code == 0 || r.code == 4, qPrintable(r.err));
    QVERIFY2(!hasNonFinite(r.out) && !hasNonFinite(r.err), qPrintable(r.out + r.err));
    const QJsonObject p = readJson(json)["privacy"].toObject();
    QVERIFY(p["delta_as_drawn"].isDouble());
    QVERIFY(p["delta_as_drawn"].toDouble() <= 1.0);
    QVERIFY(!hasNonFinite(QString::fromUtf8(readAll(json))));
  }

  // §6: `sweep --epsilons 1e15 --configs none,1,2,3,4,vi,dp-vi` wrote inf into results.csv.
  void sweepAtHugeEpsilonWritesOnlyFiniteNumbers() {
    const QString out = m_dir.filePath("sweep");
    const Outcome r = dplda({"sweep", "--corpus", m_small, "--truth", m_small + "/truth.json", "--topics", "5",
                             "--epsilons", "1e15", "--configs", "none,1,2,3,4,vi,dp-vi", "--trials", "1", "--out", out},
                            600000);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(!hasNonFinite(r.out) && !hasNonFinite(r.err), qPrintable(r.out + r.err));
    int files = 0;
    for (const QString& f : QDir(out).entryList({"*.csv", "*.md", "*.json"}, QDir::Files)) {
      ++files;
      const QString text = QString::fromUtf8(readAll(out + "/" + f));
      QVERIFY2(!hasNonFinite(text), qPrintable(f + ": " + text.left(3000)));
    }
    QVERIFY(files >= 3);
  }
};

QTEST_GUILESS_MAIN(TestCliResources)
#include "tst_cli_resources.moc"
