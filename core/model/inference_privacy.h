#pragma once
// What a document's inferred topic proportions are, privacy-wise (docs/MODEL_FORMAT.md): for
// documents outside the model's training set, post-processing of the model's release; for its
// training documents, or under a model that is not a private release, NOT private (they are
// computed from the documents themselves). One rule for `dplda infer` and the app's document view.
#include <string>

#include "core/corpus/corpus.h"
#include "core/model/model_file.h"

namespace dplda {

// Why `documents` are the model's training documents, or "" when nothing says they are: the
// fingerprint the model file holds (written outside --release-only) equals theirs, or
// `corpusFolder` ("" for none) is the folder the model was fitted on (or split from).
std::string trainingDocumentsMatch(const ModelFile& model, const Corpus& documents, const std::string& corpusFolder);

// The label of the proportions: "NOT private: the model itself is not a private release (claim)",
// "NOT private: these are the model's training documents (match); …" when `trainingMatch` is not
// empty, else "post-processing of the model's private release (claim), for documents outside its
// training set".
std::string inferencePrivacyLabel(bool modelIsPrivate, const std::string& claim, const std::string& trainingMatch);

// The caution that goes with a post-processing label: training documents are recognised only by
// their folder and fingerprint.
inline constexpr const char* kTrainingRecognitionNote =
    "training documents are recognised by the corpus folder and by the fingerprint the model file holds outside "
    "--release-only; other copies of training documents are not recognised";

}  // namespace dplda
