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
  Laplace,             // scale b = Delta_1 / epsilon, pure epsilon-DP
};

const char* mechanismName(Mechanism m);  // "analytic", "classic", "closed-form", "printed-closed-form", "laplace"
Result<Mechanism> parseMechanism(const std::string& text);  // the names above, case-insensitive

// epsilon finite and > 0; delta finite and in (0, 1). The message names the parameter and value.
Status validatePrivacyParameters(double epsilon, double delta);

// The exact delta of the Gaussian mechanism with noise sigma at epsilon for an l2 sensitivity
// (Balle & Wang 2018, Theorem 8):
//   delta(sigma) = Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta).
// Evaluated without cancellation garbage for tiny delta (Mills-ratio form in the tail); the result
// is in [0, 1]. Returns NaN only for NaN input; sigma <= 0 gives 1 (no noise, no privacy).
double analyticGaussianDelta(double sigma, double epsilon, double sensitivity);

struct Calibration {
  Mechanism mechanism = Mechanism::AnalyticGaussian;
  double scale = 0.0;        // Gaussian sigma, or Laplace b
  double epsilon = 0.0;
  double delta = 0.0;        // the requested delta
  double sensitivity = 0.0;  // l2 (Gaussian) or l1 (Laplace)
  double achievedDelta = 0.0;  // the true delta of `scale` under the analytic formula (0 for Laplace)
  bool isReleaseMechanism = true;  // false for PrintedClosedForm: never use it to release data
  std::string note;          // e.g. why the printed form is not private
};

// The noise scale for one release. Invalid parameters give InvalidArgument naming the parameter.
// Laplace ignores delta (it must still be a number in [0, 1)). ClassicGaussian refuses epsilon >= 1.
// AnalyticGaussian: bracketing + bisection on sigma/Delta to relative 1e-12, the upper end is
// returned and checked: achievedDelta <= delta always holds for the release mechanisms.
Result<Calibration> calibrate(Mechanism mechanism, double epsilon, double delta, double sensitivity);

// ---- zCDP accounting (an optional, labelled alternative to basic composition, SPEC §11) ----
// A Gaussian release with noise sigma and l2 sensitivity Delta is rho-zCDP with rho = Delta^2/(2 sigma^2);
// rho adds up over releases, and rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP
// (Bun & Steinke 2016, Proposition 1.3).
double zcdpRhoOfGaussian(double sigma, double sensitivity);
double zcdpToEpsilon(double rho, double delta);

}  // namespace dplda
