#include "core/privacy/mechanisms.h"

#include <algorithm>
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

// delta as a function of s = sigma / Delta. With a = 1/(2s) - eps s and b = -1/(2s) - eps s one
// has b^2 - a^2 = 2 eps exactly, so e^eps phi(b) = phi(a) and e^eps Phi(b) = phi(a) R(-b): the
// factor e^eps (which overflows for large eps) and the cancellation of two tiny Gaussian tails
// drop out analytically.
double deltaOfNormalisedSigma(double s, double eps) {
  if (std::isnan(s) || std::isnan(eps)) return std::numeric_limits<double>::quiet_NaN();
  if (s <= 0.0) return 1.0;
  const double a = 0.5 / s - eps * s;
  const double b = -0.5 / s - eps * s;
  double d;
  if (a < 0.0) {
    // Phi(a) - e^eps Phi(b) = phi(a) (R(-a) - R(-b)); both tails, no e^eps.
    d = normalPdf(a) * (millsRatio(-a) - millsRatio(-b));
  } else {
    // Phi(a) = 1 - phi(a) R(a); delta is not small here (a >= 0 means little noise).
    d = 1.0 - normalPdf(a) * (millsRatio(a) + millsRatio(-b));
  }
  return std::clamp(d, 0.0, 1.0);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status validateSensitivity(double sensitivity) {
  if (!std::isfinite(sensitivity) || sensitivity <= 0.0)
    return invalidArgument("sensitivity must be a finite number > 0, got " + num(sensitivity));
  return Status::ok();
}

Status validateEpsilon(double epsilon) {
  if (!std::isfinite(epsilon) || epsilon <= 0.0)
    return invalidArgument("epsilon must be a finite number > 0, got " + num(epsilon));
  return Status::ok();
}

// The smallest s = sigma/Delta with delta(s) <= target: bracket geometrically around a start, then
// bisect to relative 1e-12 (delta(s) is decreasing in s). Returns the upper end, so delta <= target.
Result<double> solveAnalytic(double eps, double target, double start) {
  double hi = start, lo = start;
  int steps = 0;
  while (deltaOfNormalisedSigma(hi, eps) > target) {
    lo = hi;
    hi *= 2.0;
    if (++steps > 2100 || !std::isfinite(hi))
      return invalidArgument("epsilon = " + num(eps) + ", delta = " + num(target) +
                             ": the analytic Gaussian noise scale overflows (epsilon too small)");
  }
  if (lo == hi) {
    // start was already private: walk down until it is not.
    lo = hi * 0.5;
    while (deltaOfNormalisedSigma(lo, eps) <= target) {
      hi = lo;
      lo *= 0.5;
      if (++steps > 2100 || lo == 0.0)
        return numericalFailure("analytic Gaussian calibration: no lower bracket for epsilon = " + num(eps) +
                                ", delta = " + num(target));
    }
  }
  for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (deltaOfNormalisedSigma(mid, eps) > target)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

}  // namespace

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

Result<Calibration> calibrate(Mechanism mechanism, double epsilon, double delta, double sensitivity) {
  DPLDA_RETURN_IF_ERROR(validateSensitivity(sensitivity));
  Calibration c;
  c.mechanism = mechanism;
  c.epsilon = epsilon;
  c.delta = delta;
  c.sensitivity = sensitivity;

  if (mechanism == Mechanism::Laplace) {
    DPLDA_RETURN_IF_ERROR(validateEpsilon(epsilon));
    if (!std::isfinite(delta) || delta < 0.0 || delta >= 1.0)
      return invalidArgument("delta must be a finite number in [0, 1), got " + num(delta));
    c.scale = sensitivity / epsilon;
    if (!std::isfinite(c.scale))
      return invalidArgument("epsilon = " + num(epsilon) + " is too small: the Laplace scale overflows");
    c.achievedDelta = 0.0;
    c.note = "Laplace mechanism: pure epsilon-DP for an l1 sensitivity; delta is not used";
    return c;
  }

  DPLDA_RETURN_IF_ERROR(validatePrivacyParameters(epsilon, delta));
  const double logInvDelta = -std::log(delta);
  double s = 0.0;  // sigma / Delta
  switch (mechanism) {
    case Mechanism::AnalyticGaussian: {
      const double start = (std::sqrt(logInvDelta + epsilon) + std::sqrt(logInvDelta)) / (std::sqrt(2.0) * epsilon);
      Result<double> r = solveAnalytic(epsilon, delta, std::isfinite(start) ? start : 1.0);
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
      s = std::sqrt(2.0 * std::log(1.25 / delta)) / epsilon;
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
  c.achievedDelta = analyticGaussianDelta(c.scale, epsilon, sensitivity);

  if (mechanism == Mechanism::AnalyticGaussian) {
    // sigma = Delta * s may round below the boundary found for s; step up by ulps until private.
    for (int i = 0; i < 8 && c.achievedDelta > delta; ++i) {
      c.scale = std::nextafter(c.scale, std::numeric_limits<double>::infinity());
      c.achievedDelta = analyticGaussianDelta(c.scale, epsilon, sensitivity);
    }
  }
  if (c.isReleaseMechanism && !(c.achievedDelta <= delta))
    return numericalFailure(std::string("calibration of the ") + mechanismName(mechanism) +
                            " mechanism failed its check: delta(sigma = " + num(c.scale) + ") = " +
                            num(c.achievedDelta) + " exceeds the target " + num(delta));
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
