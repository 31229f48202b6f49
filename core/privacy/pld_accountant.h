#pragma once
// The privacy-loss-distribution (PLD) accountant (docs/PRIVACY.md §16; Koskela, Jälkö & Honkela
// 2020; Google's dp_accounting "privacy loss bucketing"). A mechanism's PLD is the law of the
// privacy loss L = ln(p(x)/q(x)), x ~ P, for a dominating pair (P, Q) of output distributions on
// neighbouring inputs; δ(ε) = P[L = ∞] + E[(1 − e^{ε−L})₊], and the PLD of an adaptive
// composition is the convolution of the PLDs.
//
// Here a PLD lives on the grid of losses i·h (h the interval) and is PESSIMISTIC: every loss is
// rounded UP to the grid, the lower tail is moved up to the grid's first point, the upper tail
// beyond the grid (or beyond ±kPldLossCap) counts as infinite loss, and the rounding of the
// convolution is bounded and added to the infinite mass. So δ(ε) computed here is never below the
// true δ(ε) of the mechanisms, and ε(δ) never below the true ε.
//
// The symmetric mechanisms (Laplace, Gaussian: the PLD of (P, Q) equals that of (Q, P)) cover
// both directions of the neighbour relation (replace one document, docs/PRIVACY.md) with one
// distribution. The Poisson-subsampled Gaussian is not symmetric: it is offered per direction,
// against the "no contribution" distribution, and core/privacy/sampled_gaussian.h chains the two
// into a replace-one account (§16.5).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace dplda {

inline constexpr double kPldInterval = 1e-4;         // default grid spacing of losses (nats)
inline constexpr long long kPldMaxPoints = 1 << 21;  // most grid points one distribution may hold
// Losses beyond ±kPldLossCap nats count as infinite (above) or are raised to −cap (below): a
// release that spends more than this is not private in any useful sense, and the cap keeps
// e^{±L} finite.
inline constexpr double kPldLossCap = 500.0;
// The Gaussian's discretisation stops 8 standard deviations above the mean loss; the mass beyond,
// Φ̄(8) = 6.2e-16, counts as infinite loss. Tails of this size are also trimmed after a composition.
inline constexpr double kPldTailMass = 1e-15;

class PrivacyLossDistribution {
 public:
  // No release: loss 0 with probability 1.
  explicit PrivacyLossDistribution(double interval = kPldInterval);

  // The Gaussian mechanism, noise σ, l2 sensitivity Δ: L ~ N(μ²/2, μ²), μ = Δ/σ.
  // InvalidArgument naming the value for σ or Δ not finite or ≤ 0, or a bad interval.
  static Result<PrivacyLossDistribution> gaussian(double sigma, double sensitivity, double interval = kPldInterval);
  // The Laplace mechanism, scale b, l1 sensitivity Δ1 (a = Δ1/b): atoms ½ at a and ½e^{−a} at −a,
  // density ¼e^{−(a−t)/2} on (−a, a).
  static Result<PrivacyLossDistribution> laplace(double scale, double sensitivity, double interval = kPldInterval);
  // Any pure ε-DP mechanism, by the randomized-response pair that dominates every one (Kairouz, Oh &
  // Viswanath 2015): atoms e^ε/(1 + e^ε) at ε and 1/(1 + e^ε) at −ε. For Laplace releases of several
  // values (an l1 sensitivity shared among coordinates), where the one-dimensional pair is not shown here.
  static Result<PrivacyLossDistribution> pureDp(double epsilon, double interval = kPldInterval);

  // The Poisson-subsampled Gaussian (rate q, noise σ, contribution norm ≤ Δ) against the same
  // release with the contribution absent: Remove is (P, Q) = ((1 − q)N(0, σ²) + qN(Δ, σ²), N(0, σ²)),
  // Add is (Q, P). With z = x/σ, μ = Δ/σ: L_remove(z) = log1p(q·expm1(μz − μ²/2)), increasing.
  enum class SampledDirection { Remove, Add };
  static Result<PrivacyLossDistribution> poissonSampledGaussian(double sigma, double sensitivity, double rate,
                                                                SampledDirection direction,
                                                                double interval = kPldInterval);

  // The adaptive composition of the two mechanisms (same interval): the convolution, exact for
  // small grids, by FFT with its rounding bound added to the infinite mass for large ones.
  Result<PrivacyLossDistribution> compose(const PrivacyLossDistribution& other) const;
  // `times` ≥ 0 compositions with itself (binary powering; 0 gives the identity).
  Result<PrivacyLossDistribution> selfCompose(long long times) const;

  // δ(ε) = P[L = ∞] + Σ p_i (1 − e^{ε − l_i})₊ for ε ≥ 0; NaN for NaN.
  double deltaForEpsilon(double epsilon) const;
  // The smallest ε ≥ 0 with deltaForEpsilon(ε) ≤ δ; +∞ when the infinite mass alone is ≥ δ.
  double epsilonForDelta(double delta) const;

  double interval() const { return m_interval; }
  double infinityMass() const { return m_infinity; }
  double minLoss() const { return static_cast<double>(m_first) * m_interval; }
  double maxLoss() const { return static_cast<double>(m_first + static_cast<long long>(m_mass.size()) - 1) * m_interval; }
  std::size_t size() const { return m_mass.size(); }
  double finiteMass() const;

 private:
  PrivacyLossDistribution(double interval, long long first, std::vector<double> mass, double infinity);
  // Moves tails of total mass ≤ kPldTailMass and losses beyond ±kPldLossCap: the upper ones to
  // the infinite mass, the lower ones up to the new first point (both pessimistic).
  void trim();

  double m_interval;
  long long m_first = 0;       // the loss of m_mass[i] is (m_first + i)·m_interval
  std::vector<double> m_mass;  // probabilities of the finite losses
  double m_infinity = 0.0;     // P[L = ∞]
};

Status validatePldInterval(double interval);

// The smallest ε >= lowerBound found with deltaAt(ε) <= delta: steps up from lowerBound until it
// holds, then bisects to 1e-12 relative, returning a point where it holds (+∞ if none within
// lowerBound + 1000). Sound whether or not deltaAt is monotone (only the returned point is used).
double smallestEpsilonWithin(const std::function<double(double)>& deltaAt, double lowerBound, double delta);

// ---- a run's composition (docs/PRIVACY.md §16.4) ----
// What a run releases, as the PLD accountant composes it: the Gaussian releases (each by its
// μ = Δ/σ; a row of K equal queries by √K·Δ/σ), the scalar Laplace releases (a = Δ1/b), other
// pure-DP releases (by their ε), and the δ that is added rather than composed.
struct ComposedReleases {
  std::vector<double> gaussianMu;
  std::vector<double> laplaceRatio;  // scalar Laplace releases (Procedure 1's lower bounds)
  std::vector<double> pureEpsilon;   // other pure-DP releases (Laplace noise on several values)
  double fixedDelta = 0.0;  // added as is (Procedure 1's failure probabilities)
  // added as (1 + e^ε)·this at the composed ε: the samplers' truncated tails (draws·2^-53, 2^-52 for
  // Laplace) and the vocabulary threshold's event (δ_v / (2(1 + e^{ε_v}))).
  double perExpEpsilonDelta = 0.0;
};

struct PldAccount {
  double epsilon = 0.0;       // the smallest ε found with δ_PLD(ε) + added δ ≤ δ (+∞ when none)
  double delta = 0.0;         // the target δ
  double pldDelta = 0.0;      // δ_PLD(ε) of the composed distribution at that ε
  double interval = 0.0;      // the grid used
  double gaussianMu = 0.0;    // √Σμ², the Gaussian releases merged (exact: Gaussian pairs compose to one)
  std::size_t points = 0;     // grid points of the composed distribution
};
// The Gaussian releases merge into one Gaussian (exactly); it and the Laplace releases are
// discretised on one grid, h = max(kPldInterval, span/2^14), and convolved. InvalidArgument for a
// μ or a not finite or ≤ 0 (μ = +∞, no noise, gives ε = +∞ instead), or δ outside (0, 1).
Result<PldAccount> accountWithPld(const ComposedReleases& releases, double delta);

}  // namespace dplda
