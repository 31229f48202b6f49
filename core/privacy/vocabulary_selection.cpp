#include "core/privacy/vocabulary_selection.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "core/common/number_text.h"
#include "core/privacy/mechanisms.h"

namespace dplda {

double normalUpperTail(double x) { return 0.5 * std::erfc(x / std::numbers::sqrt2); }

namespace {
// The smallest x (to 1e-12 relative, rounded up) with Φ̄(x) <= target, for target in (0, 0.5].
double normalUpperQuantile(double target) {
  double lo = 0.0, hi = 1.0;
  while (normalUpperTail(hi) > target) hi *= 2.0;
  for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (normalUpperTail(mid) > target ? lo : hi) = mid;
  }
  return hi;  // the upper end: Φ̄(hi) <= target
}
}  // namespace

Result<VocabularySelectionRecord> calibrateVocabularySelection(const VocabularySelectionParams& p, long long documents) {
  if (!std::isfinite(p.epsilon) || p.epsilon <= 0.0 || p.epsilon > kMaxVocabularyEpsilon) {
    return invalidArgument("the vocabulary selection's epsilon must be a number in (0, " +
                           shortNumber(kMaxVocabularyEpsilon) + "], got " + shortNumber(p.epsilon));
  }
  if (!std::isfinite(p.delta) || p.delta <= 0.0 || p.delta >= 1.0) {
    return invalidArgument("the vocabulary selection's delta must be a number in (0, 1), got " + shortNumber(p.delta));
  }
  if (p.maxWordsPerDocument < 1 || p.maxWordsPerDocument > kMaxWordsPerDocumentLimit) {
    return invalidArgument("the words one document may contribute to the vocabulary (m) must be in 1.." +
                           std::to_string(kMaxWordsPerDocumentLimit) + ", got " +
                           std::to_string(p.maxWordsPerDocument));
  }
  if (documents < 1) return invalidArgument("the vocabulary selection needs at least one document");
  VocabularySelectionRecord r;
  r.epsilon = p.epsilon;
  r.delta = p.delta;
  r.maxWordsPerDocument = p.maxWordsPerDocument;
  r.sensitivity = std::sqrt(2.0 * p.maxWordsPerDocument);
  // Half of δ for the Gaussian on the counts (its sampler tails reserved for every possible draw).
  const double draws = static_cast<double>(documents) * p.maxWordsPerDocument;
  auto gaussian = calibrate(Mechanism::AnalyticGaussian, p.epsilon, p.delta / 2.0, r.sensitivity, draws);
  if (!gaussian.ok()) return gaussian.status();
  if (gaussian.value().samplerLimited) {
    return invalidArgument("delta = " + shortNumber(p.delta) + " is too small for " + shortNumber(draws) +
                           " noise draws at epsilon " + shortNumber(p.epsilon) + " (the sampler's tails)");
  }
  r.sigma = gaussian.value().scale;
  // The other half for words that one of the two neighbours has and the other has not (count 1):
  // at most m on each side, and the one of D' enters multiplied by e^ε.
  const double target = (p.delta / 2.0) / ((1.0 + std::exp(p.epsilon)) * p.maxWordsPerDocument);
  r.threshold = 1.0 + r.sigma * normalUpperQuantile(target);
  return r;
}

double singleDocumentKeepProbability(const VocabularySelectionRecord& cal) {
  return normalUpperTail((cal.threshold - 1.0) / cal.sigma);
}

std::vector<int> selectVocabulary(const std::vector<long long>& documentCounts, const VocabularySelectionRecord& cal,
                                  int maxWords, RandomSource& noise) {
  std::vector<std::pair<double, int>> kept;  // (noisy count, id)
  for (std::size_t w = 0; w < documentCounts.size(); ++w) {
    if (documentCounts[w] <= 0) continue;
    const double noisy = static_cast<double>(documentCounts[w]) + cal.sigma * standardNormal(noise);
    if (noisy > cal.threshold) kept.emplace_back(noisy, static_cast<int>(w));
  }
  if (static_cast<int>(kept.size()) > maxWords) {
    std::partial_sort(kept.begin(), kept.begin() + maxWords, kept.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    kept.resize(static_cast<std::size_t>(std::max(0, maxWords)));
  }
  std::vector<int> ids;
  ids.reserve(kept.size());
  for (const auto& k : kept) ids.push_back(k.second);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace dplda
