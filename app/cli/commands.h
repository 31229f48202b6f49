#pragma once
// The dplda subcommands. Each returns the process exit status:
// 0 success, 2 usage error, 3 bad input, 4 the computation failed (e.g. σ_k <= 0).
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace dplda::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitBadInput = 3;
inline constexpr int kExitFailed = 4;

// A failed computation (not the user's input): exit status 4.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Turns a non-ok status into the matching exception (InputError or RunError).
void require(const Status& status);
template <class T>
T take(Result<T> r) {
  require(r.status());
  return std::move(r).value();
}

// Runs one subcommand: its exceptions become one line on stderr ("dplda COMMAND: usage error: ...")
// and the matching exit status. Used by dplda and by dplda-sweep, so both report alike.
int runReportingErrors(const std::string& command, const std::function<int()>& body);

int generateCommand(const std::vector<std::string>& args);
int importTextCommand(const std::vector<std::string>& args);
int runCommand(const std::vector<std::string>& args);
int inferCommand(const std::vector<std::string>& args);  // app/cli/infer_command.cpp
// In the dplda-sweep program (app/cli/sweep_main.cpp), which `dplda sweep` runs: the one command
// that draws plots with the app's widgets, and so the only one that loads Qt Widgets.
int sweepCommand(const std::vector<std::string>& args);

std::string usageText();

}  // namespace dplda::cli
