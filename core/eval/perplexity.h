#pragma once
// Held-out perplexity of any topic model (α, topics d x k), by document completion (Wallach,
// Murray, Salakhutdinov & Mimno 2009), plus the ELBO-based bound. Evaluation is post-processing
// of a released model: the held-out documents never enter a fit.
//
// Document completion. For each held-out document, its l tokens listed by word id are permuted
// by SeededRandom(deriveSeed(seed, n)) (n = row in the held-out corpus); the first floor(l/2)
// are observed, the other ceil(l/2) scored. θ is inferred from the observed half by the
// variational E-step with the (smoothed) topics and α fixed (inferDocument, tolerance 1e-3,
// at most 100 updates), θ̂ = γ/Σγ, and each scored token w has p(w) = Σ_i θ̂_i β̃_wi.
//   perplexity = exp(−Σ log p(scored tokens) / Σ scored tokens).
// Smoothing (the same for every model): β̃_i = (1 − s) β_i + s/d with s = 1e-4 by default, so
// zero entries (e.g. after a simplex projection) cost log(s/d) instead of −∞, and every other
// probability moves by at most a factor (1 − s).
// ELBO bound: for the whole held-out document (all tokens), the ELBO with point topics β̃,
//   Σ_w c_w log Σ_i exp(E[log θ_i]) β̃_wi + E[log p(θ|α)] − E[log q(θ|γ)],
// at the E-step's γ; exp(−Σ ELBO / Σ tokens) >= the true per-word perplexity of full documents.
// scikit-learn's perplexity() is the same bound with E_q[log β] of its λ and the topics' KL term
// added; the two agree only in the limit of concentrated λ.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

inline constexpr double kDefaultPerplexitySmoothing = 1e-4;

struct PerplexityOptions {
  double smoothing = kDefaultPerplexitySmoothing;  // s in [0, 1): uniform mixing weight
  double tolerance = 1e-3;                         // E-step: mean |Δγ| below this
  int maxIterations = 100;                         // E-step: at most this many updates
  int threads = 0;                                 // OpenMP threads, 0 = default; never changes results
};

struct PerplexityResult {
  double perplexity = 0.0;           // document completion
  double elboBoundPerplexity = 0.0;  // exp(−Σ ELBO / Σ tokens) over whole held-out documents
  double logLikelihood = 0.0;        // Σ log p over the scored halves
  long long scoredTokens = 0;        // tokens in the scored halves
  long long observedTokens = 0;      // tokens in the observed halves
  long long boundTokens = 0;         // all held-out tokens (the ELBO bound's denominator)
  int documents = 0;
  // Per held-out document (row order): Σ log p of its scored half / its scored tokens, NaN when it
  // has none. A function of that document, its row and the model only: the input of the private
  // held-out evaluation (core/eval/private_holdout.h).
  std::vector<double> documentLogLikelihoodPerToken;
  std::string estimator;             // e.g. "document completion (Wallach et al. 2009), ..."
  std::string smoothing;             // e.g. "topics mixed with the uniform distribution, weight 1e-04"
};

// The description strings every output carries.
std::string perplexityEstimatorText();
std::string perplexitySmoothingText(double smoothing);

// BadInput when the model's vocabulary differs from the corpus's, α or topics are not finite,
// α has an entry <= 0, a topic column is negative or does not sum to 1 (within 1e-6), or the
// held-out corpus is empty; InvalidArgument for options out of range. Cancelled via feedback.
Result<PerplexityResult> heldOutPerplexity(const LdaModel& model, const Corpus& heldOut, std::uint64_t seed,
                                           const PerplexityOptions& options = {}, Feedback* feedback = nullptr);

}  // namespace dplda
