#include "ui/window/recent_sessions.h"

#include <QFileInfo>
#include <QSettings>

namespace dplda {

QStringList recentSessions() { return QSettings().value("recentSessions").toStringList(); }

void rememberRecentSession(const QString& path, int max) {
  QSettings settings;
  QStringList recent = settings.value("recentSessions").toStringList();
  const QString abs = QFileInfo(path).absoluteFilePath();
  recent.removeAll(abs);
  recent.prepend(abs);
  while (recent.size() > max) recent.removeLast();
  settings.setValue("recentSessions", recent);
}

}  // namespace dplda
