#pragma once
// A private held-out evaluation (docs/PRIVACY.md §15, SPEC §15): the held-out documents are
// private data too, so a score computed from them is released only with calibrated noise.
//
// Each held-out document n gets its document-completion log-likelihood per scored token x_n
// (core/eval/perplexity.h: the seeded halves, θ inferred from one half, the other scored), a
// function of that document, its row and the released model only. x_n is clipped to the public
// range [−B, 0]; the mean over the public number N_test of held-out documents has sensitivity
// B / N_test under replacing one document, and is released with Laplace noise of scale
// B / (N_test ε) (ε-DP; the sampler's truncated tails add δ = laplaceSamplerDelta(ε)). The
// released mean is then clamped to [−B, 0] (post-processing) and
//   private perplexity = exp(−released mean),
// an estimate of the per-document geometric-mean perplexity exp(−(1/N_test) Σ_n clip(x_n)),
// which weights every document equally: NOT the token-weighted exp(−Σ log p / Σ tokens).
//
// B defaults to ln(d/s), s the perplexity smoothing: every smoothed word probability is at least
// s/d, so x_n ≥ ln(s/d) and the default clips nothing (the estimate is then unbiased for the
// unclipped per-document mean). A smaller B means less noise and some clipping bias.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/common/random.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/eval/perplexity.h"

namespace dplda {

inline constexpr double kMaxHoldoutClip = 1e6;  // B beyond this is a typo, not a bound

struct PrivateHoldoutOptions {
  double epsilon = 0.0;                                   // ε of the release, in (0, kMaxEpsilon]
  double clip = std::numeric_limits<double>::quiet_NaN();  // B > 0; NaN: defaultHoldoutClip
  PerplexityOptions perplexity;                           // the smoothing s and the E-step
};

struct PrivateHoldoutRelease {
  int documents = 0;          // N_test (public: the split's size)
  double clip = 0.0;          // B
  double sensitivity = 0.0;   // B / N_test
  double epsilon = 0.0;
  double scale = 0.0;         // Laplace b = sensitivity / ε
  double samplerDelta = 0.0;  // δ the Laplace sampler's truncated tails add (docs/PRIVACY.md §7.2)
  double meanLogLikelihood = 0.0;  // released: clipped mean + Laplace noise, clamped to [−B, 0]
  double perplexity = 0.0;         // exp(−meanLogLikelihood)
};

// ln(d / s): the smallest B that clips no document (every smoothed probability is >= s/d).
// NaN when d < 1 or s is not in (0, 1).
double defaultHoldoutClip(int vocabSize, double smoothing);

// The exact (non-private) statistic: (1/N) Σ_n clamp(x_n, −B, 0) over the per-document values,
// a document without scored tokens (NaN) counting −B. Its sensitivity is B / N.
double clippedMeanLogLikelihood(const std::vector<double>& perTokenLogLikelihood, double clip);

// The clip B the options ask for (the default for this vocabulary when NaN), or InvalidArgument
// naming --holdout-clip / --holdout-epsilon for values out of range. Public inputs only.
Result<double> holdoutClipFor(const PrivateHoldoutOptions& options, int vocabSize);
Status validatePrivateHoldout(const PrivateHoldoutOptions& options, int vocabSize, int heldOutDocuments);

// The release: scores every held-out document against `model`, clips, averages, adds one Laplace
// draw from `noise`. Errors carry no value computed from the held-out documents.
Result<PrivateHoldoutRelease> releaseHeldOutLogLikelihood(const LdaModel& model, const Corpus& heldOut,
                                                          std::uint64_t seed, const PrivateHoldoutOptions& options,
                                                          RandomSource& noise);

// What the released perplexity estimates, and the ledger row's sensitivity formula.
std::string privateHoldoutEstimandText();
std::string privateHoldoutSensitivityText();

}  // namespace dplda
