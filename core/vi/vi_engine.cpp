// Batch and online VB for LDA over sparse documents, deterministic for any thread count.
//
// A block of documents is processed in two phases: (1) in parallel, each document's E-step
// (inferDocument) and its contribution s_n[i][w] = c_w φ_wi, written to the document's own slot
// of a block buffer with its Frobenius norm; (2) sequentially, the slots are added into one or
// more k x d sums in document order, each clipped at its own C (the first batch pass fills VI's
// and DP-VI's sums from the same E-steps). Phase 2 costs one pass over the block's non-zeros
// (about 1/20 of phase 1), and fixes the summation order.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <numeric>

#include "core/common/parallel_guard.h"
#include "core/common/random.h"
#include "core/vi/estep.h"
#include "core/vi/estep_lanes.h"
#include "core/vi/vi_engine.h"
#include "core/vi/poisson_sample.h"

namespace dplda::vi_detail {

namespace {

constexpr int kBlockDocs = 4096;  // documents per block in batch mode (bounds the buffer)

struct Block {
  std::vector<long long> offset;  // offset[j] = first non-zero of document j in `contrib` / k
  std::vector<double> contrib;    // k values per non-zero (unclipped)
  std::vector<int> estepIterations;
  std::vector<double> elboTerm;
  std::vector<double> norm2;      // ‖s_n‖²_F, when some sum is clipped
  // The document-lanes E-step's jobs and outputs (k per document, and a φ-norm per non-zero).
  std::vector<DocumentJob> jobs;
  std::vector<double> theta, phiNorm, gamma;
};

// One sum of the documents' contributions, each clipped to Frobenius norm `clip` (+∞: none).
// The first batch pass fills several (VI's and DP-VI's) from the same E-steps.
struct Sum {
  Eigen::MatrixXd* stats;
  double clip;
  long long clipped = 0;  // out: contributions scaled down
};

struct Context {
  const Corpus& corpus;
  int k;
  const ViOptions& options;
  const Eigen::VectorXd& alpha;
  EngineHooks& hooks;
  int threads;
};

// γ_n = α + l_n/k (Blei et al.): a document's E-step start without a warm start.
void coldStart(const Eigen::VectorXd& alpha, double length, double* gamma) {
  Eigen::Map<Eigen::VectorXd>(gamma, alpha.size()) = alpha.array() + length / static_cast<double>(alpha.size());
}

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
                    std::vector<Sum>& sums, Block& blk, long long& estepIterations, long long& notConverged) {
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
  bool clipping = false;  // ‖s_n‖_F is needed only when some sum is clipped
  for (const Sum& sum : sums) clipping = clipping || std::isfinite(sum.clip);
  blk.norm2.assign(m, 0.0);
  const double tol = c.options.estepTolerance;
  const int maxIt = c.options.estepMaxIterations;
  const double* alpha = c.alpha.data();
  // Document j of the block: its distinct words and their counts (the rest of the job unset).
  auto documentOf = [&](int j) {
    const int n = docs[begin + j];
    const int p0 = X.outerIndexPtr()[n];
    DocumentJob doc;
    doc.words = X.innerIndexPtr() + p0;
    doc.counts = X.valuePtr() + p0;
    doc.nnz = X.outerIndexPtr()[n + 1] - p0;
    return doc;
  };
  // s_n = c_w exp(E[log θ]) B_w / φ-norm_w at the document's words, and ‖s_n‖²_F when some sum clips.
  auto contribute = [&](int j, const DocumentJob& doc, const double* expElogTheta, const double* phiNorm) {
    double* out = blk.contrib.data() + blk.offset[j] * k;
    for (int q = 0; q < doc.nnz; ++q) {
      const double f = doc.counts[q] / phiNorm[q];
      const double* b = expElogBeta.data() + static_cast<std::ptrdiff_t>(doc.words[q]) * k;
      double* o = out + static_cast<std::ptrdiff_t>(q) * k;
      for (int i = 0; i < k; ++i) o[i] = expElogTheta[i] * b[i] * f;
    }
    if (clipping) blk.norm2[j] = squaredNorm(out, static_cast<std::ptrdiff_t>(doc.nnz) * k);
  };
  // Parallel only when the block is worth a fork/join (one E-step pass >= 1e6 multiply-adds): on a
  // busy machine small minibatches lose far more to OpenMP's wake-ups than they gain.
  const bool parallel = m > 1 && static_cast<double>(blk.offset[m]) * k >= 1e6;
  if (documentLanesPay(k) && !elboTerms && !elboOnly) {
    // Eight documents per packet (estep_lanes.h), in chunks of the block; each chunk's lanes refill
    // from its own queue, so the chunking (and the thread count) never changes a result.
    blk.theta.resize(static_cast<std::size_t>(m) * k);
    blk.phiNorm.resize(static_cast<std::size_t>(blk.offset[m]));
    if (!gammaStore) blk.gamma.resize(static_cast<std::size_t>(m) * k);
    blk.jobs.resize(m);
    for (int j = 0; j < m; ++j) {
      const int n = docs[begin + j];
      DocumentJob& job = blk.jobs[j];
      job = documentOf(j);
      job.expElogTheta = blk.theta.data() + static_cast<std::ptrdiff_t>(j) * k;
      job.phiNorm = blk.phiNorm.data() + blk.offset[j];
      job.iterations = &blk.estepIterations[j];
      if (gammaStore) {
        job.gamma = gammaStore->col(n).data();
      } else {
        job.gamma = blk.gamma.data() + static_cast<std::ptrdiff_t>(j) * k;
        coldStart(c.alpha, c.corpus.lengths[n], job.gamma);
      }
    }
    const int threads = parallel ? c.threads : 1;
    const int chunk = threads == 1 ? m : std::max(256, m / (4 * threads));
    ParallelGuard guard;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (int j0 = 0; j0 < m; j0 += chunk) guard.run([&] {
      const int j1 = std::min(m, j0 + chunk);
      estepDocuments(expElogBeta, alpha, blk.jobs.data() + j0, j1 - j0, tol, maxIt, threadLaneScratch());
      for (int j = j0; j < j1; ++j) contribute(j, blk.jobs[j], blk.jobs[j].expElogTheta, blk.jobs[j].phiNorm);
    });
    guard.rethrow();
  } else {
    ParallelGuard guard;
#pragma omp parallel num_threads(c.threads) if (parallel)
    {
      EStepScratch& scratch = threadScratch();
      Eigen::VectorXd fresh(k);  // γ of a document without a warm start
#pragma omp for schedule(dynamic, 8)
      for (int j = 0; j < m; ++j) guard.run([&] {
        const int n = docs[begin + j];
        const DocumentJob doc = documentOf(j);
        double* gamma = fresh.data();
        if (gammaStore) gamma = gammaStore->col(n).data();
        else coldStart(c.alpha, c.corpus.lengths[n], gamma);
        if (elboTerms) {  // the ELBO at the starting γ, before this iteration's E-step
          estep(expElogBeta, alpha, doc.words, doc.counts, doc.nnz, tol, 0, gamma, scratch);
          blk.elboTerm[j] =
              documentElbo(c.alpha, gamma, scratch.expElogTheta(), scratch.phiNorm(), doc.counts, doc.nnz);
        }
        if (elboOnly) return;
        blk.estepIterations[j] = estep(expElogBeta, alpha, doc.words, doc.counts, doc.nnz, tol, maxIt, gamma, scratch);
        contribute(j, doc, scratch.expElogTheta(), scratch.phiNorm());
      });
    }
    guard.rethrow();
  }
  double elbo = 0.0;
  for (int j = 0; j < m; ++j) {  // phase 2: fixed document order
    elbo += blk.elboTerm[j];
    if (elboOnly) continue;
    estepIterations += blk.estepIterations[j];
    if (blk.estepIterations[j] >= maxIt) ++notConverged;
    const DocumentJob doc = documentOf(j);
    const double* in = blk.contrib.data() + blk.offset[j] * k;
    for (Sum& sum : sums) {
      // Clip to Frobenius norm C: s_n · min(1, C/‖s_n‖_F), each entry scaled before it is added.
      const bool clip = std::isfinite(sum.clip) && blk.norm2[j] > sum.clip * sum.clip;
      const double scale = clip ? sum.clip / std::sqrt(blk.norm2[j]) : 1.0;
      sum.clipped += clip;
      for (int q = 0; q < doc.nnz; ++q) {
        double* col = sum.stats->data() + static_cast<std::ptrdiff_t>(doc.words[q]) * k;
        if (clip) {
          for (int i = 0; i < k; ++i) col[i] += in[q * k + i] * scale;
        } else {
          for (int i = 0; i < k; ++i) col[i] += in[q * k + i];
        }
      }
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

// λ_0 ~ Gamma(100, 1/100) entrywise, drawn in storage order (word-major), from the seed.
Eigen::MatrixXd initialLambda(const ViOptions& options, int k, int d) {
  SeededRandom initRng(deriveSeed(options.seed, 0));
  Eigen::MatrixXd lambda(k, d);
  for (Eigen::Index q = 0; q < lambda.size(); ++q) lambda.data()[q] = gammaSample(initRng, 100.0) / 100.0;
  return lambda;
}

// Every document's cold start: the start of its first E-step.
Eigen::MatrixXd initialGamma(const Corpus& corpus, const Eigen::VectorXd& alpha, int k) {
  Eigen::MatrixXd gamma(k, corpus.docCount());
  for (int n = 0; n < corpus.docCount(); ++n) coldStart(alpha, corpus.lengths[n], gamma.col(n).data());
  return gamma;
}

// One batch iteration's E-steps (t = its index, for progress), warm-started from gammaStore, into
// `sums` (zeroed here). Returns the documents' ELBO terms at their starting γ when elbo is set.
Result<double> batchPass(Context& c, int t, const Eigen::MatrixXd& expElogBeta, Eigen::MatrixXd& gammaStore, bool elbo,
                         std::vector<Sum>& sums, Block& blk, ViFit& fit, Feedback* feedback) {
  const int N = c.corpus.docCount();
  std::vector<int> all(N);
  std::iota(all.begin(), all.end(), 0);
  for (Sum& sum : sums) sum.stats->setZero();
  double docElbo = 0.0;
  for (int b = 0; b < N; b += kBlockDocs) {
    if (isCanceled(feedback)) return cancelled();
    docElbo += processBlock(c, all, b, std::min(N, b + kBlockDocs), expElogBeta, &gammaStore, elbo, false, sums, blk,
                            fit.estepIterations, fit.estepNotConverged);
    reportProgress(feedback, (t + static_cast<double>(std::min(N, b + kBlockDocs)) / N) / c.options.iterations);
  }
  return docElbo;
}

}  // namespace

Result<int> firstPassSum(const ViFirstPass& s, const Corpus& corpus, int k, const ViOptions& o, double clip) {
  const ViOptions& f = s.options;
  const bool same = o.method == ViMethod::Batch && f.method == ViMethod::Batch && s.docs == corpus.docCount() &&
                    s.vocab == corpus.vocabSize() && s.nonZeros == corpus.counts.nonZeros() &&
                    s.gamma.rows() == k && f.seed == o.seed && viAlpha(f, k) == viAlpha(o, k) &&
                    viEta(f, k) == viEta(o, k) && f.estepTolerance == o.estepTolerance &&
                    f.estepMaxIterations == o.estepMaxIterations;
  if (!same) return invalidArgument("the first batch pass given was computed for another corpus, k or VI options");
  for (std::size_t i = 0; i < s.clips.size(); ++i)
    if (s.clips[i] == clip || (std::isinf(s.clips[i]) && std::isinf(clip))) return static_cast<int>(i);
  return invalidArgument("the first batch pass given has no sum clipped at C = " + std::to_string(clip));
}

Result<ViFirstPass> runFirstPass(const Corpus& corpus, int k, const ViOptions& options,
                                 const std::vector<double>& clips, Feedback* feedback) {
  const Eigen::VectorXd alpha = viAlpha(options, k);
  EngineHooks hooks;
  Context c{corpus, k, options, alpha, hooks, options.threads > 0 ? options.threads : omp_get_max_threads()};
  ViFirstPass out;
  out.options = options;
  out.docs = corpus.docCount();
  out.vocab = corpus.vocabSize();
  out.nonZeros = corpus.counts.nonZeros();
  out.clips = clips;
  out.gamma = initialGamma(corpus, alpha, k);
  out.stats.assign(clips.size(), Eigen::MatrixXd(k, out.vocab));
  std::vector<Sum> sums;
  for (std::size_t i = 0; i < clips.size(); ++i) sums.push_back({&out.stats[i], clips[i]});
  const Eigen::MatrixXd lambda = initialLambda(options, k, out.vocab);
  Eigen::MatrixXd expElogBeta(k, out.vocab);
  expDirichletColumns(lambda, dirichletRows(rowSumsOf(lambda)), nullptr, out.vocab, expElogBeta, c.threads);
  Block blk;
  ViFit counts;
  auto pass = batchPass(c, 0, expElogBeta, out.gamma, false, sums, blk, counts, feedback);
  if (!pass.ok()) return pass.status();
  for (const Sum& sum : sums) out.clippedVisits.push_back(sum.clipped);
  out.estepIterations = counts.estepIterations;
  out.estepNotConverged = counts.estepNotConverged;
  return out;
}

Result<ViFit> runEngine(const Corpus& corpus, int k, const ViOptions& options, EngineHooks& hooks,
                        Feedback* feedback, const ViFirstPass* first) {
  const auto start = std::chrono::steady_clock::now();
  const int N = corpus.docCount(), d = corpus.vocabSize();
  Eigen::VectorXd alpha = viAlpha(options, k);  // learnAlpha: updated after every M-step (c holds a reference)
  const double alpha0 = alpha.sum();
  const double eta = viEta(options, k);
  Context c{corpus, k, options, alpha, hooks, options.threads > 0 ? options.threads : omp_get_max_threads()};
  Eigen::MatrixXd lambda = initialLambda(options, k, d);

  ViFit fit;
  fit.eta = eta;
  fit.method = options.method;
  Eigen::MatrixXd stats(k, d);
  Block blk;
  if (options.method == ViMethod::Batch) {
    // Every document's γ is kept from one iteration to the next (its warm start; keeps the ELBO
    // monotone). It is a function of the document and of λ_0 … λ_{t−1} only (PRIVACY.md §10).
    Eigen::MatrixXd gammaStore;
    Eigen::MatrixXd expElogBeta(k, d);
    std::vector<Sum> sums{{&stats, hooks.clip}};
    int t = 0;
    if (first) {  // iteration 0's E-steps and sum, computed once for several fits
      auto index = firstPassSum(*first, corpus, k, options, hooks.clip);
      if (!index.ok()) return index.status();
      gammaStore = first->gamma;
      stats = first->stats[index.value()];
      hooks.clippedVisits += first->clippedVisits[index.value()];
      fit.estepIterations += first->estepIterations;
      fit.estepNotConverged += first->estepNotConverged;
      if (hooks.privatise) hooks.privatise(stats);
      lambda = stats.array() + eta;
      if (options.learnAlpha) alpha = alphaFromTopicShares(rowSumsOf(lambda), d, eta, alpha0);
      ++fit.updates;
      ++fit.passes;
      t = 1;
    } else {
      gammaStore = initialGamma(corpus, alpha, k);
    }
    for (; t < options.iterations; ++t) {
      expDirichletColumns(lambda, dirichletRows(rowSumsOf(lambda)), nullptr, d, expElogBeta, c.threads);
      const bool elbo = options.computeElbo && t > 0;
      sums[0].clipped = 0;
      auto docElbo = batchPass(c, t, expElogBeta, gammaStore, elbo, sums, blk, fit, feedback);
      if (!docElbo.ok()) return docElbo.status();
      hooks.clippedVisits += sums[0].clipped;
      if (elbo) fit.elbo.push_back(docElbo.value() + topicElbo(lambda, expElogBeta, eta));  // ELBO of iteration t−1
      if (hooks.privatise) hooks.privatise(stats);
      lambda = stats.array() + eta;
      if (options.learnAlpha) alpha = alphaFromTopicShares(rowSumsOf(lambda), d, eta, alpha0);
      ++fit.updates;
      ++fit.passes;
    }
    if (options.computeElbo) {  // the last iteration's ELBO: one pass of ELBO terms only
      expDirichletColumns(lambda, dirichletRows(rowSumsOf(lambda)), nullptr, d, expElogBeta, c.threads);
      std::vector<int> all(N);
      std::iota(all.begin(), all.end(), 0);
      std::vector<Sum> none;
      double docElbo = 0.0;
      long long unusedA = 0, unusedB = 0;
      for (int b = 0; b < N; b += kBlockDocs) {
        docElbo += processBlock(c, all, b, std::min(N, b + kBlockDocs), expElogBeta, &gammaStore, true, true, none,
                                blk, unusedA, unusedB);
      }
      fit.elbo.push_back(docElbo + topicElbo(lambda, expElogBeta, eta));
    }
  } else {
    const int S = std::min(options.batchSize, N);
    SeededRandom orderRng(deriveSeed(options.seed, 1));
    const bool poisson = options.method == ViMethod::Poisson;
    const PoissonSampler sampler = minibatchSampler(options.batchSize, N);
    // DP-VI draws its samples from the secret noise source; non-private VI from the seed.
    RandomSource& sampleRng = hooks.sampling ? *hooks.sampling : static_cast<RandomSource&>(orderRng);
    const long long updatesPerEpoch = (N + S - 1) / S;
    std::vector<int> perm(N), sample;
    // exp(E[log β]) is needed only at the minibatch's words: those columns are refreshed before
    // each update (the values are the same as a full refresh; the other columns are never read).
    Eigen::MatrixXd expElogBeta(k, d);
    std::vector<long long> seenIn(d, -1);
    std::vector<int> batchWords;
    Eigen::VectorXd rowSums = rowSumsOf(lambda);
    stats.setZero();
    std::vector<Sum> onlineSums{{&stats, hooks.clip}};
    long long t = 0;
    for (int epoch = 0; epoch < options.iterations; ++epoch) {
      if (!poisson) {
        std::iota(perm.begin(), perm.end(), 0);
        for (int i = N - 1; i > 0; --i) std::swap(perm[i], perm[uniformIndex(orderRng, static_cast<std::uint64_t>(i) + 1)]);
      }
      for (long long u = 0; u < updatesPerEpoch; ++u) {
        if (isCanceled(feedback)) return cancelled();
        int b = static_cast<int>(u * S), e = std::min(N, b + S);
        const std::vector<int>* docs = &perm;
        if (poisson) {
          sample.clear();
          for (int n = 0; n < N; ++n)
            if (sampler.includes(sampleRng)) sample.push_back(n);
          docs = &sample;
          b = 0;
          e = static_cast<int>(sample.size());
        }
        batchWords.clear();
        for (int j = b; j < e; ++j) {
          const int n = (*docs)[j];
          for (int p = corpus.counts.outerIndexPtr()[n]; p < corpus.counts.outerIndexPtr()[n + 1]; ++p) {
            const int w = corpus.counts.innerIndexPtr()[p];
            if (seenIn[w] != t) seenIn[w] = t, batchWords.push_back(w);
          }
        }
        expDirichletColumns(lambda, dirichletRows(rowSums), batchWords.data(), static_cast<int>(batchWords.size()),
                            expElogBeta);
        onlineSums[0].clipped = 0;
        processBlock(c, *docs, b, e, expElogBeta, nullptr, false, false, onlineSums, blk, fit.estepIterations,
                     fit.estepNotConverged);
        hooks.clippedVisits += onlineSums[0].clipped;
        if (hooks.privatise) hooks.privatise(stats);
        const double rho = std::pow(options.tau0 + static_cast<double>(t), -options.kappa);
        // Poisson: 1/q = N/S, public (the sample's size is not used: it is not released).
        const double scale = static_cast<double>(N) / (poisson ? S : e - b);
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
        // Damped by the same ρ_t as λ (as gensim's alpha='auto' steps): a full step from a minibatch's
        // early, nearly uniform topics starves the topics that start small.
        if (options.learnAlpha) alpha = (1.0 - rho) * alpha + rho * alphaFromTopicShares(rowSums, d, eta, alpha0);
        ++t;
        ++fit.updates;
        reportProgress(feedback, (epoch + static_cast<double>(u + 1) / updatesPerEpoch) / options.iterations);
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
