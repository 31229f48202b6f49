// Batch and online VB for LDA over sparse documents, deterministic for any thread count.
//
// A block of documents is processed in two phases: (1) in parallel, each document's E-step
// (inferDocument) and its contribution s_n[i][w] = c_w φ_wi, written to the document's own slot
// of a block buffer (and clipped there when asked); (2) sequentially, the slots are added into
// the k x d statistics in document order. Phase 2 costs one pass over the block's non-zeros
// (about 1/20 of phase 1), and fixes the summation order.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <numeric>

#include "core/common/random.h"
#include "core/vi/estep.h"
#include "core/vi/vi_engine.h"

namespace dplda::vi_detail {

namespace {

constexpr int kBlockDocs = 4096;  // documents per block in batch mode (bounds the buffer)

struct Block {
  std::vector<long long> offset;  // offset[j] = first non-zero of document j in `contrib` / k
  std::vector<double> contrib;    // k values per non-zero
  std::vector<int> estepIterations;
  std::vector<double> elboTerm;
  std::vector<char> clipped;
};

struct Context {
  const Corpus& corpus;
  int k;
  const ViOptions& options;
  const Eigen::VectorXd& alpha;
  EngineHooks& hooks;
  int threads;
};

double lgammaSum(const Eigen::VectorXd& v) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < v.size(); ++i) s += std::lgamma(v[i]);
  return s;
}

// Σ_q v_q² in 8 lanes (q mod 8), added pairwise: a fixed order for a given n.
double squaredNorm(const double* v, std::ptrdiff_t n) {
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::ptrdiff_t q = 0;
  for (; q + 8 <= n; q += 8)
    for (int l = 0; l < 8; ++l) lane[l] += v[q + l] * v[q + l];
  for (; q < n; ++q) lane[q % 8] += v[q] * v[q];
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// Σ_w c_w log phiNorm_w + E[log p(θ|α)] − E[log q(θ|γ)] for one document (optimal φ given γ).
double documentElbo(const Eigen::VectorXd& alpha, const double* gamma, const double* expElogTheta,
                    const double* phiNorm, const double* counts, int nnz) {
  const Eigen::Index k = alpha.size();
  double s = 0.0, gammaSum = 0.0, lgammaGamma = 0.0;
  for (int j = 0; j < nnz; ++j) s += counts[j] * std::log(phiNorm[j]);
  for (Eigen::Index i = 0; i < k; ++i) {
    s += (alpha[i] - gamma[i]) * std::log(expElogTheta[i]);
    gammaSum += gamma[i];
    lgammaGamma += std::lgamma(gamma[i]);
  }
  return s + lgammaGamma - lgammaSum(alpha) + std::lgamma(alpha.sum()) - std::lgamma(gammaSum);
}

// Phase 1 + 2 over docs[begin, end). `gammaStore` (k x N): warm starts and results (batch), or
// null (fresh start α + l/k). elboOnly: compute the documents' ELBO terms at their current γ
// and add nothing to the statistics. Returns the block's ELBO sum when asked. expElogBeta is
// read only at the block's words.
double processBlock(Context& c, const std::vector<int>& docs, std::size_t begin, std::size_t end,
                    const Eigen::MatrixXd& expElogBeta, Eigen::MatrixXd* gammaStore, bool elboTerms, bool elboOnly,
                    Eigen::MatrixXd& stats, Block& blk, long long& estepIterations, long long& notConverged) {
  const SparseCounts& X = c.corpus.counts;
  const int k = c.k;
  const int m = static_cast<int>(end - begin);
  blk.offset.assign(m + 1, 0);
  for (int j = 0; j < m; ++j) {
    const int n = docs[begin + j];
    blk.offset[j + 1] = blk.offset[j] + (X.outerIndexPtr()[n + 1] - X.outerIndexPtr()[n]);
  }
  if (!elboOnly) blk.contrib.resize(static_cast<std::size_t>(blk.offset[m]) * k);
  blk.estepIterations.assign(m, 0);
  blk.elboTerm.assign(m, 0.0);
  blk.clipped.assign(m, 0);
  const double clip = c.hooks.clip;
  const double tol = c.options.estepTolerance;
  const int maxIt = c.options.estepMaxIterations;
  const double* alpha = c.alpha.data();
  // Parallel only when the block is worth a fork/join (one E-step pass >= 1e6 multiply-adds): on a
  // busy machine small minibatches lose far more to OpenMP's wake-ups than they gain.
  const bool parallel = m > 1 && static_cast<double>(blk.offset[m]) * k >= 1e6;
#pragma omp parallel num_threads(c.threads) if (parallel)
  {
    EStepScratch& scratch = threadScratch();
    Eigen::VectorXd fresh(k);  // γ of a document without a warm start
#pragma omp for schedule(dynamic, 8)
    for (int j = 0; j < m; ++j) {
      const int n = docs[begin + j];
      const int p0 = X.outerIndexPtr()[n];
      const int nnz = X.outerIndexPtr()[n + 1] - p0;
      const int* words = X.innerIndexPtr() + p0;
      const double* counts = X.valuePtr() + p0;
      double* gamma = fresh.data();
      if (gammaStore) gamma = gammaStore->col(n).data();
      else fresh = c.alpha.array() + c.corpus.lengths[n] / k;
      if (elboTerms) {  // the ELBO at the starting γ, before this iteration's E-step
        estep(expElogBeta, alpha, words, counts, nnz, tol, 0, gamma, scratch);
        blk.elboTerm[j] = documentElbo(c.alpha, gamma, scratch.expElogTheta(), scratch.phiNorm(), counts, nnz);
      }
      if (elboOnly) continue;
      blk.estepIterations[j] = estep(expElogBeta, alpha, words, counts, nnz, tol, maxIt, gamma, scratch);
      const double* expElogTheta = scratch.expElogTheta();
      const double* phiNorm = scratch.phiNorm();
      double* out = blk.contrib.data() + blk.offset[j] * k;
      for (int q = 0; q < nnz; ++q) {
        const double f = counts[q] / phiNorm[q];
        const double* b = expElogBeta.data() + static_cast<std::ptrdiff_t>(words[q]) * k;
        double* o = out + static_cast<std::ptrdiff_t>(q) * k;
        for (int i = 0; i < k; ++i) o[i] = expElogTheta[i] * b[i] * f;
      }
      // Clip to Frobenius norm C: s_n · min(1, C/‖s_n‖_F). Skipped entirely when C = ∞.
      if (std::isfinite(clip)) {
        const double norm2 = squaredNorm(out, static_cast<std::ptrdiff_t>(nnz) * k);
        if (norm2 > clip * clip) {
          const double scale = clip / std::sqrt(norm2);
          for (int q = 0; q < nnz * k; ++q) out[q] *= scale;
          blk.clipped[j] = 1;
        }
      }
    }
  }
  double elbo = 0.0;
  for (int j = 0; j < m; ++j) {  // phase 2: fixed document order
    elbo += blk.elboTerm[j];
    if (elboOnly) continue;
    estepIterations += blk.estepIterations[j];
    if (blk.estepIterations[j] >= maxIt) ++notConverged;
    c.hooks.clippedVisits += blk.clipped[j];
    const int n = docs[begin + j];
    const int p0 = X.outerIndexPtr()[n];
    const int nnz = X.outerIndexPtr()[n + 1] - p0;
    const double* in = blk.contrib.data() + blk.offset[j] * k;
    for (int q = 0; q < nnz; ++q) {
      double* col = stats.data() + static_cast<std::ptrdiff_t>(X.innerIndexPtr()[p0 + q]) * k;
      for (int i = 0; i < k; ++i) col[i] += in[q * k + i];
    }
  }
  return elbo;
}

// Σ_i [Σ_w (η − λ_iw) E[log β_iw] + lgamma(λ_iw) − lgamma(η)] + lgamma(dη) − lgamma(Σ_w λ_iw).
double topicElbo(const Eigen::MatrixXd& lambda, const Eigen::MatrixXd& expElogBeta, double eta) {
  const Eigen::Index k = lambda.rows(), d = lambda.cols();
  double s = 0.0;
  for (Eigen::Index i = 0; i < k; ++i) {
    double rowSum = 0.0, t = 0.0;
    for (Eigen::Index w = 0; w < d; ++w) {
      rowSum += lambda(i, w);
      t += (eta - lambda(i, w)) * std::log(expElogBeta(i, w)) + std::lgamma(lambda(i, w)) - std::lgamma(eta);
    }
    s += t + std::lgamma(d * eta) - std::lgamma(rowSum);
  }
  return s;
}

LdaModel modelOf(const Eigen::MatrixXd& lambda, const Eigen::VectorXd& alpha) {
  LdaModel m;
  m.alpha = alpha;
  m.topics = lambda.transpose();
  for (Eigen::Index i = 0; i < m.topics.cols(); ++i) m.topics.col(i) /= m.topics.col(i).sum();
  return m;
}

}  // namespace

Result<ViFit> runEngine(const Corpus& corpus, int k, const ViOptions& options, EngineHooks& hooks,
                        Feedback* feedback) {
  const auto start = std::chrono::steady_clock::now();
  const int N = corpus.docCount(), d = corpus.vocabSize();
  const Eigen::VectorXd alpha = viAlpha(options, k);
  const double eta = viEta(options, k);
  Context c{corpus, k, options, alpha, hooks, options.threads > 0 ? options.threads : omp_get_max_threads()};

  // λ ~ Gamma(100, 1/100) entrywise, drawn in storage order (word-major), from the seed.
  SeededRandom initRng(deriveSeed(options.seed, 0));
  Eigen::MatrixXd lambda(k, d);
  for (Eigen::Index q = 0; q < lambda.size(); ++q) lambda.data()[q] = gammaSample(initRng, 100.0) / 100.0;

  ViFit fit;
  fit.eta = eta;
  fit.method = options.method;
  Eigen::MatrixXd stats(k, d);
  Block blk;
  if (options.method == ViMethod::Batch) {
    std::vector<int> all(N);
    std::iota(all.begin(), all.end(), 0);
    Eigen::MatrixXd gammaStore(k, N);  // warm starts across iterations (keeps the ELBO monotone)
    for (int n = 0; n < N; ++n) gammaStore.col(n) = alpha.array() + corpus.lengths[n] / k;
    Eigen::MatrixXd expElogBeta(k, d);
    for (int t = 0; t < options.iterations; ++t) {
      expDirichletColumns(lambda, dirichletRows(rowSumsOf(lambda)), nullptr, d, expElogBeta, c.threads);
      const bool elbo = options.computeElbo && t > 0;
      stats.setZero();
      double docElbo = 0.0;
      for (int b = 0; b < N; b += kBlockDocs) {
        if (isCanceled(feedback)) return cancelled();
        docElbo += processBlock(c, all, b, std::min(N, b + kBlockDocs), expElogBeta, &gammaStore, elbo, false, stats,
                                blk, fit.estepIterations, fit.estepNotConverged);
        reportProgress(feedback, (t + static_cast<double>(std::min(N, b + kBlockDocs)) / N) / options.iterations);
      }
      if (elbo) fit.elbo.push_back(docElbo + topicElbo(lambda, expElogBeta, eta));  // ELBO of iteration t−1
      if (hooks.privatise) hooks.privatise(stats);
      lambda = stats.array() + eta;
      ++fit.updates;
      ++fit.passes;
    }
    if (options.computeElbo) {  // the last iteration's ELBO: one pass of ELBO terms only
      expDirichletColumns(lambda, dirichletRows(rowSumsOf(lambda)), nullptr, d, expElogBeta, c.threads);
      double docElbo = 0.0;
      long long unusedA = 0, unusedB = 0;
      for (int b = 0; b < N; b += kBlockDocs) {
        docElbo += processBlock(c, all, b, std::min(N, b + kBlockDocs), expElogBeta, &gammaStore, true, true, stats,
                                blk, unusedA, unusedB);
      }
      fit.elbo.push_back(docElbo + topicElbo(lambda, expElogBeta, eta));
    }
  } else {
    const int S = std::min(options.batchSize, N);
    SeededRandom orderRng(deriveSeed(options.seed, 1));
    std::vector<int> perm(N);
    // exp(E[log β]) is needed only at the minibatch's words: those columns are refreshed before
    // each update (the values are the same as a full refresh; the other columns are never read).
    Eigen::MatrixXd expElogBeta(k, d);
    std::vector<long long> seenIn(d, -1);
    std::vector<int> batchWords;
    Eigen::VectorXd rowSums = rowSumsOf(lambda);
    stats.setZero();
    long long t = 0;
    for (int epoch = 0; epoch < options.iterations; ++epoch) {
      std::iota(perm.begin(), perm.end(), 0);
      for (int i = N - 1; i > 0; --i) std::swap(perm[i], perm[uniformIndex(orderRng, static_cast<std::uint64_t>(i) + 1)]);
      for (int b = 0; b < N; b += S) {
        if (isCanceled(feedback)) return cancelled();
        const int e = std::min(N, b + S);
        batchWords.clear();
        for (int j = b; j < e; ++j) {
          const int n = perm[j];
          for (int p = corpus.counts.outerIndexPtr()[n]; p < corpus.counts.outerIndexPtr()[n + 1]; ++p) {
            const int w = corpus.counts.innerIndexPtr()[p];
            if (seenIn[w] != t) seenIn[w] = t, batchWords.push_back(w);
          }
        }
        expDirichletColumns(lambda, dirichletRows(rowSums), batchWords.data(), static_cast<int>(batchWords.size()),
                            expElogBeta);
        processBlock(c, perm, b, e, expElogBeta, nullptr, false, false, stats, blk, fit.estepIterations,
                     fit.estepNotConverged);
        if (hooks.privatise) hooks.privatise(stats);
        const double rho = std::pow(options.tau0 + static_cast<double>(t), -options.kappa);
        const double scale = static_cast<double>(N) / (e - b);
        // One pass: λ ← (1 − ρ)λ + ρ(η + scale·S), the new row sums (increasing w), S ← 0.
        rowSums.setZero();
        for (Eigen::Index w = 0; w < d; ++w) {
          double* l = lambda.data() + w * k;
          double* st = stats.data() + w * k;
          double* sum = rowSums.data();
          for (int i = 0; i < k; ++i) {
            l[i] = (1.0 - rho) * l[i] + rho * (eta + scale * st[i]);
            sum[i] += l[i];
            st[i] = 0.0;
          }
        }
        ++t;
        ++fit.updates;
        reportProgress(feedback, (epoch + static_cast<double>(e) / N) / options.iterations);
      }
      ++fit.passes;
    }
  }
  fit.lambda = lambda;
  fit.model = modelOf(lambda, alpha);
  fit.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return fit;
}

}  // namespace dplda::vi_detail
