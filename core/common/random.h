#pragma once
// Random sources and portable distributions.
//
// Two injectable sources (DESIGN.md): SeededRandom (std::mt19937_64, whose output is fixed by
// the C++ standard) for the algorithm's own randomness and the synthetic generator, and
// SecureRandom (the kernel's CSPRNG via getrandom) for privacy noise. The distributions are
// our own code, not std::*_distribution, so a seed gives bit-identical draws on every
// standard library.
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace dplda {

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  virtual std::uint64_t nextU64() = 0;
  virtual bool isSecure() const = 0;
  // e.g. "secure (getrandom)" or "seeded (mt19937_64, seed 7)"; goes into every output.
  virtual std::string description() const = 0;
};

class SeededRandom final : public RandomSource {
 public:
  explicit SeededRandom(std::uint64_t seed) : m_seed(seed), m_engine(seed) {}
  std::uint64_t nextU64() override { return m_engine(); }
  bool isSecure() const override { return false; }
  std::string description() const override;
  std::uint64_t seed() const { return m_seed; }

 private:
  std::uint64_t m_seed;
  std::mt19937_64 m_engine;
};

class SecureRandom final : public RandomSource {
 public:
  std::uint64_t nextU64() override;
  bool isSecure() const override { return true; }
  std::string description() const override { return "secure (kernel CSPRNG, getrandom)"; }

 private:
  void refill();
  std::uint64_t m_buffer[64] = {};
  int m_next = 64;
};

// Derives independent child seeds (data, noise, initialisation, trial t) from one seed,
// so that comparisons can use common random numbers (splitmix64 mixing).
std::uint64_t deriveSeed(std::uint64_t seed, std::uint64_t stream);

// ---- distributions (all portable) ----
double uniform01(RandomSource& rng);      // in (0, 1), 53 random bits
double uniformOpenClosed(RandomSource& rng);  // in (0, 1]
std::uint64_t uniformIndex(RandomSource& rng, std::uint64_t n);  // in [0, n), unbiased
double standardNormal(RandomSource& rng);  // Box-Muller, no cached state
// standardNormal's value for its two draws (the first gives u1): lets a caller draw the bits in
// order and transform them elsewhere (e.g. on several threads) with the same result.
double standardNormalFromBits(std::uint64_t first, std::uint64_t second);
// Box–Muller's two normals from the same two words: (r cos θ, r sin θ), r = √(−2 ln u1), θ = 2π u2
// (the first is standardNormalFromBits'): independent N(0, 1) for exact uniforms, each |Z| <= 8.5717.
std::pair<double, double> standardNormalPairFromBits(std::uint64_t first, std::uint64_t second);
double exponential(RandomSource& rng);     // rate 1
double laplace(RandomSource& rng, double scale);
double gammaSample(RandomSource& rng, double shape);  // Marsaglia-Tsang, scale 1
std::vector<double> dirichlet(RandomSource& rng, const std::vector<double>& concentration);
std::uint64_t poisson(RandomSource& rng, double mean);

// Walker alias table: O(1) draws from a fixed categorical distribution.
class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& weights);
  int sample(RandomSource& rng) const;
  int size() const { return static_cast<int>(m_prob.size()); }

 private:
  std::vector<double> m_prob;
  std::vector<int> m_alias;
};

}  // namespace dplda
