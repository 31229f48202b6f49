// DP-VI (Park, Foulds, Chaudhuri & Welling 2016) with a zCDP accountant over every release.
// The proof of the sensitivity 2C and of the accounting is docs/PRIVACY.md §10.
#include "core/vi/dp_vi.h"

#include <cmath>
#include <limits>

#include "core/common/number_text.h"
#include "core/privacy/mechanisms.h"
#include "core/privacy/sampled_gaussian.h"
#include "core/vi/poisson_sample.h"
#include "core/vi/vi_engine.h"

namespace dplda {

long long dpViReleaseCount(const ViOptions& vi, int docCount) {
  if (docCount < 1) return 0;
  if (vi.method == ViMethod::Batch) return vi.iterations;
  const long long S = std::min(vi.batchSize, docCount);
  return static_cast<long long>(vi.iterations) * ((docCount + S - 1) / S);
}

DpViAccount dpViAccount(double sigma, double sensitivity, long long releases, double delta) {
  DpViAccount a;
  a.delta = delta;
  if (!(sigma > 0)) {
    a.rho = a.epsilon = std::numeric_limits<double>::infinity();
    return a;
  }
  a.rho = static_cast<double>(releases) * sensitivity * sensitivity / (2.0 * sigma * sigma);
  a.epsilon = a.rho + 2.0 * std::sqrt(a.rho * std::log(1.0 / delta));  // Bun & Steinke 2016, Prop. 1.3
  return a;
}

Result<DpViCalibration> calibrateDpVi(double epsilon, double delta, long long releases, double clip,
                                      double drawsPerRelease) {
  DPLDA_RETURN_IF_ERROR(validatePrivacyParameters(epsilon, delta));
  if (releases < 1) return invalidArgument("DP-VI needs at least one release, got " + std::to_string(releases));
  if (!(std::isfinite(clip) && clip > 0)) {
    return invalidArgument("the clipping norm C must be finite and > 0, got " + shortNumber(clip));
  }
  if (!(std::isfinite(drawsPerRelease) && drawsPerRelease >= 1)) {
    return invalidArgument("draws per release must be >= 1, got " + shortNumber(drawsPerRelease));
  }
  DpViCalibration c;
  c.releases = releases;
  c.sensitivity = 2.0 * clip;
  // The check every release path applies (core/privacy/mechanisms.h): a clip so small that 2C or
  // the ρ = T·(2C)²/(2σ²) of the account degenerates (C = 1e-300 gave rho -nan) is refused.
  DPLDA_RETURN_IF_ERROR(
      validateNoiseParameter("the DP-VI sensitivity 2C (clipping norm C = --clip = " + shortNumber(clip) + ")",
                             c.sensitivity));
  c.draws = drawsPerRelease * static_cast<double>(releases);
  c.samplerDelta = gaussianSamplerDelta(epsilon, c.draws);
  if (c.samplerDelta > delta / 2) {
    return invalidArgument("epsilon = " + shortNumber(epsilon) + ", delta = " + shortNumber(delta) +
                           " cannot be met as drawn: the Gaussian sampler's truncated tails add " +
                           shortNumber(c.samplerDelta) + " to delta over " + shortNumber(c.draws) +
                           " noise draws (more than delta/2); use a larger delta, a smaller epsilon or fewer iterations");
  }
  const double target = std::nextafter(delta - c.samplerDelta, 0.0);
  const double L = std::log(1.0 / target);
  // ρ + 2√(ρL) = ε  ⇔  √ρ = √(L + ε) − √L = ε / (√(L + ε) + √L) (no cancellation).
  const double sqrtRho = epsilon / (std::sqrt(L + epsilon) + std::sqrt(L));
  c.rho = sqrtRho * sqrtRho;
  c.sigma = c.sensitivity * std::sqrt(static_cast<double>(releases) / (2.0 * c.rho));
  // Rounding may leave ε(σ) a few ulps above the target: step σ up until it is not.
  for (int i = 0; i < 64 && dpViAccount(c.sigma, c.sensitivity, releases, target).epsilon > epsilon; ++i) {
    c.sigma = std::nextafter(c.sigma, std::numeric_limits<double>::infinity());
  }
  DPLDA_RETURN_IF_ERROR(validateNoiseParameter("the DP-VI noise scale sigma (epsilon = " + shortNumber(epsilon) +
                                                    ", C = " + shortNumber(clip) + ")",
                                                c.sigma));
  c.rho = dpViAccount(c.sigma, c.sensitivity, releases, target).rho;
  c.noiseMultiplier = c.sigma / c.sensitivity;
  return c;
}

Status validateDpViOptions(const DpViOptions& o, int k, const Corpus& corpus) {
  DPLDA_RETURN_IF_ERROR(validateViOptions(o.vi, k, corpus));
  if (o.noiseMultiplier) {
    if (!(std::isfinite(*o.noiseMultiplier) && *o.noiseMultiplier >= 0)) {
      return invalidArgument("the DP-VI noise multiplier must be finite and >= 0, got " + shortNumber(*o.noiseMultiplier));
    }
    if (!(o.clip > 0)) return invalidArgument("the clipping norm C must be > 0, got " + shortNumber(o.clip));
    return validatePrivacyParameters(std::max(o.epsilon, 1.0), o.delta);  // only δ is used
  }
  if (!(std::isfinite(o.clip) && o.clip > 0 && o.clip <= 1e12)) {
    return invalidArgument("the clipping norm C (--clip) must be in (0, 1e12], got " + shortNumber(o.clip));
  }
  return validatePrivacyParameters(o.epsilon, o.delta);
}

Result<DpViFit> fitDpVi(const Corpus& train, int k, const DpViOptions& options, RandomSource& noise,
                        Feedback* feedback, const ViFirstPass* start) {
  DPLDA_RETURN_IF_ERROR(validateDpViOptions(options, k, train));
  const long long releases = dpViReleaseCount(options.vi, train.docCount());
  const double drawsPerRelease = static_cast<double>(k) * train.vocabSize();
  DpViLedger L;
  L.releases = releases;
  L.passes = options.vi.iterations;
  L.method = viMethodName(options.vi.method);
  L.batchSize = isMinibatch(options.vi.method) ? std::min(options.vi.batchSize, train.docCount()) : 0;
  L.clip = options.clip;
  L.sensitivity = 2.0 * options.clip;
  L.draws = drawsPerRelease * static_cast<double>(releases);
  L.noiseSource = noise.description();
  bool proven = true;
  if (options.noiseMultiplier) {  // the testing / teaching hook: σ as given, (ε, δ) as achieved
    L.noiseMultiplier = *options.noiseMultiplier;
    L.sigma = std::isfinite(L.sensitivity) ? L.noiseMultiplier * L.sensitivity : 0.0;
    const DpViAccount a = dpViAccount(L.sigma, L.sensitivity, releases, options.delta);
    L.rho = a.rho;
    L.epsilon = a.epsilon;
    L.samplerDelta = std::isfinite(a.epsilon) ? gaussianSamplerDelta(a.epsilon, L.draws) : 1.0;
    L.delta = std::min(1.0, options.delta + L.samplerDelta);
    proven = std::isfinite(L.epsilon) && std::isfinite(options.clip) && L.samplerDelta <= options.delta / 2;
    L.notes.push_back("noise multiplier given (testing hook): epsilon is what sigma achieves, not a requested budget");
  } else if (options.vi.method == ViMethod::Poisson) {
    // σ/C from the sampled Gaussian's account: contributions of norm ≤ C against an absent one,
    // chained for replace-one; the tails' reserve (1 + e^ε)·draws·2^-53 inside δ.
    L.samplingRate = minibatchSampler(options.vi.batchSize, train.docCount()).rate();
    auto cal = calibrateSampledGaussian(options.epsilon, options.delta, L.samplingRate, releases, L.draws * 0x1p-53);
    if (!cal.ok()) return cal.status();
    L.accountant = kDpViSampledAccountantName;
    L.sigma = cal->noiseMultiplier * options.clip;
    L.noiseMultiplier = L.sigma / L.sensitivity;
    L.epsilon = cal->epsilon;
    L.delta = options.delta;
    L.samplerDelta = gaussianSamplerDelta(L.epsilon, L.draws);
    if (cal->epsilon < options.epsilon) {
      L.notes.push_back("calibrated at epsilon " + shortNumber(cal->epsilon) + " below the budget " +
                        shortNumber(options.epsilon) + ": above it the noise sampler's truncated tails would take "
                        "more than half of delta; (" + shortNumber(cal->epsilon) + ", delta)-DP implies (" +
                        shortNumber(options.epsilon) + ", delta)-DP (docs/PRIVACY.md §16.5)");
    }
    const DpViAccount full = dpViAccount(L.sigma, L.sensitivity, releases, options.delta);
    L.rho = full.rho;
    L.epsilonFullRelease = full.epsilon;
  } else {
    auto cal = calibrateDpVi(options.epsilon, options.delta, releases, options.clip, drawsPerRelease);
    if (!cal.ok()) return cal.status();
    L.sigma = cal->sigma;
    L.noiseMultiplier = cal->noiseMultiplier;
    L.rho = cal->rho;
    L.epsilon = options.epsilon;
    L.delta = options.delta;
    L.samplerDelta = cal->samplerDelta;
  }
  L.claim = proven ? "proven" : "not-private";
  const std::string accounting =
      L.samplingRate > 0 ? " Poisson-sampled Gaussian releases (rate q = " + shortNumber(L.samplingRate) +
                               ", contributions clipped to C = " + shortNumber(options.clip) + "), sigma " +
                               shortNumber(L.sigma) + ", PLD account for replacing one document (PRIVACY.md §16.5); " +
                               "without amplification the same sigma gives epsilon " + shortNumber(L.epsilonFullRelease)
                         : " Gaussian releases of sensitivity 2C = " + shortNumber(L.sensitivity) + ", sigma " +
                               shortNumber(L.sigma) + ", zCDP composition, no amplification by subsampling claimed";
  L.summary = proven ? "(" + shortNumber(L.epsilon) + ", " + shortNumber(L.delta) +
                           ")-DP for replacing one document (DP-VI, docs/PRIVACY.md §10): " + std::to_string(releases) +
                           accounting
                     : "NOT PRIVATE: no noise or no clipping (sigma = " + shortNumber(L.sigma) +
                           ", C = " + shortNumber(options.clip) + "); a testing configuration";
  // The vocabulary (docs/PRIVACY.md §13): chosen from the counts, nothing holds; chosen privately, it
  // is charged on top by basic composition; of unknown origin, it is assumed public.
  const CorpusProvenance& prov = train.provenance;
  if (prov.vocabulary == VocabularyOrigin::CorpusCounts) {
    L.claim = "not-private";
    L.summary = vocabularyNotPrivateReason();
  } else if (prov.vocabulary == VocabularyOrigin::PrivateSelection) {
    L.epsilon += prov.selection.epsilon;
    L.delta += prov.selection.delta;
    if (proven) L.summary += std::string(". ") + vocabularyChargedText(prov.selection);
  } else if (prov.vocabulary == VocabularyOrigin::Unknown) {
    L.notes.push_back(vocabularyAssumedPublicCaution());
  }
  if (options.vi.method == ViMethod::Poisson) {
    L.notes.push_back("minibatches are Poisson samples drawn from the secret noise source (" + noise.description() +
                      "); the sample is not released, its size is not used");
  } else if (options.vi.method == ViMethod::Online) {
    L.notes.push_back("every minibatch update is accounted as a full Gaussian release of sensitivity 2C "
                      "(sound and pessimistic: no privacy amplification by subsampling is claimed)");
  }
  L.notes.push_back("negative entries of the noisy statistics are set to 0 (post-processing); the initial "
                    "topics and the visiting order come from the public seed");

  vi_detail::EngineHooks hooks;
  hooks.clip = options.clip;
  hooks.sampling = &noise;  // method poisson: the sample must be as secret as the noise
  const double sigma = L.sigma;
  hooks.privatise = [&noise, sigma](Eigen::MatrixXd& s) {
    // One Gaussian release: σ·Z on every entry in storage order, then max(·, 0).
    double* p = s.data();
    for (Eigen::Index q = 0; q < s.size(); ++q) p[q] = std::max(p[q] + sigma * standardNormal(noise), 0.0);
  };
  ViOptions vi = options.vi;
  vi.computeElbo = false;  // the ELBO of the data is not a release
  auto fit = vi_detail::runEngine(train, k, vi, hooks, feedback, start);
  if (!fit.ok()) return fit.status();
  DpViFit out;
  out.fit = std::move(fit).value();
  out.ledger = std::move(L);
  out.clippedVisits = hooks.clippedVisits;
  return out;
}

}  // namespace dplda
