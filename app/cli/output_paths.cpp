#include "app/cli/output_paths.h"

#include "app/cli/commands.h"
#include "core/corpus/uci_io.h"

namespace dplda::cli {

OutputRules outputRules(const Arguments& a, std::vector<std::string> inputs) {
  OutputRules rules;
  rules.inputs = std::move(inputs);
  rules.replace = a.flag("force");
  rules.forceHint = "; give --force to replace it, or choose another folder";
  return rules;
}

std::vector<std::string> runInputs(const Arguments& a) {
  std::vector<std::string> inputs = uciCorpusFiles(a.text("corpus"));
  for (const char* option : {"truth", "score-model"})
    if (a.has(option)) inputs.push_back(a.text(option));
  return inputs;
}

OutputRules runJsonRules(const Arguments& a) {
  OutputRules rules = outputRules(a, runInputs(a));
  rules.replace = true;
  return rules;
}

void checkRunOutputs(const Arguments& a) {
  if (a.has("write-split"))
    require(checkOutputFolder(a.text("write-split"), {"train", "test"}, outputRules(a, runInputs(a))));
  if (a.has("json")) require(checkOutputFile(a.text("json"), runJsonRules(a)));
}

}  // namespace dplda::cli
