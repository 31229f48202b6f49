#pragma once
// The Audit tab's release, drawn exactly as a run draws it (issue 23 §3; docs/PRIVACY.md §14).
//
// The audited release's ledger row comes from the run's own code (calibrateRun: the plan, the
// budget split, the sensitivity, the accountant — basic or Gaussian-DP shares — the whitened/raw
// rescale and every check), and each draw adds noise with the run's own noise function at that
// row's σ to the noise-free value the run computes, on D and on its adversarial neighbour D′. The
// audit statistic (core/privacy/audit.h) is the projection of each drawn release. So a
// mis-calibrated run (a wrong share, a wrong accountant, a noise multiplier) is drawn as it is,
// and the Clopper–Pearson bound can catch it; the audit never calibrates a σ of its own.
#include <Eigen/Dense>
#include <string>

#include "core/common/feedback.h"
#include "core/corpus/corpus.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/privacy/audit.h"
#include "core/tensor/tensor3.h"

namespace dplda {

struct ReleaseAudit {
  privacy_audit::AuditPair pair;  // N, D′, the projections; Δ and its formula from `row`
  PrivacyOptions options;         // the run that was calibrated (its edge set, accountant, budget)
  LedgerEntry row;                // the audited release's row: ε_i, δ_i, Δ, σ (with options.noiseMultiplier), μ_i
  std::string composition;        // the accountant's statement (PrivateRunResult::composition)
  std::string edgeNote;           // why this edge set was calibrated, when it is not the session's
  // The noise-free values the run adds its noise to, on D and D′ (M̂2 dense, or T̂ given the fixed
  // W), and the unit direction u of their difference in unique-entry coordinates.
  Eigen::MatrixXd m2D, m2DPrime;
  Tensor3 tD, tDPrime;
  Eigen::VectorXd u;
};

// The audited release of a run with `run`'s budget, mechanism, accountant, split and clipping on
// corpus `d` with the spectral options `so` (k, α0, moment clipping):
// - SecondMoment: the M̂2 release of `run`'s edge set when it releases M2 with a public noise
//   scale (no Procedure 1), else of configuration 1 (e2, e3, e5) with a uniform split;
// - WhitenedSecondMoment, WhitenedTensor: the whitened release ({e2, e5, e6}) with `run`'s clipping.
// The T release is audited given a fixed W (Lemma C3 holds for every fixed W): the whitening of
// D's clipped M̂2; whitened/raw's Δ_T is then the run's rescale at ρ_W of that W.
Result<ReleaseAudit> prepareReleaseAudit(const Corpus& d, SpectralOptions so, PrivacyOptions run,
                                         privacy_audit::AuditedRelease release, Feedback* feedback = nullptr);

// One release on D (side 0) or D′ (side 1): the run's noise function (addReleaseNoise for M̂2,
// addSymmetricTensorNoise for T̂) at row.sigma on a copy of the value, projected on u. With
// `worstAllowed` D′'s value is v(D) − Δu, the farthest neighbour the sensitivity allows.
privacy_audit::ReleaseSampler releaseSampler(const ReleaseAudit& audit, bool worstAllowed);

}  // namespace dplda
