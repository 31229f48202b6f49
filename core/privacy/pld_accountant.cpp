#include "core/privacy/pld_accountant.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <unsupported/Eigen/FFT>

#include "core/common/number_text.h"

namespace dplda {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kUnitRoundoff = 0x1p-53;
constexpr double kGaussianTailSigmas = 8.0;          // Φ̄(8) = 6.2e-16 <= kPldTailMass
constexpr double kDirectConvolutionWork = 4e6;       // n1·n2 below which the convolution is summed directly
constexpr double kAccountPoints = 16384.0;           // grid points a run's composition aims at

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }
double normalSurvival(double z) { return 0.5 * std::erfc(z / std::numbers::sqrt2); }

Status checkPositive(const std::string& what, double v) {
  if (std::isnan(v) || !(v > 0.0) || std::isinf(v)) {
    return invalidArgument("PLD accountant: " + what + " must be a finite number > 0, got " + shortNumber(v));
  }
  return Status::ok();
}

Status checkPoints(long long first, long long last, double interval) {
  const long long points = last - first + 1;
  if (points > kPldMaxPoints) {
    return invalidArgument("PLD accountant: the losses span " + std::to_string(points) + " grid points at interval " +
                           shortNumber(interval) + " (at most " + std::to_string(kPldMaxPoints) +
                           "); use a coarser interval");
  }
  return Status::ok();
}

// The grid index whose loss i·h is the smallest grid loss >= t (rounding up, checked in doubles).
long long ceilIndex(double t, double h) {
  auto i = static_cast<long long>(std::ceil(t / h));
  while (static_cast<double>(i) * h < t) ++i;
  return i;
}

}  // namespace

Status validatePldInterval(double interval) {
  if (std::isnan(interval) || !(interval > 0.0) || interval > 1.0) {
    return invalidArgument("PLD accountant: the interval (grid spacing of privacy losses) must be in (0, 1], got " +
                           shortNumber(interval));
  }
  return Status::ok();
}

PrivacyLossDistribution::PrivacyLossDistribution(double interval) : m_interval(interval), m_mass{1.0} {}

PrivacyLossDistribution::PrivacyLossDistribution(double interval, long long first, std::vector<double> mass,
                                                 double infinity)
    : m_interval(interval), m_first(first), m_mass(std::move(mass)), m_infinity(std::min(1.0, infinity)) {}

double PrivacyLossDistribution::finiteMass() const {
  double s = 0.0;
  for (double p : m_mass) s += p;
  return s;
}

Result<PrivacyLossDistribution> PrivacyLossDistribution::gaussian(double sigma, double sensitivity, double h) {
  DPLDA_RETURN_IF_ERROR(checkPositive("the Gaussian noise sigma", sigma));
  DPLDA_RETURN_IF_ERROR(checkPositive("the Gaussian sensitivity", sensitivity));
  DPLDA_RETURN_IF_ERROR(validatePldInterval(h));
  const double mu = sensitivity / sigma;
  if (!std::isfinite(mu)) return invalidArgument("PLD accountant: Delta/sigma = " + shortNumber(mu) + " is not finite");
  const double mean = 0.5 * mu * mu;  // L ~ N(μ²/2, μ²) under P = N(0, σ²)
  const double lo = std::max(mean - kGaussianTailSigmas * mu, -kPldLossCap);
  const double hi = std::min(mean + kGaussianTailSigmas * mu, kPldLossCap);
  if (lo >= hi) return PrivacyLossDistribution(h, 0, {0.0}, 1.0);  // every loss beyond the cap
  const long long first = static_cast<long long>(std::floor(lo / h)), last = ceilIndex(hi, h);
  DPLDA_RETURN_IF_ERROR(checkPoints(first, last, h));
  std::vector<double> mass(static_cast<std::size_t>(last - first + 1));
  // Bucket i holds ((i − 1)h, ih]; the first bucket everything at or below first·h. Left of the
  // mean from the CDF, right of it from the survival function, so no difference loses the tail.
  auto z = [&](long long i) { return (static_cast<double>(i) * h - mean) / mu; };
  double zPrev = z(first);
  double cdfPrev = normalCdf(zPrev), survivalPrev = normalSurvival(zPrev);  // each boundary evaluated once
  mass[0] = cdfPrev;
  for (long long i = first + 1; i <= last; ++i) {
    const double zi = z(i);
    const double cdf = zi <= 0.0 ? normalCdf(zi) : 0.0, survival = zi > 0.0 ? normalSurvival(zi) : 0.0;
    double m;
    if (zi <= 0.0) m = cdf - cdfPrev;
    else if (zPrev > 0.0) m = survivalPrev - survival;
    else m = 1.0 - cdfPrev - survival;
    mass[static_cast<std::size_t>(i - first)] = std::max(0.0, m);
    zPrev = zi;
    cdfPrev = cdf;
    survivalPrev = survival;
  }
  PrivacyLossDistribution pld(h, first, std::move(mass), normalSurvival(z(last)));
  pld.trim();
  return pld;
}

Result<PrivacyLossDistribution> PrivacyLossDistribution::laplace(double scale, double sensitivity, double h) {
  DPLDA_RETURN_IF_ERROR(checkPositive("the Laplace scale b", scale));
  DPLDA_RETURN_IF_ERROR(checkPositive("the Laplace sensitivity", sensitivity));
  DPLDA_RETURN_IF_ERROR(validatePldInterval(h));
  const double a = sensitivity / scale;
  if (!std::isfinite(a)) return invalidArgument("PLD accountant: Delta/b = " + shortNumber(a) + " is not finite");
  // P[L <= t] under P = Lap(0, b): 0 below −a, ½e^{−(a−t)/2} on [−a, a), 1 from a on.
  const long long top = ceilIndex(a, h);  // the bucket of the atom at a
  auto massUpTo = [&](long long i) {
    if (i >= top) return 1.0;
    const double t = static_cast<double>(i) * h;
    return t < -a ? 0.0 : 0.5 * std::exp(-0.5 * (a - t));
  };
  const long long first = std::max(ceilIndex(-a, h), static_cast<long long>(std::floor(-kPldLossCap / h)));
  const long long last = std::min(top, static_cast<long long>(std::floor(kPldLossCap / h)));
  if (last < first) return PrivacyLossDistribution(h, 0, {0.0}, 1.0);
  DPLDA_RETURN_IF_ERROR(checkPoints(first, last, h));
  std::vector<double> mass(static_cast<std::size_t>(last - first + 1));
  double prev = massUpTo(first);
  mass[0] = prev;
  for (long long i = first + 1; i <= last; ++i) {
    const double cur = massUpTo(i);
    mass[static_cast<std::size_t>(i - first)] = cur - prev;
    prev = cur;
  }
  PrivacyLossDistribution pld(h, first, std::move(mass), 1.0 - prev);
  pld.trim();
  return pld;
}

Result<PrivacyLossDistribution> PrivacyLossDistribution::pureDp(double epsilon, double h) {
  DPLDA_RETURN_IF_ERROR(checkPositive("the pure-DP epsilon", epsilon));
  DPLDA_RETURN_IF_ERROR(validatePldInterval(h));
  const double low = 1.0 / (1.0 + std::exp(epsilon));  // e^ε/(1 + e^ε) = 1 − low
  const long long top = ceilIndex(epsilon, h), bottom = ceilIndex(-epsilon, h);
  if (epsilon > kPldLossCap) return PrivacyLossDistribution(h, 0, {low}, 1.0 - low);
  DPLDA_RETURN_IF_ERROR(checkPoints(bottom, top, h));
  std::vector<double> mass(static_cast<std::size_t>(top - bottom + 1), 0.0);
  mass.front() += low;
  mass.back() += 1.0 - low;
  PrivacyLossDistribution pld(h, bottom, std::move(mass), 0.0);
  pld.trim();
  return pld;
}

Result<PrivacyLossDistribution> PrivacyLossDistribution::poissonSampledGaussian(double sigma, double sensitivity,
                                                                                double rate, SampledDirection direction,
                                                                                double h) {
  DPLDA_RETURN_IF_ERROR(checkPositive("the sampled Gaussian's noise sigma", sigma));
  DPLDA_RETURN_IF_ERROR(checkPositive("the sampled Gaussian's sensitivity", sensitivity));
  DPLDA_RETURN_IF_ERROR(validatePldInterval(h));
  if (std::isnan(rate) || !(rate > 0.0) || rate > 1.0) {
    return invalidArgument("PLD accountant: the sampling rate q must be in (0, 1], got " + shortNumber(rate));
  }
  const double mu = sensitivity / sigma;
  if (!std::isfinite(mu)) return invalidArgument("PLD accountant: Delta/sigma = " + shortNumber(mu) + " is not finite");
  const double q = rate, half = 0.5 * mu * mu;
  // L_remove(z) for z = x/σ, and its inverse on (log1p(−q), ∞).
  auto removeLoss = [&](double z) { return std::log1p(q * std::expm1(mu * z - half)); };
  auto zOfRemoveLoss = [&](double l) { return (std::log1p(std::expm1(l) / q) + half) / mu; };
  const bool remove = direction == SampledDirection::Remove;
  // The outputs x/σ considered: [−T, μ + T] under the mixture, [−T, T] under N(0, 1); T = 9 leaves
  // Φ̄(9) ≈ 1e-19 outside, which goes (pessimistically) to the first point or to infinity.
  constexpr double kTail = 9.0;
  const double lo = remove ? removeLoss(-kTail) : -removeLoss(kTail);
  const double hi = std::min(remove ? removeLoss(mu + kTail) : -removeLoss(-kTail), kPldLossCap);
  if (!(lo < hi)) return gaussian(sigma, sensitivity, h);  // q so small that L is one point: never in practice
  const long long first = static_cast<long long>(std::floor(std::max(lo, -kPldLossCap) / h)), last = ceilIndex(hi, h);
  DPLDA_RETURN_IF_ERROR(checkPoints(first, last, h));
  // P[L <= l] and P[L > l]: Remove, x ~ (1 − q)N(0,1) + qN(μ,1), L increasing in x; Add, x ~ N(0,1),
  // L_add = −L_remove decreasing. Each with the branch that does not cancel in its tail.
  const double floorLoss = std::log1p(-q);  // L_remove > log1p(−q) everywhere
  auto below = [&](double l) {
    if (remove) {
      if (l <= floorLoss) return 0.0;
      const double z = zOfRemoveLoss(l);
      return (1.0 - q) * normalCdf(z) + q * normalCdf(z - mu);
    }
    if (-l <= floorLoss) return 1.0;
    return normalSurvival(zOfRemoveLoss(-l));
  };
  auto above = [&](double l) {
    if (remove) {
      if (l <= floorLoss) return 1.0;
      const double z = zOfRemoveLoss(l);
      return (1.0 - q) * normalSurvival(z) + q * normalSurvival(z - mu);
    }
    if (-l <= floorLoss) return 0.0;
    return normalCdf(zOfRemoveLoss(-l));
  };
  std::vector<double> mass(static_cast<std::size_t>(last - first + 1));
  double belowPrev = below(static_cast<double>(first) * h), abovePrev = above(static_cast<double>(first) * h);
  mass[0] = belowPrev;  // every loss at or below the first point, rounded up to it
  for (long long i = first + 1; i <= last; ++i) {
    const double l = static_cast<double>(i) * h;
    const double b = below(l), a = above(l);
    mass[static_cast<std::size_t>(i - first)] = std::max(0.0, b < 0.5 ? b - belowPrev : abovePrev - a);
    belowPrev = b;
    abovePrev = a;
  }
  PrivacyLossDistribution pld(h, first, std::move(mass), abovePrev);
  pld.trim();
  return pld;
}

void PrivacyLossDistribution::trim() {
  const auto n = static_cast<long long>(m_mass.size());
  // Lower end: losses below −cap, then a tail of mass <= kPldTailMass, move up to the first kept point.
  long long lo = 0;
  double moved = 0.0;
  while (lo + 1 < n && (static_cast<double>(m_first + lo) * m_interval < -kPldLossCap ||
                        moved + m_mass[static_cast<std::size_t>(lo)] <= kPldTailMass)) {
    moved += m_mass[static_cast<std::size_t>(lo)];
    ++lo;
  }
  // Upper end: losses above the cap, then a tail of mass <= kPldTailMass, become infinite losses.
  long long hi = n - 1;
  double up = 0.0;
  while (hi > lo && (static_cast<double>(m_first + hi) * m_interval > kPldLossCap ||
                     up + m_mass[static_cast<std::size_t>(hi)] <= kPldTailMass)) {
    up += m_mass[static_cast<std::size_t>(hi)];
    --hi;
  }
  if (lo == 0 && hi == n - 1) return;
  std::vector<double> kept(m_mass.begin() + lo, m_mass.begin() + hi + 1);
  kept.front() += moved;
  m_mass = std::move(kept);
  m_first += lo;
  m_infinity = std::min(1.0, m_infinity + up);
}

Result<PrivacyLossDistribution> PrivacyLossDistribution::compose(const PrivacyLossDistribution& other) const {
  if (other.m_interval != m_interval) {
    return invalidArgument("PLD accountant: distributions on different grids (interval " + shortNumber(m_interval) +
                           " and " + shortNumber(other.m_interval) + ") cannot be composed");
  }
  const std::size_t n1 = m_mass.size(), n2 = other.m_mass.size(), n = n1 + n2 - 1;
  DPLDA_RETURN_IF_ERROR(checkPoints(0, static_cast<long long>(n) - 1, m_interval));
  std::vector<double> out(n, 0.0);
  double rounding = 0.0;  // a bound on Σ|computed − exact| of the convolution (docs/PRIVACY.md §16.3)
  if (static_cast<double>(n1) * static_cast<double>(n2) <= kDirectConvolutionWork) {
    for (std::size_t i = 0; i < n1; ++i) {
      const double a = m_mass[i];
      if (a == 0.0) continue;
      for (std::size_t j = 0; j < n2; ++j) out[i + j] += a * other.m_mass[j];
    }
    // Sums of non-negative terms: each entry is within γ_{min(n1,n2)+1} of its exact value.
    rounding = 1.01 * static_cast<double>(std::min(n1, n2) + 1) * kUnitRoundoff;
  } else {
    std::size_t size = 1;
    while (size < n) size <<= 1;
    std::vector<double> a(size, 0.0), b(size, 0.0);
    std::copy(m_mass.begin(), m_mass.end(), a.begin());
    std::copy(other.m_mass.begin(), other.m_mass.end(), b.begin());
    double normA = 0.0, normB = 0.0;
    for (double v : m_mass) normA += v * v;
    for (double v : other.m_mass) normB += v * v;
    // The half spectrum of a real sequence is all the product needs; a self-composition (the
    // squarings of selfCompose) transforms once. The product is written out: std::complex's
    // operator* goes through __muldc3's NaN/infinity recovery, which finite spectra never need.
    Eigen::FFT<double> fft;
    fft.SetFlag(Eigen::FFT<double>::HalfSpectrum);
    std::vector<std::complex<double>> fa, fb;
    fft.fwd(fa, a);
    const bool self = this == &other;
    if (!self) fft.fwd(fb, b);
    const std::vector<std::complex<double>>& g = self ? fa : fb;
    for (std::size_t k = 0; k < fa.size(); ++k) {
      const double re = fa[k].real() * g[k].real() - fa[k].imag() * g[k].imag();
      const double im = fa[k].real() * g[k].imag() + fa[k].imag() * g[k].real();
      fa[k] = {re, im};
    }
    std::vector<double> c;
    fft.inv(c, fa);
    for (std::size_t k = 0; k < n; ++k) out[k] = std::max(0.0, c[k]);
    // Radix-2 FFT: ‖fl(Fx) − Fx‖₂ <= log2(N)·η·‖Fx‖₂ with η <= 10u (Higham 2002, Thm 24.2, twiddles
    // to a few ulp); through the product and the inverse this is <= 3·log2(N)·η·(‖a‖₂ + ‖b‖₂) in ℓ2
    // (‖a‖₁, ‖b‖₁ <= 1), and ℓ1 <= √N·ℓ2. Clamping negatives only moves entries towards the exact ones.
    const double logN = std::log2(static_cast<double>(size));
    rounding = std::sqrt(static_cast<double>(size)) * 3.0 * logN * 10.0 * kUnitRoundoff *
               (std::sqrt(normA) + std::sqrt(normB));
  }
  const double infinity = m_infinity + other.m_infinity - m_infinity * other.m_infinity + rounding;
  PrivacyLossDistribution pld(m_interval, m_first + other.m_first, std::move(out), infinity);
  pld.trim();
  return pld;
}

Result<PrivacyLossDistribution> PrivacyLossDistribution::selfCompose(long long times) const {
  if (times < 0) return invalidArgument("PLD accountant: a negative number of compositions (" + std::to_string(times) + ")");
  PrivacyLossDistribution result(m_interval), power = *this;
  while (times > 0) {
    if (times & 1) {
      auto r = result.compose(power);
      if (!r.ok()) return r.status();
      result = std::move(r.value());
    }
    times >>= 1;
    if (times > 0) {
      auto p = power.compose(power);
      if (!p.ok()) return p.status();
      power = std::move(p.value());
    }
  }
  return result;
}

double PrivacyLossDistribution::deltaForEpsilon(double epsilon) const {
  if (std::isnan(epsilon)) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0.0;
  // Only losses above ε count: start just below the first of them.
  const double below = std::floor(epsilon / m_interval) - static_cast<double>(m_first) - 1.0;
  const std::size_t start = below <= 0.0 ? 0 : below >= static_cast<double>(m_mass.size()) ? m_mass.size()
                                                                                          : static_cast<std::size_t>(below);
  for (std::size_t i = start; i < m_mass.size(); ++i) {
    const double loss = static_cast<double>(m_first + static_cast<long long>(i)) * m_interval;
    if (loss > epsilon) sum += m_mass[i] * -std::expm1(epsilon - loss);
  }
  return std::min(1.0, m_infinity + sum);
}

double PrivacyLossDistribution::epsilonForDelta(double delta) const {
  if (std::isnan(delta)) return std::numeric_limits<double>::quiet_NaN();
  if (m_infinity >= delta) return kInfinity;
  if (deltaForEpsilon(0.0) <= delta) return 0.0;
  // On [l_j, l_{j+1}], δ(ε) = P∞ + S − e^ε E with S = Σ_{i>j} p_i and E = Σ_{i>j} p_i e^{−l_i}:
  // walk down from the largest loss to the segment where δ crosses the target, then solve.
  long double S = 0.0L, E = 0.0L;
  double epsilon = 0.0;
  for (auto j = static_cast<long long>(m_mass.size()) - 1; j >= 0; --j) {
    const long double loss = static_cast<long double>(m_first + j) * m_interval;
    const long double deltaAtLoss = m_infinity + S - std::exp(loss) * E;
    if (deltaAtLoss > delta) {
      const long double e = std::log((m_infinity + S - delta) / E);
      epsilon = static_cast<double>(std::clamp(e, loss, loss + m_interval));
      break;
    }
    S += m_mass[static_cast<std::size_t>(j)];
    E += m_mass[static_cast<std::size_t>(j)] * std::exp(-loss);
  }
  epsilon = std::max(0.0, epsilon);
  // The solve is exact up to rounding: step up until the direct sum confirms δ(ε) <= δ.
  double step = std::max(std::fabs(epsilon), 1.0) * 4.0 * kUnitRoundoff;
  for (int k = 0; k < 200 && deltaForEpsilon(epsilon) > delta; ++k, step *= 2.0) epsilon += step;
  return epsilon;
}

double smallestEpsilonWithin(const std::function<double(double)>& deltaAt, double lo, double delta) {
  if (std::isnan(lo) || !std::isfinite(lo)) return kInfinity;
  lo = std::max(0.0, lo);
  double hi = lo;
  for (double step = std::max(1e-12, 1e-12 * lo); deltaAt(hi) > delta; step *= 2.0) {
    if (step > 1e3) return kInfinity;
    hi = lo + step;
  }
  for (int it = 0; it < 100 && hi - lo > 1e-12 * std::max(1.0, hi); ++it) {
    const double mid = 0.5 * (lo + hi);
    (deltaAt(mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

Result<PldAccount> accountWithPld(const ComposedReleases& r, double delta) {
  if (std::isnan(delta) || !(delta > 0.0) || !(delta < 1.0)) {
    return invalidArgument("PLD accountant: delta must be in (0, 1), got " + shortNumber(delta));
  }
  PldAccount acc;
  acc.delta = delta;
  double muSquared = 0.0;
  for (double mu : r.gaussianMu) {
    if (mu == kInfinity) {  // a release without noise: no finite ε
      acc.epsilon = kInfinity;
      acc.gaussianMu = kInfinity;
      return acc;
    }
    DPLDA_RETURN_IF_ERROR(checkPositive("a Gaussian release's Delta/sigma", mu));
    muSquared += mu * mu;
  }
  for (double a : r.laplaceRatio) {
    if (a == kInfinity) {
      acc.epsilon = kInfinity;
      return acc;
    }
    DPLDA_RETURN_IF_ERROR(checkPositive("a Laplace release's Delta/b", a));
  }
  for (double e : r.pureEpsilon) {
    if (e == kInfinity) {
      acc.epsilon = kInfinity;
      return acc;
    }
    DPLDA_RETURN_IF_ERROR(checkPositive("a pure-DP release's epsilon", e));
  }
  if (!std::isfinite(r.fixedDelta) || r.fixedDelta < 0.0 || !std::isfinite(r.perExpEpsilonDelta) ||
      r.perExpEpsilonDelta < 0.0) {
    return invalidArgument("PLD accountant: the added deltas must be finite numbers >= 0");
  }
  const double mu = std::sqrt(muSquared);
  acc.gaussianMu = mu;
  // One grid for all: fine enough for small releases, coarse enough to stay near kAccountPoints.
  double span = 0.0;
  if (mu > 0.0) {
    const double mean = 0.5 * mu * mu;
    span += std::max(0.0, std::min(mean + kGaussianTailSigmas * mu, kPldLossCap) -
                              std::max(mean - kGaussianTailSigmas * mu, -kPldLossCap));
  }
  for (double a : r.laplaceRatio) span += 2.0 * std::min(a, kPldLossCap);
  for (double e : r.pureEpsilon) span += 2.0 * std::min(e, kPldLossCap);
  const double h = std::max(kPldInterval, span / kAccountPoints);
  acc.interval = h;
  PrivacyLossDistribution pld(h);
  for (double a : r.laplaceRatio) {
    auto l = PrivacyLossDistribution::laplace(1.0, a, h);
    if (!l.ok()) return l.status();
    auto c = pld.compose(l.value());
    if (!c.ok()) return c.status();
    pld = std::move(c.value());
  }
  for (double e : r.pureEpsilon) {
    auto l = PrivacyLossDistribution::pureDp(e, h);
    if (!l.ok()) return l.status();
    auto c = pld.compose(l.value());
    if (!c.ok()) return c.status();
    pld = std::move(c.value());
  }
  if (mu > 0.0) {
    auto g = PrivacyLossDistribution::gaussian(1.0, mu, h);
    if (!g.ok()) return g.status();
    auto c = pld.compose(g.value());
    if (!c.ok()) return c.status();
    pld = std::move(c.value());
  }
  acc.points = pld.size();
  // The smallest ε with g(ε) = δ_PLD(ε) + fixed + (1 + e^ε)·perExp <= δ. The iteration
  // ε ← ε_PLD(δ − fixed − (1 + e^ε)·perExp) from ε = 0 never passes that smallest ε (the room only
  // shrinks as ε grows) and increases to it; a final check steps up if rounding left it short.
  auto total = [&](double e) { return pld.deltaForEpsilon(e) + r.fixedDelta + (1.0 + std::exp(e)) * r.perExpEpsilonDelta; };
  double epsilon = 0.0;
  for (int it = 0; it < 60; ++it) {
    const double room = delta - r.fixedDelta - (1.0 + std::exp(epsilon)) * r.perExpEpsilonDelta;
    const double next = room > 0.0 ? pld.epsilonForDelta(room) : kInfinity;
    if (!std::isfinite(next)) {
      epsilon = kInfinity;
      break;
    }
    const bool converged = next <= epsilon + 1e-12 * std::max(1.0, next);
    epsilon = std::max(epsilon, next);
    if (converged) break;
  }
  acc.epsilon = smallestEpsilonWithin(total, epsilon, delta);
  if (std::isfinite(acc.epsilon)) acc.pldDelta = pld.deltaForEpsilon(acc.epsilon);
  return acc;
}

}  // namespace dplda
