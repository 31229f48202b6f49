#pragma once
// What a command may write (issue 28; core/common/safe_file.h does the writing): never one of
// its own inputs, whatever name the output is given, and the files an output folder already
// holds only with --force. Checked before the computation, so a long run never ends in a refusal.
#include <string>
#include <vector>

#include "app/cli/arguments.h"
#include "core/common/safe_file.h"

namespace dplda::cli {

// The rules for a command with these inputs: replace existing outputs only with --force.
OutputRules outputRules(const Arguments& a, std::vector<std::string> inputs);

// The files `dplda run` reads: the corpus files (docword.txt, vocab.txt), --truth, --score-model.
std::vector<std::string> runInputs(const Arguments& a);

// The rules of `dplda run --json`: an earlier result is replaced, an input never.
OutputRules runJsonRules(const Arguments& a);

// `dplda run`'s outputs checked up front: --json (may replace an earlier result, never an input)
// and --write-split DIR (DIR/train and DIR/test: an input there is refused, existing ones need
// --force). Throws InputError.
void checkRunOutputs(const Arguments& a);

}  // namespace dplda::cli
