// The command line and the files around it (issue 28): every construction of the hostile-input
// review, as a user types it. No input is ever written over, no output folder's corpus or report
// is replaced without --force, a full disk is an error, special files are refused without
// waiting, an edited corpus never meets a stale cache, and invisible characters are shown.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "cli_runner.h"

namespace {

using cli_test::Outcome;
using cli_test::readJson;

// 60 s: these commands take well under a second; a hang (a FIFO waited on) fails instead of
// blocking the suite.
Outcome dplda(const QStringList& args) { return cli_test::dplda(args, 60000); }

Outcome dpldaWithStdin(const QStringList& args, const QString& stdinFile) {
  QProcess p;
  p.setStandardInputFile(stdinFile);
  p.start(qEnvironmentVariable("DPLDA_CLI"), args);
  if (!p.waitForFinished(60000)) {
    p.kill();
    p.waitForFinished();
    return {-1, {}, "dplda did not finish"};
  }
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

QByteArray readBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

void writeFile(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
}

// Every file below `dir` and its content hash: "nothing lost" means this map is unchanged.
QMap<QString, QByteArray> snapshot(const QString& dir) {
  QMap<QString, QByteArray> out;
  QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString f = it.next();
    if (f.endsWith(".dplda-cache")) continue;  // the cache is the tool's own, rebuilt at will
    out[f] = QCryptographicHash::hash(readBytes(f), QCryptographicHash::Sha256);
  }
  return out;
}

bool refused(const Outcome& o, const QString& part) {
  return o.code == 3 && o.err.contains("bad input") && o.err.contains(part) && o.err.count('\n') == 1;
}

}  // namespace

class TestCliFiles : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;
  QString m_corpus;

  QString corpusCopy(const QString& name) {
    const QString to = m_dir.filePath(name);
    QDir().mkpath(to);
    for (const char* f : {"docword.txt", "vocab.txt", "truth.json"}) QFile::copy(m_corpus + "/" + f, to + "/" + f);
    return to;
  }

 private slots:
  void initTestCase() {
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    m_corpus = m_dir.filePath("c");
    const Outcome g = dplda({"generate", "--vocab", "30", "--topics", "3", "--docs", "600", "--seed", "4", "--out", m_corpus});
    QVERIFY2(g.code == 0, qPrintable(g.err));
  }

  // --json /dev/full exited 0 with nothing written.
  void fullDiskIsAnError() {
    const Outcome r = dplda({"run", "--corpus", m_corpus, "--topics", "3", "--json", "/dev/full"});
    QVERIFY2(refused(r, "/dev/full") && r.err.contains("not a regular file"), qPrintable(r.err));
  }

  // --json onto docword.txt, vocab.txt or the truth silently overwrote them.
  void jsonNeverOverwritesAnInput() {
    const QString c = corpusCopy("json-inputs");
    QFile::link(c + "/docword.txt", c + "/link.json");
    const auto before = snapshot(c);
    for (const QString& target : {c + "/docword.txt", c + "/vocab.txt", c + "/truth.json", c + "/link.json"}) {
      const Outcome r = dplda({"run", "--corpus", c, "--topics", "3", "--truth", c + "/truth.json", "--json", target});
      QVERIFY2(refused(r, "would be overwritten"), qPrintable(target + ": " + r.err));
      QVERIFY2(r.out.isEmpty(), "refused before the run");
    }
    const Outcome vi = dplda({"run", "--model", "vi", "--corpus", c + "/docword.txt", "--topics", "3", "--json",
                              c + "/vocab.txt"});
    QVERIFY2(refused(vi, "would be overwritten"), qPrintable(vi.err));
    QCOMPARE(snapshot(c), before);
    // An earlier result is replaced as before.
    const QString json = m_dir.filePath("result.json");
    writeFile(json, "old");
    const Outcome ok = dplda({"run", "--corpus", c, "--topics", "3", "--json", json});
    QVERIFY2(ok.code == 0, qPrintable(ok.err));
    QCOMPARE(readJson(json)["topics_k"].toInt(), 3);
  }

  // --write-split P while reading P/train overwrote the corpus being read; DIR/test was replaced.
  void writeSplitNeverOverwrites() {
    const QString p = m_dir.filePath("split");
    const QString train = corpusCopy("split/train");
    const auto before = snapshot(p);
    Outcome r = dplda({"run", "--corpus", train, "--topics", "3", "--holdout", "0.2", "--write-split", p});
    QVERIFY2(refused(r, "would be overwritten"), qPrintable(r.err));
    r = dplda({"run", "--corpus", train, "--topics", "3", "--holdout", "0.2", "--write-split", p, "--force"});
    QVERIFY2(refused(r, "would be overwritten"), qPrintable(r.err));  // --force never covers an input
    QCOMPARE(snapshot(p), before);
    // Into a new folder: written; again: refused (DIR/test exists) unless --force.
    const QString out = m_dir.filePath("split-out");
    r = dplda({"run", "--corpus", train, "--topics", "3", "--holdout", "0.2", "--write-split", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(QFile::exists(out + "/test/docword.txt") && QFile::exists(out + "/train/vocab.txt"));
    const auto written = snapshot(out);
    r = dplda({"run", "--corpus", train, "--topics", "3", "--holdout", "0.3", "--write-split", out});
    QVERIFY2(refused(r, "--force") && r.err.contains("already holds train, test"), qPrintable(r.err));
    QCOMPARE(snapshot(out), written);
    r = dplda({"run", "--corpus", train, "--topics", "3", "--holdout", "0.3", "--write-split", out, "--force"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(snapshot(out) != written);
  }

  // generate --out and import-text --out replaced an existing corpus without a word.
  void existingCorporaNeedForce() {
    const QString c = corpusCopy("existing");
    const auto before = snapshot(c);
    Outcome r = dplda({"generate", "--vocab", "20", "--topics", "2", "--docs", "50", "--out", c});
    QVERIFY2(refused(r, "already holds docword.txt, vocab.txt, truth.json") && r.err.contains("--force"), qPrintable(r.err));
    const QString text = m_dir.filePath("text.txt");
    writeFile(text, "alpha beta gamma delta\nbeta gamma delta epsilon\ngamma delta epsilon zeta\n");
    r = dplda({"import-text", "--input", text, "--vocab", "10", "--out", c});
    QVERIFY2(refused(r, "already holds docword.txt, vocab.txt"), qPrintable(r.err));
    QCOMPARE(snapshot(c), before);
    // Importing the corpus's own docword.txt as text into its folder: an input, even with --force.
    r = dplda({"import-text", "--input", c + "/docword.txt", "--vocab", "10", "--out", c, "--force"});
    QVERIFY2(refused(r, "would be overwritten"), qPrintable(r.err));
    QCOMPARE(snapshot(c), before);
    r = dplda({"generate", "--vocab", "20", "--topics", "2", "--docs", "50", "--out", c, "--force"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(snapshot(c) != before);
    const QStringList left = QDir(c).entryList(QDir::Files | QDir::Hidden);
    QCOMPARE(left, QStringList({"docword.txt", "provenance.json", "truth.json", "vocab.txt"}));  // no temporary files left
  }

  // sweep --out DIR overwrote a report.md the user had there. Refused before any trial.
  void sweepNeverReplacesAReport() {
    const QString out = m_dir.filePath("report");
    QDir().mkpath(out);
    writeFile(out + "/report.md", "my notes");
    const Outcome r = dplda({"sweep", "--corpus", m_corpus, "--topics", "3", "--out", out, "--epsilons", "1",
                             "--trials", "1", "--configs", "none", "--formats", "none"});
    QVERIFY2(refused(r, "already holds report.md") && r.err.contains("--force"), qPrintable(r.err));
    QCOMPARE(readBytes(out + "/report.md"), QByteArray("my notes"));
  }

  // A FIFO as any input waited forever; /dev/stdin wrote /dev/stdin.dplda-cache into /dev.
  void specialFilesAreRefused() {
    const QString c = corpusCopy("fifo");
    const QString fifo = m_dir.filePath("fifo.pipe");
    QCOMPARE(mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    struct Case {
      QStringList args;
      QString expect;
    };
    const std::vector<Case> cases = {
        {{"run", "--corpus", fifo, "--topics", "3"}, "FIFO"},
        {{"run", "--corpus", c, "--topics", "3", "--truth", fifo}, "FIFO"},
        {{"run", "--corpus", c, "--topics", "3", "--truth", "/dev/zero"}, "character device"},
        {{"run", "--corpus", c, "--topics", "3", "--holdout", "0.2", "--score-model", fifo}, "FIFO"},
        {{"run", "--model", "vi", "--corpus", c, "--topics", "3", "--truth", fifo}, "FIFO"},
        {{"import-text", "--input", fifo, "--vocab", "10", "--out", m_dir.filePath("imp")}, "FIFO"},
        {{"import-text", "--input", "/dev/zero", "--vocab", "10", "--out", m_dir.filePath("imp")}, "character device"},
        {{"sweep", "--corpus", fifo, "--topics", "3", "--out", m_dir.filePath("sw"), "--formats", "none"}, "FIFO"},
        {{"run", "--corpus", "/dev/null", "--topics", "3"}, "character device"},
    };
    for (const Case& k : cases) {
      const Outcome r = dplda(k.args);
      QVERIFY2(refused(r, k.expect), qPrintable(k.args.join(' ') + " -> " + QString::number(r.code) + ": " + r.err));
    }
    for (const char* name : {"docword.txt", "vocab.txt"}) {
      const QString file = c + "/" + name;
      QFile::rename(file, file + ".saved");
      QCOMPARE(mkfifo(file.toLocal8Bit().constData(), 0600), 0);
      const Outcome r = dplda({"run", "--corpus", c, "--topics", "3"});
      QVERIFY2(refused(r, "FIFO"), qPrintable(QString(name) + ": " + r.err));
      QFile::remove(file);
      QFile::rename(file + ".saved", file);
    }
    // A FIFO at the cache's name: the corpus is read from the text, the FIFO left alone.
    QFile::remove(c + "/docword.txt.dplda-cache");  // written by the runs above
    QCOMPARE(mkfifo((c + "/docword.txt.dplda-cache").toLocal8Bit().constData(), 0600), 0);
    const Outcome cached = dplda({"run", "--corpus", c, "--topics", "3"});
    QVERIFY2(cached.code == 0, qPrintable(cached.err));
    QVERIFY(std::filesystem::is_fifo((c + "/docword.txt.dplda-cache").toStdString()));
    // /dev/stdin redirected from the docword file: read, but no cache in /dev.
    const bool hadOne = QFile::exists("/dev/stdin.dplda-cache");
    const Outcome in = dpldaWithStdin({"run", "--corpus", "/dev/stdin", "--topics", "3"}, m_corpus + "/docword.txt");
    QVERIFY2(in.code == 0, qPrintable(in.err));
    if (!hadOne) QVERIFY(!QFile::exists("/dev/stdin.dplda-cache"));
  }

  // Same size, modification time put back: the cache was trusted and the topics differed.
  void editedCorpusNeverMeetsAStaleCache() {
    const QString c = corpusCopy("stale");
    const QString json1 = m_dir.filePath("stale1.json"), json2 = m_dir.filePath("stale2.json");
    Outcome r = dplda({"run", "--corpus", c, "--topics", "3", "--json", json1});
    QVERIFY2(r.code == 0 && QFile::exists(c + "/docword.txt.dplda-cache"), qPrintable(r.err));
    const std::string docword = (c + "/docword.txt").toStdString();
    struct stat st {};
    QCOMPARE(stat(docword.c_str(), &st), 0);
    QByteArray text = readBytes(c + "/docword.txt");
    // Every count 1 in the second half of the file becomes 2: same size, other topics.
    for (qsizetype i = text.size() / 2; i + 1 < text.size(); ++i)
      if (text[i] == ' ' && text[i + 1] == '1' && (i + 2 == text.size() || text[i + 2] == '\n')) text[i + 1] = '2';
    writeFile(c + "/docword.txt", text);
    const struct timespec times[2] = {st.st_atim, st.st_mtim};
    QCOMPARE(utimensat(AT_FDCWD, docword.c_str(), times, 0), 0);  // touch -r
    r = dplda({"run", "--corpus", c, "--topics", "3", "--json", json1});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = dplda({"run", "--corpus", c, "--topics", "3", "--no-cache", "--json", json2});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(readJson(json1)["topics"].toArray(), readJson(json2)["topics"].toArray());
    QCOMPARE(readJson(json1)["alpha"].toArray(), readJson(json2)["alpha"].toArray());
  }

  // Invisible and reordering characters: the --score-model path and words with format
  // characters reached the terminal raw.
  void invisibleCharactersAreShown() {
    const QString c = corpusCopy("invisible");
    const QString model = m_dir.filePath("m\x1b[31mx\x07.json");
    QFile::copy(c + "/truth.json", model);
    Outcome r = dplda({"run", "--corpus", c, "--topics", "3", "--holdout", "0.2", "--score-model", model});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(!r.out.contains('\x1b') && !r.out.contains('\x07'));
    QVERIFY2(r.out.contains("m\\x1b[31mx\\x07.json"), qPrintable(r.out));
    // Every word of the vocabulary carries U+061C ARABIC LETTER MARK or a zero-width joiner.
    QByteArray vocab = readBytes(c + "/vocab.txt");
    QByteArray marked;
    int line = 0;
    for (const QByteArray& w : vocab.split('\n'))
      if (!w.isEmpty()) marked += w + (line++ % 2 ? "\xd8\x9c" : "\xe2\x80\x8d") + "x\n";
    writeFile(c + "/vocab.txt", marked);
    const QString json = m_dir.filePath("invisible.json");
    r = dplda({"run", "--corpus", c, "--topics", "3", "--top-words", "30", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(!r.out.contains("\xd8\x9c") && !r.out.contains("\xe2\x80\x8d"));
    QVERIFY(r.out.contains("\\u{061c}x") && r.out.contains("\\u{200d}x"));
    // The JSON keeps the words as they are (data, not a terminal).
    const QString first = readJson(json)["top_words"].toArray()[0].toArray()[0].toString();
    QVERIFY(first.contains(QChar(0x061C)) || first.contains(QChar(0x200D)));
  }
};

QTEST_GUILESS_MAIN(TestCliFiles)
#include "tst_cli_files.moc"
