// `dplda import-text` on CSV, TSV, JSON Lines and gzip input as a user runs it: the options, the
// ids written to documents.txt in the corpus's row order, the exit status 3 with a message naming
// the file and line for bad input, and 2 for options that do not fit the format.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include "cli/cli_runner.h"

using namespace cli_test;

namespace {

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString("<missing %1>").arg(path);
}

}  // namespace

class TestCliImportFormats : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;
  QString m_words;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_words = m_dir.filePath("words.txt");
    writeFile(m_words, "apple\nbanana\ncherry\ndate\n");
  }

  void csvColumnWithIds() {
    const QString csv = m_dir.filePath("notes.csv");
    writeFile(csv,
              "key,text\n"
              "n-1,\"apple banana, cherry\"\n"
              "n-2,\"date\napple\"\n"  // two lines, two words: kept empty, after the others
              "n-3,cherry date banana apple\n");
    const QString out = m_dir.filePath("csv-corpus");
    const Outcome r = dplda({"import-text", "--input", csv, "--column", "text", "--id-column", "key", "--vocabulary",
                             m_words, "--out", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("read 3 documents") && r.out.contains("documents.txt"), qPrintable(r.out));
    QCOMPARE(readText(out + "/documents.txt"), QString("n-1\nn-3\nn-2\n"));
    QVERIFY(readText(out + "/docword.txt").startsWith("3\n4\n"));
    // Without --id-column the ids are the records' first lines.
    const QString byLine = m_dir.filePath("csv-lines");
    QCOMPARE(dplda({"import-text", "--input", csv, "--column", "text", "--vocabulary", m_words, "--out", byLine}).code, 0);
    QCOMPARE(readText(byLine + "/documents.txt"), QString("2\n5\n3\n"));
  }

  void jsonLinesGzipAndTsv() {
    // Compressed by the gzip program (Debian's essential set), as users compress their files.
    const QString jsonl = m_dir.filePath("docs.jsonl");
    writeFile(jsonl, "{\"id\": 10, \"body\": \"apple banana cherry\"}\n{\"id\": 11, \"body\": \"banana cherry date\"}\n");
    QProcess gz;
    gz.start("gzip", {"-k", jsonl});
    if (!gz.waitForFinished() || gz.exitCode() != 0) QSKIP("gzip is not installed");
    QFile::rename(jsonl + ".gz", m_dir.filePath("docs.data"));  // the name does not say gzip or JSON
    const QString out = m_dir.filePath("jsonl-corpus");
    const Outcome r = dplda({"import-text", "--input", m_dir.filePath("docs.data"), "--field", "body", "--id-field",
                             "id", "--vocabulary", m_words, "--out", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("(gzip)"), qPrintable(r.out));
    QCOMPARE(readText(out + "/documents.txt"), QString("10\n11\n"));

    const QString tsv = m_dir.filePath("table.tsv");
    writeFile(tsv, "title\tbody\nA, first\tapple banana cherry\n");
    const QString tout = m_dir.filePath("tsv-corpus");
    const Outcome t = dplda({"import-text", "--input", tsv, "--column", "body", "--id-column", "title", "--vocabulary",
                             m_words, "--out", tout});
    QVERIFY2(t.code == 0, qPrintable(t.err));
    QCOMPARE(readText(tout + "/documents.txt"), QString("A, first\n"));
  }

  void badInputNamesTheProblem() {
    const QString csv = m_dir.filePath("bad.csv");
    writeFile(csv, "id,body\n1,apple banana cherry\n");
    Outcome r = dplda({"import-text", "--input", csv, "--column", "text", "--vocabulary", m_words, "--out",
                       m_dir.filePath("x1")});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("no column 'text'") && r.err.contains("'id', 'body'"), qPrintable(r.err));
    QVERIFY(!QFile::exists(m_dir.filePath("x1/docword.txt")));

    writeFile(csv, "id,body\n1,apple banana cherry\n2,caf\xe9 apple banana\n");
    r = dplda({"import-text", "--input", csv, "--column", "body", "--vocabulary", m_words, "--out", m_dir.filePath("x2")});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("bad.csv line 3: invalid UTF-8 byte 0xE9"), qPrintable(r.err));

    const QString jsonl = m_dir.filePath("bad.jsonl");
    writeFile(jsonl, "{\"body\": \"apple banana cherry\"}\n\"just a string\"\n");
    r = dplda({"import-text", "--input", jsonl, "--field", "body", "--vocabulary", m_words, "--out", m_dir.filePath("x3")});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("bad.jsonl line 2: a JSON string, not an object"), qPrintable(r.err));
  }

  void optionsThatDoNotFit() {
    const QString csv = m_dir.filePath("ok.csv");
    writeFile(csv, "id,body\n1,apple banana cherry\n");
    auto run = [&](QStringList extra) {
      QStringList args{"import-text", "--input", csv, "--vocabulary", m_words, "--out", m_dir.filePath("y")};
      return dplda(args + extra);
    };
    Outcome r = run({});  // a .csv file says its format: it needs the column
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("needs --column NAME"), qPrintable(r.err));
    r = run({"--field", "body"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("takes --column"), qPrintable(r.err));
    QCOMPARE(run({"--column", "body", "--field", "body"}).code, 2);
    QCOMPARE(run({"--column", "body", "--separator", "%"}).code, 2);
    r = run({"--format", "xlsx", "--column", "body"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("text, csv, tsv or jsonl"), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestCliImportFormats)
#include "tst_cli_import_formats.moc"
