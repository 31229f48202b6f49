// The model file (core/model/model_file.h, docs/MODEL_FORMAT.md): an exact round trip, the
// checks of loading (each with the message a user would see), and the shared truth.json keys.
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "core/corpus/truth_io.h"
#include "core/model/model_file.h"
#include "test_util.h"

using namespace dplda;

namespace {

ModelFile sampleModel() {
  ModelFile m;
  m.model = "spectral";
  m.isPrivate = true;
  m.claim = "(4, 1e-06)-differentially private";
  m.lda = test::randomModel(6, 2, 1.3, 0.5, 11);
  m.vocabulary = {"apple", "b\xC3\xA4r", "cat", "dog", "eel", "fig"};
  m.privacyJson = R"({"ledger":[{"release":"M2","epsilon":2}],"private":true})";
  m.parametersJson = R"({"topics_k":2,"alpha0":1.3})";
  m.training.path = "/data/corpus";
  m.training.documents = 123;
  m.training.fingerprint = 0x0123456789abcdefULL;
  return m;
}

// The model's JSON with one change made to the parsed object.
std::string edited(const ModelFile& m, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(modelFileToJson(m));
  edit(j);
  return j.dump();
}

}  // namespace

class TestModelFile : public QObject {
  Q_OBJECT
 private slots:
  void roundTripIsExact() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("model.json").toStdString();
    const ModelFile m = sampleModel();
    QVERIFY(writeModelFile(m, path).isOk());
    auto r = readModelFile(path);
    QVERIFY2(r.ok(), r.status().message().c_str());
    QCOMPARE(r->model, m.model);
    QCOMPARE(r->isPrivate, true);
    QCOMPARE(r->claim, m.claim);
    QVERIFY(r->vocabulary == m.vocabulary);
    QVERIFY(r->lda.alpha == m.lda.alpha);    // bit for bit
    QVERIFY(r->lda.topics == m.lda.topics);
    QCOMPARE(nlohmann::json::parse(r->privacyJson), nlohmann::json::parse(m.privacyJson));
    QCOMPARE(nlohmann::json::parse(r->parametersJson), nlohmann::json::parse(m.parametersJson));
    QCOMPARE(r->training.path, m.training.path);
    QCOMPARE(r->training.documents, 123);
    QVERIFY(r->training.fingerprint && *r->training.fingerprint == *m.training.fingerprint);
    // The format's name and version are in the file; truth.json's reader reads the same numbers.
    const nlohmann::json j = nlohmann::json::parse(modelFileToJson(m));
    QCOMPARE(j["format"].get<std::string>(), std::string(kModelFormatName));
    QCOMPARE(j["version"].get<int>(), kModelFormatVersion);
    auto truth = readTruthJson(path);
    QVERIFY2(truth.ok(), truth.status().message().c_str());
    QVERIFY(truth->topics == m.lda.topics);
  }

  void withoutFingerprintNoneIsRead() {
    ModelFile m = sampleModel();
    m.training.fingerprint.reset();
    QVERIFY(modelFileToJson(m).find("fingerprint") == std::string::npos);
    auto r = parseModelFile(modelFileToJson(m), "m.json");
    QVERIFY(r.ok());
    QVERIFY(!r->training.fingerprint);
  }

  void refusals_data() {
    QTest::addColumn<QString>("which");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not a model") << "format" << "not a dplda model file";
    QTest::newRow("unknown version") << "version" << "model format version 2 is not known";
    QTest::newRow("vocabulary too short") << "vocab-size" << "the vocabulary has 5 words but the topics are over 6";
    QTest::newRow("vocabulary not strings") << "vocab-type" << "vocabulary[2] must be a string, got number";
    QTest::newRow("negative weight") << "negative" << "topics[1][3] must be a finite number >= 0";
    QTest::newRow("topic does not sum to 1") << "sum" << "topics[0] sums to";
    QTest::newRow("alpha zero") << "alpha" << "alpha[1] must be a finite number > 0";
    QTest::newRow("topics missing") << "topics" << "the key \"topics\" is missing";
    QTest::newRow("privacy missing") << "privacy" << "the key \"privacy\" is missing";
    QTest::newRow("private not a bool") << "private" << "\"private\" must be true or false, got string";
    QTest::newRow("bad fingerprint") << "fingerprint" << "fingerprint must be \"xxh3-64:\" and 16 hex digits";
    QTest::newRow("sizes disagree") << "ragged" << "topics[1] has 5 numbers but topics[0] has 6";
    QTest::newRow("not JSON") << "syntax" << "not valid JSON";
  }
  void refusals() {
    QFETCH(QString, which);
    QFETCH(QString, expected);
    const ModelFile m = sampleModel();
    std::string text;
    const std::string w = which.toStdString();
    if (w == "syntax") {
      text = modelFileToJson(m).substr(0, 40);
    } else {
      text = edited(m, [&](nlohmann::json& j) {
        if (w == "format") j["format"] = "dplda-truth";
        if (w == "version") j["version"] = 2;
        if (w == "vocab-size") j["vocabulary"].erase(5);
        if (w == "vocab-type") j["vocabulary"][2] = 7;
        if (w == "negative") {
          j["topics"][1][3] = -0.25;
          j["topics"][1][4] = j["topics"][1][4].get<double>() + 0.5;
        }
        if (w == "sum") j["topics"][0][0] = j["topics"][0][0].get<double>() + 0.01;
        if (w == "alpha") j["alpha"][1] = 0;
        if (w == "topics") j.erase("topics");
        if (w == "privacy") j.erase("privacy");
        if (w == "private") j["private"] = "yes";
        if (w == "fingerprint") j["training_corpus"]["fingerprint"] = "md5:abc";
        if (w == "ragged") j["topics"][1].erase(5);
      });
    }
    auto r = parseModelFile(text, "m.json");
    QVERIFY(!r.ok());
    QCOMPARE(r.status().code(), StatusCode::BadInput);
    QVERIFY2(r.status().message().find(expected.toStdString()) != std::string::npos, r.status().message().c_str());
    QVERIFY2(r.status().message().rfind("m.json", 0) == 0, r.status().message().c_str());  // names the file
  }

  void writingAnInvalidModelIsRefused() {
    QTemporaryDir dir;
    ModelFile m = sampleModel();
    m.vocabulary.pop_back();
    const std::string path = dir.filePath("m.json").toStdString();
    const Status st = writeModelFile(m, path);
    QCOMPARE(st.code(), StatusCode::BadInput);
    QVERIFY(!QFile::exists(QString::fromStdString(path)));
  }

  void vocabularyCheckNamesTheFirstDifference() {
    Corpus c = buildCorpus(1, 3, {{0, 0, 3.0}}, {"apple", "bear", "cat"}).value();
    QVERIFY(checkSameVocabulary({"apple", "bear", "cat"}, c, "the corpus").isOk());
    const Status st = checkSameVocabulary({"apple", "beer", "cat"}, c, "the corpus");
    QCOMPARE(st.code(), StatusCode::BadInput);
    QVERIFY2(st.message().find("word 2 is 'bear' there but 'beer' in the model") != std::string::npos,
             st.message().c_str());
    const Status size = checkSameVocabulary({"apple", "bear", "cat", "dog"}, c, "the corpus");
    QVERIFY2(size.message().find("has 3 words but the model's has 4") != std::string::npos, size.message().c_str());
  }

  void fingerprintSeesOneCount() {
    const Corpus a = buildCorpus(2, 3, {{0, 0, 3.0}, {1, 1, 2.0}, {1, 2, 1.0}}).value();
    const Corpus same = buildCorpus(2, 3, {{0, 0, 3.0}, {1, 1, 2.0}, {1, 2, 1.0}}).value();
    const Corpus other = buildCorpus(2, 3, {{0, 0, 3.0}, {1, 1, 1.0}, {1, 2, 2.0}}).value();
    QCOMPARE(corpusFingerprint(a), corpusFingerprint(same));
    QVERIFY(corpusFingerprint(a) != corpusFingerprint(other));
    QCOMPARE(fingerprintText(0xabcULL), std::string("xxh3-64:0000000000000abc"));
  }
};

QTEST_APPLESS_MAIN(TestModelFile)
#include "tst_model_file.moc"
