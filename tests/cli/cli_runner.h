#pragma once
// Runs the dplda binary (DPLDA_CLI, set by ctest) as a user would, for the CLI tests.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace cli_test {

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

inline QJsonObject readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace cli_test
