#pragma once
// A differentially private run of a chosen set of noisy edges (SPEC §7–§11): Procedure 1
// where local bounds need it, one calibrated release per noisy edge (or per shared source
// node), the graph evaluated downstream of the noise, and the ledger of everything spent.
//
// The noise-free stages come from a SpectralPipeline (cached), so repeated trials of one
// configuration recompute only what lies downstream of its noise.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/random.h"
#include "core/graph/computation_graph.h"
#include "core/moments/clipped_moments.h"
#include "core/pipeline/accountant_comparison.h"
#include "core/pipeline/privacy_statement.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/privacy/budget.h"
#include "core/privacy/mechanisms.h"
#include "core/privacy/sensitivity.h"
#include "core/tensor/private_power_method.h"

namespace dplda {

inline constexpr double kDefaultClipM1 = 0.5;
inline constexpr double kDefaultClipM2 = 0.3;
// C3 on ‖M̃3ⁿ‖_F for clipped configurations 1–4 (about the 90th percentile on the figure-2 corpus,
// docs/PRIVACY.md §12.3); used with C1, C2 above by the sweeps' "/clip" configurations.
inline constexpr double kDefaultClipM3 = 0.15;
// Laplace noise on M3 (edge e3) is drawn on the unique entries of the explicit d x d x d M̂3, as a
// d^3 noise tensor that is then whitened (docs/PRIVACY.md §18): offered up to this vocabulary size,
// where the tensor takes 206 MiB (each parallel sweep trial holds its own) and a run about 1 s
// (measured in docs/BENCHMARKS.md). Above it the Gaussian mechanisms' projected noise works at any d.
inline constexpr int kMaxLaplaceM3Vocab = 300;

// The whitened release (docs/PRIVACY.md §11): a mechanism of its own for the cut {e2, e5, e6}.
// One Gaussian release of the clipped M̂2, shared by e2 and e5, gives the public W̃ and W̃⁺; then
// T̂ = M̂3(W̃, W̃, W̃) of the documents clipped in whitened space is released given W̃. No
// Procedure 1: both sensitivities are public functions of N, α0 and the clipping bounds.
struct WhitenedRelease {
  bool enabled = false;
  // C1 on ‖M̃1ⁿ‖₂, C2 on ‖M̃2ⁿ‖_F: public defaults that clip the short and repetitive documents
  // (1, 1 clips nothing; docs/PRIVACY.md §11.4 says how these were chosen).
  SecondMomentClip m2Clip{kDefaultClipM1, kDefaultClipM2};
  double whitenedClip = 0.0;   // C on ‖ȳ_n‖ (C², C³ on p_n, t_n); 0 = the public default rule
  // Nothing clipped: C1 = C2 = 1 and C = ρ_W, the largest row norm of the released W̃ (the T
  // release is then calibrated after the M2 release; docs/PRIVACY.md §11.2).
  bool clipToRowBound = false;
};
// The default whitened bound C = kWhitenedClipFactor·√(k + α0): E‖W̃ᵀM̃1ⁿ‖² ≈ k + α0 for an LDA
// corpus when W̃ whitens M2 (docs/PRIVACY.md §11.4), so the rule is public and scale-free.
inline constexpr double kWhitenedClipFactor = 2.0;
double whitenedClipBound(const WhitenedRelease& w, int topicCount, double alpha0);

struct PrivacyOptions {
  EdgeSet edges = 0;
  // One release per source node for the edges leaving it (configuration 1's e2 and e5 share one
  // M̂2 release): the default since issue 13; the papers released each edge (false).
  bool shareReleases = true;
  double epsilon = 1.0;                // total
  double delta = 1e-5;                 // total
  Mechanism mechanism = Mechanism::AnalyticGaussian;  // for the node releases
  BoundSet bounds = BoundSet::Sound;
  std::vector<double> splitWeights;    // empty = uniform over the ledger
  Accountant accountant = Accountant::Basic;  // how the node releases compose (docs/PRIVACY.md §4.1)
  // e6 released as TD by seed 004's Algorithm 3 on T̂ instead of noise on T̂ (docs/TENSOR_METHODS.md §2.5).
  bool privateDecomposition = false;
  TpmAccountant decompositionAccountant = TpmAccountant::GaussianExact;
  WhitenedRelease whitened;            // replaces the edge-by-edge releases when enabled
  double maxLength = 200.0;            // public clipping length L_max for input perturbation
  // Multiplies every noise scale. 1 for real releases; 0 only in tests of the noise-free path
  // (the result then says it is NOT private).
  double noiseMultiplier = 1.0;
  // Also compute the non-private model's diagnostics (σ_k, γ_s, ...) for teaching, after the
  // release and without influence on it; false for a real release (CLI --release-only).
  bool nonPrivateDiagnostics = true;
};
// `clip`: the pipeline's moment clipping (SpectralOptions::clip), named in the statement.
// `vocabulary`: the corpus's CorpusProvenance::vocabulary (docs/PRIVACY.md §13).
StatementInputs statementInputs(const PrivacyOptions& options, int docCount, const MomentClip& clip = {},
                                VocabularyOrigin vocabulary = VocabularyOrigin::Public);


// Whether the pipeline's moment clipping (docs/PRIVACY.md §12) fits the options: the sound bound
// set, a Gaussian mechanism, no input perturbation, not the whitened release. Ok when off.
Status validateMomentClipping(const PrivacyOptions& options, const MomentClip& clip);

// Everything about the options that can be refused before any draw. The corpus shape (public:
// N, d, k) sizes the releases; without it (0s) every release counts as one draw.
Status validatePrivacyOptions(const PrivacyOptions& options, int docCount = 0, int vocabSize = 0,
                              int topicCount = 0);

// Exact statistics of the corpus, for teaching only: computed after the private run from the
// non-private pipeline, never used by it, and never part of a release (docs/PRIVACY.md §6).
struct NonPrivateDiagnostics {
  bool available = false;      // the non-private pipeline ran to the end
  std::string failure;         // why not, when it failed (e.g. σ_k(M̂2) <= 0)
  double sigmaK = 0.0;         // σ_k(M̂2)
  double sigmaKPlus1 = 0.0;
  double eigengap = 0.0;       // min_{i<=k} (σ_i − σ_{i+1})
  double gammaS = 0.0;         // γ_s(T̂)
  std::vector<Precondition> checks;  // the bounds' preconditions evaluated on the exact values
  // The whitened release's clipping (fractions of documents whose term was scaled down); NaN
  // when the run did not clip. Computed from the data: part of no release.
  struct Clipping {
    // m3: the raw M̃3ⁿ terms (clipping inside configurations 1–4, docs/PRIVACY.md §12).
    double m1 = std::nan(""), m2 = std::nan(""), m3 = std::nan(""), y = std::nan(""), p = std::nan(""),
           t = std::nan("");
    double whitenedBound = std::nan("");  // the C used (public)
  } clipped;
};

struct PrivacyDiagnostics {
  // Released (private) values: Procedure 1's lower bounds and the spectrum of a released M2.
  std::optional<double> sigmaKTilde;
  std::optional<double> gapTilde;
  std::optional<double> gammaSTilde;
  std::vector<Precondition> preconditions;  // every bound's, evaluated on released or public values
  Eigen::VectorXd releasedEigenvalues;      // σ_1..σ_{k+1} of the noisy M2 that W was built from, if any
  std::optional<EigenpairsTopK> releasedEigen;  // how they were found (the whitened release; vectors cleared)
  NonPrivateDiagnostics nonPrivate;
};

struct PrivateRunResult {
  PrivacyDecision decision;
  PrivacyStatement statement;  // what "private" means for this run (the label of every output)
  std::vector<LedgerEntry> ledger;
  double epsilonSpent = 0.0;  // basic composition over the entries actually charged
  double deltaSpent = 0.0;
  double deltaAsDrawn = 0.0;
  std::string composition;    // the accountant and what it established  // the requested δ plus the samplers' tail excess (docs/PRIVACY.md §7)
  std::string noiseSource;    // RandomSource::description()
  // ε of the charged releases under basic, Gaussian-DP and PLD at deltaSpent (docs/PRIVACY.md §16.4).
  AccountantComparison accounts;
  bool released = false;      // an output was released
  Status status;              // why nothing was released, or a numerical failure downstream of the noise
  std::optional<UnwhitenedTopics> output;  // OUT (topics on the simplex)
  std::optional<TensorEigenpairs> eigenpairs;  // the decomposition the output came from
  PrivacyDiagnostics diagnostics;
  std::vector<std::string> warnings;  // e.g. not private, printed bounds, noise multiplier != 1
};

// A private vocabulary selection (docs/PRIVACY.md §13) is a release too: its row heads the ledger
// and its (ε_v, δ_v) add to the totals by basic composition. No-op for other provenances.
void chargeVocabularySelection(PrivateRunResult& result, const CorpusProvenance& provenance);

// The ledger a run of `options` calibrates before its first node draw, by the run's own code (the
// plan, the budget split, the sensitivities, the accountant, every check), nothing drawn: what the
// Audit tab draws from (core/pipeline/release_audit.h). Refused (InvalidArgument) when a node
// release's noise scale depends on Procedure 1's released lower bounds, and as a run refuses.
Result<PrivateRunResult> calibrateRun(SpectralPipeline& pipeline, const PrivacyOptions& options);

// Runs the private configuration. The pipeline supplies the corpus, options and cached
// noise-free stages; noise comes only from `noise`. Invalid options give an error Result;
// a refused release or a failure after the noise gives a PrivateRunResult whose status says
// why (and whose ledger still shows what was spent).
Result<PrivateRunResult> runPrivate(SpectralPipeline& pipeline, const PrivacyOptions& options, RandomSource& noise,
                                    Feedback* feedback = nullptr);

}  // namespace dplda
