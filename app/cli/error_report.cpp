#include <iostream>
#include <new>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/memory_budget.h"
#include "core/common/text_escape.h"

namespace dplda::cli {

int runReportingErrors(const std::string& command, const std::function<int()>& body) {
  // One line per error, and no control byte from the input reaches the terminal: the messages
  // quote user text escaped already; escapeControls is the net for anything that slipped through.
  const std::string shownCommand = escapeControls(command);
  auto report = [&](const char* kind, const char* what) {
    std::cerr << "dplda " << shownCommand << ": " << kind << escapeControls(what) << "\n";
  };
  try {
    require(memoryBudget().status());  // a malformed DPLDA_MEMORY_LIMIT, whatever the command
    return body();
  } catch (const UsageError& e) {
    report("usage error: ", e.what());
    return kExitUsage;
  } catch (const InputError& e) {
    report("bad input: ", e.what());
    return kExitBadInput;
  } catch (const RunError& e) {
    report("failed: ", e.what());
    return kExitFailed;
  } catch (const std::bad_alloc&) {
    // The memory checks estimate before a stage allocates; this is what remains when an estimate
    // fell short (an address-space limit the libraries' own buffers filled, another process).
    const Result<MemoryBudget> budget = memoryBudget();
    report("failed: ", ("out of memory: an allocation failed although the estimate before the run fitted; this "
                        "process can now allocate " + (budget.ok() ? budgetText(budget.value()) : std::string("less")) +
                        "; fewer topics, fewer threads (OMP_NUM_THREADS) or more memory")
                           .c_str());
    return kExitFailed;
  } catch (const std::exception& e) {
    report("internal error: ", e.what());
    return kExitFailed;
  }
}

}  // namespace dplda::cli
