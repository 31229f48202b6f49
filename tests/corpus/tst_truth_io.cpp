// Tests of truth.json: exact round trips, the strict JSON parser's positioned errors, and the
// shape/value checks of the LDA model.
#include <QElapsedTimer>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "core/corpus/synthetic_generator.h"
#include "core/corpus/truth_io.h"

using namespace dplda;

namespace {

LdaModel smallModel() {
  LdaModel m;
  m.alpha.resize(2);
  m.alpha << 0.25, 0.75;
  m.topics.resize(3, 2);
  m.topics << 0.5, 0.1, 0.25, 0.2, 0.25, 0.7;
  return m;
}

void expectBad(const std::string& text, std::initializer_list<const char*> parts) {
  const auto r = parseTruthJson(text, "t.json");
  QVERIFY2(!r.ok(), text.c_str());
  QCOMPARE(statusCodeName(r.status().code()), statusCodeName(StatusCode::BadInput));
  for (const char* part : parts) {
    QVERIFY2(r.status().message().find(part) != std::string::npos,
             qPrintable(QString("'%1' not in: %2").arg(part).arg(r.status().message().c_str())));
  }
}

}  // namespace

class TestTruthIo : public QObject {
  Q_OBJECT

 private slots:
  void roundTripIsExact() {
    GeneratorParams p;
    p.vocabSize = 60;
    p.topicCount = 7;
    p.docCount = 1;
    p.seed = 99;
    const auto gen = generateLdaCorpus(p);
    QVERIFY(gen.ok());
    QTemporaryDir tmp;
    const std::string path = tmp.path().toStdString() + "/truth.json";
    const Status w = writeTruthJson(gen->truth, path);
    QVERIFY2(w.isOk(), w.toString().c_str());
    const auto r = readTruthJson(path);
    QVERIFY2(r.ok(), r.status().toString().c_str());
    QVERIFY(r->alpha == gen->truth.alpha);  // bit-identical
    QVERIFY(r->topics == gen->truth.topics);
  }

  void parsesGeneralJson() {
    // Extra keys of every JSON type are ignored; escapes, exponents and white space are fine.
    const std::string text =
        "\xEF\xBB\xBF{ \"name\" : \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\n\", \"flags\": [true, false, "
        "null],\n"
        "  \"nested\": {\"a\": [[], {}], \"b\": -0.0e+0},\n"
        "  \"alpha\": [2.5E-1, 75e-2],\n"
        "  \"topics\": [[0.5, 0.25, 0.25], [1e-1, 0.2, 0.7]] }\n";
    const auto r = parseTruthJson(text);
    QVERIFY2(r.ok(), r.status().toString().c_str());
    QCOMPARE(r->alpha[0], 0.25);
    QCOMPARE(r->alpha[1], 0.75);
    QCOMPARE(r->topics(2, 1), 0.7);
    QCOMPARE(r->topics(0, 0), 0.5);
  }

  void malformedJson() {
    expectBad("", {"empty"});
    expectBad("{\"alpha\": [1], \"topics\": [[1]]", {"line 1", "column 31", "expected ',' or '}'"});
    expectBad("{\"alpha\": [1,], \"topics\": [[1]]}", {"line 1 column 14", "expected a value"});
    expectBad("{\n  \"alpha\": [01]\n}", {"line 2", "leading zeros"});
    expectBad("{\"alpha\": [1.]}", {"digits after '.'"});
    expectBad("{\"alpha\": [NaN]}", {"column 12", "expected a value"});
    expectBad("{\"alpha\": [1e999]}", {"too large"});
    expectBad("{\"alpha\": [-]}", {"digits after '-'"});
    expectBad("{\"alpha\": [1], 'topics': []}", {"expected a string key"});
    expectBad("{\"alpha\": [1], \"alpha\": [2]}", {"duplicate key 'alpha'"});
    expectBad("{\"a\": \"unterminated}", {"unterminated string"});
    expectBad("{\"a\": \"bad \\x escape\"}", {"invalid escape"});
    expectBad("{\"a\": \"\\ud800 alone\"}", {"surrogate"});
    expectBad("{\"a\": \"tab\there\"}", {"control character"});
    expectBad("{\"a\": \"\xff\"}", {"invalid UTF-8"});
    expectBad("{\"a\": tru}", {"true, false or null"});
    expectBad("{} {}", {"after the JSON value"});
    expectBad(std::string(1000, '['), {"nesting deeper"});
  }

  void wrongShapes() {
    expectBad("[1, 2]", {"expected an object", "an array"});
    expectBad("{\"topics\": [[1]]}", {"\"alpha\" is missing"});
    expectBad("{\"alpha\": [1]}", {"\"topics\" is missing"});
    expectBad("{\"alpha\": 1, \"topics\": [[1]]}", {"\"alpha\" must be an array"});
    expectBad("{\"alpha\": [1, \"x\"], \"topics\": [[1,0],[0,1]]}",
              {"alpha[1] must be a number", "a string"});
    expectBad("{\"alpha\": [1, 2], \"topics\": [[1, 0]]}", {"alpha has 2 entries but topics has 1"});
    expectBad("{\"alpha\": [1, 2], \"topics\": [[0.5, 0.5, 0], [1, 0]]}",
              {"line 1", "topics[1] has 2 numbers but topics[0] has 3"});
    expectBad("{\"alpha\": [], \"topics\": []}", {"need at least one topic"});
    expectBad("{\"alpha\": [1], \"topics\": [[]]}", {"topics[0] is empty"});
    expectBad("{\"alpha\": [1, 0], \"topics\": [[1, 0], [0, 1]]}", {"alpha[1]", "> 0", "got 0"});
    expectBad("{\"alpha\": [1, -2], \"topics\": [[1, 0], [0, 1]]}", {"alpha[1]", "-2"});
    expectBad("{\"alpha\": [1], \"topics\": [[1.1, -0.1]]}", {"topics[0][1]", "-0.1"});
    expectBad("{\"alpha\": [1], \"topics\": [[0.5, 0.49]]}", {"topics[0] sums to 0.99"});
    expectBad("{\"alpha\": [1, 1, 1], \"topics\": [[1, 0], [0, 1], [0.5, 0.5]]}",
              {"more topics (3) than words (2)"});
    // Within the 1e-6 tolerance.
    QVERIFY(parseTruthJson("{\"alpha\": [1], \"topics\": [[0.5, 0.5000005]]}").ok());
  }

  // Issue 15: a key or string holds control characters once its escapes are decoded; messages
  // show them escaped. And the file name is escaped too.
  void messagesEscapeControlCharacters() {
    const auto r = parseTruthJson("{\"k\\u001b[2J\": 1, \"k\\u001b[2J\": 2}", "t\x1b.json");
    QVERIFY(!r.ok());
    const std::string& m = r.status().message();
    QVERIFY2(m.find("duplicate key 'k\\x1b[2J'") != std::string::npos, m.c_str());
    QVERIFY2(m.find("t\\x1b.json") != std::string::npos, m.c_str());
    for (char c : m) QVERIFY(static_cast<unsigned char>(c) >= 0x20);
    const auto e = parseTruthJson("{\"a\": \"\\\x07\"}");
    QVERIFY(!e.ok());
    QVERIFY2(e.status().message().find("'\\\\\\x07'") != std::string::npos, e.status().message().c_str());
  }

  // alpha0 = sum alpha_i in the range the rest of the tool accepts (it overflowed the alpha error).
  void alphaSumAboveTheLimit() {
    expectBad("{\"alpha\": [1e300, 1], \"topics\": [[1, 0], [0, 1]]}", {"alpha0", "1e+300", "1000000"});
    expectBad("{\"alpha\": [600000, 600000], \"topics\": [[1, 0], [0, 1]]}", {"alpha0 = 1200000"});
    QVERIFY(parseTruthJson("{\"alpha\": [500000, 500000], \"topics\": [[1, 0], [0, 1]]}").ok());
  }

  // Parsing is linear: 60 000 keys used to take O(keys^2) comparisons for duplicates, and
  // "[],[],..." is capped instead of taking 40 times the file's size in memory.
  void largeDocumentsStayCheap() {
    std::string keys = "{\"alpha\": [1], \"topics\": [[1]], \"obj\": {";
    for (int i = 0; i < 60000; ++i) keys.append(i ? ",\"k" : "\"k").append(std::to_string(i)).append("\":1");
    keys += "}}";
    QElapsedTimer t;
    t.start();
    QVERIFY(parseTruthJson(keys).ok());
    QVERIFY2(t.elapsed() < 2000, qPrintable(QString("%1 ms").arg(t.elapsed())));
    std::string arrays = "{\"alpha\": [1], \"topics\": [[1]], \"a\": [";
    for (int i = 0; i < 2100000; ++i) arrays += i ? ",[]" : "[]";
    arrays += "]}";
    const auto r = parseTruthJson(arrays);
    QCOMPARE(statusCodeName(r.status().code()), statusCodeName(StatusCode::ResourceLimit));
    QVERIFY(r.status().message().find("JSON values") != std::string::npos);
    // Numbers in arrays are packed, and a mixed array reports the first non-number's index.
    expectBad("{\"alpha\": [1, 2, 3, null], \"topics\": [[1]]}", {"alpha[3] must be a number", "null"});
    expectBad("{\"alpha\": [1], \"topics\": [0.5, [1]]}", {"topics[0]", "a number"});
  }

  void fileErrors() {
    QTemporaryDir tmp;
    auto r = readTruthJson(tmp.path().toStdString() + "/nope.json");
    QCOMPARE(statusCodeName(r.status().code()), statusCodeName(StatusCode::IoError));
    QVERIFY(r.status().message().find("nope.json") != std::string::npos);
    r = readTruthJson(tmp.path().toStdString());
    QCOMPARE(statusCodeName(r.status().code()), statusCodeName(StatusCode::IoError));
    const std::string bad = tmp.path().toStdString() + "/bad.json";
    {
      std::ofstream out(bad);
      out << "{\n\"alpha\": [1],\n\"topics\": [[1]],,\n}";
    }
    r = readTruthJson(bad);
    QCOMPARE(statusCodeName(r.status().code()), statusCodeName(StatusCode::BadInput));
    QVERIFY2(r.status().message().find("bad.json line 3 column 17") != std::string::npos,
             r.status().message().c_str());
  }

  void writeRefusesInvalidModels() {
    QTemporaryDir tmp;
    LdaModel m = smallModel();
    QVERIFY(writeTruthJson(m, tmp.path().toStdString() + "/ok.json").isOk());
    m.topics(0, 0) = std::numeric_limits<double>::quiet_NaN();
    const Status s = writeTruthJson(m, tmp.path().toStdString() + "/nan.json");
    QCOMPARE(statusCodeName(s.code()), statusCodeName(StatusCode::BadInput));
    QVERIFY(s.message().find("topics[0][0]") != std::string::npos);
    QVERIFY(!std::filesystem::exists(tmp.path().toStdString() + "/nan.json"));
    const Status io = writeTruthJson(smallModel(), tmp.path().toStdString() + "/no/such/dir/t.json");
    QCOMPARE(statusCodeName(io.code()), statusCodeName(StatusCode::IoError));
  }
};

QTEST_APPLESS_MAIN(TestTruthIo)
#include "tst_truth_io.moc"
