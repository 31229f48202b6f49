#pragma once
// Differentially private variational inference for LDA (Park, Foulds, Chaudhuri & Welling 2016,
// "Private topic modeling"; their code mijungi/vips_code, PPVI_LDA), for this project's
// neighbours: replace one document, N public (SPEC §1). docs/PRIVACY.md §10 has the proof.
//
// Every M-step uses noisy expected sufficient statistics: each document's contribution
// s_n (k x d, s_n[i][w] = c_nw φ_nwi) is clipped to Frobenius norm C (s_n · min(1, C/‖s_n‖_F)),
// summed, and Gaussian noise N(0, σ²) is added to every one of the k·d entries; negative
// entries are set to zero (post-processing). Replacing one document changes the sum by at most
// 2C in Frobenius norm, so each iteration is a Gaussian release of ℓ2 sensitivity Δ = 2C.
//
// Method poisson (online VB on Poisson samples of rate q = S/N drawn from the secret noise source):
// σ is calibrated by the sampled Gaussian's replace-one PLD account (core/privacy/sampled_gaussian.h,
// PRIVACY.md §16.5), which claims the amplification; the ledger also states the ε the same σ gives
// under the full-release zCDP account below (the old accounting), which stays valid.
//
// Accountant: zCDP over all T releases, ρ = T Δ²/(2σ²), ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke
// 2016). The online (minibatch) variant is accounted the same way: every minibatch update is a
// full Gaussian release of sensitivity 2C; NO amplification by subsampling is claimed (sound,
// pessimistic). The samplers' truncated tails add (1 + e^ε)·draws·2^-53 to δ (PRIVACY.md §7.2):
// σ is calibrated for δ minus that reserve.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/random.h"
#include "core/common/status.h"
#include "core/vi/variational_lda.h"

namespace dplda {

inline constexpr const char* kDpViAccountantName = "zcdp-full-release";  // no subsampling amplification
// Method poisson: the Poisson-subsampled Gaussian's PLD, chained for replace-one (PRIVACY.md §16.5).
inline constexpr const char* kDpViSampledAccountantName = "pld-poisson-sampled";

struct DpViOptions {
  ViOptions vi;          // method, iterations (passes), batch size, priors, seed; computeElbo is ignored
  double clip = 10.0;    // C: public bound on the Frobenius norm of one document's contribution (> 0)
  double epsilon = 1.0;  // total budget of the run
  double delta = 1e-5;
  // Testing and teaching hook: when set, σ = noiseMultiplier · 2C is used as given (0 allowed: no
  // noise) and (ε, δ) are what it achieves; the claim is then "not-private" unless the value is at
  // least the calibrated one. clip = +infinity (no clipping) is accepted only together with it.
  std::optional<double> noiseMultiplier;
};

// The number of Gaussian releases (M-steps) of a run: batch = iterations, online =
// iterations · ceil(N/S) (S clamped to N).
long long dpViReleaseCount(const ViOptions& vi, int docCount);

// zCDP accounting of `releases` Gaussian releases of sensitivity Δ with noise σ:
// ρ = releases · Δ²/(2σ²) and ε = ρ + 2√(ρ ln(1/δ)). σ = 0 gives ρ = ε = +infinity.
struct DpViAccount {
  double rho = 0.0;
  double epsilon = 0.0;
  double delta = 0.0;
};
DpViAccount dpViAccount(double sigma, double sensitivity, long long releases, double delta);

// The smallest σ whose account is (ε, δ − reserve) with reserve = (1 + e^ε)·draws·2^-53 for
// draws = releases·k·d: ρ* = (√(L + ε) − √L)², L = ln(1/δ'), σ = Δ √(releases/(2ρ*)).
// InvalidArgument for ε, δ out of range (validatePrivacyParameters), δ below the sampler floor,
// or a reserve above δ/2 (ε beyond the sampler limit for that many draws).
struct DpViCalibration {
  double sigma = 0.0;
  double noiseMultiplier = 0.0;  // σ / Δ
  double sensitivity = 0.0;      // Δ = 2C
  double rho = 0.0;
  double samplerDelta = 0.0;     // the tails' reserve, included in δ
  long long releases = 0;
  double draws = 0.0;            // noise values drawn over the run
};
Result<DpViCalibration> calibrateDpVi(double epsilon, double delta, long long releases, double clip,
                                      double drawsPerRelease);

struct DpViLedger {
  long long releases = 0;      // Gaussian releases (M-steps) T
  int passes = 0;
  std::string method;          // "batch" or "online"
  int batchSize = 0;           // online: S
  double clip = 0.0;           // C
  double sensitivity = 0.0;    // 2C (ℓ2, replace-one)
  double sigma = 0.0;          // per entry, per release
  double noiseMultiplier = 0.0;  // σ / (2C)
  std::string accountant = kDpViAccountantName;
  double rho = 0.0;            // zCDP of the whole run
  double samplingRate = 0.0;   // poisson: the realised inclusion probability q (0 otherwise)
  double epsilonFullRelease = 0.0;  // poisson: ε of the same σ under the full-release zCDP account
  double epsilon = 0.0;        // spent (= requested when calibrated)
  double delta = 0.0;          // spent, including the sampler reserve
  double samplerDelta = 0.0;
  double draws = 0.0;
  std::string claim;           // privacyClaimName: "proven" or "not-private"
  std::string summary;         // one sentence for every output
  std::string noiseSource;     // RandomSource::description()
  std::vector<std::string> notes;
};

struct DpViFit {
  ViFit fit;          // the released model (fit.model) and λ; fit.elbo stays empty
  DpViLedger ledger;
  // Diagnostic, NOT released (data-dependent): document visits whose contribution was clipped.
  long long clippedVisits = 0;
};

Status validateDpViOptions(const DpViOptions& options, int k, const Corpus& corpus);

// Runs DP-VI; noise from `noise` (SecureRandom for a release, SeededRandom for tests). `start`:
// the first iteration's E-steps and clipped sum, computed once (firstBatchPass with options.vi
// and a sum at options.clip); the fit is then bit-identical to one without it (PRIVACY.md §10).
Result<DpViFit> fitDpVi(const Corpus& train, int k, const DpViOptions& options, RandomSource& noise,
                        Feedback* feedback = nullptr, const ViFirstPass* start = nullptr);

}  // namespace dplda
