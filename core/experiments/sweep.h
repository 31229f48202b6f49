#pragma once
// The experiment engine (SPEC §12–§13): ε sweeps over configurations of noisy edges with
// repeated trials, on one or more corpora (a grid over N, k, α0).
//
// Every corpus ("case") is prepared once: drawn or loaded, then the non-private pipeline is
// run and its noise-free stages are cached. Trials then only redo what lies downstream of
// their noise (runPrivate reuses the cached stages). Trials run in parallel; each worker
// thread holds its own copy of each case's pipeline (SpectralPipeline is copyable and not
// thread-safe), so no stage is computed twice per thread.
//
// Common random numbers: trial t of every configuration, every ε and every case draws its
// noise from SeededRandom(deriveSeed(seeds.noise, t)); the data (seeds.data) and the
// decomposer's starts (seeds.init) are fixed for the whole sweep. Results therefore do not
// depend on the number of threads or the order in which trials run.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/corpus/synthetic_generator.h"
#include "core/graph/computation_graph.h"
#include "core/privacy/budget.h"
#include "core/privacy/mechanisms.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/privacy/sensitivity.h"
#include "core/tensor/decomposer.h"
#include "core/vi/variational_lda.h"

namespace dplda {

// Where a case's corpus comes from: a loaded corpus (with its truth when known), or the
// synthetic generator (whose truth is always known). Exactly one of the two is set.
struct CorpusSource {
  std::shared_ptr<const Corpus> corpus;
  std::optional<LdaModel> truth;             // only with a loaded corpus
  std::optional<GeneratorParams> generator;  // its seed is replaced by SweepSeeds::data
  std::string description;                   // e.g. "synthetic (d=50, k=5, N=100000)" or a path
  // Optional, with a loaded corpus: a pipeline already run on that same corpus (the app's current
  // model). The case starts from a copy, so stages whose options match are not computed again.
  std::shared_ptr<const SpectralPipeline> pipeline;
};

// One corpus with its model settings: a point of the N / k / α0 grid.
struct SweepCase {
  std::string label;  // e.g. "N=1e+05"; unique within a sweep
  CorpusSource source;
  int topicCount = 5;
  double alpha0 = 1.0;
  // This case's VI / DP-VI schedule where it differs from the sweep's (0: the sweep's): on a 10x
  // larger corpus a 10x larger minibatch and a tenth of the passes keep the sampling rate q and the
  // document visits; a tenth of the updates then needs a slower decay of the step size (κ, τ0).
  int viBatchSize = 0;
  int viPasses = 0;
  double viTau0 = 0.0;
  double viKappa = 0.0;
};

// What a configuration fits: the spectral method with noise on its edges (the default), or one
// of the papers' variational baselines (SPEC §15): "vi", non-private VB (the same at every ε,
// so its curve is flat), and "dp-vi", Park et al.'s DP-VI at each ε.
enum class SweepModel { Spectral, Vi, DpVi };
const char* sweepModelName(SweepModel m);  // "spectral", "vi", "dp-vi"

// A configuration: a set of noisy edges (0 is the non-private baseline, "none"), or a VI model.
struct SweepConfiguration {
  std::string label;  // "none", "1".."4", "input", "vi", "dp-vi" or a custom label
  EdgeSet edges = 0;  // spectral only
  std::vector<double> splitWeights;  // one per release of the edge set; empty = uniform split
  SweepModel model = SweepModel::Spectral;
  // e6 released by seed 004's private tensor power method (Algorithm 3, exact Gaussian
  // accounting) instead of Gaussian noise on T̂; written "2/tpm" (SPEC §14).
  bool privateDecomposition = false;
  // The whitened release of {e2, e5, e6} (docs/PRIVACY.md §11): "whitened" (the default
  // clipping rule) or "whitened/raw" (nothing clipped: C = ρ_W of the released W̃).
  WhitenedRelease whitened{};
  // "/gdp" after a configuration: the Gaussian-DP accountant with shared releases (exact
  // accounting, issue 13 item 1), whatever the sweep's own accountant.
  std::optional<Accountant> accountant{};
  bool shareReleases = false;
  // "/clip": the papers' configuration on documents clipped to the sweep's momentClip bounds
  // (docs/PRIVACY.md §12); its trials run on a clipped copy of the case's pipeline.
  bool clipMoments = false;
};

struct SweepSeeds {
  std::uint64_t data = 1;   // the synthetic corpora
  std::uint64_t noise = 2;  // trial t uses deriveSeed(noise, t)
  std::uint64_t init = 3;   // the decomposer's random starts (fixed for the whole sweep)
  // The three seeds derived from one user seed (streams 0, 1, 2).
  static SweepSeeds fromSeed(std::uint64_t seed);
};

struct SweepSpec {
  std::string name = "sweep";
  // The public bounds of the "/clip" configurations (enabled is set for them).
  MomentClip momentClip{true, kDefaultClipM1, kDefaultClipM2, kDefaultClipM3};
  std::vector<SweepCase> cases;
  std::vector<SweepConfiguration> configurations;
  std::vector<double> epsilons;  // total ε of each run, > 0
  double delta = 1e-5;           // total δ of each run
  Mechanism mechanism = Mechanism::AnalyticGaussian;
  Accountant accountant = Accountant::Basic;
  BoundSet bounds = BoundSet::Sound;
  bool shareReleases = true;  // as PrivacyOptions; the papers' presets set false (their way)
  double maxLength = 200.0;  // public clipping length for input perturbation
  int trials = 10;
  SweepSeeds seeds;
  std::string decomposer = "fast";  // as SpectralOptions
  PowerMethodOptions power;
  // Held-out evaluation (SPEC §15): when > 0, this fraction of each case's documents (a seeded,
  // public split) is kept out of every fit, and every released model is scored on it by
  // document-completion perplexity (post-processing; the held-out documents enter no release).
  double holdout = 0.0;
  // When > 0: every released model's topic coherence (NPMI and UMass of its top N words,
  // core/eval/coherence.h) on the case's training documents: a non-private diagnostic (exact
  // statistics of the data), left out of release-only outputs like the held-out perplexity.
  int coherenceTopWords = 0;
  // The "vi" and "dp-vi" configurations: method, passes, minibatch size, η (α comes from the
  // case's α0); trial t starts VI from seed deriveSeed(seeds.init, t), DP-VI too, so trial t's
  // DP-VI differs from its VI only by the noise. dpViClip: DP-VI's public Frobenius bound C.
  ViOptions vi;
  double dpViClip = 10.0;
  double noiseMultiplier = 1.0;  // 1 for real sweeps; 0 only in tests of the noise-free path
  // Release-only output (`dplda sweep --release-only`, docs/PRIVACY.md §15.4): the tables, report.md
  // and figures carry released values only: functions of the released topics, α, σ̃_k, γ̃_s and of
  // public inputs (the error against a public truth, release rates, the ledger's budgets and noise
  // scales). Left out: the exact σ_k, σ_k+1, γ_s, the utility loss against the non-private fit, the
  // held-out perplexity, the timings, and every row of a non-private configuration ("none", "vi").
  bool releaseOnly = false;
  int threads = 0;               // 0: std::thread::hardware_concurrency()
  double bandLower = 0.10;       // the quantile band of the summaries
  double bandUpper = 0.90;
};

// Checks the spec before anything is computed; messages name the field and value.
Status validateSweepSpec(const SweepSpec& spec);
// A configuration whose output is a private release: DP-VI or a spectral edge set (not "none", "vi").
bool configurationReleases(const SweepConfiguration& config);
// Whether configuration g appears in the sweep's outputs (every one, or the releases under releaseOnly).
bool configurationShown(const SweepSpec& spec, int configIndex);
// Whether a results.csv / summary.csv column holds released values (false: loss_*, perplexity*,
// sigma_k, gamma_s, computed from the exact corpus or the held-out documents).
bool releasedColumn(const std::string& name);
// The privacy options of one (configuration, ε) point of a sweep.
PrivacyOptions privacyOptionsFor(const SweepSpec& spec, const SweepConfiguration& config, double epsilon);

// `count` values from lo to hi, equally spaced on a log scale (lo and hi included).
std::vector<double> logSpaced(double lo, double hi, int count);
// "lo:hi:count" (log-spaced) or a comma list "0.1,0.5,1"; every value finite and > 0.
Result<std::vector<double>> parseEpsilons(const std::string& text);
// "none,1,2,3,4" (preset names), "vi" / "dp-vi" (the variational baselines) or custom edge sets
// joined with '+', e.g. "none,e5+e6,dp-vi"; a "/tpm" suffix ("2/tpm") releases e6 by the private
// tensor power method; "whitened" and "whitened/raw" the whitened release (docs/PRIVACY.md §11);
// a "/gdp" suffix ("1/gdp") the Gaussian-DP accountant with shared releases.
Result<std::vector<SweepConfiguration>> parseConfigurations(const std::string& text);

// A grid over N, k and α0 around a base case (empty lists keep the base value). N applies
// only to generated corpora; for generated corpora k also sets the generator's topic count.
struct SweepGrid {
  std::vector<int> docCounts;
  std::vector<int> topicCounts;
  std::vector<double> alpha0s;
};
Result<std::vector<SweepCase>> expandGrid(const SweepCase& base, const SweepGrid& grid);

// What a prepared case looks like (its non-private run).
struct SweepCaseInfo {
  std::string label;
  std::string description;
  int docCount = 0, vocabSize = 0, topicCount = 0;
  double alpha0 = 0.0;
  int droppedDocuments = 0;
  VocabularyOrigin vocabulary = VocabularyOrigin::Public;  // the corpus's (docs/PRIVACY.md §13)
  bool hasTruth = false;
  std::string baselineFailure;  // why the non-private baseline could not be computed (empty: it was)
  double baselineErrorL2 = std::numeric_limits<double>::quiet_NaN();  // non-private vs truth
  double baselineErrorL1 = std::numeric_limits<double>::quiet_NaN();
  double baselineErrorAlpha = std::numeric_limits<double>::quiet_NaN();
  double baselineErrorFrobenius = std::numeric_limits<double>::quiet_NaN();
  // Mean l2 error of a random guess (every topic uniform over the vocabulary) against the truth:
  // a private curve above it tells nothing about the topics.
  double guessErrorL2 = std::numeric_limits<double>::quiet_NaN();
  double baselinePerplexity = std::numeric_limits<double>::quiet_NaN();  // held-out, non-private spectral
  double baselinePerplexityBound = std::numeric_limits<double>::quiet_NaN();  // its ELBO-based bound
  double baselineCoherenceNpmi = std::numeric_limits<double>::quiet_NaN();  // the non-private spectral fit's
  int heldOutDocuments = 0;  // 0 without held-out evaluation (docCount counts the training part)
  double sigmaK = 0.0, sigmaKPlus1 = 0.0, gammaS = 0.0;
  double prepareMs = 0.0;  // drawing or copying the corpus plus the non-private pipeline
};

// One ledger entry: the release, its share of the budget and its noise scale,
// e.g. {"M2 (e2)", 0.0333, 3.3e-6, 1.3e-4}.
struct NoiseScale {
  std::string release;
  double epsilon = 0.0, delta = 0.0;
  double sigma = 0.0;  // Gaussian σ or Laplace scale; NaN when it could not be calibrated
  bool spent = false;  // the release was charged
};

// One trial of one configuration at one ε on one case. Numbers that do not apply are NaN
// (errors when nothing was released or the truth is unknown, σ̃_k / γ̃_s when not released).
struct SweepRow {
  int caseIndex = 0, configIndex = 0, epsilonIndex = 0, trial = 0;
  double epsilon = 0.0;
  std::uint64_t noiseSeed = 0;
  bool released = false;
  StatusCode status = StatusCode::Ok;  // why nothing was released (NothingReleased, NumericalFailure, ...)
  std::string reason;
  double errorL2 = 0, errorL1 = 0, errorAlpha = 0, errorFrobenius = 0;  // vs the truth
  // vs the non-private output of the same method on the same corpus (DP-VI: trial t's VI)
  double lossL2 = 0, lossL1 = 0, lossAlpha = 0, lossFrobenius = 0;
  // Held-out document-completion perplexity and the ELBO bound (NaN without held-out evaluation).
  double perplexity = 0, perplexityBound = 0;
  // Topic coherence on the training documents (NaN unless spec.coherenceTopWords > 0).
  double coherenceNpmi = std::numeric_limits<double>::quiet_NaN();
  double coherenceUmass = std::numeric_limits<double>::quiet_NaN();
  double sigmaK = 0, sigmaKTilde = 0, gammaS = 0, gammaSTilde = 0;
  double epsilonSpent = 0, deltaSpent = 0;
  // The same releases under Gaussian-DP and the PLD accountant at deltaSpent (docs/PRIVACY.md §16.4).
  double epsilonGaussianDp = std::numeric_limits<double>::quiet_NaN();
  double epsilonPld = std::numeric_limits<double>::quiet_NaN();
  std::vector<NoiseScale> noiseScales;
  double elapsedMs = 0.0;  // wall time of the trial (not reproducible; kept out of results.csv)
};

// Median and quantile band of one quantity over the trials where it exists.
struct QuantileSummary {
  int count = 0;
  double median = std::numeric_limits<double>::quiet_NaN();
  double lower = std::numeric_limits<double>::quiet_NaN();
  double upper = std::numeric_limits<double>::quiet_NaN();
};
// Type-7 (linear interpolation) quantile of the finite values; NaN when there are none.
double quantile(std::vector<double> values, double q);
QuantileSummary summarize(const std::vector<double>& values, double lower, double upper);

// Per (case, configuration, ε). Error and loss statistics are over the trials that released
// (conditional on release: they say nothing about the trials that released nothing).
struct SweepSummaryRow {
  int caseIndex = 0, configIndex = 0, epsilonIndex = 0;
  double epsilon = 0.0;
  int trials = 0;
  int released = 0;
  double releaseRate = 0.0;
  QuantileSummary errorL2, errorL1, errorAlpha, lossL2, lossL1, lossAlpha, sigmaKTilde, gammaSTilde;
  QuantileSummary errorFrobenius, lossFrobenius, perplexity;
  QuantileSummary coherenceNpmi;
  double meanElapsedMs = 0.0;
};

struct SweepResult {
  SweepSpec spec;
  std::vector<SweepCaseInfo> cases;
  std::vector<SweepRow> rows;            // ordered case, configuration, ε, trial
  std::vector<SweepSummaryRow> summary;  // ordered case, configuration, ε
  std::string noiseSource;               // how trial noise is drawn (seeded, reproducible)
  int threadsUsed = 1;
  double elapsedMs = 0.0;
  const SweepRow& row(int caseIndex, int configIndex, int epsilonIndex, int trial) const;
  const SweepSummaryRow& summaryRow(int caseIndex, int configIndex, int epsilonIndex) const;
};

// What a finished sweep says about one configuration at a total ε (issue 14: "make ε speak of
// accuracy"): the median l2 error interpolated in log ε between the grid's released points (NaN
// outside them), and the smallest grid ε from which at least half the trials released (NaN when
// none did). Teaching information: the sweep's runs are experiments, not releases.
struct SweepReading {
  bool available = false;  // read from a sweep (false: no sweep to read)
  double expectedErrorL2 = std::numeric_limits<double>::quiet_NaN();
  double releasesFrom = std::numeric_limits<double>::quiet_NaN();
};
SweepReading readSweep(const SweepResult& r, int caseIndex, int configIndex, double epsilon);

// The summary rows of a sweep before any trial has run: every point present with trials = 0,
// released = 0 and NaN statistics and release rate. A live view fills them in as
// SweepListener::pointDone reports them (plots show the missing points as gaps).
std::vector<SweepSummaryRow> emptySummary(const SweepSpec& spec, int caseCount);
// Index of point (case, configuration, ε) in SweepResult::summary and emptySummary().
std::size_t summaryIndex(const SweepSpec& spec, int caseIndex, int configIndex, int epsilonIndex);

// Observers of a running sweep (e.g. the app's live plot). Calls are serialised (never two at
// once) but come from the sweep's worker threads; keep them short.
struct SweepListener {
  // Once, after every case is prepared and before the first trial.
  std::function<void(const std::vector<SweepCaseInfo>& cases)> casesReady;
  // When all trials of one (case, configuration, ε) point are done, with its summary (the same
  // row the final result holds).
  std::function<void(const SweepSummaryRow& point)> pointDone;
};

// Runs the sweep. Progress goes to `feedback` (trials done / total, after the cases are
// prepared); cancelling returns Cancelled. A case whose non-private run fails (e.g. σ_k <= 0)
// fails the sweep with that status, naming the case; a trial that releases nothing is a row
// with released = false and the reason. Trials are scheduled ε by ε (all configurations of the
// smallest ε first), so a live plot grows from left to right on every curve at once; the
// results do not depend on the order.
Result<SweepResult> runSweep(const SweepSpec& spec, Feedback* feedback = nullptr,
                             const SweepListener* listener = nullptr);

// The tables (RFC 4180 CSV, numbers in shortest round-trip form, empty cells for NaN).
// results.csv and summary.csv are identical for identical specs and seeds; timings are separate.
std::string sweepResultsCsv(const SweepResult& result);
std::string sweepSummaryCsv(const SweepResult& result);
std::string sweepTimingsCsv(const SweepResult& result);

// Mean wall time per trial of each configuration (over all cases and ε), in ms.
std::vector<double> meanTrialMsPerConfiguration(const SweepResult& result);

}  // namespace dplda
