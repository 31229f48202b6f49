#pragma once
// A seeded, public train/test split of the documents for held-out evaluation.
//
// Rule: a Fisher-Yates permutation of 0..N−1 drawn from SeededRandom(seed); its first
// round(fraction·N) entries are the test documents. Both parts keep the original document order
// (ids ascending) and the vocabulary. The split depends only on N, fraction and seed (public).
#include <cstdint>
#include <vector>

#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

inline constexpr double kDefaultHoldoutFraction = 0.1;

struct HoldoutSplit {
  Corpus train;               // droppedDocuments copied from the source (documents dropped on loading)
  Corpus test;                // droppedDocuments = 0
  std::vector<int> trainIds;  // source row of each train document, ascending
  std::vector<int> testIds;   // source row of each test document, ascending
  double fraction = 0.0;
  std::uint64_t seed = 0;
};

// fraction in [0, 1); 0 gives an empty test part. A fraction > 0 must leave at least one
// document on each side (InvalidArgument naming the fraction and N otherwise).
Result<HoldoutSplit> splitHoldout(const Corpus& corpus, double fraction, std::uint64_t seed);

// The rows `ids` (ascending, in range) of `corpus` as a corpus with the same vocabulary.
Corpus selectDocuments(const Corpus& corpus, const std::vector<int>& ids);

}  // namespace dplda
