#pragma once
// Shared pieces of the fuzz campaigns (docs/FUZZING.md): a seeded mutator, the `dplda` child
// process under a time and memory limit, and the checks every outcome must pass.
//
// Environment (all optional):
//   DPLDA_FUZZ_CASES    cases per campaign (each campaign has its own default, a few hundred)
//   DPLDA_FUZZ_SEED     campaign seed (default 1); case i uses a seed derived from it and i
//   DPLDA_FUZZ_TIMEOUT  seconds per child process (default 20, 120 under AddressSanitizer)
//   DPLDA_FUZZ_SANITIZED_CLI  set: DPLDA_CLI is a sanitizer build (ASAN_OPTIONS, no RLIMIT_AS)
//   DPLDA_FUZZ_MEMORY   MiB per child process (default 2048): an address-space limit
//                       (RLIMIT_AS), or for a sanitized child DPLDA_MEMORY_LIMIT (the limit the
//                       program's memory checks read besides RLIMIT_AS), with AddressSanitizer's
//                       hard_rss_limit_mb at twice that as the backstop (shadow, redzones)
//   DPLDA_FUZZ_KEEP     a folder: every failing case is copied there with a README line
#include <sys/resource.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QtTest>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/common/text_escape.h"

namespace fuzz {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

inline int envInt(const char* name, int fallback) {
  bool ok = false;
  const int v = qEnvironmentVariable(name).toInt(&ok);
  return ok && v > 0 ? v : fallback;
}
inline int caseCount(int fallback) { return envInt("DPLDA_FUZZ_CASES", fallback); }
inline std::uint64_t campaignSeed() { return static_cast<std::uint64_t>(envInt("DPLDA_FUZZ_SEED", 1)); }
// The children are sanitized when this test is, or when DPLDA_FUZZ_SANITIZED_CLI is set (a
// normal-build campaign driving a sanitizer build's dplda through DPLDA_CLI).
inline bool sanitizedChildren() { return kSanitized || qEnvironmentVariableIsSet("DPLDA_FUZZ_SANITIZED_CLI"); }
inline int timeoutSeconds() { return envInt("DPLDA_FUZZ_TIMEOUT", sanitizedChildren() ? 120 : 20); }
inline int memoryMiB() { return envInt("DPLDA_FUZZ_MEMORY", 2048); }

// splitmix64: the seed of case i, independent of every other case.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Deterministic on every platform: mt19937_64's output is specified, and no std distribution
// (whose output differs between standard libraries) is used.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : m_gen(seed) {}
  std::uint64_t next() { return m_gen(); }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(m_gen() % n); }
  bool chance(int percent) { return below(100) < static_cast<std::size_t>(percent); }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

 private:
  std::mt19937_64 m_gen;
};

// ---- byte-level mutations shared by the campaigns ----

inline std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

inline std::string joinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

inline const std::vector<std::string>& hostileNumbers() {
  static const std::vector<std::string> v = {
      "0", "-1", "-0", "+1", "2147483647", "2147483648", "4294967296", "9223372036854775807",
      "18446744073709551616", "99999999999999999999", "1099511627776", "1099511627777", "1e308", "1e999",
      "-1e308", "1e-320", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "0x10", "1.5", "1e5", "007", "",
      " ", "1 1", "\xEF\xBC\x91" /* fullwidth 1 */, "\xd9\xa3" /* arabic-indic 3 */};
  return v;
}

inline const std::vector<std::string>& controlSnippets() {
  static const std::vector<std::string> v = {
      std::string("\0", 1), "\x1b[31m", "\x1b]0;title\x07", "\r", "\x07", "\x08\x08", "\x7f", "\x0b", "\x0c",
      "\xc2\x9b" /* U+009B CSI */, "\xe2\x80\xae" /* RLO */, "\xe2\x80\xa8" /* LINE SEPARATOR */,
      "\xef\xbb\xbf" /* BOM */, "\xff", "\xc3"};
  return v;
}

// Replaces one maximal run of digits (with an optional leading '-') by `replacement`.
inline bool replaceNumber(std::string& text, Rng& rng, const std::string& replacement) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] >= '0' && text[i] <= '9') {
      std::size_t j = i;
      while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
      runs.push_back({i, j - i});
      i = j;
    } else {
      ++i;
    }
  }
  if (runs.empty()) return false;
  const auto [at, len] = runs[rng.below(runs.size())];
  text.replace(at, len, replacement);
  return true;
}

inline void insertAt(std::string& text, Rng& rng, const std::string& what) {
  text.insert(rng.below(text.size() + 1), what);
}

// ---- the child process ----

struct Outcome {
  int code = -1;          // exit status (when not crashed / timed out)
  bool crashed = false;   // ended by a signal (abort, segfault, the sanitizer's abort)
  bool timedOut = false;  // killed at the time limit
  double seconds = 0;
  QByteArray out, err;
};

// Runs `program` (dplda, or dplda-explorer) with `args` under the limits above.
inline Outcome runProgram(const QString& program, const QStringList& args) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  env.insert("OMP_NUM_THREADS", "1");  // campaigns run cases side by side under ctest -j
  const bool sanitized = sanitizedChildren();
  if (sanitized) {
    // AddressSanitizer reserves terabytes of address space, so RLIMIT_AS cannot bound the child:
    // the program's own limit does, as a user's would (core/common/memory_budget.h).
    env.insert("DPLDA_MEMORY_LIMIT", QString("%1M").arg(memoryMiB()));
    env.insert("ASAN_OPTIONS", QString("hard_rss_limit_mb=%1:allocator_may_return_null=1:detect_leaks=0:"
                                       "handle_abort=1:exitcode=86")
                                   .arg(2 * memoryMiB()));
    env.insert("UBSAN_OPTIONS", "print_stacktrace=1");
  }
  p.setProcessEnvironment(env);
  const rlim_t bytes = static_cast<rlim_t>(memoryMiB()) << 20;
  p.setChildProcessModifier([bytes, sanitized] {
    // In the child, before exec: async-signal-safe calls only.
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    if (!sanitized) {  // AddressSanitizer reserves terabytes of shadow address space
      struct rlimit as = {bytes, bytes};
      setrlimit(RLIMIT_AS, &as);
    }
  });
  QElapsedTimer timer;
  timer.start();
  p.start(program, args);
  Outcome o;
  if (!p.waitForStarted(30000)) {
    o.err = "fuzz: could not start " + program.toUtf8();
    return o;
  }
  p.closeWriteChannel();
  if (!p.waitForFinished(timeoutSeconds() * 1000)) {
    o.timedOut = true;
    p.kill();
    p.waitForFinished(10000);
  }
  o.seconds = timer.elapsed() / 1000.0;
  o.out = p.readAllStandardOutput();
  o.err = p.readAllStandardError();
  o.crashed = !o.timedOut && p.exitStatus() == QProcess::CrashExit;
  o.code = o.crashed || o.timedOut ? -1 : p.exitCode();
  return o;
}

inline Outcome runDplda(const QStringList& args) { return runProgram(qEnvironmentVariable("DPLDA_CLI"), args); }

// ---- checks ----

// The first control byte or escaped code point of `text` (core/common/text_escape.h), ignoring
// the line feeds that end lines; empty when there is none.
inline QString controlIn(const QByteArray& text) {
  for (const QByteArray& line : text.split('\n')) {
    const std::string s = line.toStdString();
    if (dplda::hasEscapedText(s)) return QString::fromStdString(dplda::quoteText(s, 120));
  }
  return {};
}

inline QStringList nonEmptyLines(const QByteArray& text) {
  QStringList out;
  for (const QByteArray& line : text.split('\n'))
    if (!line.isEmpty()) out << QString::fromUtf8(line);
  return out;
}

// A number printed by C++ streams from NaN or infinity: "nan", "-nan", "inf", "-inf" as a word.
inline bool hasNonFiniteWord(const QString& text) {
  static const QRegularExpression re("(^|[^A-Za-z_])-?(nan|inf)([^A-Za-z_]|$)");
  return re.match(text).hasMatch();
}

// Checks every process outcome shares: no crash, no hang, no sanitizer report, an expected exit
// status, no control bytes in either stream, every stderr line from dplda ("dplda CMD: ...":
// errors, warnings, a sweep's progress), and for a usage error or bad input exactly one error line
// ("dplda CMD: usage error: ..." / "bad input: ..."); a failed computation (4) has at most one
// such line (a private run that releases nothing says why without a prefix). Returns the problems.
inline QStringList commonProblems(const Outcome& o, const QString& command, const QList<int>& allowedCodes) {
  QStringList problems;
  if (o.timedOut) problems << QString("hang: killed after %1 s").arg(timeoutSeconds());
  if (o.crashed) problems << "crash: ended by a signal";
  if (o.err.contains("Sanitizer") || o.err.contains("runtime error:"))
    problems << "sanitizer report: " + QString::fromUtf8(o.err.left(600));
  if (!o.timedOut && !o.crashed && !allowedCodes.contains(o.code))
    problems << QString("exit status %1").arg(o.code);
  if (const QString c = controlIn(o.out); !c.isEmpty()) problems << "control byte on stdout: " + c;
  if (const QString c = controlIn(o.err); !c.isEmpty()) problems << "control byte on stderr: " + c;
  const QString prefix = "dplda " + command + ": ";
  int errors = 0;
  for (const QString& line : nonEmptyLines(o.err)) {
    if (!line.startsWith(prefix)) problems << "stderr line not from dplda: " + line.left(200);
    for (const char* kind : {"usage error: ", "bad input: ", "failed: ", "internal error: "})
      if (line.startsWith(prefix + kind)) ++errors;
  }
  if ((o.code == 2 || o.code == 3) && errors != 1)
    problems << QString("%1 error lines on stderr (want exactly one)").arg(errors);
  if ((o.code == 0 || o.code == 4) && errors > (o.code == 4 ? 1 : 0))
    problems << QString("%1 error lines on stderr with exit status %2").arg(errors).arg(o.code);
  if (o.code == 4 && nonEmptyLines(o.err).isEmpty()) problems << "exit status 4 without a message";
  if (o.err.contains("internal error")) problems << "internal error: " + QString::fromUtf8(o.err.left(300));
  return problems;
}

// Outcome tally for the summary: family -> outcome -> count.
class Tally {
 public:
  void add(const QString& family, const QString& outcome) { ++m_counts[family][outcome]; }
  QString table() const {
    QString out;
    std::map<QString, int> totals;
    for (auto f = m_counts.begin(); f != m_counts.end(); ++f) {
      out += "  " + f->first.leftJustified(22) + ":";
      for (auto o = f->second.begin(); o != f->second.end(); ++o) {
        out += QString(" %1 %2").arg(o->first).arg(o->second);
        totals[o->first] += o->second;
      }
      out += "\n";
    }
    out += "  " + QString("total").leftJustified(22) + ":";
    for (const auto& [k, v] : totals) out += QString(" %1 %2").arg(k).arg(v);
    return out + "\n";
  }

 private:
  std::map<QString, std::map<QString, int>> m_counts;
};

// Copies a failing case into DPLDA_FUZZ_KEEP (when set) and returns a one-line description.
inline QString keepFailure(const QString& campaign, int index, const QString& family, const QString& caseDir,
                           const QStringList& problems, const QString& command) {
  const QString line = QString("%1 case %2 (%3): %4 | reproduce: %5")
                           .arg(campaign)
                           .arg(index)
                           .arg(family, problems.join("; "), command);
  const QString keep = qEnvironmentVariable("DPLDA_FUZZ_KEEP");
  if (!keep.isEmpty()) {
    const QString dest = QDir(keep).filePath(QString("%1-%2").arg(campaign).arg(index));
    QDir().mkpath(dest);
    // Regular files only, links not followed: a case may hold a FIFO or a link to /dev/zero,
    // which a copy would wait on or read forever.
    if (!caseDir.isEmpty())
      for (const QString& f : QDir(caseDir).entryList(QDir::Files | QDir::NoSymLinks))
        if (QFileInfo(caseDir + "/" + f).isFile() && !QFileInfo(caseDir + "/" + f).isSymLink() &&
            std::filesystem::is_regular_file(std::filesystem::symlink_status((caseDir + "/" + f).toStdString())))
          QFile::copy(caseDir + "/" + f, dest + "/" + f);
    QFile readme(dest + "/README.txt");
    if (readme.open(QIODevice::WriteOnly)) readme.write(line.toUtf8() + "\n");
  }
  return line;
}

}  // namespace fuzz

// The main of a campaign: QTEST_GUILESS_MAIN, except that Qt Test's watchdog (300 s per test
// function by default) is lifted when the environment does not set it, since thousands of cases
// run in one function.
#define DPLDA_FUZZ_MAIN(TestObject)                                                 \
  int main(int argc, char** argv) {                                                 \
    if (!qEnvironmentVariableIsSet("QTEST_FUNCTION_TIMEOUT"))                       \
      qputenv("QTEST_FUNCTION_TIMEOUT", "604800000");                               \
    QCoreApplication app(argc, argv);                                               \
    app.setAttribute(Qt::AA_Use96Dpi, true);                                        \
    TestObject tc;                                                                  \
    QTEST_SET_MAIN_SOURCE_PATH                                                      \
    return QTest::qExec(&tc, argc, argv);                                           \
  }
