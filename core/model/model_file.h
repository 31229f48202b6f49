#pragma once
// The model file (docs/MODEL_FORMAT.md): what `dplda run --save-model FILE` writes and what
// `dplda infer`, `--score-model` and `--truth` read. One JSON object:
//   {"format": "dplda-model", "version": 1, "model": "spectral" | "vi" | "dp-vi",
//    "private": bool, "claim": "...", "vocabulary": [d words, in id order],
//    "alpha": [k numbers], "topics": [k arrays of d numbers: topic i's word distribution],
//    "privacy": {the run's privacy statement and ledger, as `dplda run --json` reports it},
//    "parameters": {the run's parameters}, "training_corpus": {...}}
// "alpha" and "topics" are truth.json's keys with truth.json's meaning, so a model file is also a
// valid truth.json (readTruthJson reads its numbers; other keys are ignored there).
// Numbers are written in their shortest round-trip form: a write/read round trip is exact.
#include <Eigen/Dense>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/safe_file.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

inline constexpr const char* kModelFormatName = "dplda-model";
inline constexpr int kModelFormatVersion = 1;

// What the model file says of the documents the model was fitted on, so that `infer` can tell
// when it is given them again (its output is then NOT private, docs/MODEL_FORMAT.md).
struct TrainingCorpusRecord {
  std::string path;       // the corpus folder as given to `dplda run` made absolute ("" unknown)
  int documents = 0;      // N of the fit (public in every release of the tool)
  bool heldOutSplit = false;  // fitted on the training part of a --holdout split of `path`
  // XXH3-64 of the training documents' counts (corpusFingerprint): a function of the private
  // data, so it is written only outside --release-only (a non-private diagnostic).
  std::optional<std::uint64_t> fingerprint;
};

struct ModelFile {
  std::string model;                   // "spectral", "vi", "dp-vi"
  bool isPrivate = false;              // the run's privacy claim holds (a private release)
  std::string claim;                   // the claim in one sentence, as the run printed it
  std::vector<std::string> vocabulary; // d words; word w is row w of topics
  LdaModel lda;                        // α (k) and topics (d x k, columns on the simplex)
  std::string privacyJson = "{}";      // a JSON object (text), kept as the run reported it
  std::string parametersJson = "{}";   // a JSON object (text)
  TrainingCorpusRecord training;
};

// Every check of a loaded model (also done before writing): the vocabulary has d words, the
// numbers are valid (validateLdaModel: finite, α > 0, topics >= 0 summing to 1 within 1e-6),
// the JSON texts are objects. BadInput naming the problem.
Status validateModelFile(const ModelFile& m);

// Validates, then writes atomically under `rules` (core/common/safe_file.h).
Status writeModelFile(const ModelFile& m, const std::string& path, const OutputRules& rules = {});
std::string modelFileToJson(const ModelFile& m);  // expects a valid model

// Reads and validates a model file: BadInput naming the file and the key for an unknown format
// or version, a missing or mistyped key, sizes that disagree, and every validateModelFile check.
Result<ModelFile> readModelFile(const std::string& path);
Result<ModelFile> parseModelFile(const std::string& text, const std::string& sourceName);

// XXH3-64 over N, d and every document's (word, count) pairs in row order: equal for the same
// documents in the same order (vocabulary names aside).
std::uint64_t corpusFingerprint(const Corpus& corpus);
std::string fingerprintText(std::uint64_t fingerprint);  // "xxh3-64:" + 16 hex digits

// The corpus's word names (Corpus::wordName: "w<i>" where a corpus has no vocab.txt).
std::vector<std::string> corpusWords(const Corpus& corpus);

// Ok when `corpus` has the model's vocabulary (same words in the same order); otherwise
// BadInput naming the sizes or the first differing word, e.g. "word 17 of the corpus is 'cat' but
// the model's word 17 is 'dog'". `what` names the corpus in the message.
Status checkSameVocabulary(const std::vector<std::string>& modelWords, const Corpus& corpus, const std::string& what);

}  // namespace dplda
