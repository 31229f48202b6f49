#pragma once
// Internals of the sweep engine shared by sweep.cpp and sweep_models.cpp (not a public API):
// a prepared case, and the parts of a trial that are not spectral: the variational baselines
// (SPEC §15) and the scores every released model gets (error, utility loss, perplexity).
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "core/corpus/corpus.h"
#include "core/experiments/sweep.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/vi/variational_lda.h"

namespace dplda {

// Trial t's non-private VI fit of a case: the "vi" configuration's result at every ε and the
// reference of trial t's DP-VI (utility loss).
// The first batch iteration of trial t, shared by its VI fit and all its DP-VI fits (bit-identical
// to computing it in each: it does not depend on ε or the noise); freed by its last DP-VI fit.
struct SharedFirstPass {
  ViFirstPass pass;
  std::atomic<int> users{0};  // DP-VI fits still to use it
};

// Held-out perplexity of one model: NaN without held-out documents, or NaN with the reason when
// the scoring refused the model (a row then says why its perplexity is empty).
struct PerplexityScore {
  double perplexity = std::numeric_limits<double>::quiet_NaN();
  double bound = std::numeric_limits<double>::quiet_NaN();  // the ELBO-based bound
  std::string problem;
};

struct ViTrialFit {
  Status status;
  std::shared_ptr<SharedFirstPass> firstPass;  // null for online VB or without DP-VI
  std::optional<LdaModel> model;
  PerplexityScore perplexity;
};

struct PreparedCase {
  std::shared_ptr<const Corpus> corpus;   // what every fit sees: the training part under held-out evaluation
  std::shared_ptr<const Corpus> heldOut;  // the held-out documents (null without held-out evaluation)
  std::optional<LdaModel> truth;
  SpectralPipeline pipeline;  // run once; its noise-free stages are cached
  std::optional<SpectralPipeline> clippedPipeline;  // the same with spec.momentClip ("/clip" configurations)
  // Its exact σ_k and γ_s (non-private diagnostics of what "/clip" rows perturb); NaN without it.
  double clippedSigmaK = std::numeric_limits<double>::quiet_NaN();
  double clippedGammaS = std::numeric_limits<double>::quiet_NaN();
  UnwhitenedTopics baseline;  // the non-private output
  PerplexityScore baselinePerplexity;  // the non-private output's, scored once ("none" rows reuse it)
  std::vector<ViTrialFit> vi;  // per trial, when a "vi" or "dp-vi" configuration is present
  SweepCaseInfo info;
  Status status;
};

// The seeds of held-out evaluation, derived from the data seed (public, like the split).
std::uint64_t holdoutSplitSeed(const SweepSpec& spec);
std::uint64_t perplexitySeed(const SweepSpec& spec);

// Splits off the held-out documents when spec.holdout > 0 (pc.corpus becomes the training part).
Status splitForHoldout(const SweepSpec& spec, PreparedCase& pc);

// The VI options of trial t on a case (α from the case's α0, start seed from seeds.init and t).
ViOptions viOptionsFor(const SweepSpec& spec, const SweepCase& c, int trial);
bool needsViFits(const SweepSpec& spec);
// Fits trial t's non-private VI model of a case and scores it on the held-out documents.
void fitViTrial(const SweepSpec& spec, const SweepCase& c, PreparedCase& pc, int trial);

// Error vs the truth, loss vs `reference` (when given) and held-out perplexity of a released model.
// isBaseline: `released` is the case's non-private model itself ("none"), whose perplexity was
// scored once when the case was prepared (the same model, split and seed give the same value).
void scoreRelease(const PreparedCase& pc, const SweepSpec& spec, const LdaModel& released,
                  const LdaModel* reference, SweepRow& row, bool isBaseline = false);
// Topic coherence of a model on the case's training documents (NaN unless spec.coherenceTopWords > 0).
void scoreCoherence(const PreparedCase& pc, const SweepSpec& spec, const LdaModel& model, SweepRow& row);
// Held-out perplexity of a model on the case's held-out documents.
PerplexityScore scorePerplexity(const PreparedCase& pc, const SweepSpec& spec, const LdaModel& model);
// Writes a score into a row: the values, and the problem (if any) as the row's reason.
void applyScore(const PerplexityScore& score, SweepRow& row);

// A "vi" or "dp-vi" trial (row's indices, ε, noise seed already set).
void runViTrial(const SweepSpec& spec, const SweepCase& c, const PreparedCase& pc, SweepRow& row);

}  // namespace dplda
