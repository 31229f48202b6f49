#pragma once
// dplda run --model vi|dp-vi.
#include <QJsonObject>
#include <optional>
#include <ostream>
#include <string>

#include "app/cli/arguments.h"
#include "core/corpus/corpus.h"

namespace dplda::cli {

// The options `dplda run` accepts only with --model vi or dp-vi.
inline const char* const kViOnlyOptions[] = {"iterations", "vi", "vi-alpha", "clip", "tau0", "kappa"};

int runViCommand(const Arguments& a, const std::string& model);

}  // namespace dplda::cli
