#include "core/privacy/mechanisms.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

namespace dplda {

namespace {

std::string num(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}

// Mills ratio R(y) = Phi(-y) / phi(y) for y >= 0. Near zero from erfc (exact to a few ulp for
// y < 2); beyond, Laplace's continued fraction R = 1/(y + 1/(y + 2/(y + 3/(y + ...)))), which
// 120 terms converge to double precision for y >= 2 and which never under- or overflows.
double millsRatio(double y) {
  if (y < 2.0) {
    return std::erfc(y / std::numbers::sqrt2) * std::sqrt(std::numbers::pi / 2.0) * std::exp(0.5 * y * y);
  }
  double t = y;
  for (int n = 120; n >= 1; --n) t = y + n / t;
  return 1.0 / t;
}

double normalPdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi); }

// Gauss-Legendre nodes and weights on [-1, 1] (Newton on the Legendre recurrence, long double).
// 10 nodes integrate exp(c x + q x^2), |c| <= 0.5, |q| <= 0.125, to ~1e-22 relative: far below rounding.
constexpr int kQuadratureNodes = 10;
struct GaussLegendre {
  std::array<double, kQuadratureNodes> x{}, w{};
};
const GaussLegendre& gaussLegendre() {
  static const GaussLegendre rule = [] {
    GaussLegendre g;
    const int n = kQuadratureNodes;
    for (int i = 0; i < n; ++i) {
      long double z = std::cos(std::numbers::pi_v<long double> * (i + 0.75L) / (n + 0.5L));
      long double dp = 1.0L;
      for (int it = 0; it < 100; ++it) {
        long double p0 = 1.0L, p1 = 0.0L;
        for (int j = 1; j <= n; ++j) {
          const long double p2 = p1;
          p1 = p0;
          p0 = ((2.0L * j - 1.0L) * z * p1 - (j - 1.0L) * p2) / j;
        }
        dp = n * (z * p0 - p1) / (z * z - 1.0L);
        const long double step = p0 / dp;
        z -= step;
        if (std::fabs(step) < 1e-19L) break;
      }
      g.x[i] = static_cast<double>(z);
      g.w[i] = static_cast<double>(2.0L / ((1.0L - z * z) * dp * dp));
    }
    return g;
  }();
  return rule;
}

// delta for eps <= 1 and s >= 1, where Phi(a) and e^eps Phi(b) agree to many digits (b = a - 1/s)
// and the Mills-ratio form below loses ~ -b s ulps (1e-8 relative at eps ~ 1e-7). With
// m = (a + b) / 2 = -eps s and h = a - b = 1/s:
//   Phi(a) - Phi(b) = phi(m) int_{-h/2}^{h/2} exp(-m u - u^2/2) du      (quadrature, no cancellation)
//   (e^eps - 1) Phi(b) = phi(m) 2 sinh(eps/2) e^{-h^2/8} R(-b)          (phi(b) = phi(m) e^{-eps/2 - h^2/8})
// delta = phi(m) [first - second]. The remaining cancellation is mild: second/first ~ y R(y) with
// y = -b, so the difference loses a factor ~ 1 + y^2 (< 100 for delta > 1e-20), not 1/h.
double deltaNearbyTails(double s, double eps) {
  const double h = 1.0 / s;
  const double m = -eps * s;
  const GaussLegendre& g = gaussLegendre();
  double integral = 0.0;
  for (int i = 0; i < kQuadratureNodes; ++i) {
    const double u = 0.5 * h * g.x[i];
    integral += g.w[i] * std::exp(-m * u - 0.5 * u * u);
  }
  integral *= 0.5 * h;
  const double minusB = eps * s + 0.5 / s;
  const double second = 2.0 * std::sinh(0.5 * eps) * std::exp(-0.125 * h * h) * millsRatio(minusB);
  return normalPdf(m) * (integral - second);
}

// delta as a function of s = sigma / Delta. With a = 1/(2s) - eps s and b = -1/(2s) - eps s one
// has b^2 - a^2 = 2 eps exactly, so e^eps phi(b) = phi(a) and e^eps Phi(b) = phi(a) R(-b): the
// factor e^eps (which overflows for large eps) and the cancellation of two tiny Gaussian tails
// drop out analytically.
double deltaOfNormalisedSigma(double s, double eps) {
  if (std::isnan(s) || std::isnan(eps)) return std::numeric_limits<double>::quiet_NaN();
  if (s <= 0.0) return 1.0;
  if (eps <= 1.0 && s >= 1.0) return std::clamp(deltaNearbyTails(s, eps), 0.0, 1.0);
  const double a = 0.5 / s - eps * s;
  const double b = -0.5 / s - eps * s;
  double d;
  if (a < 0.0) {
    // Phi(a) - e^eps Phi(b) = phi(a) (R(-a) - R(-b)); both tails, no e^eps. Here eps > 1 or
    // s < 1, so -b - (-a) = 1/s is not small against -a and the difference loses few digits.
    d = normalPdf(a) * (millsRatio(-a) - millsRatio(-b));
  } else {
    // Phi(a) = 1 - phi(a) R(a); delta > 0.2 here (a >= 0 with eps > 1 or s < 1: little noise).
    d = 1.0 - normalPdf(a) * (millsRatio(a) + millsRatio(-b));
  }
  return std::clamp(d, 0.0, 1.0);
}

// The target a computed delta must meet so that the exact delta meets `target`.
bool meets(double computedDelta, double target) {
  return computedDelta * (1.0 + kAnalyticDeltaTolerance) <= target;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status validateEpsilon(double epsilon) {
  if (!std::isfinite(epsilon) || epsilon <= 0.0)
    return invalidArgument("epsilon must be a finite number > 0, got " + num(epsilon));
  if (epsilon > kMaxEpsilon)
    return invalidArgument("epsilon must be at most " + num(kMaxEpsilon) + " (no privacy left to measure), got " +
                           num(epsilon));
  return Status::ok();
}

// The smallest s = sigma/Delta with delta(s) <= target: bracket geometrically around a start, then
// bisect to relative 1e-12 (delta(s) is decreasing in s). Returns the upper end, where the computed
// delta with its error allowance meets the target, so the exact delta does too.
Result<double> solveAnalytic(double eps, double target, double start) {
  double hi = start, lo = start;
  int steps = 0;
  while (!meets(deltaOfNormalisedSigma(hi, eps), target)) {
    lo = hi;
    hi *= 2.0;
    if (++steps > 2100 || !std::isfinite(hi))
      return invalidArgument("epsilon = " + num(eps) + ", delta = " + num(target) +
                             ": the analytic Gaussian noise scale overflows (epsilon too small)");
  }
  if (lo == hi) {
    // start was already private: walk down until it is not.
    lo = hi * 0.5;
    while (meets(deltaOfNormalisedSigma(lo, eps), target)) {
      hi = lo;
      lo *= 0.5;
      if (++steps > 2100 || lo == 0.0)
        return numericalFailure("analytic Gaussian calibration: no lower bracket for epsilon = " + num(eps) +
                                ", delta = " + num(target));
    }
  }
  for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (!meets(deltaOfNormalisedSigma(mid, eps), target))
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

}  // namespace

Status validateNoiseParameter(const std::string& name, double value) {
  if (std::isfinite(value) && value >= kSmallestNoiseParameter) return Status::ok();
  const std::string why = !std::isfinite(value) ? "is not a finite number"
                          : value <= 0.0        ? "is not > 0"
                                                : "is below 2^-511 = 1.5e-154 (its square underflows: a degenerate "
                                                  "release, e.g. from a clipping bound so small that the clipped "
                                                  "statistic lies in the floating-point underflow range)";
  return invalidArgument(name + " = " + num(value) + " " + why + "; refused");
}

const char* mechanismName(Mechanism m) {
  switch (m) {
    case Mechanism::AnalyticGaussian: return "analytic";
    case Mechanism::ClassicGaussian: return "classic";
    case Mechanism::ClosedFormGaussian: return "closed-form";
    case Mechanism::PrintedClosedForm: return "printed-closed-form";
    case Mechanism::Laplace: return "laplace";
  }
  return "analytic";
}

Result<Mechanism> parseMechanism(const std::string& text) {
  std::string key = lower(text);
  key.erase(std::remove_if(key.begin(), key.end(), [](unsigned char c) { return std::isspace(c); }), key.end());
  for (Mechanism m : {Mechanism::AnalyticGaussian, Mechanism::ClassicGaussian, Mechanism::ClosedFormGaussian,
                      Mechanism::PrintedClosedForm, Mechanism::Laplace})
    if (key == mechanismName(m)) return m;
  return invalidArgument("mechanism \"" + text +
                         "\" is unknown: use analytic, classic, closed-form, printed-closed-form or laplace");
}

Status validatePrivacyParameters(double epsilon, double delta) {
  DPLDA_RETURN_IF_ERROR(validateEpsilon(epsilon));
  if (!std::isfinite(delta) || delta <= 0.0 || delta >= 1.0)
    return invalidArgument("delta must be a finite number in (0, 1), got " + num(delta));
  return Status::ok();
}

double analyticGaussianDelta(double sigma, double epsilon, double sensitivity) {
  return deltaOfNormalisedSigma(sigma / sensitivity, epsilon);
}

// (1 + e^eps) draws u, rounded up: the 4 ulp margin covers exp's and the products' rounding.
// A δ of 1 holds for any mechanism: the excess is capped there, so that e^ε overflowing (ε >= 710)
// gives 1, not infinity, in every output (issue 28).
double gaussianSamplerDelta(double epsilon, double draws) {
  return std::min(1.0, (1.0 + std::exp(epsilon)) * draws * kSamplerUniformFloor * (1.0 + 0x1p-50));
}

double laplaceSamplerDelta(double epsilon, double draws) { return std::min(1.0, 2.0 * gaussianSamplerDelta(epsilon, draws)); }

double gaussianSamplerEpsilonLimit(double delta, double draws) {
  // (1 + e^eps) draws 2^-53 <= delta / 2; computed with the rounded-up excess so the limit is safe.
  const double x = delta / (2.0 * draws * kSamplerUniformFloor * (1.0 + 0x1p-50)) - 1.0;
  if (!(x > 1.0)) return std::numeric_limits<double>::quiet_NaN();
  const double limit = std::log(x);
  return std::nextafter(limit, 0.0);
}

double gaussianSamplerDeltaFloor(double draws) { return 4.0 * draws * kSamplerUniformFloor * (1.0 + 0x1p-50); }

Result<Calibration> calibrate(Mechanism mechanism, double epsilon, double delta, double sensitivity, double draws) {
  DPLDA_RETURN_IF_ERROR(validateNoiseParameter("sensitivity", sensitivity));
  if (!std::isfinite(draws) || draws < 1.0)
    return invalidArgument("the number of noise draws must be a finite number >= 1, got " + num(draws));
  Calibration c;
  c.mechanism = mechanism;
  c.epsilon = epsilon;
  c.delta = delta;
  c.sensitivity = sensitivity;
  c.draws = draws;

  if (mechanism == Mechanism::Laplace) {
    DPLDA_RETURN_IF_ERROR(validateEpsilon(epsilon));
    if (!std::isfinite(delta) || delta < 0.0 || delta >= 1.0)
      return invalidArgument("delta must be a finite number in [0, 1), got " + num(delta));
    c.scale = sensitivity / epsilon;
    if (!std::isfinite(c.scale))
      return invalidArgument("epsilon = " + num(epsilon) + " is too small: the Laplace scale overflows");
    DPLDA_RETURN_IF_ERROR(validateNoiseParameter("the Laplace scale b (epsilon = " + num(epsilon) +
                                                    ", sensitivity = " + num(sensitivity) + ")", c.scale));
    c.achievedDelta = 0.0;
    // Reported, not enforced: Laplace releases are charged as pure epsilon-DP (delta may be 0).
    c.samplerDelta = laplaceSamplerDelta(epsilon, draws);
    c.note = "Laplace mechanism: pure epsilon-DP for an l1 sensitivity with exact noise; the sampler's "
             "truncated tails (|noise| <= 36.74 b) add delta <= " + num(c.samplerDelta);
    return c;
  }

  DPLDA_RETURN_IF_ERROR(validatePrivacyParameters(epsilon, delta));
  // The sampler's truncated tails: reserve their delta, or refuse a delta they would swamp.
  double target = delta;
  const bool release = mechanism != Mechanism::PrintedClosedForm;
  c.samplerDelta = gaussianSamplerDelta(epsilon, draws);
  if (release) {
    const double floor = gaussianSamplerDeltaFloor(draws);
    if (delta < floor)
      return invalidArgument("delta = " + num(delta) + " is below " + num(floor) +
                             ", the smallest delta the Gaussian noise sampler supports for " + num(draws) +
                             " draw(s): its normals come from 53-bit uniforms (Box-Muller), so their tails "
                             "are truncated at |Z| <= 8.5717, which adds up to (1 + e^epsilon) 2^-53 per "
                             "draw to delta");
    const double limit = gaussianSamplerEpsilonLimit(delta, draws);
    if (epsilon <= limit) {
      target = std::nextafter(delta - c.samplerDelta, 0.0);
    } else {
      c.samplerLimited = true;  // labelled below; the scale stays the exact-noise calibration
    }
  }
  const double logInvDelta = -std::log(target);
  double s = 0.0;  // sigma / Delta
  switch (mechanism) {
    case Mechanism::AnalyticGaussian: {
      const double start = (std::sqrt(logInvDelta + epsilon) + std::sqrt(logInvDelta)) / (std::sqrt(2.0) * epsilon);
      Result<double> r = solveAnalytic(epsilon, target, std::isfinite(start) ? start : 1.0);
      if (!r.ok()) return r.status();
      s = r.value();
      c.note = "analytic Gaussian mechanism (Balle & Wang 2018, Theorem 8): the smallest private sigma";
      break;
    }
    case Mechanism::ClassicGaussian:
      if (epsilon >= 1.0)
        return invalidArgument("the classic Gaussian mechanism sigma = Delta sqrt(2 ln(1.25/delta))/epsilon is proven "
                               "only for epsilon < 1, got epsilon = " + num(epsilon) +
                               "; use the analytic Gaussian mechanism");
      s = std::sqrt(2.0 * std::log(1.25 / target)) / epsilon;
      c.note = "classic Gaussian mechanism (Dwork & Roth, Theorem A.1), valid for epsilon < 1";
      break;
    case Mechanism::ClosedFormGaussian:
      s = (std::sqrt(logInvDelta + epsilon) + std::sqrt(logInvDelta)) / (std::sqrt(2.0) * epsilon);
      c.note = "closed-form Gaussian mechanism (a Gaussian tail bound): private, slightly more noise than analytic";
      break;
    case Mechanism::PrintedClosedForm:
      s = (std::sqrt(logInvDelta + epsilon) + std::sqrt(logInvDelta)) / (2.0 * epsilon);
      c.isReleaseMechanism = false;
      break;
    case Mechanism::Laplace: break;  // handled above
  }
  c.scale = sensitivity * s;
  if (!std::isfinite(c.scale))
    return invalidArgument("epsilon = " + num(epsilon) + ", sensitivity = " + num(sensitivity) +
                           ": the noise scale overflows");
  DPLDA_RETURN_IF_ERROR(validateNoiseParameter("the noise scale sigma (epsilon = " + num(epsilon) +
                                                  ", sensitivity = " + num(sensitivity) + ")", c.scale));
  c.achievedDelta = analyticGaussianDelta(c.scale, epsilon, sensitivity);

  if (mechanism == Mechanism::AnalyticGaussian) {
    // sigma = Delta * s may round below the boundary found for s; step up by ulps until private.
    for (int i = 0; i < 8 && !meets(c.achievedDelta, target); ++i) {
      c.scale = std::nextafter(c.scale, std::numeric_limits<double>::infinity());
      c.achievedDelta = analyticGaussianDelta(c.scale, epsilon, sensitivity);
    }
  }
  if (release && !meets(c.achievedDelta, target))
    return numericalFailure(std::string("calibration of the ") + mechanismName(mechanism) +
                            " mechanism failed its check: delta(sigma = " + num(c.scale) + ") = " +
                            num(c.achievedDelta) + " exceeds the target " + num(target));
  if (c.samplerLimited)
    c.note += "; NOT PRIVATE AS DRAWN at epsilon = " + num(epsilon) + ": above epsilon = " +
              num(gaussianSamplerEpsilonLimit(delta, draws)) + " the noise sampler's truncated tails (|Z| <= 8.5717) "
              "add up to " + num(c.samplerDelta) + " to delta; the guarantee holds for exact Gaussian noise only";
  if (mechanism == Mechanism::PrintedClosedForm) {
    const std::string what = "the closed form as printed in seed 000 (2 epsilon in the denominator)";
    c.note = c.achievedDelta > delta
                 ? "NOT PRIVATE: " + what + " achieves delta = " + num(c.achievedDelta) + ", " +
                       num(c.achievedDelta / delta) + " times the target; a demonstration, never used for a release"
                 : "demonstration only: " + what + " happens to meet the target here (delta = " +
                       num(c.achievedDelta) + ") but is not private in general (e.g. epsilon >= 0.36 at delta = 1e-5)";
  }
  return c;
}

double zcdpRhoOfGaussian(double sigma, double sensitivity) {
  return sensitivity * sensitivity / (2.0 * sigma * sigma);
}

double zcdpToEpsilon(double rho, double delta) { return rho + 2.0 * std::sqrt(rho * std::log(1.0 / delta)); }

}  // namespace dplda
