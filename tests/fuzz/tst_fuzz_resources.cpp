// Fuzz campaign: resource requests and the numbers of every output (issue 28; docs/FUZZING.md).
//
// Families:
//   topics    --topics from 1 to 2^31 - 1 (d - 1, d, N - 1, N, 500, 800, 2000, 10^5, ...) on a
//             small corpus and on d = 1000, N = 3000, with every model and decomposer: the run
//             must fit in the memory limit or say before starting what it needs ("needs about").
//   nan-scan  private runs (configurations 1-4, whitened, input perturbation, VI, DP-VI) at ε from
//             1e-6 to 1e15, with and without --release-only, and sweeps: stdout, stderr, the JSON,
//             results.csv, summary.csv and report.md hold no nan, inf or JSON null.
// Cases alternate between the two; DPLDA_FUZZ_FAMILY=topics or nan-scan runs one of them only.
// Every case also passes the common checks (fuzz_support.h): no crash, hang, internal error,
// sanitizer report or control byte.
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "core/corpus/synthetic_generator.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "fuzz/fuzz_support.h"

using namespace dplda;

namespace {

// nan/inf as a word, or a JSON null (Qt writes NaN and infinity as null).
QString nonFiniteIn(const QByteArray& text) {
  static const QRegularExpression re("(^|[^A-Za-z_])-?(nan|inf)([^A-Za-z_]|$)|:\\s*null");
  for (const QByteArray& line : text.split('\n')) {
    // Topic lines list vocabulary words, which may be spelled "nan"; the alpha before them may not.
    const QString l = QString::fromUtf8(line);
    const int words = l.indexOf(QRegularExpression("alpha \\S+:"));
    const QString checked = words >= 0 ? l.left(l.indexOf(':', words) + 1) : l;
    if (re.match(checked).hasMatch()) return l.left(200);
  }
  return {};
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool makeCorpus(const QString& dir, int d, int k, int N, double length, std::uint64_t seed) {
  GeneratorParams p;
  p.vocabSize = d;
  p.topicCount = k;
  p.docCount = N;
  p.meanLength = length;
  p.seed = seed;
  const auto g = generateLdaCorpus(p);
  return g.ok() && writeUciCorpus(g->corpus, dir.toStdString()).isOk() &&
         writeTruthJson(g->truth, (dir + "/truth.json").toStdString()).isOk();
}

}  // namespace

class TestFuzzResources : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_tmp;
  QString m_small, m_wide;  // d = 30, N = 200; d = 1000, N = 3000

  // One `topics` case: the arguments of a run.
  QStringList topicsCase(fuzz::Rng& r, QString& family) {
    const bool wide = r.chance(40);
    const int d = wide ? 1000 : 30, N = wide ? 3000 : 200;
    // Large k only where the run is refused or fast: on the wide corpus, k >= 500 does not fit
    // in the campaign's memory limit (2 GiB) and smaller k are kept small (a robust power method
    // at k = 200 takes minutes, which is time, not memory).
    const std::vector<long long> small = {1, 2, 3, d - 1, d, N - 1, N, N + 1, 2147483647};
    const int model = static_cast<int>(r.below(6));
    // VI's E-step at k = 500 over 1000 words takes minutes where the fit is legal: VI cases use
    // only the k that exceed d there. Spectral k of 500 and 800 need more than 2 GiB (refused).
    const std::vector<long long> large = model == 1 || model == 2
                                             ? std::vector<long long>{2000, 100000, 2147483647}
                                             : std::vector<long long>{500, 800, 2000, 100000, 2147483647};
    long long k = wide && r.chance(60) ? r.pick(large) : r.pick(small);
    const bool viModel = model == 1 || model == 2;
    if (wide && k >= 3 && (k < 500 || (viModel && k <= d))) k = 3 + static_cast<long long>(r.below(10));
    QStringList args{"run", "--corpus", wide ? m_wide : m_small, "--topics", QString::number(k)};
    if (model == 1) args << "--model" << "vi" << "--iterations" << "2";
    if (model == 2) args << "--model" << "dp-vi" << "--iterations" << "2" << "--noise-seed" << "1";
    if (model == 3) args << "--decomposer" << (k < 500 ? r.pick(std::vector<QString>{"robust", "simultaneous"}) : "fast");
    if (model == 4) args << "--config" << r.pick(std::vector<QString>{"1", "2", "4", "whitened"}) << "--noise-seed" << "1";
    if (r.chance(30)) args << "--holdout" << "0.2";
    family = QString("topics%1").arg(wide ? "-wide" : "");
    return args;
  }

  QStringList nanCase(fuzz::Rng& r, const QString& dir, QString& family) {
    static const std::vector<QString> eps = {"1e-6", "0.001", "0.1", "1", "30", "1000", "1e6", "1e12", "1e15"};
    const QString e = r.pick(eps);
    if (r.chance(15)) {  // a sweep: its tables and report
      family = "nan-scan-sweep";
      return {"sweep", "--corpus", m_small, "--truth", m_small + "/truth.json", "--topics", "3", "--epsilons",
              e + ",1", "--configs", "none,1,2,3,4,vi,dp-vi", "--trials", "1", "--out", dir + "/sweep"};
    }
    family = "nan-scan-run";
    QStringList args{"run", "--corpus", m_small, "--topics", "3", "--epsilon", e, "--noise-seed",
                     QString::number(r.below(1000)), "--seed", QString::number(r.below(5)), "--json", dir + "/out.json"};
    const int model = static_cast<int>(r.below(8));
    if (model < 5) args << "--config" << std::vector<QString>{"1", "2", "3", "4", "whitened"}[model];
    if (model == 5) args << "--edges" << "e0,e1";
    if (model == 6) args << "--model" << "dp-vi" << "--iterations" << "3";
    if (model == 7) args << "--config" << "4" << "--accountant" << "gdp";
    if (model != 6 && r.chance(30)) args << "--mechanism" << "laplace";
    if (r.chance(40)) args << "--release-only";
    if (r.chance(20)) args << "--truth" << m_small + "/truth.json";
    return args;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    m_small = m_tmp.filePath("small");
    m_wide = m_tmp.filePath("wide");
    QVERIFY(makeCorpus(m_small, 30, 3, 200, 15, 11));
    QVERIFY(makeCorpus(m_wide, 1000, 5, 3000, 20, 12));
  }

  void campaign() {
    const int cases = fuzz::caseCount(40);
    const std::uint64_t seed = fuzz::campaignSeed();
    const QString only = qEnvironmentVariable("DPLDA_FUZZ_FAMILY");
    QVERIFY2(only.isEmpty() || only == "topics" || only == "nan-scan",
             qPrintable("DPLDA_FUZZ_FAMILY: topics or nan-scan, not " + only));
    fuzz::Tally tally;
    QStringList failures;
    double slowest = 0;
    for (int i = 0; i < cases; ++i) {
      fuzz::Rng rng(fuzz::mix(seed * 7919ull + static_cast<std::uint64_t>(i)));
      const QString dir = m_tmp.filePath(QString("case-%1").arg(i));
      QDir().mkpath(dir);
      QString family;
      const bool topics = only.isEmpty() ? i % 2 == 0 : only == "topics";
      const QStringList args = topics ? topicsCase(rng, family) : nanCase(rng, dir, family);
      const fuzz::Outcome o = fuzz::runDplda(args);
      slowest = std::max(slowest, o.seconds);
      QStringList problems = fuzz::commonProblems(o, args[0], args[0] == "run" ? QList<int>{0, 2, 3, 4} : QList<int>{0, 3, 4});
      if (family.startsWith("topics")) {
        if (o.code == 3 && o.err.contains("--topics") && o.err.contains("this process can allocate") &&
            !o.err.contains("needs about") && !o.err.contains(" needs "))
          problems << "a memory refusal that does not say what it needs";
      } else {
        if (const QString bad = nonFiniteIn(o.out); !bad.isEmpty()) problems << "non-finite on stdout: " + bad;
        if (const QString bad = nonFiniteIn(o.err); !bad.isEmpty()) problems << "non-finite on stderr: " + bad;
        QStringList outputs{dir + "/out.json"};
        for (const QString& f : QDir(dir + "/sweep").entryList({"*.csv", "*.md", "*.json"}, QDir::Files))
          outputs << dir + "/sweep/" + f;
        for (const QString& f : outputs)
          if (const QString bad = nonFiniteIn(readAll(f)); !bad.isEmpty())
            problems << "non-finite in " + QFileInfo(f).fileName() + ": " + bad;
      }
      const QString outcome = o.timedOut ? "hang" : o.crashed ? "crash" : QString("exit%1").arg(o.code);
      tally.add(family, problems.isEmpty() ? outcome : "FAIL");
      if (!problems.isEmpty())
        failures << fuzz::keepFailure("resources", i, family, dir, problems, "dplda " + args.join(' '));
      std::filesystem::remove_all(dir.toStdString());
    }
    qInfo("resources fuzz: %d cases, seed %llu, slowest case %.2f s\n%s", cases,
          static_cast<unsigned long long>(seed), slowest, qPrintable(tally.table()));
    QVERIFY2(failures.isEmpty(), qPrintable(QString("%1 failing cases:\n").arg(failures.size()) +
                                            failures.mid(0, 30).join('\n')));
  }
};

DPLDA_FUZZ_MAIN(TestFuzzResources)
#include "tst_fuzz_resources.moc"
