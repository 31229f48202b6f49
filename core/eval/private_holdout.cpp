// The private held-out evaluation (see private_holdout.h; proof in docs/PRIVACY.md §15).
#include "core/eval/private_holdout.h"

#include <algorithm>
#include <cmath>

#include "core/common/number_text.h"
#include "core/privacy/mechanisms.h"

namespace dplda {

double defaultHoldoutClip(int vocabSize, double smoothing) {
  if (vocabSize < 1 || !(smoothing > 0.0 && smoothing < 1.0)) return std::numeric_limits<double>::quiet_NaN();
  return std::log(static_cast<double>(vocabSize) / smoothing);
}

double clippedMeanLogLikelihood(const std::vector<double>& perToken, double clip) {
  if (perToken.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0.0;
  for (double x : perToken) sum += std::isnan(x) ? -clip : std::clamp(x, -clip, 0.0);  // fixed order
  return sum / static_cast<double>(perToken.size());
}

Result<double> holdoutClipFor(const PrivateHoldoutOptions& o, int vocabSize) {
  if (std::isnan(o.clip)) {
    const double b = defaultHoldoutClip(vocabSize, o.perplexity.smoothing);
    if (!std::isfinite(b)) {
      return invalidArgument("the default --holdout-clip ln(d/s) needs a smoothing s in (0, 1), got s = " +
                             shortNumber(o.perplexity.smoothing) + "; give --holdout-clip B");
    }
    return b;
  }
  if (!(std::isfinite(o.clip) && o.clip > 0.0 && o.clip <= kMaxHoldoutClip)) {
    return invalidArgument("--holdout-clip (the public range [-B, 0] of each held-out document's log-likelihood "
                           "per token) must be in (0, 1e6], got " + shortNumber(o.clip));
  }
  return o.clip;
}

Status validatePrivateHoldout(const PrivateHoldoutOptions& o, int vocabSize, int heldOutDocuments) {
  if (!(std::isfinite(o.epsilon) && o.epsilon > 0.0 && o.epsilon <= kMaxEpsilon)) {
    return invalidArgument("--holdout-epsilon must be in (0, 1e15], got " + shortNumber(o.epsilon));
  }
  auto clip = holdoutClipFor(o, vocabSize);
  if (!clip.ok()) return clip.status();
  if (heldOutDocuments < 1) return invalidArgument("the private held-out evaluation needs held-out documents");
  return calibrate(Mechanism::Laplace, o.epsilon, 0.0, clip.value() / heldOutDocuments).status();
}

Result<PrivateHoldoutRelease> releaseHeldOutLogLikelihood(const LdaModel& model, const Corpus& heldOut,
                                                          std::uint64_t seed, const PrivateHoldoutOptions& o,
                                                          RandomSource& noise) {
  const int n = heldOut.docCount();
  DPLDA_RETURN_IF_ERROR(validatePrivateHoldout(o, heldOut.vocabSize(), n));
  PrivateHoldoutRelease r;
  r.documents = n;
  r.clip = holdoutClipFor(o, heldOut.vocabSize()).value();
  r.sensitivity = r.clip / n;
  auto cal = calibrate(Mechanism::Laplace, o.epsilon, 0.0, r.sensitivity);
  if (!cal.ok()) return cal.status();
  r.epsilon = o.epsilon;
  r.scale = cal->scale;
  r.samplerDelta = cal->samplerDelta;
  // The model is released and the corpus's shape public: a failure here names neither a count nor
  // a score of the held-out documents (a document with a scored half gives its own value; an empty
  // one, kept by a text import so that N is public, has none and counts as -B: docs/PRIVACY.md §13).
  auto scores = heldOutPerplexity(model, heldOut, seed, o.perplexity);
  if (!scores.ok()) return scores.status();
  const double exact = clippedMeanLogLikelihood(scores->documentLogLikelihoodPerToken, r.clip);
  r.meanLogLikelihood = std::clamp(exact + laplace(noise, r.scale), -r.clip, 0.0);
  r.perplexity = std::exp(-r.meanLogLikelihood);
  return r;
}

std::string privateHoldoutEstimandText() {
  return "exp(-m) for m = the mean over the held-out documents of each document's document-completion "
         "log-likelihood per scored token, clipped to [-B, 0], released with Laplace noise and clamped to [-B, 0]: "
         "a per-document (every document weighted equally) geometric-mean perplexity, not the token-weighted "
         "exp(-sum log p / sum tokens)";
}

std::string privateHoldoutSensitivityText() {
  return "B / N_test (each document's clipped score in [-B, 0], mean over the public N_test; replace one "
         "document; docs/PRIVACY.md §15)";
}

}  // namespace dplda
