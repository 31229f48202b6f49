// Tests of plain-text import: the tokenizer's edge cases, the vocabulary cap and its tie order
// (the --vocab-from-counts rule; the private rules are tst_text_vocabulary's),
// stop words, file / separator / folder modes, dropped documents and every input error.
#include <QElapsedTimer>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "core/corpus/text_import.h"

using namespace dplda;
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

QStringList tokens(const std::string& text, TextImportParams p = {}) {
  const auto r = tokenizeText(text, p);
  if (!r.ok()) return {QString("ERROR: ") + r.status().message().c_str()};
  QStringList out;
  for (const std::string& t : r.value()) out << QString::fromUtf8(t.c_str());
  return out;
}

double countOf(const Corpus& c, int doc, const std::string& word) {
  for (int i = 0; i < c.vocabSize(); ++i) {
    if (c.vocab[i] == word) return c.counts.coeff(doc, i);
  }
  return -1.0;  // not in the vocabulary
}

}  // namespace

class TestTextImport : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  fs::path path(const std::string& leaf) const { return fs::path(m_tmp.path().toStdString()) / leaf; }

 private slots:
  void initTestCase() { QVERIFY(m_tmp.isValid()); }

  void punctuationAndCase() {
    QCOMPARE(tokens("Hello, World! Foo-bar_baz (qux)."),
             QStringList({"hello", "world", "foo", "bar", "baz", "qux"}));
    TextImportParams keepCase;
    keepCase.lowercase = false;
    QCOMPARE(tokens("Hello WORLD", keepCase), QStringList({"Hello", "WORLD"}));
    // Stop words are matched case-insensitively even when case is kept.
    QCOMPARE(tokens("The Cat", keepCase), QStringList({"Cat"}));
  }

  void apostrophesSplit() {
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.removeStopWords = false;
    p.minTokenLength = 1;
    QCOMPARE(tokens("don't rock'n'roll", p), QStringList({"don", "t", "rock", "n", "roll"}));
    // Typographic apostrophe U+2019 is punctuation too.
    QCOMPARE(tokens("it\xe2\x80\x99s", p), QStringList({"it", "s"}));
  }

  void minimumLengthInCodePoints() {
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.removeStopWords = false;
    p.minTokenLength = 3;
    // "é" is two bytes but one code point: "té" has length 2 and is dropped, "thé" kept.
    QCOMPARE(tokens("ab abc t\xc3\xa9 th\xc3\xa9", p), QStringList({"abc", "th\xc3\xa9"}));
  }

  void utf8Letters() {
    QCOMPARE(tokens("Caf\xc3\xa9 na\xc3\xafve \xc3\x89t\xc3\xa9"),
             QStringList({QString::fromUtf8("caf\xc3\xa9"), QString::fromUtf8("na\xc3\xafve"),
                          QString::fromUtf8("\xc3\xa9t\xc3\xa9")}));
    // Greek and Cyrillic capitals are lowered; the non-breaking space, guillemets and the
    // euro sign separate words.
    QCOMPARE(
        tokens("\xce\x91\xce\xb8\xce\xae\xce\xbd\xce\xb1 \xd0\x9c\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0"),
        QStringList({QString::fromUtf8("\xce\xb1\xce\xb8\xce\xae\xce\xbd\xce\xb1"),
                     QString::fromUtf8("\xd0\xbc\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0")}));
    QCOMPARE(tokens("\xc2\xab"
                    "alpha\xc2\xa0"
                    "beta\xc2\xbb gamma\xe2\x82\xac"
                    "delta"),
             QStringList({"alpha", "beta", "gamma", "delta"}));
  }

  void numbers() {
    QCOMPARE(tokens("mp3 2024 abc123def"), QStringList({"mp", "abc", "def"}));
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.numbersAsTokens = true;
    QCOMPARE(tokens("mp3 2024 abc123def", p), QStringList({"mp3", "2024", "abc123def"}));
  }

  void invalidUtf8() {
    QCOMPARE(findInvalidUtf8("plain ascii"), -1LL);
    QCOMPARE(findInvalidUtf8("caf\xc3\xa9"), -1LL);
    QCOMPARE(findInvalidUtf8("\xf0\x9f\x98\x80"), -1LL);  // U+1F600
    QCOMPARE(findInvalidUtf8("ab\xff"), 2LL);             // never valid
    QCOMPARE(findInvalidUtf8("ab\xc3"), 2LL);             // truncated
    QCOMPARE(findInvalidUtf8("\xc0\xaf"), 0LL);           // overlong '/'
    QCOMPARE(findInvalidUtf8("x\xe0\x80\xaf"), 1LL);      // overlong 3-byte
    QCOMPARE(findInvalidUtf8("\xed\xa0\x80"), 0LL);       // surrogate U+D800
    QCOMPARE(findInvalidUtf8("\xf4\x90\x80\x80"), 0LL);   // above U+10FFFF
    QCOMPARE(findInvalidUtf8("a\x80"), 1LL);              // lone continuation
    const auto r = tokenizeText("good bad\xfe", {});
    QVERIFY(!r.ok());
    QCOMPARE(statusCodeName(r.status().code()), statusCodeName(StatusCode::BadInput));
    QVERIFY(r.status().message().find("8") != std::string::npos);
  }

  void stopWords() {
    QVERIFY(isStopWord("the"));
    QVERIFY(isStopWord("don"));
    QVERIFY(!isStopWord("topic"));
    QCOMPARE(tokens("the topic of this model is about words"), QStringList({"topic", "model", "words"}));
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.removeStopWords = false;
    QCOMPARE(tokens("the topic of this", p), QStringList({"the", "topic", "of", "this"}));
  }

  // File mode: the report, the vocabulary order (frequency, then byte order), the cap,
  // blank lines and short documents.
  void fileModeVocabularyCapAndTies() {
    const fs::path f = path("lines.txt");
    writeFile(f,
              "apple banana cherry apple\n"        // doc 0
              "\n"                                 // blank: not a document
              "banana cherry date apple\n"         // doc 1
              "cherry elder fig\n"                 // doc 2: only cherry survives the cap -> dropped
              "the of and\n"                       // doc 3: only stop words -> dropped
              "apple banana cherry date date\n");  // doc 4
    // Frequencies: apple 4, cherry 4, banana 3, date 3, elder 1, fig 1.
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.input = f.string();
    p.vocabSize = 4;
    TextImportReport report;
    const auto r = importText(p, &report);
    QVERIFY2(r.ok(), r.status().toString().c_str());
    const std::vector<std::string> expectedVocab = {"apple", "cherry", "banana", "date"};
    QVERIFY(r->vocab == expectedVocab);
    QCOMPARE(report.documentsRead, 5);
    QCOMPARE(report.documentsKept, 3);
    QCOMPARE(report.droppedDocuments, 2);
    QCOMPARE(r->droppedDocuments, 2);
    QCOMPARE(report.tokens, 16LL);
    QCOMPARE(report.tokensKept, 13LL);
    QCOMPARE(report.distinctWords, 6);
    QCOMPARE(report.stopWordsRemoved, 3LL);
    QCOMPARE(r->docCount(), 3);
    QCOMPARE(countOf(r.value(), 0, "apple"), 2.0);
    QCOMPARE(countOf(r.value(), 2, "date"), 2.0);
    QCOMPARE(countOf(r.value(), 1, "banana"), 1.0);
    QCOMPARE(countOf(r.value(), 0, "elder"), -1.0);
    QCOMPARE(r->lengths.sum(), 13.0);

    // Ties at the cap boundary are broken alphabetically: with a cap of 3, "banana" < "date".
    p.vocabSize = 3;
    const auto r3 = importText(p);
    QVERIFY(r3.ok());
    const std::vector<std::string> expected3 = {"apple", "cherry", "banana"};
    QVERIFY(r3->vocab == expected3);
  }

  void separatorMode() {
    const fs::path f = path("fortune-like");
    writeFile(f,
              "Alpha beta gamma\r\n"
              "delta epsilon.\r\n"
              "%\r\n"
              "%\n"
              "zeta eta theta iota\n"
              "%\n"
              "kappa\n");  // last document without a final separator, too short
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.input = f.string();
    p.separator = "%";
    TextImportReport report;
    const auto r = importText(p, &report);
    QVERIFY2(r.ok(), r.status().toString().c_str());
    QCOMPARE(report.documentsRead, 3);  // the empty document between two separators is skipped
    QCOMPARE(r->docCount(), 2);
    QCOMPARE(r->droppedDocuments, 1);
    QCOMPARE(r->lengths[0], 5.0);  // spans two lines
    QCOMPARE(r->lengths[1], 4.0);
  }

  void folderMode() {
    const fs::path dir = path("folder");
    fs::create_directories(dir / "subfolder");
    writeFile(dir / "b.txt", "river water bank water\nriver flows\n");
    writeFile(dir / "a.txt", "money bank loan\n\nmoney interest");
    writeFile(dir / "c.txt", "short text");  // 2 tokens: dropped
    writeFile(dir / ".hidden", "ignored ignored ignored");
    writeFile(dir / "subfolder" / "d.txt", "ignored ignored ignored");
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.input = dir.string();
    TextImportReport report;
    const auto r = importText(p, &report);
    QVERIFY2(r.ok(), r.status().toString().c_str());
    QCOMPARE(report.documentsRead, 3);
    QCOMPARE(r->docCount(), 2);
    QCOMPARE(r->droppedDocuments, 1);
    // Sorted by name: a.txt is row 0, b.txt row 1.
    QCOMPARE(countOf(r.value(), 0, "money"), 2.0);
    QCOMPARE(countOf(r.value(), 1, "water"), 2.0);
    QCOMPARE(countOf(r.value(), 1, "money"), 0.0);
    QCOMPARE(countOf(r.value(), 0, "ignored"), -1.0);
    QCOMPARE(r->lengths[0], 5.0);
    QCOMPARE(r->lengths[1], 6.0);
  }

  void fortuneLikeFolder() {
    // Debian's fortune folder: text files with "%" separators, binary .dat indexes beside them
    // and .u8 links to the text files. With a separator each file splits into its documents;
    // binary files are skipped and listed; a link to a file already read is read once.
    const fs::path dir = path("fortunes");
    fs::create_directories(dir);
    writeFile(dir / "art", "paint brush canvas\n%\ncolour paint light\nshadow\n%\n");
    writeFile(dir / "science", "atom energy matter\n%\nstar light orbit\n");
    writeFile(dir / "art.dat", std::string("\x00\x00\x00\x02\xd1\xff index", 12));
    fs::create_symlink("art", dir / "art.u8");
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.input = dir.string();
    p.separator = "%";
    TextImportReport report;
    const auto r = importText(p, &report);
    QVERIFY2(r.ok(), r.status().toString().c_str());
    QCOMPARE(report.filesRead, 2);
    QCOMPARE(report.duplicateFiles, 1);
    QCOMPARE(report.skippedFiles, std::vector<std::string>{"art.dat"});
    QCOMPARE(report.documentsRead, 4);  // two per text file, the link not counted again
    QCOMPARE(r->docCount(), 4);
    QCOMPARE(countOf(r.value(), 0, "paint"), 1.0);   // art, first fortune
    QCOMPARE(countOf(r.value(), 1, "shadow"), 1.0);  // art, second fortune (two lines)
    QCOMPARE(countOf(r.value(), 3, "orbit"), 1.0);   // science, second fortune
    // Without the separator every file is one document.
    p.separator.clear();
    QCOMPARE(importText(p, &report)->docCount(), 2);
    // A folder of binary files only: refused, naming what was skipped.
    const fs::path bin = path("binonly");
    fs::create_directories(bin);
    writeFile(bin / "x.dat", std::string("\xff\xfe\x00\x01", 4));
    p.input = bin.string();
    const auto none = importText(p);
    QCOMPARE(none.status().code(), StatusCode::BadInput);
    QVERIFY(none.status().message().find("x.dat") != std::string::npos);
    // Text files holding only separators and blank lines: no documents, said so.
    const fs::path blank = path("blankfortunes");
    fs::create_directories(blank);
    writeFile(blank / "empty", "%\n  \n%\n");
    p.input = blank.string();
    p.separator = "%";
    const auto nothing = importText(p);
    QCOMPARE(nothing.status().code(), StatusCode::BadInput);
    QVERIFY(nothing.status().message().find("no documents") != std::string::npos);
    p.separator.clear();
    // A single binary file given as the input is an error, not skipped.
    p.input = (bin / "x.dat").string();
    QCOMPARE(importText(p).status().code(), StatusCode::BadInput);
  }

  void errors() {
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    auto code = [](const Result<Corpus>& r) { return QString(statusCodeName(r.status().code())); };
    QCOMPARE(code(importText(p)), QString(statusCodeName(StatusCode::InvalidArgument)));  // empty path
    p.input = path("missing.txt").string();
    auto r = importText(p);
    QCOMPARE(code(r), QString(statusCodeName(StatusCode::IoError)));
    QVERIFY(r.status().message().find("missing.txt") != std::string::npos);

    writeFile(path("ok.txt"), "word another third\n");
    p.input = path("ok.txt").string();
    p.vocabSize = 0;
    r = importText(p);
    QCOMPARE(code(r), QString(statusCodeName(StatusCode::InvalidArgument)));
    QVERIFY(r.status().message().find("vocabSize") != std::string::npos);
    p.vocabSize = 10;
    p.minTokenLength = 0;
    QCOMPARE(code(importText(p)), QString(statusCodeName(StatusCode::InvalidArgument)));
    p.minTokenLength = 2;

    writeFile(path("empty.txt"), "\n  \n");
    p.input = path("empty.txt").string();
    r = importText(p);
    QCOMPARE(code(r), QString(statusCodeName(StatusCode::BadInput)));
    QVERIFY(r.status().message().find("no documents") != std::string::npos);

    fs::create_directories(path("emptyfolder"));
    p.input = path("emptyfolder").string();
    QCOMPARE(code(importText(p)), QString(statusCodeName(StatusCode::BadInput)));

    writeFile(path("allshort.txt"), "one two\nthree four\n");
    p.input = path("allshort.txt").string();
    TextImportReport report;
    r = importText(p, &report);
    QCOMPARE(code(r), QString(statusCodeName(StatusCode::BadInput)));
    QVERIFY(r.status().message().find("at least 3") != std::string::npos);
    QCOMPARE(report.droppedDocuments, 2);

    writeFile(path("stoponly.txt"), "the and of\n");
    p.input = path("stoponly.txt").string();
    r = importText(p);
    QCOMPARE(code(r), QString(statusCodeName(StatusCode::BadInput)));
    QVERIFY(r.status().message().find("no words") != std::string::npos);

    writeFile(path("bad.txt"), "fine line here\nsecond ok line\nbroken \xc3\x28 here\n");
    p.input = path("bad.txt").string();
    r = importText(p);
    QCOMPARE(code(r), QString(statusCodeName(StatusCode::BadInput)));
    QVERIFY2(r.status().message().find("bad.txt line 3") != std::string::npos, r.status().message().c_str());
    QVERIFY2(r.status().message().find("byte 8") != std::string::npos, r.status().message().c_str());
    QVERIFY2(r.status().message().find("file offset 37") != std::string::npos, r.status().message().c_str());

    const fs::path badDir = path("baddir");
    fs::create_directories(badDir);
    writeFile(badDir / "x.txt", "ok words here\nmore \xff");
    p.input = badDir.string();
    r = importText(p);
    QCOMPARE(code(r), QString(statusCodeName(StatusCode::BadInput)));
    QVERIFY2(r.status().message().find("x.txt line 2") != std::string::npos, r.status().message().c_str());
    QVERIFY2(r.status().message().find("byte 6") != std::string::npos, r.status().message().c_str());
  }

  // Issue 15: --vocab 2147483647 was accepted; an endless line (/dev/zero) grew without bound;
  // file names in messages are escaped.
  void limitsAndEscapedNames() {
    writeFile(path("v.txt"), "word another third\n");
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.input = path("v.txt").string();
    p.vocabSize = 2147483647;
    auto r = importText(p);
    QCOMPARE(QString(statusCodeName(r.status().code())), QString(statusCodeName(StatusCode::InvalidArgument)));
    QVERIFY2(r.status().message().find("1..1000000") != std::string::npos, r.status().message().c_str());
    p.vocabSize = kMaxVocabularySize;
    QVERIFY(importText(p).status().code() != StatusCode::InvalidArgument);

    if (fs::exists("/dev/zero")) {  // a device is not a text file (issue 28): refused before reading
      p.input = "/dev/zero";
      r = importText(p);
      QCOMPARE(QString(statusCodeName(r.status().code())), QString(statusCodeName(StatusCode::IoError)));
      QVERIFY2(r.status().message().find("character device") != std::string::npos, r.status().message().c_str());
    }
    p.input = path("mis\x1b[2Jsing.txt").string();
    r = importText(p);
    QVERIFY2(r.status().message().find("mis\\x1b[2Jsing.txt") != std::string::npos, r.status().message().c_str());
  }

  void cancel() {
    writeFile(path("c.txt"), "word another third\n");
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.input = path("c.txt").string();
    Feedback fb;
    fb.cancel();
    const auto r = importText(p, nullptr, &fb);
    QCOMPARE(QString(statusCodeName(r.status().code())), QString(statusCodeName(StatusCode::Cancelled)));
  }

  void deterministic() {
    const fs::path f = path("det.txt");
    std::string text;
    for (int i = 0; i < 200; ++i) {
      // Words with varied frequencies and many ties: "w<x><y>", shared words, "<z>zz".
      text.append("w");
      text.push_back(static_cast<char>('a' + i % 26));
      text.push_back(static_cast<char>('a' + i % 7));
      text.append(" topic model words data ");
      text.push_back(static_cast<char>('a' + i % 5));
      text.append("zz\n");
    }
    writeFile(f, text);
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.input = f.string();
    p.vocabSize = 20;
    const auto a = importText(p);
    const auto b = importText(p);
    QVERIFY(a.ok() && b.ok());
    QVERIFY(a->vocab == b->vocab);
    QVERIFY(Eigen::MatrixXd(a->counts) == Eigen::MatrixXd(b->counts));
  }

  // The fortune cookie database: documents separated by "%" lines.
  void fortunes() {
    const std::string file = "/usr/share/games/fortunes/fortunes";
    if (!fs::exists(file)) QSKIP("fortunes package not installed");
    std::ifstream in(file);
    int separators = 0;
    for (std::string line; std::getline(in, line);) separators += line == "%";
    TextImportParams p;
    p.vocabularyRule = VocabularyRule::CorpusCounts;  // this file tests the import; tst_text_vocabulary the private rules
    p.input = file;
    p.separator = "%";
    p.vocabSize = 1000;
    TextImportReport report;
    const auto r = importText(p, &report);
    QVERIFY2(r.ok(), r.status().toString().c_str());
    qInfo("fortunes: %d documents read, %d kept, %d dropped, %lld tokens, %d distinct words",
          report.documentsRead, report.documentsKept, report.droppedDocuments, report.tokens,
          report.distinctWords);
    // One document per separator, give or take the first/last one.
    QVERIFY(std::abs(report.documentsRead - separators) <= 1);
    QCOMPARE(report.documentsKept + report.droppedDocuments, report.documentsRead);
    QVERIFY(report.documentsKept > report.documentsRead / 2);
    QCOMPARE(r->vocabSize(), std::min(1000, report.distinctWords));
    QVERIFY(report.tokensKept <= report.tokens);
    QCOMPARE(static_cast<long long>(r->lengths.sum()), report.tokensKept);
    for (const std::string& w : r->vocab) QVERIFY2(!isStopWord(w) && w.size() >= 2, w.c_str());
  }
};

QTEST_APPLESS_MAIN(TestTextImport)
#include "tst_text_import.moc"
