#pragma once
// Poisson sampling for DP-VI's minibatches (docs/PRIVACY.md §16.5): every document is included
// independently with probability q. The draw compares 53 random bits with ⌈q·2⁵³⌉, so the
// probability realised is exactly rate() = ⌈q·2⁵³⌉/2⁵³ ∈ [q, q + 2⁻⁵³), which is what the
// accountant is given (a larger rate never costs less, so accounting at rate() is sound).
// The bits must come from a secret source (SecureRandom) for the amplification to hold: an
// adversary who can replay the sample sees every release as a full one.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/common/random.h"

namespace dplda {

class PoissonSampler {
 public:
  explicit PoissonSampler(double q)
      : m_threshold(static_cast<std::uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * 0x1p53))) {}
  bool includes(RandomSource& rng) const { return (rng.nextU64() >> 11) < m_threshold; }
  double rate() const { return static_cast<double>(m_threshold) / 0x1p53; }

 private:
  std::uint64_t m_threshold;
};

// The sampler of method poisson, q = min(S, N)/N: the engine draws with it and DP-VI accounts its
// rate(), so the two cannot disagree.
inline PoissonSampler minibatchSampler(int batchSize, int docCount) {
  return PoissonSampler(static_cast<double>(std::min(batchSize, docCount)) / docCount);
}

}  // namespace dplda
