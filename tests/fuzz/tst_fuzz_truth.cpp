// The truth.json fuzz campaign (issue 15, docs/FUZZING.md): seeded mutations of a valid truth
// file (broken JSON, hostile numbers, duplicate keys, raw and escaped control characters, BOM,
// CRLF, deep nesting, many keys, wrong shapes, out-of-range alpha, more topics than fitted).
// Each case goes through parseTruthJson in this process and through
// `dplda run --corpus BASE --topics 3 --truth CASE` under a time and memory limit, with the
// checks of the corpus campaign (fuzz_support.h) and: an accepted truth is a valid model, a
// refusal names the file, the errors of a successful run are finite numbers.
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <functional>

#include "core/corpus/synthetic_generator.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "fuzz/fuzz_support.h"

using namespace dplda;

namespace {

struct Family {
  const char* name;
  bool preservesMeaning;
  std::function<void(std::string&, fuzz::Rng&)> mutate;
};

// Inserts `member` ("\"key\": value,") right after the opening brace of the top object.
void addMember(std::string& t, const std::string& member) {
  const auto brace = t.find('{');
  if (brace == std::string::npos) t = "{" + member + t;
  else t.insert(brace + 1, member);
}

// A key no other mutation of the case uses (stacked mutations must not collide by accident).
std::string uniqueKey(const char* stem, fuzz::Rng& r) { return std::string("\"") + stem + std::to_string(r.next() % 1000000007) + "\""; }

std::vector<Family> families() {
  using fuzz::Rng;
  std::vector<Family> f;
  f.push_back({"truncate", false, [](std::string& t, Rng& r) { t.resize(r.below(t.size() + 1)); }});
  f.push_back({"delete-byte", false, [](std::string& t, Rng& r) {
                 if (!t.empty()) t.erase(r.below(t.size()), 1 + r.below(3));
               }});
  f.push_back({"insert-syntax", false, [](std::string& t, Rng& r) {
                 static const std::string chars = "[]{},:\"-.eE+0 \n\\/";
                 fuzz::insertAt(t, r, std::string(1, chars[r.below(chars.size())]));
               }});
  f.push_back({"hostile-number", false, [](std::string& t, Rng& r) {
                 fuzz::replaceNumber(t, r, r.pick(fuzz::hostileNumbers()));
               }});
  f.push_back({"duplicate-key", false, [](std::string& t, Rng& r) {
                 addMember(t, r.chance(50) ? "\"alpha\": [1, 1, 1]," : "\"topics\": [],");
               }});
  f.push_back({"control-raw", false, [](std::string& t, Rng& r) {
                 fuzz::insertAt(t, r, r.pick(fuzz::controlSnippets()));
               }});
  // Escaped in the JSON, raw once parsed: a key or a value that reaches a message.
  f.push_back({"control-escaped", false, [](std::string& t, Rng& r) {
                 static const std::vector<std::string> keys = {"\\u001b[31mred", "a\\u0000b", "cr\\r\\n",
                                                               "\\u009b2J", "\\u202eevil", "\\u2028line"};
                 const std::string k = r.pick(keys);
                 if (r.chance(50)) addMember(t, "\"" + k + "\": 1, \"" + k + "\": 2,");  // duplicate: quoted
                 else addMember(t, "\"note\": \"" + k + "\",");
               }});
  f.push_back({"bom", true, [](std::string& t, Rng&) {
                 if (t.rfind("\xEF\xBB\xBF", 0) != 0) t = "\xEF\xBB\xBF" + t;  // one mark, not two
               }});
  f.push_back({"crlf", true, [](std::string& t, Rng&) {
                 std::string o;
                 for (char c : t) o += c == '\n' ? std::string("\r\n") : std::string(1, c);
                 t = o;
               }});
  f.push_back({"whitespace", true, [](std::string& t, Rng& r) {
                 std::string o;
                 for (char c : t) {
                   o += c;
                   if ((c == ',' || c == ':' || c == '[') && r.chance(30)) o += r.chance(50) ? "\n\t " : "  ";
                 }
                 t = o;
               }});
  f.push_back({"extra-keys", true, [](std::string& t, Rng& r) {
                 static const std::vector<std::string> extra = {
                     ": {\"x\": [1, \"a\", null, true, {\"y\": []}]},", ": \"12\",",
                     ": \"caf\\u00e9 \\ud83d\\ude00\",", ": {},", ": -0.0e-0,"};
                 addMember(t, uniqueKey("extra", r) + r.pick(extra));
               }});
  f.push_back({"deep-nesting", false, [](std::string& t, Rng& r) {
                 const int depth = r.chance(50) ? 300 : 200;
                 addMember(t, uniqueKey("deep", r) + ": " + std::string(depth, '[') + std::string(depth, ']') + ",");
               }});
  f.push_back({"big-array", true, [](std::string& t, Rng& r) {
                 std::string a = uniqueKey("big", r) + ": [";
                 const int n = 20000 + static_cast<int>(r.below(200000));
                 for (int i = 0; i < n; ++i) a += i ? ",0" : "0";
                 addMember(t, a + "],");
               }});
  f.push_back({"many-keys", true, [](std::string& t, Rng& r) {
                 std::string m = uniqueKey("obj", r) + ": {";
                 const int n = 20000 + static_cast<int>(r.below(40000));
                 for (int i = 0; i < n; ++i) m.append(i ? ",\"k" : "\"k").append(std::to_string(i)).append("\":").append(std::to_string(i));
                 addMember(t, m + "},");
               }});
  f.push_back({"many-arrays", false, [](std::string& t, Rng& r) {
                 std::string m = uniqueKey("arrays", r) + ": [";
                 const int n = r.chance(50) ? 3000000 : 100000;  // the first is above the value cap
                 for (int i = 0; i < n; ++i) m += i ? ",[]" : "[]";
                 addMember(t, m + "],");
               }});
  f.push_back({"wrong-shape", false, [](std::string& t, Rng& r) {
                 static const std::vector<std::pair<std::string, std::string>> swaps = {
                     {"\"alpha\": [", "\"alpha\": [0.5, "}, {"\"topics\": [", "\"topics\": [1, "},
                     {"\"alpha\": [", "\"alpha\": {\"a\": ["}, {"\"topics\": [", "\"topics\": [[1], "},
                     {"\"alpha\"", "\"Alpha\""}, {"\"topics\": [", "\"topics\": [[0.5, 0.5], "}};
                 const auto& [from, to] = r.pick(swaps);
                 const auto at = t.find(from);
                 if (at != std::string::npos) t.replace(at, from.size(), to);
               }});
  f.push_back({"alpha-range", false, [](std::string& t, Rng& r) {
                 static const std::vector<std::string> values = {"1e7", "1e308", "5e-324", "0", "-0.0", "1e6"};
                 const auto at = t.find("\"alpha\": [");
                 if (at == std::string::npos) return;
                 const auto start = at + 10, end = t.find_first_of(",]", start);
                 t.replace(start, end - start, r.pick(values));
               }});
  f.push_back({"scale-topic", false, [](std::string& t, Rng& r) {
                 const auto at = t.find("\"topics\": [");
                 if (at == std::string::npos) return;
                 std::string tail = t.substr(at);
                 fuzz::replaceNumber(tail, r, r.chance(50) ? "0.9" : "1e-320");
                 t = t.substr(0, at) + tail;
               }});
  // Four topics over the same words (a valid truth, but more topics than --topics 3 fits).
  f.push_back({"more-topics", false, [](std::string& t, Rng&) {
                 const auto a = t.find("\"alpha\": [");
                 const auto tp = t.find("\"topics\": [");
                 if (a == std::string::npos || tp == std::string::npos) return;
                 t.insert(a + 10, "1, ");
                 std::string topic = "[1";
                 for (int i = 1; i < 30; ++i) topic += ", 0";
                 t.insert(t.find("\"topics\": [") + 11, topic + "], ");
               }});
  f.push_back({"random-bytes", false, [](std::string& t, Rng& r) {
                 const int n = 1 + static_cast<int>(r.below(6));
                 for (int i = 0; i < n && !t.empty(); ++i) t[r.below(t.size())] = static_cast<char>(r.below(256));
               }});
  f.push_back({"empty", false, [](std::string& t, Rng& r) {
                 static const std::vector<std::string> v = {"", " ", "{}", "[]", "null", "\"x\"", "{\"alpha\":"};
                 t = r.pick(v);
               }});
  return f;
}

}  // namespace

class TestFuzzTruth : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  std::string m_truth;
  QString m_corpus;

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    GeneratorParams p;
    p.vocabSize = 30;
    p.topicCount = 3;
    p.docCount = 300;
    p.meanLength = 20;
    p.seed = 5;
    const auto gen = generateLdaCorpus(p);
    QVERIFY(gen.ok());
    m_corpus = m_tmp.filePath("corpus");
    QVERIFY(writeUciCorpus(gen->corpus, m_corpus.toStdString()).isOk());
    m_truth = truthToJson(gen->truth);
    QVERIFY(parseTruthJson(m_truth).ok());
  }

  void campaign() {
    const std::vector<Family> fams = families();
    const int cases = fuzz::caseCount(200);
    const std::uint64_t seed = fuzz::campaignSeed();
    fuzz::Tally tally;
    QStringList failures;
    double slowest = 0;
    for (int i = 0; i < cases; ++i) {
      fuzz::Rng rng(fuzz::mix(seed * 2000003ull + static_cast<std::uint64_t>(i)));
      std::string text = m_truth;
      const Family& family = i < static_cast<int>(fams.size()) ? fams[i] : rng.pick(fams);
      family.mutate(text, rng);
      QString name = family.name;
      bool preserves = family.preservesMeaning;
      if (i >= static_cast<int>(fams.size()) && rng.chance(20)) {
        const Family& more = rng.pick(fams);
        more.mutate(text, rng);
        name += QString("+") + more.name;
        preserves = preserves && more.preservesMeaning;
      }
      const QString dir = m_tmp.filePath(QString("case-%1").arg(i));
      QDir().mkpath(dir);
      const QString path = dir + "/truth.json";
      {
        std::ofstream out(path.toStdString(), std::ios::binary);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
      }

      QStringList problems;
      const auto parsed = parseTruthJson(text, "t.json");
      if (parsed.ok()) {
        const Status valid = validateLdaModel(parsed.value());
        if (!valid.isOk()) problems << "parsed an invalid model: " + QString::fromStdString(valid.message());
      } else {
        const std::string& m = parsed.status().message();
        if (dplda::hasEscapedText(m)) problems << "parser message holds a control byte";
        if (m.find("t.json") == std::string::npos) problems << "parser message names no file";
      }
      if (preserves && !parsed.ok())
        problems << "a mutation that keeps the truth was refused: " + QString::fromStdString(parsed.status().message());

      const QString json = dir + "/out.json";
      const QStringList args{"run", "--corpus", m_corpus, "--topics", "3", "--truth", path, "--json", json};
      const fuzz::Outcome o = fuzz::runDplda(args);
      slowest = std::max(slowest, o.seconds);
      problems << fuzz::commonProblems(o, "run", {0, 3, 4});
      if (!parsed.ok() && o.code != 3) problems << QString("the parser refused the truth but dplda run exited %1").arg(o.code);
      if (o.code == 3 && !o.err.contains("truth")) problems << "the refusal names no truth file";
      if (o.code == 0) {
        QFile f(json);
        const QJsonObject out = f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
        const QJsonObject err = out.value("error").toObject();
        for (const char* key : {"l2_mean", "l1_mean", "alpha"})
          if (!err.value(key).isDouble()) problems << QString("error.%1 is not a finite number").arg(key);
        for (const QString& line : fuzz::nonEmptyLines(o.out))
          if (line.startsWith("error vs truth") && fuzz::hasNonFiniteWord(line)) problems << "non-finite error: " + line;
      }
      const QString outcome = o.timedOut ? "hang" : o.crashed ? "crash" : QString("exit%1").arg(o.code);
      tally.add(name.section('+', 0, 0) + (name.contains('+') ? "+stacked" : ""), problems.isEmpty() ? outcome : "FAIL");
      if (!problems.isEmpty())
        failures << fuzz::keepFailure("truth", i, name, dir, problems, "dplda " + args.join(' '));
      QDir(dir).removeRecursively();
    }
    qInfo("truth fuzz: %d cases, seed %llu, slowest case %.2f s\n%s", cases, static_cast<unsigned long long>(seed),
          slowest, qPrintable(tally.table()));
    QVERIFY2(failures.isEmpty(), qPrintable(QString("%1 failing cases:\n").arg(failures.size()) +
                                            failures.mid(0, 30).join('\n')));
  }
};

DPLDA_FUZZ_MAIN(TestFuzzTruth)
#include "tst_fuzz_truth.moc"
