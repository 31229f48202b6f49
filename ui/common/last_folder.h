#pragma once
// The folder each kind of file dialog starts in, remembered across sessions of the app
// (QSettings "folders/<kind>"), so exporting ten figures does not mean browsing ten times.
#include <QString>

namespace dplda {

// Kinds used by the app: "export" (plots and tables), "session", "corpus", "experiment", "model".
// The last folder remembered for `kind`, else the user's Documents folder, else home.
QString lastFolder(const QString& kind);
// Remembers the folder of `path` (a file; or a folder, when it is one) for `kind`.
void rememberFolder(const QString& kind, const QString& path);

}  // namespace dplda
