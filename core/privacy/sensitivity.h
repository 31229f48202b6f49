#pragma once
// Sensitivities of every releasable node (SPEC §9) in two bound sets, with their
// preconditions, and Procedure 1's private lower bounds (SPEC §10).
//
// All bounds are l1 bounds under the replace-one-document neighbour relation; they also bound
// the l2 / Frobenius sensitivity. Local bounds take the PRIVATE lower bounds σ̃_k, γ̃_s (never
// the raw σ_k, γ_s) and public upper bounds for σ_1(M̂2) and σ_1(T̂).
#include <string>
#include <vector>

#include "core/common/random.h"
#include "core/common/status.h"
#include "core/graph/computation_graph.h"
#include "core/moments/moments.h"

namespace dplda {

enum class BoundSet {
  Sound,    // default: corrected Δ3, Lemma 9 with Δ2, joint (ℓ2 over components) TD/U bounds
  Printed,  // the papers' formulas, to reproduce their figures (labelled as such)
};
const char* boundSetName(BoundSet b);  // "sound" | "printed"
Result<BoundSet> parseBoundSet(const std::string& text);

struct Precondition {
  std::string name;    // e.g. "sigma_k_tilde > Delta2"
  bool holds = false;
  std::string detail;  // the numbers, e.g. "0.0021 > 6e-05"
};

// The public and privately released quantities a bound may use.
struct SensitivityInputs {
  int docCount = 0;           // N (public)
  int topicCount = 0;         // k (public)
  double alpha0 = 1.0;        // public
  double sigmaKTilde = 0.0;   // Procedure 1 lower bound on σ_k(M̂2)
  double gammaSTilde = 0.0;   // Procedure 1 lower bound on γ_s(T̂)
  double gapTilde = 0.0;      // Procedure 1 lower bound on g = min_{i<=k} (σ_i − σ_{i+1}) of M̂2 (sound set)
  double maxLength = 0.0;     // public clipping length L_max (input perturbation)
  // Public per-document bounds of the clipped estimators (docs/PRIVACY.md §12): when enabled, Δ2,
  // Δ3, m3 and the bound on σ_1(M̂2) below are Lemma C4's, in every bound of the sound set.
  MomentClip clip;
};

struct SensitivityBound {
  Node node = Node::D;
  double value = 0.0;          // the sensitivity; meaningful only when usable
  bool usable = false;         // every precondition needed to evaluate it holds
  bool local = false;          // depends on σ̃_k / γ̃_s
  bool heuristic = false;      // e.g. the sound γ_s bound, established only near orthogonal decomposability
  std::string formula;         // human-readable formula with the source, e.g. "Δ2 = (2 + 4a)/N (seed 000 G.1)"
  std::vector<Precondition> preconditions;
  std::string note;
};

// Global bounds. These return NaN when N < 3 or alpha0 is not a finite number > 0 (and
// whitenedTensorSensitivity also when k < 1); sensitivityOf reports the same as failing preconditions.
double secondMomentSensitivity(int N, double alpha0);                  // Δ2 = (2 + 4a)/N
double thirdMomentSensitivity(int N, double alpha0, BoundSet bounds);  // Δ3 (sound or printed)
double m3Constant(int N, double alpha0);                              // m3 of SPEC §9
// The moment bounds a run uses: SPEC §9's (sound Δ3) without clipping, Lemma C4's with it
// (docs/PRIVACY.md §12). NaN for an invalid shape.
double delta2Of(const SensitivityInputs& in);
double delta3Of(const SensitivityInputs& in, BoundSet bounds);
double m3Of(const SensitivityInputs& in);
// The public bound on σ_1(M̂2): ‖M̂2‖_1 <= 1 + a (SPEC §9); clipped, also ‖M̂2ᶜ‖_F <= C2′ + aC1′² (Lemma C4).
double sigma1M2Bound(const SensitivityInputs& in);
// Δ_T(σ̃_k) (printed: seed 000 eq. 113) or Δ_T(σ̃_k, g̃) (sound: docs/PRIVACY.md §3, sign-aligned);
// NaN when its preconditions fail (σ̃_k <= Δ2, or g̃ <= 2Δ2 for the sound set).
double whitenedTensorSensitivity(const SensitivityInputs& in, BoundSet bounds);
// Sound, sign-aligned bounds on the whitening and unwhitening matrices (docs/PRIVACY.md §3);
// NaN unless σ̃_k > Δ2 and g̃ > 2Δ2.
double whiteningSensitivity(const SensitivityInputs& in);
double unwhiteningSensitivity(const SensitivityInputs& in);

// The three forms of a local bound side by side, for the inspector and reports: the printed
// formula, issue 9's sound form (√k × the column bound) and the current sound form. Empty for
// nodes whose bound has one form; NaN where a form's preconditions fail.
struct BoundComparison {
  std::string label;
  double value = 0.0;
};
std::vector<BoundComparison> boundComparisons(Node node, const SensitivityInputs& in);

// The bound for releasing `node` (D, M2, M3, W, T, W+, TD, U). OUT has none.
SensitivityBound sensitivityOf(Node node, const SensitivityInputs& in, BoundSet bounds);

// Sensitivities of the two Procedure-1 statistics (their `node` is the node the statistic is
// computed from: M2 for σ_k, T for γ_s).
SensitivityBound sigmaKSensitivity(const SensitivityInputs& in, BoundSet bounds);  // Δ2 (sound) | 2/N (printed)
SensitivityBound gammaSSensitivity(const SensitivityInputs& in, BoundSet bounds);  // Δ_T(σ̃_k)/2 heuristic | 2/N
// The eigengap g = min_{i<=k} (σ_i − σ_{i+1}) of M̂2 (σ_{k+1} := −∞ when d = k): 2Δ2 by Weyl
// (every eigenvalue moves by at most ‖E‖₂ <= Δ2). Released only with the sound bounds.
SensitivityBound eigengapSensitivity(const SensitivityInputs& in);
// Whether a release of `node` needs the private eigengap g̃ (the sound set's sign-aligned
// whitening bounds do; the printed set follows the papers and has none).
bool needsEigengap(Node node, BoundSet bounds);

// Procedure 1, one statistic: released = value + Lap(Δ/ε); lower = max(0, released − (Δ/ε) ln(1/(2δ))).
// P(lower > value) <= δ.
struct PrivateLowerBound {
  double released = 0.0;  // the noisy value (itself private)
  double lower = 0.0;     // the private lower bound
  double laplaceScale = 0.0;
};
Result<PrivateLowerBound> privateLowerBound(double value, double sensitivity, double epsilon, double delta,
                                            RandomSource& rng);

}  // namespace dplda
