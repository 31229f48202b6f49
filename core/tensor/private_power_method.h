#pragma once
// Seed 004, Algorithm 3 (SPEC §14): the differentially private robust tensor power method. For
// each of r components, L starts run R noisy power steps ū = (T − D)(I, u, u) + σ_v(u)·z and
// one noisy value λ̃ = (T − D)(u, u, u) + σ_s(u)·z; the best start is deflated into D. That is
// K = r L (R + 1) Gaussian queries (r L R vector queries, r L scalar ones), each with noise
// σ_q = m·Δ_q for the query's l2 sensitivity Δ_q, and the whole run is accounted three ways:
//   gaussian  exact composition (Gaussian DP): one μ-GDP mechanism, μ = √K/m (the default,
//             calibrated to spend exactly the requested (ε, δ));
//   advanced  the printed proof made to hold: classic Gaussian per query, advanced composition;
//   printed   the noise ν exactly as printed (for reproduction; its own proof yields ≈ 1.29ε).
// Every result states what its noise spends under each. Proofs: docs/TENSOR_METHODS.md §2.
#include <Eigen/Dense>
#include <functional>
#include <string>

#include "core/common/feedback.h"
#include "core/common/random.h"
#include "core/common/status.h"
#include "core/tensor/decomposer.h"
#include "core/tensor/tensor3.h"

namespace dplda {

// The l2 sensitivity of one query for a unit u: how far it moves between neighbouring inputs.
struct TpmSensitivity {
  enum class Kind {
    // Seed 004, Definition 4.2: T′ − T = ±sym(e_i⊗e_j⊗e_l) (the sum over the six orders), so
    // Δ = value·‖u‖∞² for T(I,u,u) and value·‖u‖∞³ for T(u,u,u), value = 6.
    EntryLevel,
    // One bound Δ = value for both queries, e.g. ‖T − T′‖_F ≤ Δ_T for the document relation
    // (‖(T−T′)(I,u,u)‖₂ and |(T−T′)(u,u,u)| are both ≤ ‖T − T′‖_F for unit u; SPEC §14).
    Fixed,
  };
  Kind kind = Kind::Fixed;
  double value = 1.0;
  static TpmSensitivity entryLevel() { return {Kind::EntryLevel, 6.0}; }
  static TpmSensitivity fixed(double delta) { return {Kind::Fixed, delta}; }
  double vectorQuery(const Eigen::VectorXd& u) const;
  double scalarQuery(const Eigen::VectorXd& u) const;
  std::string describe() const;  // the neighbour relation and the formulas, for ledgers
};

enum class TpmAccountant { GaussianExact, AdvancedComposition, Printed };
const char* tpmAccountantName(TpmAccountant a);  // "gaussian", "advanced", "printed"
Result<TpmAccountant> parseTpmAccountant(const std::string& text);  // those names ("gdp" = gaussian), any case

struct TpmQueryCount {
  long long vector = 0;  // r L R noisy T(I, u, u)
  long long scalar = 0;  // r L noisy T(u, u, u)
  double draws = 0.0;    // noise values drawn: r L (R dim + 1)
  long long total() const { return vector + scalar; }  // K = r L (R + 1)
};
TpmQueryCount tpmQueryCount(int components, int restarts, int iterations, int dim);

// The ε that K Gaussian queries with noise multiplier m (σ_q = m Δ_q each) spend at δ, three ways.
// All assume exact Gaussian noise (the samplers' tails are added separately, TpmCalibration).
struct TpmPrivacyAccount {
  long long queries = 0;
  double multiplier = 0.0;
  double delta = 0.0;
  // Exact composition: μ = √K/m; epsilonGaussian is the smallest ε with δ_μ(ε) ≤ δ (SPEC §8's
  // analytic formula with Δ/σ = μ).
  double mu = 0.0, epsilonGaussian = 0.0;
  // The printed proof: each query (ε′, δ′)-DP by the classic Gaussian bound, δ′ = δ/(2K),
  // ε′ = √(2 ln(1.25/δ′))/m; advanced composition with δ̃ = δ/2:
  // ε = ε′√(2K ln(2/δ)) + K ε′(e^ε′ − 1). NaN when ε′ ≥ 1 (the classic bound is unproven there).
  double perQueryEpsilon = 0.0, perQueryDelta = 0.0, epsilonAdvanced = 0.0;
  // zCDP (Bun & Steinke): ρ = K/(2m²), ε = ρ + 2√(ρ ln(1/δ)): the same composition, a looser conversion.
  double rho = 0.0, epsilonZcdp = 0.0;
  // The guarantee the noise carries: the smaller of the two proven ε (gaussian, advanced).
  double epsilonProven() const;
};
TpmPrivacyAccount accountTpmQueries(long long queries, double multiplier, double delta);

// μ-GDP to (ε, δ): the smallest ε with δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) ≤ δ (upper
// end of a bisection to relative 1e-12). 0 when δ_μ(0) ≤ δ, +∞ for μ = +∞.
double gaussianDpEpsilon(double mu, double delta);

// The seed's printed multiplier ν/6 = √(2 ln(1.25/δ′))/ε′, δ′ = δ/(2K), ε′ = ε/√(K(4 + ln(2/δ))).
double printedTpmMultiplier(long long queries, double epsilon, double delta);

struct TpmCalibration {
  TpmAccountant accountant = TpmAccountant::GaussianExact;
  double epsilon = 0.0, delta = 0.0;  // requested total
  double multiplier = 0.0;            // m: σ_q = m Δ_q for every query (ν = 6m, entry level)
  // The noise samplers' truncated tails add (1 + e^ε) draws 2^-53 to δ (docs/PRIVACY.md §7.2);
  // gaussian and advanced calibrate for δ − samplerDelta (printed keeps its ν), and every account
  // is computed at δ − samplerDelta. samplerLimited: ε is above gaussianSamplerEpsilonLimit, the
  // reserve would exceed δ/2, and (ε, δ) holds for exact Gaussian noise only.
  double samplerDelta = 0.0;
  bool samplerLimited = false;
  TpmPrivacyAccount account;
  std::string note;
};
// InvalidArgument naming the value for ε <= 0, δ outside (0, 1), no queries; "advanced" refuses
// when the per-query ε′ it needs is >= 1 (the classic Gaussian bound's range).
Result<TpmCalibration> calibrateTpm(TpmAccountant accountant, double epsilon, double delta,
                                    const TpmQueryCount& queries);

// One noisy query as drawn, for tests and teaching.
struct TpmQuery {
  bool scalar = false;  // T(u, u, u) (true) or T(I, u, u)
  int component = 0, start = 0, step = 0;  // step R for the scalar query
  double infNorm = 0.0;      // ‖u‖∞
  double sensitivity = 0.0;  // Δ_q
  double sigma = 0.0;        // m Δ_q
  Eigen::VectorXd noise;     // the noise added (dim values, or 1)
};
using TpmQueryObserver = std::function<void(const TpmQuery&)>;

struct PrivatePowerOptions {
  int components = 0;   // r, 0 = all (the tensor's dimension)
  int restarts = 0;     // L, 0 = max(10, 2⌈r ln r⌉) (as the robust method)
  int iterations = 30;  // R, fixed (Algorithm 3 has no early stop)
};
Status validatePrivatePowerOptions(const PrivatePowerOptions& options, int dim);

struct NoisyPowerResult {
  TensorEigenpairs pairs;  // λ made positive (v flipped), sorted descending
  TpmQueryCount queries;
  int components = 0, restarts = 0, iterations = 0;
};
// Algorithm 3 with a given multiplier m >= 0 (m = 0: no noise, then it is Algorithm 1 without
// early stop or polish). Starts come from `init`, noise from `noise` (one standard normal per
// coordinate, in query order). The observer, if set, sees every query.
Result<NoisyPowerResult> noisyRobustPowerMethod(const SymmetricTensorOperator& T, const PrivatePowerOptions& options,
                                                double multiplier, const TpmSensitivity& sensitivity,
                                                RandomSource& init, RandomSource& noise,
                                                const TpmQueryObserver& observer = {}, Feedback* feedback = nullptr);

// Everything a ledger needs about one private decomposition.
struct TpmLedgerEntry {
  std::string mechanism;    // "private robust tensor power method (seed 004, Algorithm 3)"
  std::string accountant;   // tpmAccountantName
  std::string sensitivity;  // TpmSensitivity::describe()
  std::string note;         // TpmCalibration::note
  int components = 0, restarts = 0, iterations = 0;
  long long queries = 0, vectorQueries = 0, scalarQueries = 0;
  double noiseDraws = 0.0;
  double noiseMultiplier = 0.0;  // m
  // Fixed Δ: the noise σ of every T(I,u,u) and T(u,u,u) query (m Δ). Entry level: ν = m·6, the
  // noise is ν‖u‖∞² and ν‖u‖∞³.
  double sigmaVectorQuery = 0.0, sigmaScalarQuery = 0.0;
  double epsilonRequested = 0.0, deltaRequested = 0.0;
  TpmPrivacyAccount account;  // at δ − samplerDelta (δ when samplerLimited)
  double samplerDelta = 0.0;
  bool samplerLimited = false;
  double epsilonSpent = 0.0, deltaSpent = 0.0;  // account.epsilonProven(), account.delta + samplerDelta
  bool withinRequest = false;                   // epsilonSpent <= ε and deltaSpent <= δ (to rounding)
  std::string noiseSource;                      // the noise RandomSource's description
  std::string startsSource;                     // the starts' RandomSource's description
};

struct PrivateDecomposition {
  TensorEigenpairs pairs;
  TpmLedgerEntry ledger;
};

// Algorithm 3 calibrated for a total (ε, δ) by `accountant`.
Result<PrivateDecomposition> privateRobustPowerMethod(const SymmetricTensorOperator& T,
                                                      const TpmSensitivity& sensitivity, double epsilon,
                                                      double delta, TpmAccountant accountant,
                                                      const PrivatePowerOptions& options, RandomSource& init,
                                                      RandomSource& noise, Feedback* feedback = nullptr);

// The DP-LDA graph's edge e6 (T → TD), released by Algorithm 3 run on T̂ (k x k x k, symmetric)
// for a per-query l2 sensitivity Δ (the same bound for T(I,u,u) and T(u,u,u); for the document
// relation Δ = Δ_T of SPEC §9 evaluated with Procedure 1's σ̃_k). All k components, L starts
// (0 = default), R steps. The caller charges ledger.epsilonRequested / deltaRequested and
// canonicalises the released eigenvectors' signs. Δ_T bounds T̂ only up to a sign frame
// (docs/PRIVACY.md §3), so the starts are part of the mechanism's randomness: draw them fresh
// (pass the noise source as `init` too) and do not release them (docs/TENSOR_METHODS.md §2.5).
Result<PrivateDecomposition> releasePrivateDecomposition(const Tensor3& T, double sensitivity, double epsilon,
                                                         double delta, TpmAccountant accountant, int restarts,
                                                         int iterations, RandomSource& init, RandomSource& noise,
                                                         Feedback* feedback = nullptr);

}  // namespace dplda
