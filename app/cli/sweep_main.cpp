// dplda-sweep: the program behind `dplda sweep` (dplda replaces itself by it). The sweep draws its
// figures with the app's plot widgets, rendered offscreen when there is no display, so it needs a
// QApplication; keeping it apart keeps Qt Widgets out of every other command's start-up.
#include <QApplication>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "ui/common/quiet_qt_messages.h"

int main(int argc, char** argv) {
  dplda::installQuietQtMessages("dplda");
  if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
      qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  QApplication app(argc, argv);
  const std::vector<std::string> args(argv + 1, argv + argc);
  return dplda::cli::runReportingErrors("sweep", [&] { return dplda::cli::sweepCommand(args); });
}
