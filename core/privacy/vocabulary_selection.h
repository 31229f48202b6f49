#pragma once
// A differentially private vocabulary: Gaussian partition selection with per-document
// contribution bounding (SPEC §17; Gopi et al. 2020, "Differentially private set union";
// Desfontaines et al. 2022; Google's partition-selection strategies). Proof: docs/PRIVACY.md §13.
//
// Each document contributes at most m distinct words (its m most frequent, ties in byte order: a
// rule on that document alone); a word's count is the number of documents contributing it.
// Replacing one document changes at most 2m counts by 1, so the count vector moves by at most
// √(2m) in l2. Each word with a positive count gets N(0, σ²) with σ the analytic Gaussian's for
// (ε, δ/2) at that sensitivity, and is kept when its noisy count exceeds τ, where a word that one
// document alone contributes passes with probability at most (δ/2)/((1 + e^ε) m). The whole
// selection is then (ε, δ)-DP for replacing one document. Of the kept words at most d are
// retained, by noisy count (post-processing), and ordered alphabetically: a public rule.
#include <cstdint>
#include <vector>

#include "core/common/random.h"
#include "core/common/status.h"
#include "core/corpus/corpus_provenance.h"

namespace dplda {

struct VocabularySelectionParams {
  double epsilon = 1.0;
  double delta = 1e-6;
  int maxWordsPerDocument = 20;  // m
};

// The largest ε_v offered: beyond it e^ε makes the threshold's share of δ vanish in double.
inline constexpr double kMaxVocabularyEpsilon = 30.0;
inline constexpr int kMaxWordsPerDocumentLimit = 100000;

// σ, τ and the sensitivity for `documents` documents (public N: the sampler's truncated tails are
// reserved for at most m·N noise draws). InvalidArgument naming the parameter and its value.
Result<VocabularySelectionRecord> calibrateVocabularySelection(const VocabularySelectionParams& params,
                                                               long long documents);

// The ids of the words kept: noisy count > τ, then at most maxWords of them with the largest noisy
// counts (ties by id). documentCounts[w] is the number of documents contributing word w; words
// with count 0 never draw noise and are never kept. The result is sorted by id.
std::vector<int> selectVocabulary(const std::vector<long long>& documentCounts, const VocabularySelectionRecord& cal,
                                  int maxWords, RandomSource& noise);

// The probability that a word contributed by one document only is kept, for exact Gaussian noise:
// Φ̄((τ − 1)/σ) (at most (δ/2)/((1 + e^ε) m) by construction).
double singleDocumentKeepProbability(const VocabularySelectionRecord& cal);

// Upper tail of the standard normal, Φ̄(x) = P(Z > x).
double normalUpperTail(double x);

}  // namespace dplda
