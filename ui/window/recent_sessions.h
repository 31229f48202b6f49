#pragma once
// The "Open recent" list of session files, kept in QSettings ("recentSessions"), newest first.
#include <QStringList>

namespace dplda {

QStringList recentSessions();
// Puts `path` (made absolute) first, without duplicates, keeping at most `max` entries.
void rememberRecentSession(const QString& path, int max = 8);

}  // namespace dplda
