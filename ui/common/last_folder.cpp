#include "ui/common/last_folder.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace dplda {

namespace {
QString settingsKey(const QString& kind) { return QStringLiteral("folders/") + kind; }
}  // namespace

QString lastFolder(const QString& kind) {
  const QString remembered = QSettings().value(settingsKey(kind)).toString();
  if (!remembered.isEmpty() && QFileInfo(remembered).isDir()) return remembered;
  const QString docs = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  return !docs.isEmpty() && QFileInfo(docs).isDir() ? docs : QDir::homePath();
}

void rememberFolder(const QString& kind, const QString& path) {
  if (path.isEmpty()) return;
  const QFileInfo info(path);
  const QString folder = info.isDir() ? info.absoluteFilePath() : info.absolutePath();
  QSettings().setValue(settingsKey(kind), folder);
}

}  // namespace dplda
