#pragma once
// T Poisson-subsampled Gaussian releases for the project's neighbours (replace one document, N
// public): each release adds N(0, σ²I) to the sum of the contributions of a Poisson sample (every
// document independently with probability q, from a secret random source), every contribution
// clipped to norm ≤ C. docs/PRIVACY.md §16.5 proves the account:
//
//   δ_replace(ε) ≤ min over 0 ≤ ε₁ ≤ ε of  δ_remove,T(ε₁) + e^{ε₁}·δ_add,T(ε − ε₁),
//
// where δ_remove,T and δ_add,T are the PLD accounts of T compositions of the sampled Gaussian
// against the same release without the document's contribution (PrivacyLossDistribution::
// poissonSampledGaussian, pessimistic). Any ε₁ gives a valid bound; 65 are tried.
#include "core/common/status.h"
#include "core/privacy/pld_accountant.h"

namespace dplda {

class SampledGaussianAccountant {
 public:
  // noiseMultiplier = σ/C > 0, rate q in (0, 1], releases T >= 1.
  static Result<SampledGaussianAccountant> make(double noiseMultiplier, double rate, long long releases,
                                                double interval = kPldInterval);

  // δ(ε) of the T releases for replacing one document, plus (1 + e^ε)·perExpEpsilonDelta (the
  // samplers' truncated tails), for ε >= 0.
  double delta(double epsilon, double perExpEpsilonDelta = 0.0) const;
  // The smallest ε found with delta(ε, perExpEpsilonDelta) <= δ (+∞ when none), stepping up from
  // a lower bound. With perExpEpsilonDelta > 0, δ(·) can rise again at large ε (the tails' e^ε), so
  // a calibration checks delta() at its target instead.
  double epsilon(double delta, double perExpEpsilonDelta = 0.0) const;

  double noiseMultiplier() const { return m_multiplier; }
  double rate() const { return m_rate; }
  long long releases() const { return m_releases; }
  double interval() const { return m_remove.interval(); }

 private:
  SampledGaussianAccountant(double m, double q, long long t, PrivacyLossDistribution remove, PrivacyLossDistribution add)
      : m_multiplier(m), m_rate(q), m_releases(t), m_remove(std::move(remove)), m_add(std::move(add)) {}
  double m_multiplier, m_rate;
  long long m_releases;
  PrivacyLossDistribution m_remove, m_add;  // T-fold compositions
};

// The smallest noise multiplier σ/C found (to 0.1 % relative) whose account meets (ε, δ) with the
// tails' perExpEpsilonDelta: a bisection on log σ/C, then checked at the returned value. The grid
// is h = min(1e-4·max(1, ε), ε/(20T)) (at least 1e-7), so rounding costs at most 5 % of ε. The
// result's account is what a run reports. Above the ε at which the tails, (1 + e^ε)·
// perExpEpsilonDelta, reach δ/2 no multiplier meets δ at ε itself; the calibration then meets
// (ε_tails, δ), which implies (ε, δ) (docs/PRIVACY.md §16.5), and says so in `epsilon`.
// InvalidArgument for ε, δ, q, T out of range, or tails above δ/2 at every ε.
struct SampledGaussianCalibration {
  double noiseMultiplier = 0.0;
  double epsilon = 0.0;  // where delta(ε) <= δ is met and checked: the target, or ε_tails below it
  double delta = 0.0;
  double interval = 0.0;
};
Result<SampledGaussianCalibration> calibrateSampledGaussian(double epsilon, double delta, double rate,
                                                            long long releases, double perExpEpsilonDelta);

}  // namespace dplda
