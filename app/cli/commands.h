#pragma once
// The dplda subcommands. Each returns the process exit status:
// 0 success, 2 usage error, 3 bad input, 4 the computation failed (e.g. σ_k <= 0).
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

int generateCommand(const std::vector<std::string>& args);
int importTextCommand(const std::vector<std::string>& args);
int runCommand(const std::vector<std::string>& args);
int sweepCommand(const std::vector<std::string>& args);

std::string usageText();

}  // namespace dplda::cli
