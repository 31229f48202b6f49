// Held-out perplexity by document completion, and the ELBO bound (see perplexity.h).
#include "core/eval/perplexity.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/common/number_text.h"
#include "core/common/parallel_guard.h"
#include "core/common/random.h"
#include "core/vi/estep.h"
#include "core/vi/variational_lda.h"

namespace dplda {

namespace {
constexpr double kAlphaFloor = 1e-6;  // α entries below this (a spectral α̂ may be <= 0) are raised to it

struct DocScore {
  double logP = 0.0, elbo = 0.0;
  long long scored = 0, observed = 0, total = 0;
};
}  // namespace

std::string perplexityEstimatorText() {
  return "document completion (Wallach et al. 2009): a seeded random half (floor(l/2) tokens) of each held-out "
         "document is observed, theta inferred by the variational E-step with topics and alpha fixed (tolerance "
         "1e-3, at most 100 updates), the other half scored with theta = gamma/sum(gamma)";
}

std::string perplexitySmoothingText(double smoothing) {
  return "topics mixed with the uniform distribution, weight " + shortNumber(smoothing) +
         " (beta~ = (1 - s) beta + s/d); alpha entries below 1e-6 raised to 1e-6";
}

Result<PerplexityResult> heldOutPerplexity(const LdaModel& model, const Corpus& heldOut, std::uint64_t seed,
                                           const PerplexityOptions& o, Feedback* feedback) {
  if (!(std::isfinite(o.smoothing) && o.smoothing >= 0 && o.smoothing < 1)) {
    return invalidArgument("the perplexity smoothing must be in [0, 1), got " + shortNumber(o.smoothing));
  }
  if (!(o.tolerance > 0 && std::isfinite(o.tolerance)) || o.maxIterations < 1 || o.threads < 0) {
    return invalidArgument("the perplexity E-step needs a finite tolerance > 0, at least one iteration and threads >= 0");
  }
  const int d = heldOut.vocabSize(), k = model.topicCount();
  if (heldOut.docCount() < 1) return badInput("the held-out corpus has no documents");
  if (model.vocabSize() != d || model.topics.cols() != k || k < 1) {
    return badInput("the model has " + std::to_string(model.topics.cols()) + " topics over " +
                    std::to_string(model.vocabSize()) + " words (alpha has " + std::to_string(k) +
                    " entries) but the held-out corpus has a vocabulary of " + std::to_string(d));
  }
  if (!model.alpha.allFinite() || !model.topics.allFinite()) return badInput("the model has non-finite alpha or topics");
  // Document completion lists each document's tokens one by one (4 bytes each, per thread).
  if (heldOut.maxLength() > static_cast<double>(kMaxDocumentLength)) {
    return badInput("a held-out document has " + shortNumber(heldOut.maxLength()) + " tokens, more than " +
                    std::to_string(kMaxDocumentLength) + ", the most a document may hold");
  }
  for (int i = 0; i < k; ++i) {
    if (model.topics.col(i).minCoeff() < 0 || std::abs(model.topics.col(i).sum() - 1.0) > 1e-6) {
      return badInput("topic " + std::to_string(i + 1) + " is not on the simplex (sum " +
                      shortNumber(model.topics.col(i).sum()) + ", min " + shortNumber(model.topics.col(i).minCoeff()) + ")");
    }
  }
  const Eigen::VectorXd alpha = model.alpha.cwiseMax(kAlphaFloor);
  // k x d, column w = the smoothed weights of word w (inferDocument's layout).
  const Eigen::MatrixXd B = ((1.0 - o.smoothing) * model.topics.array() + o.smoothing / d).matrix().transpose();
  const SparseCounts& X = heldOut.counts;
  const int N = heldOut.docCount();
  std::vector<DocScore> scores(N);
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  std::atomic<bool> stop{false};
  ParallelGuard guard;
#pragma omp parallel num_threads(threads)
  {
    vi_detail::EStepScratch& scratch = vi_detail::threadScratch();  // no allocation per document
    Eigen::VectorXd gamma(k), lgammaTerms(k);
    std::vector<int> tokens, words;
    std::vector<double> counts;
#pragma omp for schedule(dynamic, 16)
    for (int n = 0; n < N; ++n) guard.run([&] {
      if (stop) return;
      if (omp_get_thread_num() == 0 && isCanceled(feedback)) stop = true;
      DocScore& s = scores[n];
      const int p0 = X.outerIndexPtr()[n], nnz = X.outerIndexPtr()[n + 1] - p0;
      const int* w0 = X.innerIndexPtr() + p0;
      const double* c0 = X.valuePtr() + p0;
      // The ELBO bound on the whole document.
      gamma = alpha.array() + heldOut.lengths[n] / k;
      vi_detail::estep(B, alpha.data(), w0, c0, nnz, o.tolerance, o.maxIterations, gamma.data(), scratch);
      const double* phiNorm = scratch.phiNorm();
      for (int j = 0; j < nnz; ++j) s.elbo += c0[j] * std::log(phiNorm[j]);
      // E[log θ_i] directly: exp(E[log θ_i]) underflows to 0 for a tiny γ_i (α floored at 1e-6),
      // and (α_i − γ_i)·log 0 was NaN.
      const double digammaSum = digamma(gamma.sum());
      for (int i = 0; i < k; ++i) {
        s.elbo += (alpha[i] - gamma[i]) * (digamma(gamma[i]) - digammaSum) + std::lgamma(gamma[i]) - std::lgamma(alpha[i]);
      }
      s.elbo += std::lgamma(alpha.sum()) - std::lgamma(gamma.sum());
      // Document completion: tokens by word id, a seeded permutation, first floor(l/2) observed.
      tokens.clear();
      for (int j = 0; j < nnz; ++j) tokens.insert(tokens.end(), static_cast<std::size_t>(c0[j]), w0[j]);
      SeededRandom rng(deriveSeed(seed, static_cast<std::uint64_t>(n)));
      for (int i = static_cast<int>(tokens.size()) - 1; i > 0; --i) {
        std::swap(tokens[i], tokens[uniformIndex(rng, static_cast<std::uint64_t>(i) + 1)]);
      }
      const std::size_t half = tokens.size() / 2;
      std::sort(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(half));
      words.clear();
      counts.clear();
      for (std::size_t t = 0; t < half; ++t) {
        if (!words.empty() && words.back() == tokens[t]) counts.back() += 1.0;
        else words.push_back(tokens[t]), counts.push_back(1.0);
      }
      gamma = alpha.array() + static_cast<double>(half) / k;
      vi_detail::estep(B, alpha.data(), words.data(), counts.data(), static_cast<int>(words.size()), o.tolerance,
                       o.maxIterations, gamma.data(), scratch);
      gamma /= gamma.sum();  // θ̂
      for (std::size_t t = half; t < tokens.size(); ++t) s.logP += std::log(B.col(tokens[t]).dot(gamma));
      s.observed = static_cast<long long>(half);
      s.scored = static_cast<long long>(tokens.size() - half);
      s.total = static_cast<long long>(tokens.size());
    });
  }
  guard.rethrow();
  if (isCanceled(feedback)) return cancelled();
  PerplexityResult r;
  double elbo = 0.0;
  r.documentLogLikelihoodPerToken.reserve(scores.size());
  for (const DocScore& s : scores) {  // fixed order: identical for any thread count
    r.documentLogLikelihoodPerToken.push_back(s.scored > 0 ? s.logP / static_cast<double>(s.scored)
                                                           : std::numeric_limits<double>::quiet_NaN());
    r.logLikelihood += s.logP;
    elbo += s.elbo;
    r.scoredTokens += s.scored;
    r.observedTokens += s.observed;
    r.boundTokens += s.total;
  }
  r.documents = N;
  if (r.scoredTokens < 1) return badInput("the held-out documents have no tokens to score");
  r.perplexity = std::exp(-r.logLikelihood / static_cast<double>(r.scoredTokens));
  r.elboBoundPerplexity = std::exp(-elbo / static_cast<double>(r.boundTokens));
  r.estimator = perplexityEstimatorText();
  r.smoothing = perplexitySmoothingText(o.smoothing);
  return r;
}

}  // namespace dplda
