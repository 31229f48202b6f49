#pragma once
// dplda run --model vi|dp-vi, and the held-out evaluation shared with --model spectral.
#include <QJsonObject>
#include <optional>
#include <ostream>
#include <string>

#include "app/cli/arguments.h"
#include "core/corpus/corpus.h"
#include "core/corpus/holdout.h"

namespace dplda::cli {

// The options `dplda run` accepts only with --model vi or dp-vi.
inline const char* const kViOnlyOptions[] = {"iterations", "vi", "clip", "tau0", "kappa"};

// --holdout F (0 < F < 1) [--holdout-seed S] [--write-split DIR]: the public split, or nothing
// when --holdout is absent. UsageError for a bad fraction, InputError when the corpus is too small.
std::optional<HoldoutSplit> holdoutFrom(const Arguments& a, const Corpus& corpus);

// Held-out perplexity of `model` (post-processing), of the truth (--truth) and of --score-model:
// JSON keys "holdout", "perplexity", "truth_perplexity", "score_model_perplexity"; text on `out`.
void reportHeldOut(const Arguments& a, const HoldoutSplit& split, const LdaModel* model, const LdaModel* truth,
                   QJsonObject& json, std::ostream& out);

int runViCommand(const Arguments& a, const std::string& model);

}  // namespace dplda::cli
