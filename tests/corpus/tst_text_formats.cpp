// Tests of the files import-text reads below the tokenizer (core/corpus/text_formats.h) and the
// ids it keeps (core/corpus/document_ids.h): CSV/TSV with RFC 4180 quoting, JSON Lines, gzip
// recognised by its magic bytes, and every bad input: ragged rows, a missing column, quotes,
// binary files, mixed encodings, JSON lines that are not objects or lack the field.
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/corpus/document_ids.h"
#include "core/corpus/text_formats.h"
#include "core/corpus/text_import.h"

using namespace dplda;
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::uint32_t crc32(const std::string& data) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void putLe(std::string& out, std::uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

// A gzip member written by hand (RFC 1952 around one stored deflate block, RFC 1951 §3.2.4), so
// that the reader is checked against the format and not against the same zlib calls.
std::string gzipMember(const std::string& data) {
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
  out += '\x01';  // final block, stored
  putLe(out, static_cast<std::uint32_t>(data.size()), 2);
  putLe(out, static_cast<std::uint32_t>(~data.size() & 0xFFFF), 2);
  out += data;
  putLe(out, crc32(data), 4);
  putLe(out, static_cast<std::uint32_t>(data.size()), 4);
  return out;
}

struct Record {
  std::string text, id;
};

Result<std::vector<Record>> readCsv(const std::string& bytes, const RecordFields& fields, char delimiter = ',') {
  std::istringstream in(bytes);
  std::vector<Record> records;
  const Status st = readDelimitedRecords(in, "data.csv", delimiter, fields,
                                         [&](std::string_view t, std::string id) { records.push_back({std::string(t), id}); },
                                         nullptr);
  if (!st.isOk()) return st;
  return records;
}

Result<std::vector<Record>> readJson(const std::string& bytes, const RecordFields& fields) {
  std::istringstream in(bytes);
  std::vector<Record> records;
  const Status st = readJsonLines(in, "data.jsonl", fields,
                                  [&](std::string_view t, std::string id) { records.push_back({std::string(t), id}); },
                                  nullptr);
  if (!st.isOk()) return st;
  return records;
}

QString message(const Status& st) { return QString::fromStdString(st.message()); }

}  // namespace

class TestTextFormats : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  fs::path path(const std::string& leaf) const { return fs::path(m_tmp.path().toStdString()) / leaf; }

  // importText under a public word list (every record is then a row; no private selection noise).
  Result<Corpus> import(TextImportParams p, TextImportReport* report) {
    const fs::path words = path("words.txt");
    writeFile(words, "apple\nbanana\ncherry\ndate\n");
    p.vocabularyRule = VocabularyRule::PublicFile;
    p.vocabularyFile = words.string();
    return importText(p, report);
  }

 private slots:
  void initTestCase() { QVERIFY(m_tmp.isValid()); }

  void csvQuotingEmbeddedNewlinesAndIds() {
    // BOM, CRLF, a quoted comma, a doubled quote, a line break inside quotes, an empty field.
    const std::string csv =
        "\xEF\xBB\xBFid,text,extra\r\n"
        "a1,\"apple, banana\",x\r\n"
        "a2,\"say \"\"cherry\"\"\nand date\",y\r\n"
        "\r\n"
        "a3,,z\n"
        "a4,last one,w";  // no final line end
    auto byId = readCsv(csv, {"text", "id"});
    QVERIFY2(byId.ok(), byId.status().message().c_str());
    QCOMPARE(byId->size(), std::size_t(4));
    QCOMPARE(QString::fromStdString(byId.value()[0].text), QString("apple, banana"));
    QCOMPARE(QString::fromStdString(byId.value()[1].text), QString("say \"cherry\"\nand date"));
    QCOMPARE(QString::fromStdString(byId.value()[2].text), QString(""));  // an empty field is a record too
    QCOMPARE(QString::fromStdString(byId.value()[3].text), QString("last one"));
    QCOMPARE(QString::fromStdString(byId.value()[1].id), QString("a2"));
    // Without an id column, the id is the line the record starts on (record 2 spans lines 3-4).
    auto byLine = readCsv(csv, {"text", ""});
    QVERIFY(byLine.ok());
    QStringList ids;
    for (const Record& r : byLine.value()) ids << QString::fromStdString(r.id);
    QCOMPARE(ids, QStringList({"2", "3", "6", "7"}));
  }

  void tsvUsesTabs() {
    auto r = readCsv("title\tbody\nfirst\tapple, banana\nsecond\t\"quoted\ttab\"\n", {"body", "title"}, '\t');
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(r->size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(r.value()[0].text), QString("apple, banana"));  // a comma is text in TSV
    QCOMPARE(QString::fromStdString(r.value()[1].text), QString("quoted\ttab"));
    QCOMPARE(QString::fromStdString(r.value()[1].id), QString("second"));
  }

  void csvErrorsNameTheLine() {
    auto missing = readCsv("id,body,date\n1,apple,today\n", {"text", ""});
    QVERIFY(!missing.ok());
    QCOMPARE(missing.status().code(), StatusCode::BadInput);
    QVERIFY2(message(missing.status()).contains("no column 'text'") &&
                 message(missing.status()).contains("3 columns: 'id', 'body', 'date'"),
             missing.status().message().c_str());
    auto missingId = readCsv("id,body\n1,apple\n", {"body", "key"});
    QVERIFY(!missingId.ok() && message(missingId.status()).contains("no id column 'key'"));

    auto ragged = readCsv("id,text,extra\n1,apple,x\n2,banana\n", {"text", ""});
    QVERIFY(!ragged.ok());
    QVERIFY2(message(ragged.status()).contains("data.csv line 3: a CSV row of 2 fields, the header has 3"),
             ragged.status().message().c_str());
    auto tooMany = readCsv("id,text\n1,apple,banana\n", {"text", ""});
    QVERIFY(!tooMany.ok() && message(tooMany.status()).contains("line 2: a CSV row of 3 fields"));

    auto open = readCsv("id,text\n1,apple\n2,\"banana\nno end\n", {"text", ""});
    QVERIFY(!open.ok());
    QVERIFY2(message(open.status()).contains("line 3: a quoted field opened on this line is not closed"),
             open.status().message().c_str());
    auto after = readCsv("id,text\n1,\"apple\" pie\n", {"text", ""});
    QVERIFY(!after.ok() && message(after.status()).contains("line 2: text after the closing quote"));
    auto inside = readCsv("id,text\n1,apple \"pie\"\n", {"text", ""});  // a quote inside a field is text
    QVERIFY(inside.ok());
    QCOMPARE(QString::fromStdString(inside.value()[0].text), QString("apple \"pie\""));
    auto empty = readCsv("", {"text", ""});
    QVERIFY(!empty.ok() && message(empty.status()).contains("needs a header line"));
    auto twice = readCsv("text,text\na,b\n", {"text", ""});
    QVERIFY(!twice.ok() && message(twice.status()).contains("appears twice"));
  }

  void mixedEncodingsAndBinaryRecords() {
    // A Latin-1 "é" (0xE9) on line 3 of a UTF-8 file: named by line and byte, inside a quoted
    // multi-line record too.
    auto latin1 = readCsv("id,text\n1,\"caf\xc3\xa9\nna\xefve\"\n", {"text", ""});
    QVERIFY(!latin1.ok());
    QVERIFY2(message(latin1.status()).contains("data.csv line 3: invalid UTF-8 byte 0xEF at byte 3"),
             latin1.status().message().c_str());
    auto nul = readCsv(std::string("id,text\n1,ab\0cd\n", 16), {"text", ""});
    QVERIFY(!nul.ok());
    QVERIFY2(message(nul.status()).contains("line 2: a NUL byte at byte 5 of the line: a binary file"),
             nul.status().message().c_str());
    auto jsonLatin1 = readJson("{\"t\": \"ok\"}\n{\"t\": \"caf\xe9\"}\n", {"t", ""});
    QVERIFY(!jsonLatin1.ok() && message(jsonLatin1.status()).contains("data.jsonl line 2: invalid UTF-8 byte 0xE9"));
  }

  void jsonLinesFieldsAndErrors() {
    auto r = readJson("{\"id\": \"doc-a\", \"body\": \"apple banana\"}\n\n{\"body\": \"cherry\", \"id\": 7}\r\n", {"body", "id"});
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(r->size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(r.value()[0].id), QString("doc-a"));
    QCOMPARE(QString::fromStdString(r.value()[1].id), QString("7"));
    QCOMPARE(QString::fromStdString(r.value()[1].text), QString("cherry"));
    auto byLine = readJson("{\"body\": \"a\"}\n\n{\"body\": \"b\"}\n", {"body", ""});
    QVERIFY(byLine.ok());
    QCOMPARE(QString::fromStdString(byLine.value()[1].id), QString("3"));

    auto array = readJson("{\"body\": \"a\"}\n[1, 2]\n", {"body", ""});
    QVERIFY(!array.ok());
    QVERIFY2(message(array.status()).contains("data.jsonl line 2: a JSON array, not an object"),
             array.status().message().c_str());
    auto lacks = readJson("{\"title\": \"x\", \"date\": 1}\n", {"body", ""});
    QVERIFY(!lacks.ok());
    QVERIFY2(message(lacks.status()).contains("line 1: the object has no field 'body'; its fields: 'date', 'title'"),
             lacks.status().message().c_str());
    auto number = readJson("{\"body\": 3}\n", {"body", ""});
    QVERIFY(!number.ok() && message(number.status()).contains("the field 'body' is a number, not a string"));
    auto badId = readJson("{\"body\": \"x\", \"id\": [1]}\n", {"body", "id"});
    QVERIFY(!badId.ok() && message(badId.status()).contains("the id field 'id' is an array, not a string or an integer"));
    auto notJson = readJson("{\"body\": \"x\"\n", {"body", ""});
    QVERIFY(!notJson.ok() && message(notJson.status()).contains("line 1: not JSON"));
  }

  void gzipByMagicBytesNotName() {
    // Two members (as `cat a.gz b.gz` makes), in a file whose name does not say gzip.
    const fs::path f = path("notes.txt");
    writeFile(f, gzipMember("apple banana cherry\n") + gzipMember("date apple banana\n"));
    TextImportParams p;
    p.input = f.string();
    TextImportReport report;
    auto c = import(p, &report);
    QVERIFY2(c.ok(), c.status().message().c_str());
    QCOMPARE(c->docCount(), 2);
    QCOMPARE(report.compressedFiles, 1);
    QCOMPARE(c->counts.coeff(1, 3), 1.0);  // "date" in the second member's line
    QCOMPARE(report.documentIds, std::vector<std::string>({"1", "2"}));

    // A gzip CSV read the same way; a damaged checksum and a truncated member are errors.
    const fs::path csv = path("data.csv.gz");
    writeFile(csv, gzipMember("key,text\nk1,apple banana cherry\nk2,banana cherry date\n"));
    TextImportParams pc;
    pc.input = csv.string();
    pc.format = textFormatFromName(pc.input);
    QCOMPARE(pc.format, TextFormat::Csv);
    pc.column = "text";
    pc.idColumn = "key";
    auto cc = import(pc, &report);
    QVERIFY2(cc.ok(), cc.status().message().c_str());
    QCOMPARE(report.documentIds, std::vector<std::string>({"k1", "k2"}));

    std::string damaged = gzipMember("apple banana cherry\n");
    damaged[damaged.size() - 6] ^= 0x40;  // the CRC
    writeFile(f, damaged);
    auto d = import(p, &report);
    QVERIFY(!d.ok());
    QVERIFY2(message(d.status()).contains("damaged gzip data"), d.status().message().c_str());
    const std::string whole = gzipMember("apple banana cherry\n");
    writeFile(f, whole.substr(0, whole.size() - 5));
    auto t = import(p, &report);
    QVERIFY(!t.ok());
    QVERIFY2(message(t.status()).contains("ends early"), t.status().message().c_str());
    writeFile(f, whole + "trailing");
    auto g = import(p, &report);
    QVERIFY(!g.ok() && message(g.status()).contains("data after the end of the gzip stream"));
  }

  void binaryFilesAreNamed() {
    const fs::path zip = path("sheet.csv");
    writeFile(zip, std::string("PK\x03\x04\x14\x00\x00\x00", 8) + "rest");
    TextImportParams p;
    p.input = zip.string();
    p.format = TextFormat::Csv;
    p.column = "text";
    auto z = import(p, nullptr);
    QVERIFY(!z.ok());
    QVERIFY2(message(z.status()).contains("is a zip archive (also .xlsx"), z.status().message().c_str());
    const fs::path bin = path("image.txt");
    writeFile(bin, std::string("apple banana\n\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 29));
    TextImportParams pt;
    pt.input = bin.string();
    auto b = import(pt, nullptr);
    QVERIFY(!b.ok());
    QVERIFY2(message(b.status()).contains("line 2: invalid UTF-8 byte 0x89"), b.status().message().c_str());
    writeFile(bin, std::string("apple banana\ncherry\0date\n", 25));
    auto n = import(pt, nullptr);
    QVERIFY(!n.ok() && message(n.status()).contains("line 2: a NUL byte at byte 7 of the line: a binary file"));
  }

  void idsFollowTheCorpusRows() {
    // Rows with fewer than 3 vocabulary tokens are kept empty and appended after the others
    // (keepDroppedAsEmpty): the ids must follow that order.
    const fs::path f = path("rows.jsonl");
    writeFile(f,
              "{\"n\": \"first\", \"t\": \"apple banana cherry\"}\n"
              "{\"n\": \"short\", \"t\": \"apple\"}\n"
              "{\"n\": \"third\", \"t\": \"date date cherry\"}\n"
              "{\"n\": \"blank\", \"t\": \"\"}\n");
    TextImportParams p;
    p.input = f.string();
    p.format = TextFormat::JsonLines;
    p.column = "t";
    p.idColumn = "n";
    TextImportReport report;
    auto c = import(p, &report);
    QVERIFY2(c.ok(), c.status().message().c_str());
    QCOMPARE(c->docCount(), 4);  // every record counts in N, the blank one too
    QCOMPARE(report.documentIds, std::vector<std::string>({"first", "third", "short", "blank"}));
    QCOMPARE(c->counts.coeff(1, 3), 2.0);  // row 1 is "third": date x2
    QCOMPARE(c->lengths(2), 0.0);

    // Folder mode: file names, and FILE:LINE with a separator.
    const fs::path dir = path("folder");
    fs::create_directories(dir);
    writeFile(dir / "b.txt", "apple banana cherry\n%\n\ndate cherry banana\n%\n");
    writeFile(dir / "a.txt.gz", gzipMember("banana cherry date\n"));
    TextImportParams pf;
    pf.input = dir.string();
    auto folder = import(pf, &report);
    QVERIFY2(folder.ok(), folder.status().message().c_str());
    QCOMPARE(report.documentIds, std::vector<std::string>({"a.txt.gz", "b.txt"}));
    QCOMPARE(report.compressedFiles, 1);
    pf.separator = "%";
    auto separated = import(pf, &report);
    QVERIFY(separated.ok());
    QCOMPARE(report.documentIds, std::vector<std::string>({"a.txt.gz:1", "b.txt:1", "b.txt:3"}));
  }

  void wrongParametersAreRefused() {
    const fs::path f = path("plain.txt");
    writeFile(f, "apple banana cherry\n");
    TextImportParams p;
    p.input = f.string();
    p.column = "text";  // a column of plain text
    auto a = import(p, nullptr);
    QVERIFY(!a.ok() && a.status().code() == StatusCode::InvalidArgument);
    p.format = TextFormat::Csv;
    p.column.clear();
    auto b = import(p, nullptr);
    QVERIFY(!b.ok() && message(b.status()).contains("needs the column"));
    p.input = m_tmp.path().toStdString();
    p.column = "text";
    auto c = import(p, nullptr);
    QVERIFY(!c.ok() && message(c.status()).contains("is one file, not a folder"));
    QVERIFY(!parseTextFormat("xlsx").ok());
    QCOMPARE(textFormatFromName("A.TSV.gz"), TextFormat::Tsv);
    QCOMPARE(textFormatFromName("x.ndjson"), TextFormat::JsonLines);
    QCOMPARE(textFormatFromName("x.txt.gz"), TextFormat::Text);
  }

  void documentIdsRoundTrip() {
    const fs::path dir = path("ids");
    fs::create_directories(dir);
    const std::vector<std::string> ids{"plain", "with\nbreak", "back\\slash", ""};
    QVERIFY(writeDocumentIds(ids, dir.string()).isOk());
    std::ifstream in(dir / kDocumentIdsFileName, std::ios::binary);
    const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    QCOMPARE(QString::fromStdString(written), QString("plain\nwith\\nbreak\nback\\\\slash\n\n"));
    auto back = readDocumentIds(dir.string(), 4);
    QVERIFY2(back.ok(), back.status().message().c_str());
    QCOMPARE(back.value(), std::vector<std::string>({"plain", "with\\nbreak", "back\\\\slash", ""}));
    QVERIFY(!readDocumentIds(dir.string(), 3).ok());  // one line too many
    QVERIFY(!readDocumentIds(dir.string(), 5).ok());  // one line too few
    auto none = readDocumentIds(path("no-such-corpus").string(), 4);
    QVERIFY(none.ok() && none->empty());
  }
};

QTEST_APPLESS_MAIN(TestTextFormats)
#include "tst_text_formats.moc"
