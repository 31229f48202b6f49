// Text for `dplda infer --input` (core/model/text_documents.h): the project's tokenizer against a
// given vocabulary, every document kept in order with its id, unknown words dropped and counted.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "core/model/text_documents.h"

using namespace dplda;

namespace {

void write(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

const std::vector<std::string> kVocabulary{"apple", "river", "stone", "music"};

double count(const TextDocuments& t, int doc, int word) { return t.corpus.counts.coeff(doc, word); }

}  // namespace

class TestTextDocuments : public QObject {
  Q_OBJECT
 private slots:
  void fileLinesAreDocumentsWithLineNumbers() {
    QTemporaryDir dir;
    const QString f = dir.filePath("docs.txt");
    // Line 2 is blank (not a document); line 4 has no vocabulary word (a document, empty);
    // "Apples" is not "apple" (no stemming), "the" is a stop word, "RIVER" is lowercased.
    write(f, "Apple river, apple!\n\nThe stone RIVER Apples zebra\nzebra quartz\nmusic\n");
    auto r = readTextDocuments(f.toStdString(), kVocabulary, TextImportParams{});
    QVERIFY2(r.ok(), r.status().message().c_str());
    QVERIFY(r->ids == std::vector<std::string>({"1", "3", "4", "5"}));
    QCOMPARE(r->corpus.docCount(), 4);
    QCOMPARE(r->corpus.vocabSize(), 4);
    QCOMPARE(count(r.value(), 0, 0), 2.0);
    QCOMPARE(count(r.value(), 0, 1), 1.0);
    QCOMPARE(count(r.value(), 1, 1), 1.0);
    QCOMPARE(count(r.value(), 1, 2), 1.0);
    QCOMPARE(r->corpus.lengths[2], 0.0);
    QCOMPARE(count(r.value(), 3, 3), 1.0);
    QCOMPARE(r->tokens, 10LL);  // apple river apple | stone river apples zebra | zebra quartz | music
    QCOMPARE(r->tokensOutOfVocabulary, 4LL);
    QCOMPARE(r->distinctOutOfVocabulary, 3);  // apples, zebra, quartz
    QVERIFY(r->corpus.vocab == kVocabulary);
  }

  void separatorDocumentsAreNamedByTheirFirstLine() {
    QTemporaryDir dir;
    const QString f = dir.filePath("fortunes");
    write(f, "apple\nriver\n%\n%\nstone stone\n%\n");
    TextImportParams p;
    p.separator = "%";
    auto r = readTextDocuments(f.toStdString(), kVocabulary, p);
    QVERIFY2(r.ok(), r.status().message().c_str());
    QVERIFY(r->ids == std::vector<std::string>({"1", "5"}));
    QCOMPARE(count(r.value(), 1, 2), 2.0);
  }

  void folderFilesAreDocumentsNamedByFile() {
    QTemporaryDir dir;
    QDir(dir.path()).mkdir("in");
    const QString in = dir.filePath("in");
    write(in + "/b.txt", "music music");
    write(in + "/a.txt", "apple");
    write(in + "/c.bin", QByteArray("\x00\x01\xff", 3));
    write(in + "/.hidden", "river");
    auto r = readTextDocuments(in.toStdString(), kVocabulary, TextImportParams{});
    QVERIFY2(r.ok(), r.status().message().c_str());
    QVERIFY(r->ids == std::vector<std::string>({"a.txt", "b.txt"}));
    QVERIFY(r->skippedFiles == std::vector<std::string>({"c.bin"}));
    QCOMPARE(count(r.value(), 1, 3), 2.0);
  }

  void badInputIsNamed() {
    QTemporaryDir dir;
    const QString f = dir.filePath("bad.txt");
    write(f, "apple\nriver \xC3\x28 stone\n");
    auto r = readTextDocuments(f.toStdString(), kVocabulary, TextImportParams{});
    QCOMPARE(r.status().code(), StatusCode::BadInput);
    QVERIFY2(r.status().message().find("bad.txt line 2: invalid UTF-8 at byte 7") != std::string::npos,
             r.status().message().c_str());
    const QString blank = dir.filePath("blank.txt");
    write(blank, "\n  \n");
    auto b = readTextDocuments(blank.toStdString(), kVocabulary, TextImportParams{});
    QCOMPARE(b.status().code(), StatusCode::BadInput);
    QVERIFY(b.status().message().find("no documents") != std::string::npos);
    auto missing = readTextDocuments(dir.filePath("nope").toStdString(), kVocabulary, TextImportParams{});
    QCOMPARE(missing.status().code(), StatusCode::IoError);
  }
};

QTEST_APPLESS_MAIN(TestTextDocuments)
#include "tst_text_documents.moc"
