// The session fuzz campaign (issue 15, docs/FUZZING.md): seeded mutations of a valid session
// file, at the byte level (broken JSON, BOM, CRLF, control bytes, hostile numbers) and at the
// value level (type swaps, out-of-range numbers, control characters in strings, garbage pinned
// runs and pinned sweeps, huge files). Every case goes through the app's loader
// (ui/session/session.cpp) in this process:
//  - a refusal is one line that names the session, without control characters;
//  - an accepted session survives validateSession (its messages escaped too) and a save/load
//    round trip unchanged.
// The first DPLDA_FUZZ_EXPLORER accepted sessions (default 8) are also opened by the desktop
// app, `dplda-explorer --screenshot` (run, sweep, render, exit), under the time and memory limit.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>

#include "fuzz/fuzz_support.h"
#include "ui/session/session.h"

using namespace dplda;

namespace {

QString explorerPath() {
  // dplda-explorer is built beside dplda.
  return QFileInfo(qEnvironmentVariable("DPLDA_CLI")).dir().filePath("dplda-explorer");
}

SessionState baseState() {
  SessionState s;
  s.generator.vocabSize = 20;
  s.generator.topicCount = 3;
  s.generator.docCount = 600;
  s.generator.meanLength = 30;
  s.edges = presetEdges(Preset::Config1);
  s.epsilon = 2.0;
  s.noiseSeed = 7;
  s.trials = 1;
  s.sweepEpsilons = "1,4";
  s.pinned = QJsonArray{QJsonObject{{"run", 3}, {"label", "config 2"}, {"epsilon", 0.5}, {"error", 0.1}}};
  s.pinnedSweeps = QJsonArray{QJsonObject{
      {"label", "figure2"},
      {"figures", QJsonObject{{"error_l2", QJsonArray{QJsonObject{{"config", "config 1"},
                                                                 {"style", 1},
                                                                 {"eps", QJsonArray{0.1, 1}},
                                                                 {"median", QJsonArray{0.4, QJsonValue()}}}}}}}}};
  s.lessonTitle = "fuzz";
  s.lessonText = "a lesson";
  return s;
}

// Every (section, key) of a session, for value mutations.
const std::vector<std::pair<QString, QString>>& keys() {
  static const std::vector<std::pair<QString, QString>> k = {
      {"corpus", "source"},       {"corpus", "path"},         {"corpus", "separator"},   {"generator", "vocab"},
      {"generator", "topics"},    {"generator", "docs"},      {"generator", "alpha0"},   {"generator", "prior"},
      {"generator", "beta"},      {"generator", "doc_length"}, {"generator", "fixed_length"}, {"generator", "seed"},
      {"model", "decomposer"},    {"model", "init_seed"},     {"privacy", "edges"},      {"privacy", "epsilon"},
      {"privacy", "delta"},       {"privacy", "mechanism"},   {"privacy", "bounds"},     {"privacy", "share_releases"},
      {"privacy", "split"},       {"privacy", "noise_seed"},  {"privacy", "max_length"}, {"sweep", "trials"},
      {"sweep", "epsilons"},      {"sweep", "compare_presets"}, {"lesson", "title"},     {"lesson", "text"},
      {"", "version"},            {"", "format"},             {"", "pinned"},            {"", "pinned_sweeps"}};
  return k;
}

QJsonValue hostileValue(fuzz::Rng& r) {
  switch (r.below(9)) {
    case 0: return QJsonValue();
    case 1: return r.chance(50);
    case 2: {
      static const std::vector<double> v = {0, -1, -0.0, 0.5, 1e308, -1e308, 5e-324, 1e-320, 2147483647.0,
                                            2147483648.0, 9007199254740993.0, 1e15, 1e16, 1e6, 1000001, 3, 2};
      return r.pick(v);
    }
    case 3: return QString::fromStdString(r.pick(fuzz::hostileNumbers()));
    case 4: return QString::fromStdString("x" + r.pick(fuzz::controlSnippets()) + "y");
    case 5: return QJsonArray{1, "e5", QJsonValue(), QJsonObject{}};
    case 6: return QJsonObject{{"a", 1}};
    case 7: {
      static const std::vector<QString> words = {"e5,e6", "config 2", " 2 ", "1 ", "none", "uniform", "1,2,3",
                                                 "0.1:10:7", "0.1:10:1001", "robust", "laplace", "printed",
                                                 "symmetric", "text", "uci", "18446744073709551616", "-5"};
      return r.pick(words);
    }
    default: return QString(r.chance(50) ? 70000 : 300, QChar(r.chance(50) ? 'a' : 0x1b));
  }
}

QJsonValue garbagePinnedSweeps(fuzz::Rng& r) {
  QJsonArray pins;
  const int n = static_cast<int>(r.below(4));
  for (int i = 0; i < n; ++i) {
    QJsonArray eps, median;
    const int m = static_cast<int>(r.below(5));
    for (int j = 0; j < m; ++j) {
      eps.append(r.chance(85) ? QJsonValue(0.1 * (j + 1)) : hostileValue(r));
      median.append(r.chance(85) ? QJsonValue(0.5) : hostileValue(r));
    }
    if (r.chance(15)) median.append(1.0);
    QJsonObject curve{{"config", r.chance(80) ? QJsonValue("c") : hostileValue(r)},
                      {"style", r.chance(70) ? QJsonValue(static_cast<int>(r.below(8))) : hostileValue(r)},
                      {"eps", r.chance(90) ? QJsonValue(eps) : hostileValue(r)},
                      {"median", r.chance(90) ? QJsonValue(median) : hostileValue(r)}};
    const QString figure = r.chance(70) ? "error_l2" : QString::fromStdString(r.pick(fuzz::controlSnippets()));
    pins.append(QJsonObject{{"label", r.chance(80) ? QJsonValue("pin") : hostileValue(r)},
                            {"figures", r.chance(90) ? QJsonValue(QJsonObject{{figure, QJsonArray{curve}}})
                                                     : hostileValue(r)}});
  }
  if (r.chance(10)) pins.append(hostileValue(r));
  return pins;
}

struct Family {
  const char* name;
  bool preservesMeaning;
  // Mutates the JSON object (structure) or, when text is set, the bytes of the file.
  std::function<void(QJsonObject&, std::string&, fuzz::Rng&)> mutate;
};

void setValue(QJsonObject& json, const QString& section, const QString& key, const QJsonValue& v) {
  if (section.isEmpty()) {
    json.insert(key, v);
    return;
  }
  QJsonObject o = json.value(section).toObject();
  o.insert(key, v);
  json.insert(section, o);
}

std::string toText(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString(); }

std::vector<Family> families() {
  using fuzz::Rng;
  std::vector<Family> f;
  f.push_back({"value", false, [](QJsonObject& j, std::string& t, Rng& r) {
                 const auto& [section, key] = r.pick(keys());
                 setValue(j, section, key, hostileValue(r));
                 t = toText(j);
               }});
  f.push_back({"values", false, [](QJsonObject& j, std::string& t, Rng& r) {
                 const int n = 2 + static_cast<int>(r.below(4));
                 for (int i = 0; i < n; ++i) {
                   const auto& [section, key] = r.pick(keys());
                   setValue(j, section, key, hostileValue(r));
                 }
                 t = toText(j);
               }});
  f.push_back({"section-type", false, [](QJsonObject& j, std::string& t, Rng& r) {
                 static const std::vector<QString> sections = {"corpus", "generator", "model", "privacy",
                                                               "sweep", "lesson"};
                 j.insert(r.pick(sections), hostileValue(r));
                 t = toText(j);
               }});
  f.push_back({"remove-keys", true, [](QJsonObject& j, std::string& t, Rng& r) {
                 const int n = 1 + static_cast<int>(r.below(6));
                 for (int i = 0; i < n; ++i) {
                   const auto& [section, key] = r.pick(keys());
                   if (section.isEmpty()) {
                     j.remove(key);
                   } else {
                     QJsonObject o = j.value(section).toObject();
                     o.remove(key);
                     j.insert(section, o);
                   }
                 }
                 t = toText(j);
               }});
  f.push_back({"pinned-sweeps", false, [](QJsonObject& j, std::string& t, Rng& r) {
                 j.insert("pinned_sweeps", garbagePinnedSweeps(r));
                 t = toText(j);
               }});
  f.push_back({"pinned-runs", false, [](QJsonObject& j, std::string& t, Rng& r) {
                 QJsonArray pins;
                 const int n = static_cast<int>(r.below(5));
                 for (int i = 0; i < n; ++i)
                   pins.append(r.chance(80) ? QJsonValue(QJsonObject{{"run", hostileValue(r)},
                                                                     {"label", hostileValue(r)},
                                                                     {"epsilon", hostileValue(r)},
                                                                     {"error", hostileValue(r)},
                                                                     {"error_kind", hostileValue(r)}})
                                            : hostileValue(r));
                 j.insert("pinned", pins);
                 t = toText(j);
               }});
  f.push_back({"control-strings", false, [](QJsonObject& j, std::string& t, Rng& r) {
                 static const std::vector<std::pair<QString, QString>> strings = {
                     {"corpus", "source"}, {"corpus", "path"}, {"generator", "prior"}, {"model", "decomposer"},
                     {"privacy", "mechanism"}, {"privacy", "bounds"}, {"privacy", "split"},
                     {"privacy", "edges"}, {"sweep", "epsilons"}, {"generator", "seed"}, {"lesson", "text"},
                     {"corpus", "separator"}};
                 const auto& [section, key] = r.pick(strings);
                 const QString v = QString::fromStdString("1" + r.pick(fuzz::controlSnippets()) + "2");
                 setValue(j, section, key, v);
                 t = toText(j);
               }});
  f.push_back({"truncate", false, [](QJsonObject&, std::string& t, Rng& r) { t.resize(r.below(t.size() + 1)); }});
  f.push_back({"insert-syntax", false, [](QJsonObject&, std::string& t, Rng& r) {
                 static const std::string chars = "[]{},:\"-.eE+0 \n\\";
                 fuzz::insertAt(t, r, std::string(1, chars[r.below(chars.size())]));
               }});
  f.push_back({"hostile-number", false, [](QJsonObject&, std::string& t, Rng& r) {
                 fuzz::replaceNumber(t, r, r.pick(fuzz::hostileNumbers()));
               }});
  f.push_back({"control-raw", false, [](QJsonObject&, std::string& t, Rng& r) {
                 fuzz::insertAt(t, r, r.pick(fuzz::controlSnippets()));
               }});
  f.push_back({"random-bytes", false, [](QJsonObject&, std::string& t, Rng& r) {
                 const int n = 1 + static_cast<int>(r.below(6));
                 for (int i = 0; i < n && !t.empty(); ++i) t[r.below(t.size())] = static_cast<char>(r.below(256));
               }});
  f.push_back({"crlf", true, [](QJsonObject&, std::string& t, Rng&) {
                 std::string o;
                 for (char c : t) o += c == '\n' ? std::string("\r\n") : std::string(1, c);
                 t = o;
               }});
  f.push_back({"huge-file", false, [](QJsonObject& j, std::string& t, Rng& r) {
                 setValue(j, "lesson", "text", QString(r.chance(50) ? (17 << 20) : (1 << 20), 'x'));
                 t = toText(j);
               }});
  f.push_back({"deep-nesting", false, [](QJsonObject&, std::string& t, Rng& r) {
                 const int depth = r.chance(50) ? 2000 : 600;
                 t.insert(t.find('{') + 1, "\"deep\": " + std::string(depth, '[') + std::string(depth, ']') + ",");
               }});
  f.push_back({"empty", false, [](QJsonObject&, std::string& t, Rng& r) {
                 static const std::vector<std::string> v = {"", " ", "{}", "[]", "null", "\"x\"", "{\"version\":"};
                 t = r.pick(v);
               }});
  return f;
}

}  // namespace

class TestFuzzSession : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    QVERIFY(validateSession(baseState()).isEmpty());
  }

  void campaign() {
    const std::vector<Family> fams = families();
    const int cases = fuzz::caseCount(400);
    const int explorerRuns = qEnvironmentVariableIsSet("DPLDA_FUZZ_EXPLORER")
                                 ? qEnvironmentVariableIntValue("DPLDA_FUZZ_EXPLORER")
                                 : 8;
    const bool haveExplorer = QFileInfo::exists(explorerPath());
    const std::uint64_t seed = fuzz::campaignSeed();
    const QJsonObject base = sessionToJson(baseState());
    fuzz::Tally tally;
    QStringList failures;
    int explorerDone = 0;
    for (int i = 0; i < cases; ++i) {
      fuzz::Rng rng(fuzz::mix(seed * 3000017ull + static_cast<std::uint64_t>(i)));
      QJsonObject json = base;
      std::string text = toText(json);
      const Family& family = i < static_cast<int>(fams.size()) ? fams[i] : rng.pick(fams);
      family.mutate(json, text, rng);
      const QString dir = m_tmp.filePath(QString("case-%1").arg(i));
      QDir().mkpath(dir);
      const QString path = dir + "/session.json";
      {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.data(), static_cast<qint64>(text.size()));
      }

      QStringList problems;
      QString outcome;
      const auto loaded = loadSession(path);
      if (!loaded.ok()) {
        outcome = "refused";
        const std::string& m = loaded.status().message();
        if (dplda::hasEscapedText(m)) problems << "message holds a control byte: " + QString::fromStdString(dplda::quoteText(m, 200));
        if (m.find("session") == std::string::npos) problems << "message does not name the session";
        if (family.preservesMeaning) problems << "a mutation that keeps the session was refused: " + QString::fromStdString(m);
      } else {
        const SessionState& s = loaded.value();
        const QMap<QString, QString> invalid = validateSession(s);
        outcome = invalid.isEmpty() ? "accepted" : "accepted-invalid";
        for (const QString& msg : invalid)
          if (dplda::hasEscapedText(msg.toStdString())) problems << "validation message holds a control byte";
        const QString again = dir + "/again.json";
        const Status saved = saveSession(s, again);
        if (!saved.isOk()) problems << "an accepted session cannot be saved: " + QString::fromStdString(saved.message());
        const auto reloaded = loadSession(again);
        if (!reloaded.ok()) problems << "a saved session does not load: " + QString::fromStdString(reloaded.status().message());
        else if (!(reloaded.value() == s)) problems << "the save/load round trip changed the session";

        // The desktop app on the first accepted sessions that validate.
        if (invalid.isEmpty() && haveExplorer && explorerDone < explorerRuns) {
          ++explorerDone;
          const fuzz::Outcome o = fuzz::runProgram(explorerPath(), {"--screenshot", dir + "/shot.png", path});
          QStringList ep;
          if (o.timedOut) ep << "explorer hang";
          if (o.crashed) ep << "explorer crash";
          if (o.err.contains("Sanitizer") || o.err.contains("runtime error:")) ep << "explorer sanitizer report: " + QString::fromUtf8(o.err.left(600));
          if (!o.timedOut && !o.crashed && o.code != 0) ep << QString("explorer exit %1: %2").arg(o.code).arg(QString::fromUtf8(o.err.trimmed().left(300)));
          if (const QString c = fuzz::controlIn(o.err); !c.isEmpty()) ep << "explorer control byte on stderr: " + c;
          problems << ep;
          outcome += "+explorer";
        }
      }
      tally.add(family.name, problems.isEmpty() ? outcome : "FAIL");
      if (!problems.isEmpty())
        failures << fuzz::keepFailure("session", i, family.name, dir, problems,
                                      haveExplorer ? explorerPath() + " --screenshot shot.png " + path : path);
      QDir(dir).removeRecursively();
    }
    qInfo("session fuzz: %d cases, seed %llu, %d opened in dplda-explorer\n%s", cases,
          static_cast<unsigned long long>(seed), explorerDone, qPrintable(tally.table()));
    QVERIFY2(failures.isEmpty(), qPrintable(QString("%1 failing cases:\n").arg(failures.size()) +
                                            failures.mid(0, 30).join('\n')));
  }
};

DPLDA_FUZZ_MAIN(TestFuzzSession)
#include "tst_fuzz_session.moc"
