// dplda: the command line of DP-LDA Explorer. It links the numeric core and QtCore only (JSON,
// files), so a run starts in about 3 ms; `dplda sweep` hands over to dplda-sweep, the program
// beside it that draws the figures with the app's widgets (loading Qt Widgets and its ~50
// libraries costs about 16 ms, a quarter of a whole figure-2 run).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/text_escape.h"
#include "ui/common/quiet_qt_messages.h"

using namespace dplda::cli;

namespace {

// Replaces this process by dplda-sweep (found next to this program) with the arguments after
// "sweep"; returns only when that fails.
int execSweepProgram(char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path sweep = ec ? std::filesystem::path("dplda-sweep") : self.parent_path() / "dplda-sweep";
  std::vector<char*> sweepArgv;
  std::string program = sweep.string();
  sweepArgv.push_back(program.data());
  for (char** a = argv + 2; *a != nullptr; ++a) sweepArgv.push_back(*a);
  sweepArgv.push_back(nullptr);
  ::execv(program.c_str(), sweepArgv.data());
  const int err = errno;
  std::cerr << "dplda sweep: failed: cannot start the sweep program " << dplda::quoteText(program) << ": "
            << std::strerror(err) << " (it is built and installed beside dplda)\n";
  return kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  dplda::installQuietQtMessages("dplda");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << usageText();
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "--version") {
    std::cout << "dplda " << DPLDA_VERSION << "\n";
    return kExitOk;
  }
  if (args[0] == "sweep") return execSweepProgram(argv);
  const std::string command = args[0];
  args.erase(args.begin());
  return runReportingErrors(command, [&]() -> int {
    if (command == "generate") return generateCommand(args);
    if (command == "import-text") return importTextCommand(args);
    if (command == "run") return runCommand(args);
    if (command == "infer") return inferCommand(args);
    throw UsageError("unknown command " + dplda::quoteText(command) + " (try dplda --help)");
  });
}
