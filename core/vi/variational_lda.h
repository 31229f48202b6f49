#pragma once
// LDA by mean-field variational Bayes (Blei, Ng & Jordan 2003; Hoffman, Blei & Bach 2010), the
// same model as the spectral side: k topics, θ_n ~ Dirichlet(α) with α fixed (symmetric α0/k by
// default, or given), topics β_i ~ Dirichlet(η·1_d). q(β_i) = Dirichlet(λ_i), q(θ_n) =
// Dirichlet(γ_n), q(z) = φ. The released model is E_q[β] (columns of λ normalised) and α.
//
// Determinism: λ starts from Gamma(100, 1/100) draws of SeededRandom(seed) (Hoffman's and
// scikit-learn's initialisation); γ_n starts at α + l_n/k (Blei et al.), no randomness; online
// VB visits the documents in a seeded permutation per epoch. Documents are processed in blocks:
// the E-steps of a block run in parallel (OpenMP), each writing its own slot, and the block's
// statistics are summed sequentially in document order, so the result is bit-identical for any
// thread count.
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

enum class ViMethod {
  Batch,   // Blei et al. 2003: every iteration = E-step on all documents, then λ = η + Σ_n s_n
  Online,  // Hoffman et al. 2010: per minibatch B, λ ← (1 − ρ_t) λ + ρ_t (η + N/|B| Σ_{n∈B} s_n)
  // Online VB on Poisson samples: each of the ⌈N/S⌉ updates of an epoch includes every document
  // independently with probability q = S/N and scales by 1/q = N/S (core/vi/poisson_sample.h). For
  // DP-VI the sample is drawn from the secret noise source, which is what amplification needs.
  Poisson,
};
const char* viMethodName(ViMethod m);              // "batch", "online", "poisson"
inline bool isMinibatch(ViMethod m) { return m != ViMethod::Batch; }
Result<ViMethod> parseViMethod(const std::string& text);

// Ranges accepted by validateViOptions (named in its messages).
inline constexpr int kMaxViIterations = 100000;
inline constexpr int kMaxViTopics = 10000;

struct ViOptions {
  ViMethod method = ViMethod::Online;
  // Passes over the training documents: batch = iterations (E-step + M-step), online = epochs
  // (each epoch ceil(N/S) minibatch updates). A fixed count, no data-dependent stopping (the
  // private variant must not stop on the data either).
  int iterations = 10;
  int batchSize = 128;      // online minibatch size S (scikit-learn's default); clamped to N
  double tau0 = 10.0;       // online learning offset τ0 >= 1 (scikit-learn's learning_offset; Hoffman used 1024)
  double kappa = 0.7;       // online learning decay κ in (0.5, 1]: ρ_t = (τ0 + t)^(−κ), t = 0, 1, ...
  double alpha0 = 1.0;      // α = α0/k each, unless `alpha` is given
  Eigen::VectorXd alpha;    // optional: k positive Dirichlet parameters (overrides alpha0)
  // Learn α's shape with its total α0 kept (the spectral side's public α0): after every M-step
  // α_i = α0·π_i, π_i the share of the corpus's tokens that λ assigns to topic i (Σ_w λ_iw − dη,
  // normalised), the moment estimate of E[θ_i] = α_i/α0. For DP-VI a function of the released λ
  // only (post-processing, PRIVACY.md §10). Symmetric (false) is gensim's and scikit-learn's default.
  bool learnAlpha = false;
  double eta = 0.0;         // topic prior η > 0; 0 means 1/k (scikit-learn's default topic_word_prior)
  double estepTolerance = 1e-3;  // E-step stops when mean_i |γ_i − γ_i^prev| < this (scikit-learn)
  int estepMaxIterations = 100;  // ... or after this many updates (scikit-learn's max_doc_update_iter)
  std::uint64_t seed = 1;        // λ initialisation and the online visiting order
  // Batch only: record the ELBO of every iteration (one extra pass at the end). Its E-steps run one
  // document at a time (core/vi/estep.h), so with k <= 8 the fit agrees with computeElbo = false to
  // rounding, not bit for bit (those run eight documents per packet, core/vi/estep_lanes.h).
  bool computeElbo = false;
  int threads = 0;               // OpenMP threads for the E-steps, 0 = OpenMP's default; never changes results
};

// α0·(token shares of λ), each at least α0·1e-6 (see ViOptions::learnAlpha).
Eigen::VectorXd alphaFromTopicShares(const Eigen::VectorXd& lambdaRowSums, int vocabSize, double eta, double alpha0);

// The α a fit uses: options.alpha when given, else α0/k repeated.
Eigen::VectorXd viAlpha(const ViOptions& options, int k);
double viEta(const ViOptions& options, int k);

// Checks k (1..min(d, kMaxViTopics)), the corpus (N >= 1) and every option; InvalidArgument
// naming the option and its value.
Status validateViOptions(const ViOptions& options, int k, const Corpus& corpus);

struct ViFit {
  LdaModel model;            // α (the fixed prior) and topics d x k = E_q[β], columns on the simplex
  Eigen::MatrixXd lambda;    // k x d variational Dirichlet parameters of the topics
  double eta = 0.0;          // the η used
  ViMethod method = ViMethod::Online;
  int passes = 0;            // passes over the corpus done
  long long updates = 0;     // M-steps (batch: = passes; online: minibatch updates)
  long long estepIterations = 0;      // E-step updates summed over every document visit
  long long estepNotConverged = 0;    // document visits that hit estepMaxIterations
  std::vector<double> elbo;  // batch with computeElbo: ELBO after each iteration (non-decreasing)
  double milliseconds = 0.0;
};

// The state after the first batch iteration: every document's γ after its E-step against λ_0,
// and Σ_n clip_C(s_n) for each C asked for. A function of the data, λ_0 (the seed) and the E-step
// settings only, so non-private VI and DP-VI at every ε of one seed share it (a sweep computes it
// once per trial); a fit started from it is bit-identical to one that computes it.
struct ViFirstPass {
  Eigen::MatrixXd gamma;               // k x N
  std::vector<double> clips;           // the C of each sum (+infinity: unclipped)
  std::vector<Eigen::MatrixXd> stats;  // k x d each
  std::vector<long long> clippedVisits;
  long long estepIterations = 0;
  long long estepNotConverged = 0;
  ViOptions options;                   // what it was computed for (threads and computeElbo aside)
  int docs = 0, vocab = 0;
  long long nonZeros = 0;
};

// The first batch iteration of `options` (method batch) on `train`, with one sum per clip value.
Result<ViFirstPass> firstBatchPass(const Corpus& train, int k, const ViOptions& options,
                                   const std::vector<double>& clips, Feedback* feedback = nullptr);

// Fits LDA by VB on `train`. Cancelled (through feedback) returns StatusCode::Cancelled. With
// `start` (batch only, from firstBatchPass on the same corpus, k and options, with a C = +infinity
// sum) the first iteration is taken from it; InvalidArgument when it does not match.
Result<ViFit> fitVi(const Corpus& train, int k, const ViOptions& options, Feedback* feedback = nullptr,
                    const ViFirstPass* start = nullptr);

// ---- building blocks shared with DP-VI and held-out evaluation ----

// ψ(x) for x > 0: ψ(x + 8) by the asymptotic series minus Σ_{i<8} 1/(x + i) as one fraction,
// in 8-lane packets (core/vi/estep.h states the method). |error| <= 1e-13 max(1, |ψ(x)|), and
// relative error <= 1e-10 wherever |ψ(x)| >= 1e-3 (tested against a 30-digit reference).
double digamma(double x);

// The per-document E-step with fixed word weights B (k x d, column w = the k weights of word w:
// exp(E_q[log β_·w]) during VI, or point topics β_·w for held-out inference):
//   φ_wi ∝ exp(E[log θ_i]) B_iw,  γ = α + Σ_w c_w φ_w·,
// iterated from `gamma` (input: the start; output: the result) until the mean absolute change
// of γ is below tolerance or maxIterations updates were done. `words`/`counts` are the
// document's non-zeros. On return, expElogTheta = exp(E[log θ]) of the final γ and phiNorm_j =
// Σ_i expElogTheta_i B_{i,words[j]} (+1e-100). Returns the number of updates done.
int inferDocument(const Eigen::MatrixXd& wordWeights, const Eigen::VectorXd& alpha, const int* words,
                  const double* counts, int nnz, double tolerance, int maxIterations, Eigen::VectorXd& gamma,
                  Eigen::VectorXd& expElogTheta, Eigen::VectorXd& phiNorm);

// exp(E[log β]) for λ (k x d): exp(ψ(λ_iw) − ψ(Σ_w λ_iw)).
Eigen::MatrixXd expDirichletExpectation(const Eigen::MatrixXd& lambda);

}  // namespace dplda
