#pragma once
// What `dplda run` adds after its topics, for every model (spectral, vi, dp-vi): topic coherence
// (core/eval/coherence.h) with the label of the data it was computed on, and --save-model FILE
// (core/model/model_file.h, docs/MODEL_FORMAT.md).
#include <QJsonObject>
#include <ostream>
#include <string>

#include "app/cli/arguments.h"
#include "core/corpus/corpus.h"

namespace dplda::cli {

// The options `dplda run` takes for these outputs.
inline const char* const kModelOutputOptions[] = {"save-model", "coherence-reference", "coherence-top-words"};

// What the run knows that the outputs need.
struct RunModelContext {
  std::string model;          // "spectral", "vi", "dp-vi"
  bool teaching = true;       // not --release-only: non-private diagnostics may be printed
  bool heldOutSplit = false;  // fitted on the training part of --holdout
  const Corpus* training = nullptr;  // the documents fitted (original word ids)
  const LdaModel* released = nullptr;  // α and topics as released
};

// Checked before the corpus is read (usage errors and refused outputs known at once):
// --coherence-top-words N >= 2, --save-model's path (never an input, an earlier file replaced).
void checkModelOutputs(const Arguments& a);

// Coherence: on --coherence-reference DIR (a public corpus with the model's vocabulary:
// post-processing) or else on the training documents (a non-private diagnostic, left out under
// --release-only); JSON "coherence". Then --save-model: writes the model file with json's
// "privacy" block and the run's parameters (JSON "saved_model").
void reportModelOutputs(const Arguments& a, const RunModelContext& run, QJsonObject& json, std::ostream& out);

// --score-model FILE: a model file (its vocabulary checked against `corpus`'s) or a truth.json
// (topics over corpus.vocabSize() words). InputError naming the problem.
LdaModel readScoredModel(const std::string& path, const Corpus& corpus);

}  // namespace dplda::cli
