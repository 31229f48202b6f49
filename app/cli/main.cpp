// dplda: the command line of DP-LDA Explorer.
#include <QApplication>
#include <cstdio>
#include <memory>
#include <iostream>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/text_escape.h"
#include "ui/common/quiet_qt_messages.h"

using namespace dplda::cli;

int main(int argc, char** argv) {
  dplda::installQuietQtMessages("dplda");
  std::vector<std::string> args(argv + 1, argv + argc);
  // Only the sweep draws plots (the app's widgets, headless): it alone needs a QApplication,
  // with Qt's offscreen platform when there is no display.
  std::unique_ptr<QCoreApplication> app;
  if (!args.empty() && args[0] == "sweep") {
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
      qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    app = std::make_unique<QApplication>(argc, argv);
  } else {
    app = std::make_unique<QCoreApplication>(argc, argv);  // JSON and files; no event loop
  }
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << usageText();
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "--version") {
    std::cout << "dplda " << DPLDA_VERSION << "\n";
    return kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  // One line per error, and no control byte from the input reaches the terminal: the messages
  // quote user text escaped already; escapeControls is the net for anything that slipped through.
  const std::string shownCommand = dplda::escapeControls(command);
  auto report = [&](const char* kind, const char* what) {
    std::cerr << "dplda " << shownCommand << ": " << kind << dplda::escapeControls(what) << "\n";
  };
  try {
    if (command == "generate") return generateCommand(args);
    if (command == "import-text") return importTextCommand(args);
    if (command == "run") return runCommand(args);
    if (command == "sweep") return sweepCommand(args);
    throw UsageError("unknown command " + dplda::quoteText(command) + " (try dplda --help)");
  } catch (const UsageError& e) {
    report("usage error: ", e.what());
    return kExitUsage;
  } catch (const InputError& e) {
    report("bad input: ", e.what());
    return kExitBadInput;
  } catch (const RunError& e) {
    report("failed: ", e.what());
    return kExitFailed;
  } catch (const std::exception& e) {
    report("internal error: ", e.what());
    return kExitFailed;
  }
}
