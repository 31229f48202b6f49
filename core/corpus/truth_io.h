#pragma once
// truth.json: the ground truth (alpha, mu) of a corpus, as
//   {"alpha": [k numbers], "topics": [k arrays of d numbers]}
// where topics[i] is column i of LdaModel::topics. Numbers are written in the shortest form
// that reads back to the identical double (std::to_chars), so a write/read round trip is exact.
// The reader is a strict JSON parser (RFC 8259; a leading UTF-8 byte order mark is tolerated)
// whose errors give the line and column; other keys in the object are ignored.
#include <string>
#include <string_view>

#include "core/common/safe_file.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

// A model is valid truth when k >= 1, d >= 1, k <= d, all numbers are finite, alpha_i > 0,
// topic entries >= 0 and every topic sums to 1 within 1e-6. Messages name the entry.
Status validateLdaModel(const LdaModel& model);

std::string truthToJson(const LdaModel& model);                         // expects a valid model
// Validates first; written atomically under `rules` (core/common/safe_file.h).
Status writeTruthJson(const LdaModel& model, const std::string& path, const OutputRules& rules = {});

// What the caller knows of the truth's shape (0 = nothing): a topic longer than vocabSize (else
// kMaxVocabularySize) or more than maxTopics topics is refused while it is read, so memory stays
// within d x k numbers whatever the file holds (issue 28: 400 MB of "0," took 5 GB).
struct TruthShape {
  int vocabSize = 0;
  int maxTopics = 0;
};

Result<LdaModel> parseTruthJson(std::string_view text, const std::string& sourceName = "truth.json",
                                const TruthShape& shape = {});
// Also refuses a file larger than 1 GiB, or one whose reading would not fit in memory
// (ResourceLimit, before reading).
Result<LdaModel> readTruthJson(const std::string& path, const TruthShape& shape = {});

}  // namespace dplda
