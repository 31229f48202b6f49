#pragma once
// Runs the dplda binary (DPLDA_CLI, set by ctest) as a user would, for the CLI tests.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__)
#define DPLDA_CLI_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DPLDA_CLI_TEST_ASAN 1
#endif
#endif

namespace cli_test {

#ifdef DPLDA_CLI_TEST_ASAN
inline constexpr bool kMemoryLimitsApply = false;
#else
inline constexpr bool kMemoryLimitsApply = true;
#endif

struct Outcome {
  int code;
  QString out, err;
};

inline Outcome dplda(const QStringList& args, int timeoutMs = 300000) {
  QProcess p;
  p.start(qEnvironmentVariable("DPLDA_CLI"), args);
  // -1 when the program did not start or finish (QProcess says which), never a silent code.
  if (!p.waitForFinished(timeoutMs)) return {-1, {}, "dplda did not finish: " + p.errorString()};
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

// As dplda(), with `variables` ("NAME=value") added to the environment.
inline Outcome dpldaWithEnvironment(const QStringList& args, const QStringList& variables, int timeoutMs = 300000) {
  QProcess p;
  p.setEnvironment(QProcess::systemEnvironment() + variables);
  p.start(qEnvironmentVariable("DPLDA_CLI"), args);
  if (!p.waitForFinished(timeoutMs)) return {-1, {}, "dplda did not finish: " + p.errorString()};
  if (p.exitStatus() == QProcess::CrashExit) return {-2, {}, "dplda crashed: " + QString::fromUtf8(p.readAllStandardError())};
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

// As dplda(), in a child limited to `memoryMiB` of address space (setrlimit(RLIMIT_AS), set
// between fork and exec), the way a user's `ulimit -v` or a container limits it. Under
// AddressSanitizer (which reserves terabytes of shadow address space) the limit is left off.
inline Outcome dpldaWithMemoryLimit(const QStringList& args, int memoryMiB, int timeoutMs = 300000) {
  QProcess p;
#ifdef DPLDA_CLI_TEST_ASAN
  Q_UNUSED(memoryMiB);
#else
  const rlim_t bytes = static_cast<rlim_t>(memoryMiB) << 20;
  p.setChildProcessModifier([bytes] {  // in the child, before exec: async-signal-safe only
    struct rlimit as = {bytes, bytes};
    setrlimit(RLIMIT_AS, &as);
  });
#endif
  p.start(qEnvironmentVariable("DPLDA_CLI"), args);
  if (!p.waitForFinished(timeoutMs)) return {-1, {}, "dplda did not finish: " + p.errorString()};
  if (p.exitStatus() == QProcess::CrashExit) return {-2, {}, "dplda crashed: " + QString::fromUtf8(p.readAllStandardError())};
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

inline QJsonObject readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace cli_test
