#pragma once
// The held-out evaluation of `dplda run` (every model): the public split, the non-private
// perplexities (teaching output, absent under --release-only) and the private evaluation
// (--holdout-epsilon, its own ledger row; docs/PRIVACY.md §15).
#include <QJsonObject>
#include <optional>
#include <ostream>

#include "app/cli/arguments.h"
#include "core/common/random.h"
#include "core/corpus/corpus.h"
#include "core/corpus/holdout.h"
#include "core/eval/private_holdout.h"

namespace dplda::cli {

// The options `dplda run` takes for its held-out evaluation.
inline const char* const kHoldoutOptions[] = {"holdout", "holdout-seed", "write-split", "score-model",
                                              "holdout-epsilon", "holdout-clip"};

// What the run may print about its held-out documents, read before the corpus: under
// --release-only only the private evaluation (and the public split), and --write-split (it writes
// the documents themselves) and --score-model (an exact statistic of them) are refused.
// --holdout-epsilon needs --holdout and a private run.
struct HeldOutSettings {
  bool releaseOnly = false;
  bool privateRun = false;  // its exact held-out figures are labelled non-private
  std::optional<PrivateHoldoutOptions> privateEvaluation;
};
HeldOutSettings heldOutSettingsFrom(const Arguments& a, bool privateRun);

// --holdout F (0 < F < 1) [--holdout-seed S] [--write-split DIR]: the public split, or nothing
// when --holdout is absent. UsageError for a bad fraction, InputError when the corpus is too small.
std::optional<HoldoutSplit> holdoutFrom(const Arguments& a, const Corpus& corpus);

// The held-out section: the split (public), the perplexities of `model`, of the truth (--truth)
// and of --score-model (JSON "perplexity", "truth_perplexity", "score_model_perplexity"; not
// under --release-only), and the private evaluation of `model` drawn from `noise` (JSON
// "private_holdout", plus its ledger row and ε added to json["privacy"] by basic composition).
void reportHeldOut(const Arguments& a, const HeldOutSettings& settings, const HoldoutSplit& split, const LdaModel* model,
                   const LdaModel* truth, RandomSource& noise, QJsonObject& json, std::ostream& out);

}  // namespace dplda::cli
