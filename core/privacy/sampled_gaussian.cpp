#include "core/privacy/sampled_gaussian.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <limits>

#include "core/common/number_text.h"
#include "core/privacy/mechanisms.h"

namespace dplda {

namespace {
constexpr int kSplits = 64;  // ε₁ = ε·j/64, j = 0..64
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

Result<SampledGaussianAccountant> SampledGaussianAccountant::make(double m, double q, long long t, double h) {
  if (!(std::isfinite(m) && m > 0)) {
    return invalidArgument("sampled Gaussian: the noise multiplier sigma/C must be finite and > 0, got " + shortNumber(m));
  }
  if (t < 1) return invalidArgument("sampled Gaussian: at least one release, got " + std::to_string(t));
  using D = PrivacyLossDistribution::SampledDirection;
  auto remove = PrivacyLossDistribution::poissonSampledGaussian(m, 1.0, q, D::Remove, h);
  if (!remove.ok()) return remove.status();
  auto add = PrivacyLossDistribution::poissonSampledGaussian(m, 1.0, q, D::Add, h);
  if (!add.ok()) return add.status();
  auto removeT = remove->selfCompose(t);
  if (!removeT.ok()) return removeT.status();
  auto addT = add->selfCompose(t);
  if (!addT.ok()) return addT.status();
  return SampledGaussianAccountant(m, q, t, std::move(removeT).value(), std::move(addT).value());
}

double SampledGaussianAccountant::delta(double epsilon, double perExpEpsilonDelta) const {
  if (std::isnan(epsilon)) return std::numeric_limits<double>::quiet_NaN();
  const double e = std::max(epsilon, 0.0);
  double best = 1.0;
  for (int j = 0; j <= kSplits; ++j) {
    const double e1 = e * j / kSplits;
    const double v = m_remove.deltaForEpsilon(e1) + std::exp(e1) * m_add.deltaForEpsilon(e - e1);
    best = std::min(best, v);
  }
  return std::min(1.0, best + (1.0 + std::exp(e)) * perExpEpsilonDelta);
}

double SampledGaussianAccountant::epsilon(double target, double perExpEpsilonDelta) const {
  if (!(target > 0)) return kInfinity;
  // A lower bound to start from: the remove direction alone is a replace-one pair's first link.
  const double start = std::max(0.0, std::min(m_remove.epsilonForDelta(target), kPldLossCap));
  return smallestEpsilonWithin([&](double e) { return delta(e, perExpEpsilonDelta); }, start, target);
}

namespace {

Result<SampledGaussianCalibration> calibrate(double epsilon, double delta, double q, long long t,
                                             double perExpEpsilonDelta) {
  DPLDA_RETURN_IF_ERROR(validatePrivacyParameters(epsilon, delta));
  if (std::isnan(q) || !(q > 0.0) || q > 1.0) {
    return invalidArgument("sampled Gaussian: the sampling rate q must be in (0, 1], got " + shortNumber(q));
  }
  if (t < 1) return invalidArgument("sampled Gaussian: at least one release, got " + std::to_string(t));
  // Each composition may raise the loss by up to one grid step h (pessimistic rounding, §16.3), so
  // T·h is kept to 5 % of the target: at ε = 0.1 over T = 1 000 releases h = 1e-4 alone would
  // spend the whole budget on rounding.
  // Above ε_tails = ln(δ/(2p) − 1) the tails' (1 + e^ε)·p takes more than half of δ, and at
  // (1 + e^ε)·p >= δ no σ can meet δ (ε = 10 over 580 releases of 1187 x 10 draws: "no multiplier
  // up to 2^60"). A release that is (ε_tails, δ)-DP is (ε, δ)-DP: it is calibrated there.
  const double tailsRoom = delta / (2.0 * perExpEpsilonDelta) - 1.0;
  if (perExpEpsilonDelta > 0.0 && !(tailsRoom > 1.0)) {
    return invalidArgument("sampled Gaussian: the noise sampler's truncated tails alone, 2 x " +
                           shortNumber(perExpEpsilonDelta) + ", take more than half of delta = " + shortNumber(delta) +
                           " (too many noise draws for this delta)");
  }
  if (perExpEpsilonDelta > 0.0) epsilon = std::min(epsilon, std::nextafter(std::log(tailsRoom), 0.0));
  // At ε > 1 the grid grows with ε (rounding stays below T·h <= 5 % of ε, and ≤ 1e-4·ε per
  // release): a calibration at ε ≈ 9 spans a loss range ~ε wide, 9× fewer points than at 1e-4.
  const double h = std::max(1e-7, std::min(kPldInterval * std::max(1.0, epsilon), epsilon / (20.0 * static_cast<double>(t))));
  // The search keeps a bracket [lo, hi] of multipliers: hi meets the budget (its account is kept
  // for the result), lo does not (lo = 0: none seen yet); gapLo, gapHi are log δ(m) − log δ there.
  // A multiplier whose losses do not fit the grid (too little noise for this h) does not meet it
  // (gap +infinity). Each probe costs two PLDs composed T times, so the search spends few of them.
  double lo = 0.0, hi = 0.0, gapLo = kInfinity, gapHi = -kInfinity;
  std::optional<SampledGaussianAccountant> atHi;
  auto probe = [&](double m) {
    auto a = SampledGaussianAccountant::make(m, q, t, h);
    const double gap = a.ok() ? std::log(a->delta(epsilon, perExpEpsilonDelta)) - std::log(delta) : kInfinity;
    if (gap <= 0.0) {
      hi = m, gapHi = gap;
      atHi = std::move(a).value();
    } else {
      lo = m, gapLo = gap;
    }
  };
  // Start from the central-limit guess (Bu et al. 2020: T compositions of the q-sampled Gaussian
  // of multiplier m are close to μ-GDP with μ = q·√(T(e^{1/m²} − 1))), μ = Δ/σ of the analytic
  // Gaussian that is (ε, δ)-DP; only a starting point.
  double m = 1.0;
  if (auto g = dplda::calibrate(Mechanism::AnalyticGaussian, epsilon, delta, 1.0); g.ok() && g->scale > 0.0) {
    const double mu = 1.0 / g->scale;
    // ×1.7: the replace-one pair (remove, then add) costs about twice the add/remove μ the CLT is
    // stated for (measured: 1.25–2.1× over q = 1e-3..0.1, T = 100..7 820).
    const double guess = 1.7 / std::sqrt(std::log1p(mu * mu / (q * q * static_cast<double>(t))));
    if (std::isfinite(guess) && guess > 0x1p-20 && guess < 0x1p40) m = guess;
  }
  probe(m);
  // Bracket: step away from the guess by 1.1, then by squares of the step.
  for (double step = 1.1; hi == 0.0 || lo == 0.0; step *= step) {
    if (hi == 0.0 && lo * step > 0x1p60) {
      return invalidArgument("sampled Gaussian: no noise multiplier up to 2^60 meets epsilon = " +
                             shortNumber(epsilon) + ", delta = " + shortNumber(delta));
    }
    if (lo == 0.0 && hi / step < 0x1p-60) break;  // meets with (almost) no noise: lo stays 0
    probe(hi == 0.0 ? lo * step : hi / step);
  }
  // Narrow to hi/lo <= 1.001: interpolate the root of the gap linearly in m² (a Gaussian's log δ is
  // close to −ε²m²/2Δ² + const), then probe just above and just below it (each kept at least 5 %
  // of the bracket, in log m, inside it), so an accurate estimate ends the search in two probes
  // and a poor one still shrinks the bracket.
  while (lo > 0.0 && hi / lo > 1.001) {
    double root = 0.5 * (std::log(lo) + std::log(hi));
    const bool interpolated = std::isfinite(gapLo) && std::isfinite(gapHi);
    if (interpolated) root = 0.5 * std::log(lo * lo + gapLo / (gapLo - gapHi) * (hi * hi - lo * lo));
    for (double offset : {std::log(1.0004), -std::log(1.0004)}) {
      if (!(hi / lo > 1.001)) break;
      if (!interpolated) offset = 0.0;  // no estimate to straddle (a side did not fit the grid): bisect
      const double a = std::log(lo), b = std::log(hi);
      probe(std::exp(std::clamp(root + offset, a + 0.05 * (b - a), b - 0.05 * (b - a))));
      if (!interpolated) break;
    }
  }
  const SampledGaussianAccountant& a = *atHi;
  SampledGaussianCalibration c;
  c.noiseMultiplier = hi;
  c.delta = delta;
  c.epsilon = epsilon;  // checked at this very ε: with the tails' (1 + e^ε) term δ(·) need not be monotone
  c.interval = a.interval();
  if (!(a.delta(epsilon, perExpEpsilonDelta) <= delta)) {
    return numericalFailure("sampled Gaussian calibration: the account at sigma/C = " + shortNumber(hi) +
                            " does not meet epsilon " + shortNumber(epsilon) + ", delta " + shortNumber(delta));
  }
  return c;
}

// Sweeps calibrate the same (ε, δ, q, T, tails) for every trial: computed once (a few seconds each).
std::mutex calibrationsMutex;
std::map<std::array<double, 5>, SampledGaussianCalibration> calibrations;
}  // namespace

Result<SampledGaussianCalibration> calibrateSampledGaussian(double epsilon, double delta, double q, long long t,
                                                            double perExpEpsilonDelta) {
  const std::array<double, 5> key{epsilon, delta, q, static_cast<double>(t), perExpEpsilonDelta};
  {
    std::lock_guard<std::mutex> lock(calibrationsMutex);
    if (auto it = calibrations.find(key); it != calibrations.end()) return it->second;
  }
  auto c = calibrate(epsilon, delta, q, t, perExpEpsilonDelta);
  if (c.ok()) {
    std::lock_guard<std::mutex> lock(calibrationsMutex);
    calibrations.emplace(key, c.value());
  }
  return c;
}

}  // namespace dplda
