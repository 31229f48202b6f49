#pragma once
// Noise mechanisms and their calibration (SPEC §8): given (epsilon, delta) and a sensitivity,
// the noise scale each mechanism needs, plus the true delta that scale achieves.
//
// The sensitivity is an l2 bound for the Gaussian mechanisms and an l1 bound for Laplace;
// SPEC §9's bounds are l1 bounds, which also bound l2.
#include <string>

#include "core/common/status.h"

namespace dplda {

enum class Mechanism {
  AnalyticGaussian,    // default: the smallest sigma with delta(sigma) <= delta (Balle & Wang 2018)
  ClassicGaussian,     // sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon, only for epsilon < 1
  ClosedFormGaussian,  // sigma = Delta (sqrt(ln(1/delta) + eps) + sqrt(ln(1/delta))) / (sqrt(2) eps)
  PrintedClosedForm,   // the same with 2 eps in the denominator (seed 000): NOT private, a demonstration
  Laplace,             // scale b = Delta_1 / epsilon: pure epsilon-DP for exact noise (see laplaceSamplerDelta)
};

const char* mechanismName(Mechanism m);  // "analytic", "classic", "closed-form", "printed-closed-form", "laplace"
Result<Mechanism> parseMechanism(const std::string& text);  // the names above, case-insensitive

// The largest epsilon (total or per release) the tool calibrates: the sweeps look for where each
// configuration starts to carry signal up to 1e12; beyond 1e15 the analytic Gaussian's sigma is
// below 3e-8 of the sensitivity (nothing more to see), and products such as epsilon times a split
// weight must stay finite.
inline constexpr double kMaxEpsilon = 1e15;

// The smallest sensitivity or noise scale a release may have: 2^-511 (about 1.5e-154), where its
// square leaves the normal doubles. The accountants square both (zCDP's rho = Delta^2/(2 sigma^2),
// the Gaussian-DP mu^2), and a clipped statistic that small lives in the underflow range, where
// rounding is absolute rather than relative and the proofs' norm bounds no longer hold to rounding.
// Such a release is degenerate (e.g. whitened C = 1e-108: C^3 underflows to 0): refused.
inline constexpr double kSmallestNoiseParameter = 0x1p-511;
// The one check of a release's sensitivity or noise scale, on every path (both accountants, the
// whitened release, Procedure 1, the private power method, DP-VI): refuses a value that is not
// finite or is below kSmallestNoiseParameter (0, subnormal, or whose square is), with a message
// naming `name` (the parameter, e.g. "the sensitivity of T -> TD (e6) Delta_Tw = ... with C = 1e-108")
// and the value.
Status validateNoiseParameter(const std::string& name, double value);

// epsilon finite and in (0, kMaxEpsilon]; delta finite and in (0, 1). The message names the
// parameter and value.
// (The Gaussian mechanisms add a floor on delta, below: calibrate checks it per release.)
Status validatePrivacyParameters(double epsilon, double delta);

// The exact delta of the Gaussian mechanism with noise sigma at epsilon for an l2 sensitivity
// (Balle & Wang 2018, Theorem 8):
//   delta(sigma) = Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta).
// Evaluated without cancellation: a Mills-ratio form in the tail, and for eps <= 1, sigma >= Delta
// (where the two Phi terms nearly cancel) Phi(a) - Phi(b) by Gauss-Legendre quadrature of the
// normal density plus expm1(eps) Phi(b). Relative error < 4e-14 for delta >= 1e-20 and < 5e-13
// down to 1e-300 (against 60-100 digit mpmath, 30,000 random points); kAnalyticDeltaTolerance covers
// it. The result is in [0, 1]. NaN only for NaN input; sigma <= 0 gives 1 (no noise, no privacy).
double analyticGaussianDelta(double sigma, double epsilon, double sensitivity);
inline constexpr double kAnalyticDeltaTolerance = 1e-12;  // calibration treats delta(sigma) as delta * (1 + this)

// ---- the samplers' truncated tails (docs/PRIVACY.md, "Sampler tails") ----
// standardNormal (core/common/random.cpp) is Box-Muller with u1 = (k + 1) 2^-53 >= 2^-53, so every
// draw has |Z| <= sqrt(106 ln 2) = 8.5717; laplace is b (E1 - E2) with E = -ln u, u >= 2^-53, so
// |X| <= 53 ln 2 b = 36.737 b. Exact Gaussian (Laplace) noise differs from the sampler's only when
// a uniform falls below 2^-53: probability 2^-53 per normal (2^-52 per Laplace draw). A coupling
// argument then makes a release of `draws` values (epsilon, delta_ideal + (1 + e^eps) draws 2^-53)-DP
// where the exact mechanism is (epsilon, delta_ideal)-DP (2^-52 for Laplace). The functions below
// return those excess deltas, rounded up.
inline constexpr double kSamplerUniformFloor = 0x1p-53;  // the smallest u the samplers use
inline constexpr double kGaussianSamplerMaxAbs = 8.571674348653;  // >= sqrt(106 ln 2) = 8.57167434865290...
inline constexpr double kLaplaceSamplerMaxAbs = 36.736800569678;  // >= 53 ln 2 = 36.7368005696771... (units of b)
double gaussianSamplerDelta(double epsilon, double draws = 1.0);  // (1 + e^eps) draws 2^-53, at most 1
double laplaceSamplerDelta(double epsilon, double draws = 1.0);   // (1 + e^eps) draws 2^-52, at most 1
// The largest epsilon whose Gaussian sampler excess is at most delta / 2 (at most half of delta goes
// to the truncated tails): ln(delta 2^52 / draws - 1). NaN when no epsilon > 0 qualifies.
double gaussianSamplerEpsilonLimit(double delta, double draws = 1.0);
// The smallest delta a Gaussian release of `draws` values can honestly be calibrated for: 4 draws 2^-53
// (4.44e-16 for one draw), where the limit above reaches epsilon = 0.
double gaussianSamplerDeltaFloor(double draws = 1.0);

struct Calibration {
  Mechanism mechanism = Mechanism::AnalyticGaussian;
  double scale = 0.0;        // Gaussian sigma, or Laplace b
  double epsilon = 0.0;
  double delta = 0.0;        // the requested delta
  double sensitivity = 0.0;  // l2 (Gaussian) or l1 (Laplace)
  double draws = 1.0;        // noise values the release draws (the sampler excess grows with it)
  double achievedDelta = 0.0;  // delta of `scale` under the analytic formula, exact noise (0 for Laplace)
  // The delta the sampler's truncated tails add on top of achievedDelta (gaussianSamplerDelta or
  // laplaceSamplerDelta). For the Gaussian release mechanisms it is reserved out of the requested
  // delta: achievedDelta (1 + kAnalyticDeltaTolerance) + samplerDelta <= delta, unless samplerLimited.
  double samplerDelta = 0.0;
  // epsilon is above gaussianSamplerEpsilonLimit(delta, draws): the scale is calibrated for exact
  // Gaussian noise at (epsilon, delta), and the sampler's excess (1 + e^eps) draws 2^-53 exceeds
  // delta / 2, so the (epsilon, delta) guarantee does not hold for the noise actually drawn.
  bool samplerLimited = false;
  bool isReleaseMechanism = true;  // false for PrintedClosedForm: never use it to release data
  std::string note;          // e.g. why the printed form is not private
};

// The noise scale for one release of `draws` noise values (>= 1). Invalid parameters give
// InvalidArgument naming the parameter. Laplace ignores delta (it must still be a number in [0, 1)).
// ClassicGaussian refuses epsilon >= 1.
// The Gaussian release mechanisms refuse delta < gaussianSamplerDeltaFloor(draws) and, for epsilon up
// to gaussianSamplerEpsilonLimit, calibrate for delta - samplerDelta, so that the noise actually drawn
// is (epsilon, delta)-DP. AnalyticGaussian: bracketing + bisection on sigma/Delta to relative 1e-12;
// the upper end is returned and checked against the target with kAnalyticDeltaTolerance.
Result<Calibration> calibrate(Mechanism mechanism, double epsilon, double delta, double sensitivity,
                              double draws = 1.0);

// ---- zCDP accounting (an optional, labelled alternative to basic composition, SPEC §11) ----
// A Gaussian release with noise sigma and l2 sensitivity Delta is rho-zCDP with rho = Delta^2/(2 sigma^2);
// rho adds up over releases, and rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP
// (Bun & Steinke 2016, Proposition 1.3).
double zcdpRhoOfGaussian(double sigma, double sensitivity);
double zcdpToEpsilon(double rho, double delta);

}  // namespace dplda
