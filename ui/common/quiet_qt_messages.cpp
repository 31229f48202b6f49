#include "ui/common/quiet_qt_messages.h"

#include <QString>
#include <QtGlobal>
#include <cstdio>

namespace dplda {

namespace {
const char* g_program = "dplda";

void quietHandler(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtDebugMsg || type == QtInfoMsg) return;
  if (message.startsWith("QStandardPaths: XDG_RUNTIME_DIR") || message.contains("propagateSizeHints")) return;
  std::fprintf(stderr, "%s: qt: %s\n", g_program, qPrintable(message));
}
}  // namespace

void installQuietQtMessages(const char* program) {
  g_program = program;
  qInstallMessageHandler(quietHandler);
}

}  // namespace dplda
