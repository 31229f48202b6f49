#pragma once
// The app's side of the model file (docs/MODEL_FORMAT.md; core/model/model_file.h holds the one
// reader and writer, shared with `dplda run --save-model`, `infer` and `--score-model`):
// File ▸ Save model… writes the model of the run shown, File ▸ Open model… reads a model file and
// checks its vocabulary against the session's corpus.
#include <QString>

#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/model/model_file.h"

namespace dplda {

struct RunOutcome;

// The model of a run as a model file: the DP-VI release or the VI fit; the spectral release when
// the run released one, else the non-private spectral output (teaching). With the run's privacy
// statement and ledger ("privacy", as `dplda run --json` names its keys), the session's parameters,
// and what it was fitted on: the session's training part, with its fingerprint (a non-private
// diagnostic: the app always shows those; `fingerprint` false leaves it to the caller, as it hashes
// every training document). BadInput when the run has no model to save.
Result<ModelFile> runModelFile(const RunOutcome& o, bool fingerprint = true);

// readModelFile, then checkSameVocabulary against `corpus` (the session's): BadInput naming the
// file and the first difference.
Result<ModelFile> readSessionModel(const QString& path, const Corpus& corpus);

// The model's privacy statement in one line: "private release — <claim>" or "NOT private — <claim>".
QString modelStatement(const ModelFile& m);

}  // namespace dplda
