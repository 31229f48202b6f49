// The command-line fuzz campaign (issue 15, docs/FUZZING.md): hostile values for every option
// of `dplda generate`, `import-text`, `run` and `sweep`, one option at a time on a small valid
// command (empty strings, blanks around numbers, signs, huge and tiny numbers, nan and inf,
// hexadecimal, control characters, invalid UTF-8, very long values, odd paths such as
// /dev/zero). Every outcome must be an exit status 0, 2, 3 or 4 within the time and memory
// limit, with exactly one clean error line (fuzz_support.h).
//
// Output paths are always inside the campaign's temporary folder.
#include <QTemporaryDir>
#include <QtTest>

#include "core/corpus/synthetic_generator.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "fuzz/fuzz_support.h"

using namespace dplda;

namespace {

enum class Kind { Value, InputPath, OutputPath };

struct Option {
  QString command;
  QString name;
  Kind kind;
  QStringList context = {};  // replaces the base command's privacy options (run) when not empty
};

}  // namespace

class TestFuzzOptions : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  QString m_corpus, m_truth, m_text;

  QStringList baseArgs(const QString& command, const QString& out) const {
    if (command == "generate") return {"generate", "--vocab", "20", "--topics", "3", "--docs", "50", "--out", out};
    if (command == "import-text") return {"import-text", "--input", m_text, "--vocab", "50", "--out", out};
    if (command == "run")
      return {"run", "--corpus", m_corpus, "--topics", "3", "--config", "1", "--noise-seed", "1", "--json",
              out + ".json"};
    return {"sweep", "--corpus", m_corpus, "--topics", "3", "--trials", "1", "--epsilons", "1", "--configs", "none,1",
            "--formats", "none", "--out", out};
  }

  static std::vector<Option> options() {
    std::vector<Option> o;
    for (const char* n : {"vocab", "topics", "docs", "alpha0", "prior", "beta", "doc-length", "seed"})
      o.push_back({"generate", n, Kind::Value});
    o.push_back({"generate", "out", Kind::OutputPath});
    for (const char* n : {"vocab", "min-token-length", "separator"}) o.push_back({"import-text", n, Kind::Value});
    o.push_back({"import-text", "input", Kind::InputPath});
    o.push_back({"import-text", "out", Kind::OutputPath});
    for (const char* n : {"topics", "alpha0", "decomposer", "seed", "top-words", "config", "edges", "epsilon",
                          "delta", "mechanism", "bounds", "split", "noise-seed", "max-length", "accountant",
                          "tpm-accountant"})
      o.push_back({"run", n, Kind::Value});
    o.push_back({"run", "e6", Kind::Value, {"--config", "2", "--noise-seed", "1"}});
    for (const char* n : {"batch-size", "online-iterations"})  // non-private: a private run refuses online
      o.push_back({"run", n, Kind::Value, {"--decomposer", "online"}});
    for (const char* n : {"corpus", "truth"}) o.push_back({"run", n, Kind::InputPath});
    o.push_back({"run", "json", Kind::OutputPath});
    for (const char* n : {"threads", "topics", "alpha0", "configs", "epsilons", "delta", "mechanism", "bounds",
                          "decomposer", "max-length", "seed", "formats", "trials", "accountant"})
      o.push_back({"sweep", n, Kind::Value});
    o.push_back({"sweep", "truth", Kind::InputPath});
    o.push_back({"sweep", "out", Kind::OutputPath});
    return o;
  }

  std::vector<std::string> values(Kind kind, const QString& dir) const {
    std::vector<std::string> v;
    if (kind == Kind::Value) {
      v = fuzz::hostileNumbers();
      for (const std::string& c : fuzz::controlSnippets()) v.push_back("1" + c);
      for (const char* w : {"1 ", " 2", "3\t", "e5,e6 ", "config 2", "none", "uniform", "0.1:10:3", "1,,2", "-",
                            "--", "--help", "1,2,3", "e0,e9", "robust", "laplace", "printed", "gdp", "png,svg",
                            "0.5:0.1:3", "1:1:0", "1e-300:1e15:5"})
        v.push_back(w);
      v.push_back(std::string(5000, '9'));
      v.push_back(std::string(5000, 'x'));
    } else if (kind == Kind::InputPath) {
      const std::string d = dir.toStdString();
      v = {"", "/nonexistent/x", "/dev/null", "/dev/zero", "/etc/passwd", d, d + "/a\x1b[31mb", d + "/file.txt/sub",
           d + "/\xff", m_truth.toStdString(), m_corpus.toStdString() + "/docword.txt"};
    } else {
      const std::string d = dir.toStdString();
      v = {"", d + "/o\x1b[31m", d + "/o\nx", d, d + "/file.txt/sub", d + "/\xff\xfe", d + "/deep/er/still"};
    }
    return v;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    GeneratorParams p;
    p.vocabSize = 30;
    p.topicCount = 3;
    p.docCount = 300;
    p.meanLength = 20;
    const auto gen = generateLdaCorpus(p);
    QVERIFY(gen.ok());
    m_corpus = m_tmp.filePath("corpus");
    QVERIFY(writeUciCorpus(gen->corpus, m_corpus.toStdString()).isOk());
    m_truth = m_corpus + "/truth.json";
    QVERIFY(writeTruthJson(gen->truth, m_truth.toStdString()).isOk());
    m_text = m_tmp.filePath("text.txt");
    QFile t(m_text);
    QVERIFY(t.open(QIODevice::WriteOnly));
    for (int i = 0; i < 40; ++i) t.write("the quick brown fox jumps over the lazy dog near river banks and hills\n");
  }

  void campaign() {
    const std::vector<Option> opts = options();
    // Every (option, value) pair, in a seeded order; CI runs the first DPLDA_FUZZ_CASES.
    std::vector<std::pair<int, int>> pairs;
    std::vector<std::vector<std::string>> valueLists;
    for (std::size_t i = 0; i < opts.size(); ++i) {
      valueLists.push_back(values(opts[i].kind, "DIR"));
      for (std::size_t j = 0; j < valueLists.back().size(); ++j) pairs.push_back({static_cast<int>(i), static_cast<int>(j)});
    }
    fuzz::Rng order(fuzz::mix(fuzz::campaignSeed() * 4000037ull));
    for (std::size_t i = pairs.size(); i > 1; --i) std::swap(pairs[i - 1], pairs[order.below(i)]);
    const int cases = std::min<int>(fuzz::caseCount(250), static_cast<int>(pairs.size()));
    fuzz::Tally tally;
    QStringList failures;
    for (int c = 0; c < cases; ++c) {
      const Option& opt = opts[pairs[c].first];
      const QString dir = m_tmp.filePath(QString("case-%1").arg(c));
      QDir().mkpath(dir);
      QFile(dir + "/file.txt").open(QIODevice::WriteOnly);
      const std::string value = values(opt.kind, dir)[pairs[c].second];
      QStringList args = baseArgs(opt.command, dir + "/out");
      if (!opt.context.isEmpty()) {
        const int at = static_cast<int>(args.indexOf("--config"));
        args.remove(at, 4);  // "--config 1 --noise-seed 1"
        args << opt.context;
      }
      const QString flag = "--" + opt.name;
      const QString v = QString::fromUtf8(value.data(), static_cast<qsizetype>(value.size()));
      if (const int at = static_cast<int>(args.indexOf(flag)); at >= 0) args[at + 1] = v;
      else args << flag << v;
      // QProcess passes arguments as UTF-8: invalid bytes become U+FFFD, still hostile enough.
      const fuzz::Outcome o = fuzz::runDplda(args);
      QStringList problems = fuzz::commonProblems(o, opt.command, {0, 2, 3, 4});
      const QString outcome = o.timedOut ? "hang" : o.crashed ? "crash" : QString("exit%1").arg(o.code);
      tally.add(opt.command + " --" + opt.name, problems.isEmpty() ? outcome : "FAIL");
      if (!problems.isEmpty()) {
        QStringList shown;
        for (const QString& a : args) shown << QString::fromStdString(dplda::quoteText(a.toStdString(), 80));
        failures << fuzz::keepFailure("options", c, opt.command + " --" + opt.name, QString(), problems,
                                      "dplda " + shown.join(' '));
      }
      QDir(dir).removeRecursively();
    }
    qInfo("options fuzz: %d of %d (option, value) cases\n%s", cases, static_cast<int>(pairs.size()),
          qPrintable(tally.table()));
    QVERIFY2(failures.isEmpty(), qPrintable(QString("%1 failing cases:\n").arg(failures.size()) +
                                            failures.mid(0, 40).join('\n')));
  }
};

DPLDA_FUZZ_MAIN(TestFuzzOptions)
#include "tst_fuzz_options.moc"
