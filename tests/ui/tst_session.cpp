// Session JSON (every parameter survives a round trip, bad files are refused with a message
// naming the key), field validation, and the undo stack of SessionModel.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/session/session.h"
#include "ui/session/session_model.h"

using namespace dplda;

class TstSession : public QObject {
  Q_OBJECT

 private:
  static SessionState everyFieldChanged() {
    SessionState s;
    s.source = SessionState::Source::Uci;
    s.corpusPath = "/data/nips";
    s.generator.vocabSize = 77;
    s.generator.topicCount = 6;
    s.generator.docCount = 12345;
    s.generator.alpha0 = 2.5;
    s.generator.prior = GeneratorParams::Prior::Symmetric;
    s.generator.beta = 0.37;
    s.generator.meanLength = 42;
    s.generator.fixedLength = true;
    s.generator.seed = 18446744073709551615ull;  // needs all 64 bits
    s.decomposer = "simultaneous";
    s.initSeed = 9007199254740993ull;  // not representable as a double
    s.edges = (1u << 1) | (1u << 4) | (1u << 8);
    s.epsilon = 0.123;
    s.delta = 3e-7;
    s.mechanism = Mechanism::Laplace;
    s.bounds = BoundSet::Printed;
    s.shareReleases = true;
    s.noiseSeed = 424242;
    s.maxLength = 321;
    s.trials = 7;
    s.sweepEpsilons = "0.5,1,8";
    s.textFormat = TextFormat::JsonLines;
    s.textColumn = "body";
    s.comparePresets = true;
    s.separator = "--";
    s.splitWeights = {3, 1};
    s.pinned = QJsonArray{QJsonObject{{"run", 3}, {"label", "config 2"}, {"epsilon", 0.5}, {"error", 0.1}}};
    s.pinnedSweeps = QJsonArray{QJsonObject{
        {"label", "figure2"},
        {"figures", QJsonObject{{"error_l2", QJsonArray{QJsonObject{{"config", "config 1"}, {"eps", QJsonArray{0.1, 1}},
                                                                     {"median", QJsonArray{0.4, QJsonValue()}}}}}}}}};
    s.lessonTitle = "t";
    s.lessonText = "some text";
    return s;
  }

 private slots:
  void roundTripKeepsEveryField() {
    const SessionState s = everyFieldChanged();
    QVERIFY(s != SessionState{});
    QTemporaryDir dir;
    const QString path = dir.filePath("s.json");
    QVERIFY(saveSession(s, path).isOk());
    auto r = loadSession(path);
    QVERIFY2(r.ok(), r.status().message().c_str());
    QVERIFY(r.value() == s);
    QCOMPARE(r.value().generator.seed, 18446744073709551615ull);
    QCOMPARE(r.value().initSeed, 9007199254740993ull);
    QCOMPARE(r.value().noiseSeed.value(), 424242ull);
    // Secure noise (no seed) survives too.
    SessionState t = s;
    t.noiseSeed.reset();
    QVERIFY(saveSession(t, path).isOk());
    QVERIFY(!loadSession(path).value().noiseSeed.has_value());
  }

  void missingKeysKeepDefaults() {
    auto r = sessionFromJson(QJsonObject{{"privacy", QJsonObject{{"edges", "config 3"}, {"epsilon", 2.0}}}});
    QVERIFY(r.ok());
    QCOMPARE(r.value().edges, presetEdges(Preset::Config3));
    QCOMPARE(r.value().epsilon, 2.0);
    QCOMPARE(r.value().generator.docCount, GeneratorParams{}.docCount);
    auto none = sessionFromJson(QJsonObject{{"privacy", QJsonObject{{"edges", QJsonArray{}}}}});
    QVERIFY(none.ok());
    QCOMPARE(none.value().edges, EdgeSet(0));
  }

  void badValuesAreRefusedWithTheKey() {
    struct Case {
      QJsonObject json;
      const char* mentions;
    };
    const QVector<Case> cases{
        {QJsonObject{{"generator", QJsonObject{{"docs", "many"}}}}, "generator.docs"},
        {QJsonObject{{"generator", QJsonObject{{"topics", 2.5}}}}, "generator.topics"},
        {QJsonObject{{"generator", QJsonObject{{"seed", "12x"}}}}, "generator.seed"},
        {QJsonObject{{"privacy", QJsonObject{{"edges", QJsonArray{"e12"}}}}}, "privacy.edges"},
        {QJsonObject{{"privacy", QJsonObject{{"mechanism", "magic"}}}}, "privacy.mechanism"},
        {QJsonObject{{"corpus", QJsonObject{{"source", "ftp"}}}}, "corpus.source"},
        {QJsonObject{{"version", 99}}, "version"},
        {QJsonObject{{"pinned_sweeps", "figure2"}}, "pinned_sweeps"},
        // A carried vocabulary selection (ui/worker/released_vocabularies.h) is checked before use.
        {QJsonObject{{"corpus", QJsonObject{{"released_selection", "words"}}}}, "corpus.released_selection"},
        {QJsonObject{{"corpus", QJsonObject{{"released_selection", QJsonObject{{"options", "text:50"},
                                                                                {"epsilon", 1.0},
                                                                                {"delta", 1e-6},
                                                                                {"words_per_document", 20},
                                                                                {"words", QJsonArray{"a", 7}}}}}}},
         "corpus.released_selection.words"},
        {QJsonObject{{"corpus", QJsonObject{{"released_selection", QJsonObject{{"options", "text:50"},
                                                                                {"epsilon", -1.0},
                                                                                {"words", QJsonArray{"a"}}}}}}},
         "corpus.released_selection.epsilon"},
    };
    for (const Case& c : cases) {
      auto r = sessionFromJson(c.json);
      QVERIFY2(!r.ok(), c.mentions);
      QVERIFY2(QString::fromStdString(r.status().message()).contains(c.mentions), r.status().message().c_str());
    }
    QTemporaryDir dir;
    QFile f(dir.filePath("broken.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"generator\": ");
    f.close();
    auto r = loadSession(f.fileName());
    QVERIFY(!r.ok());
    QVERIFY(QString::fromStdString(r.status().message()).contains("not valid JSON"));
    QVERIFY(!loadSession(dir.filePath("missing.json")).ok());
  }

  void validationNamesTheField() {
    SessionState s;
    QVERIFY(validateSession(s).isEmpty());
    s.generator.topicCount = 60;  // d = 50
    QVERIFY(validateSession(s).value("topics").contains("k ≤ d"));
    s = {};
    s.sweepEpsilons = "0.1:x:3";  // the sweep's grid names itself
    QVERIFY(validateSession(s).value("sweep_epsilons").contains("epsilons"));
    s.sweepEpsilons = "0.1:10:51";
    QVERIFY(validateSession(s).value("sweep_epsilons").contains("at most 50"));
    s = {};
    s.epsilon = 0;
    QVERIFY(validateSession(s).contains("epsilon"));
    s = {};
    s.delta = 1;
    QVERIFY(validateSession(s).contains("delta"));
    s = {};
    s.source = SessionState::Source::Uci;
    QVERIFY(validateSession(s).contains("corpus"));
    s = {};
    s.mechanism = Mechanism::ClassicGaussian;
    s.epsilon = 10;  // ≥ 1 per release
    QVERIFY(validateSession(s).value("epsilon").contains("classic"));
    QVERIFY(!parseSeed("-1", "seed").ok());
    QVERIFY(!parseSeed("18446744073709551616", "seed").ok());
    QCOMPARE(parseSeed(" 17 ", "seed").value(), 17ull);
  }

  void undoRedoRestoresStates() {
    SessionModel m;
    QSignalSpy spy(&m, &SessionModel::stateChanged);
    SessionState a = m.state();
    SessionState b = a;
    b.epsilon = 0.5;
    m.edit(b, "change ε");
    QCOMPARE(m.state().epsilon, 0.5);
    m.edit(b, "no-op");  // unchanged: no undo step
    QCOMPARE(m.undoStack()->count(), 1);
    SessionState c = b;
    c.generator.docCount = 999;
    m.edit(c, "change N");
    m.undoStack()->undo();
    QCOMPARE(m.state().generator.docCount, a.generator.docCount);
    QCOMPARE(m.state().epsilon, 0.5);
    m.undoStack()->undo();
    QVERIFY(m.state() == a);
    m.undoStack()->redo();
    m.undoStack()->redo();
    QVERIFY(m.state() == c);
    QCOMPARE(spy.count(), 6);
  }

  void sliderEditsMerge() {
    SessionModel m;
    for (double eps : {0.2, 0.3, 0.4}) {
      SessionState s = m.state();
      s.epsilon = eps;
      m.edit(s, "change ε", 1);
    }
    QCOMPARE(m.undoStack()->count(), 1);
    m.undoStack()->undo();
    QCOMPARE(m.state().epsilon, 1.0);
  }

  void textSourceAndSplitRoundTrip() {
    SessionState s;
    s.source = SessionState::Source::Text;
    s.corpusPath = "/data/fortunes";
    s.separator = "%";
    s.generator.vocabSize = 40;
    s.splitWeights = {1.0, 2.5, 0.1};
    const QJsonObject json = sessionToJson(s);
    QCOMPARE(json.value("corpus").toObject().value("source").toString(), QString("text"));
    QCOMPARE(json.value("corpus").toObject().value("separator").toString(), QString("%"));
    QCOMPARE(json.value("privacy").toObject().value("split").toString(), QString("1,2.5,0.1"));
    auto back = sessionFromJson(json);
    QVERIFY2(back.ok(), back.status().message().c_str());
    QVERIFY(back.value() == s);
    QCOMPARE(back.value().splitWeights, (std::vector<double>{1.0, 2.5, 0.1}));
    // Through a file as well, and the default split is written as "uniform".
    QTemporaryDir dir;
    const QString path = dir.filePath("text.json");
    QVERIFY(saveSession(s, path).isOk());
    auto loaded = loadSession(path);
    QVERIFY(loaded.ok());
    QVERIFY(loaded.value() == s);
    SessionState u = s;
    u.splitWeights.clear();
    QCOMPARE(sessionToJson(u).value("privacy").toObject().value("split").toString(), QString("uniform"));
    QVERIFY(sessionFromJson(sessionToJson(u)).value() == u);
    QVERIFY(u != s);  // equality sees the split
    SessionState v = s;
    v.separator.clear();
    QVERIFY(v != s);  // and the separator
  }

  // Issue 26 §4: the text source's format and column survive a round trip, older files (no
  // "format") load as plain text, a bad format is refused naming it, a table without its column
  // is a field error, and the session's import reads the column it names.
  void textFormatAndColumn() {
    SessionState s;
    s.source = SessionState::Source::Text;
    s.textFormat = TextFormat::Csv;
    s.textColumn = "body";
    const QJsonObject json = sessionToJson(s);
    QCOMPARE(json.value("corpus").toObject().value("format").toString(), QString("csv"));
    QCOMPARE(json.value("corpus").toObject().value("column").toString(), QString("body"));
    QVERIFY(sessionFromJson(json).value() == s);
    SessionState other = s;
    other.textColumn = "title";
    QVERIFY(other != s);

    QJsonObject old = json;
    QJsonObject corpus = old.value("corpus").toObject();
    corpus.remove("format");
    corpus.remove("column");
    old.insert("corpus", corpus);
    QCOMPARE(sessionFromJson(old).value().textFormat, TextFormat::Text);
    corpus.insert("format", "xlsx");
    old.insert("corpus", corpus);
    auto bad = sessionFromJson(old);
    QVERIFY(!bad.ok());
    QVERIFY(QString::fromStdString(bad.status().message()).contains("corpus.format must be text, csv, tsv or jsonl, got 'xlsx'"));

    QTemporaryDir dir;
    s.corpusPath = dir.filePath("notes.csv");
    s.textColumn.clear();
    QVERIFY(validateSession(s).value("text_column").contains("column"));
    s.textColumn = "body";
    QVERIFY(!validateSession(s).contains("text_column"));
    QFile f(s.corpusPath);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("id,body\n1,apple banana cherry\n2,\"banana, cherry\napple\"\n");
    f.close();
    const QString words = dir.filePath("words.txt");
    QFile w(words);
    QVERIFY(w.open(QIODevice::WriteOnly));
    w.write("apple\nbanana\ncherry\n");
    w.close();
    s.vocabularyFile = words;
    s.separator = "%";  // ignored for a table
    TextImportReport report;
    auto corpus2 = importText(textImportParams(s), &report);
    QVERIFY2(corpus2.ok(), corpus2.status().message().c_str());
    QCOMPARE(corpus2->docCount(), 2);
    QCOMPARE(report.documentIds, std::vector<std::string>({"2", "3"}));
  }

  void badSplitIsRefused() {
    for (const char* text : {"1,-2,3", "1,,2", "abc", "0", "1;2"}) {
      QJsonObject json = sessionToJson(SessionState());
      QJsonObject priv = json.value("privacy").toObject();
      priv.insert("split", text);
      json.insert("privacy", priv);
      auto r = sessionFromJson(json);
      QVERIFY2(!r.ok(), text);
      const QString msg = QString::fromStdString(r.status().message());
      QVERIFY2(msg.contains("split") && msg.contains(text), qPrintable(msg));
    }
    auto direct = parseSplitText("2, x");
    QVERIFY(!direct.ok());
    QVERIFY(QString::fromStdString(direct.status().message()).startsWith("split"));
    auto spaced = parseSplitText(" 1, 2 ,3 ");
    QVERIFY(spaced.ok());
    QCOMPARE(spaced.value(), (std::vector<double>{1, 2, 3}));
    QVERIFY(parseSplitText("uniform").value().empty());
    QVERIFY(parseSplitText("").value().empty());
  }

  // Issue 15: session files are hostile input too. Out-of-range values are refused at load with
  // the key and value, user text in messages is escaped, and what the widgets draw is checked.
  void hostileSessionsAreRefusedCleanly() {
    struct Case {
      QJsonObject json;
      const char* mentions;
    };
    const QVector<Case> cases{
        {QJsonObject{{"generator", QJsonObject{{"alpha0", 1e300}}}}, "generator.alpha0 must be in (0, 1000000], got 1e+300"},
        {QJsonObject{{"generator", QJsonObject{{"beta", 1e308}}}}, "generator.beta"},
        {QJsonObject{{"generator", QJsonObject{{"vocab", 2000000}}}}, "generator.vocab must be in 1..1000000"},
        {QJsonObject{{"generator", QJsonObject{{"docs", 0}}}}, "generator.docs"},
        {QJsonObject{{"privacy", QJsonObject{{"epsilon", 1e308}}}}, "privacy.epsilon must be in (0, 1e+15]"},
        {QJsonObject{{"privacy", QJsonObject{{"delta", 1.0}}}}, "privacy.delta must be in (0, 1)"},
        {QJsonObject{{"privacy", QJsonObject{{"max_length", 1e300}}}}, "privacy.max_length must be in [3, 10000000]"},
        {QJsonObject{{"sweep", QJsonObject{{"trials", 0}}}}, "sweep.trials must be in 1..50"},
        {QJsonObject{{"privacy", QJsonObject{{"edges", " 2\u001b"}}}}, "preset '2\\x1b' is unknown"},
        {QJsonObject{{"lesson", QJsonObject{{"text", QString(70000, 'x')}}}}, "lesson.text has 70000 characters"},
        {QJsonObject{{"pinned", QJsonArray{1}}}, "pinned[0] must be an object"},
        {QJsonObject{{"pinned_sweeps",
                      QJsonArray{QJsonObject{{"figures", QJsonObject{{"error_l2", QJsonArray{QJsonObject{
                                                                        {"style", 2147483647},
                                                                        {"eps", QJsonArray{1}},
                                                                        {"median", QJsonArray{1}}}}}}}}}}},
         "style must be a whole number in 0..255"},
        {QJsonObject{{"pinned_sweeps",
                      QJsonArray{QJsonObject{{"figures", QJsonObject{{"error_l2", QJsonArray{QJsonObject{
                                                                        {"eps", QJsonArray{1, -2}},
                                                                        {"median", QJsonArray{1, 1}}}}}}}}}}},
         "eps[1] must be a number > 0"},
        {QJsonObject{{"pinned_sweeps",
                      QJsonArray{QJsonObject{{"figures", QJsonObject{{"error_l2", QJsonArray{QJsonObject{
                                                                        {"eps", QJsonArray{1, 2}},
                                                                        {"median", QJsonArray{1}}}}}}}}}}},
         "equal length"},
    };
    for (const Case& c : cases) {
      auto r = sessionFromJson(c.json);
      QVERIFY2(!r.ok(), c.mentions);
      QVERIFY2(QString::fromStdString(r.status().message()).contains(c.mentions), r.status().message().c_str());
    }
    // Control characters from the file are shown escaped.
    for (const QJsonObject& json :
         {QJsonObject{{"corpus", QJsonObject{{"source", "\u001b[31mftp"}}}},
          QJsonObject{{"privacy", QJsonObject{{"mechanism", "mag\u001bic"}}}},
          QJsonObject{{"generator", QJsonObject{{"seed", "1\r\n2"}}}},
          QJsonObject{{"privacy", QJsonObject{{"split", "1,\u009b2"}}}}}) {
      auto r = sessionFromJson(json);
      QVERIFY(!r.ok());
      for (char ch : r.status().message()) QVERIFY2(static_cast<unsigned char>(ch) >= 0x20, r.status().message().c_str());
    }
    QVERIFY(QString::fromStdString(sessionFromJson(QJsonObject{{"corpus", QJsonObject{{"source", "\u001b[31mftp"}}}})
                                       .status()
                                       .message())
                .contains("'\\x1b[31mftp'"));
    // Files: a folder, and a file far larger than any session.
    QTemporaryDir dir;
    auto folder = loadSession(dir.path());
    QVERIFY(!folder.ok());
    QVERIFY(QString::fromStdString(folder.status().message()).contains("folder"));
    QFile big(dir.filePath("big.json"));
    QVERIFY(big.open(QIODevice::WriteOnly));
    big.write("{\"lesson\": {\"text\": \"");
    big.write(QByteArray(17 << 20, 'x'));
    big.write("\"}}");
    big.close();
    auto r = loadSession(big.fileName());
    QCOMPARE(statusCodeName(r.status().code()), statusCodeName(StatusCode::ResourceLimit));
    QVERIFY(QString::fromStdString(r.status().message()).contains("larger than 16 MiB"));
    // The ranges of validateSession match the loader's.
    SessionState s;
    s.generator.alpha0 = 2e6;
    s.epsilon = 2e15;
    s.maxLength = 2e7;
    s.generator.beta = 2e6;
    const QMap<QString, QString> e = validateSession(s);
    for (const char* key : {"alpha0", "epsilon", "max_length", "beta"}) QVERIFY2(e.contains(key), key);
    s = {};
    s.source = SessionState::Source::Text;
    s.corpusPath = "/x";
    s.generator.vocabSize = 2000000;
    QVERIFY(validateSession(s).value("vocab").contains("1..1000000"));
  }

  void textSourceValidation() {
    SessionState s;
    s.source = SessionState::Source::Text;
    QMap<QString, QString> e = validateSession(s);
    QVERIFY(e.value("corpus").contains("plain-text"));
    s.corpusPath = "/data/some.txt";
    QVERIFY(validateSession(s).isEmpty());
    s.generator.vocabSize = 2;  // k = default > d
    QVERIFY(validateSession(s).value("topics").contains("k ≤ d"));
    s.generator.vocabSize = 50;
    s.generator.docCount = 0;  // generator-only fields are not checked for text
    QVERIFY(validateSession(s).isEmpty());
    s.splitWeights = {1.0, -1.0};
    QVERIFY(validateSession(s).value("split").contains("> 0"));
  }
};

QTEST_MAIN(TstSession)
#include "tst_session.moc"
