#include "core/common/random.h"

#include <sys/random.h>

#include <cerrno>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace dplda {

std::string SeededRandom::description() const {
  return "seeded (mt19937_64, seed " + std::to_string(m_seed) + ")";
}

void SecureRandom::refill() {
  auto* bytes = reinterpret_cast<unsigned char*>(m_buffer);
  std::size_t want = sizeof(m_buffer);
  std::size_t got = 0;
  while (got < want) {
    ssize_t r = getrandom(bytes + got, want - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      // No secure randomness means no private release: fail loudly rather than degrade.
      throw std::runtime_error("getrandom failed: the secure noise source is unavailable");
    }
    got += static_cast<std::size_t>(r);
  }
  m_next = 0;
}

std::uint64_t SecureRandom::nextU64() {
  if (m_next >= 64) refill();
  return m_buffer[m_next++];
}

std::uint64_t deriveSeed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double uniform01(RandomSource& rng) {
  return (static_cast<double>(rng.nextU64() >> 11) + 0.5) * 0x1.0p-53;
}

double uniformOpenClosed(RandomSource& rng) {
  return (static_cast<double>(rng.nextU64() >> 11) + 1.0) * 0x1.0p-53;
}

std::uint64_t uniformIndex(RandomSource& rng, std::uint64_t n) {
  // Lemire-free rejection: unbiased and portable.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  std::uint64_t x;
  do {
    x = rng.nextU64();
  } while (x >= limit);
  return x % n;
}

double standardNormal(RandomSource& rng) {
  const std::uint64_t first = rng.nextU64();
  return standardNormalFromBits(first, rng.nextU64());
}

double standardNormalFromBits(std::uint64_t first, std::uint64_t second) {
  const double u1 = (static_cast<double>(first >> 11) + 1.0) * 0x1.0p-53;   // uniformOpenClosed
  const double u2 = (static_cast<double>(second >> 11) + 0.5) * 0x1.0p-53;  // uniform01
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::pair<double, double> standardNormalPairFromBits(std::uint64_t first, std::uint64_t second) {
  const double u1 = (static_cast<double>(first >> 11) + 1.0) * 0x1.0p-53;
  const double u2 = (static_cast<double>(second >> 11) + 0.5) * 0x1.0p-53;
  const double r = std::sqrt(-2.0 * std::log(u1)), theta = 2.0 * std::numbers::pi * u2;
  return {r * std::cos(theta), r * std::sin(theta)};
}

double exponential(RandomSource& rng) { return -std::log(uniformOpenClosed(rng)); }

double laplace(RandomSource& rng, double scale) {
  // Difference of two exponentials: symmetric, no branch on a sign bit.
  return scale * (exponential(rng) - exponential(rng));
}

double gammaSample(RandomSource& rng, double shape) {
  if (shape < 1.0) {
    // Boost: G(a) = G(a+1) * U^(1/a).
    const double g = gammaSample(rng, shape + 1.0);
    return g * std::pow(uniformOpenClosed(rng), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = standardNormal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform01(rng);
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

std::vector<double> dirichlet(RandomSource& rng, const std::vector<double>& concentration) {
  std::vector<double> out(concentration.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = gammaSample(rng, concentration[i]);
    sum += out[i];
  }
  if (sum <= 0.0) {
    // All gammas underflowed (tiny concentrations): put the mass on one uniform coordinate,
    // the limit of Dirichlet(a) as a -> 0.
    out.assign(out.size(), 0.0);
    out[uniformIndex(rng, out.size())] = 1.0;
    return out;
  }
  for (double& v : out) v /= sum;
  return out;
}

std::uint64_t poisson(RandomSource& rng, double mean) {
  if (mean <= 0.0) return 0;
  if (mean < 30.0) {
    // Knuth's multiplication method: exact, cheap for small means.
    const double limit = std::exp(-mean);
    std::uint64_t k = 0;
    double p = uniform01(rng);
    while (p > limit) {
      ++k;
      p *= uniform01(rng);
    }
    return k;
  }
  // PTRS, transformed rejection with squeeze (Hoermann 1993).
  const double slam = std::sqrt(mean);
  const double loglam = std::log(mean);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = uniform01(rng) - 0.5;
    const double v = uniform01(rng);
    const double us = 0.5 - std::fabs(u);
    const double kd = std::floor((2.0 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<std::uint64_t>(kd);
    if (kd < 0.0 || (us < 0.013 && v > us)) continue;
    const double lhs = std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b);
    const double rhs = -mean + kd * loglam - std::lgamma(kd + 1.0);
    if (lhs <= rhs) return static_cast<std::uint64_t>(kd);
  }
}

AliasTable::AliasTable(const std::vector<double>& weights) {
  const int n = static_cast<int>(weights.size());
  m_prob.assign(n, 0.0);
  m_alias.assign(n, 0);
  double total = 0.0;
  for (double w : weights) total += w;
  std::vector<double> scaled(n);
  std::vector<int> small, large;
  for (int i = 0; i < n; ++i) {
    scaled[i] = weights[i] * n / total;
    (scaled[i] < 1.0 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    const int s = small.back();
    small.pop_back();
    const int l = large.back();
    m_prob[s] = scaled[s];
    m_alias[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  for (int i : large) m_prob[i] = 1.0;
  for (int i : small) m_prob[i] = 1.0;
}

int AliasTable::sample(RandomSource& rng) const {
  const std::uint64_t x = rng.nextU64();
  const int column = static_cast<int>((x >> 32) % static_cast<std::uint64_t>(m_prob.size()));
  const double u = static_cast<double>(x & 0xFFFFFFFFULL) * 0x1.0p-32;
  return u < m_prob[column] ? column : m_alias[column];
}

}  // namespace dplda
