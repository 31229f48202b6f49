#pragma once
// Noise tolerance of the robust tensor power method (seed 004, Appendix A, Figure 1).
//
// T = v1⊗v1⊗v1 + 0.75 v2⊗v2⊗v2 + 0.5 v3⊗v3⊗v3 with v_i = e_i in R^d, plus a noise tensor E
// rescaled so that ‖E‖op = σ. Three noise models:
//   gaussian            E_ijl i.i.d. N(0, 1), then super-symmetrised (the average over the six
//                       index permutations). Drawn directly on the unique entries with the
//                       variances that averaging gives (1/6 distinct indices, 1/3 two equal,
//                       1 all equal): the same law with d³/6 draws.
//   adversarial         E = Σ_i v2⊗e_i⊗e_i + e_i⊗v2⊗e_i + e_i⊗e_i⊗v2 (‖E‖op = 3 at v2).
//   weakly-correlated   E = Σ_{i>=4} v_i⊗v_i⊗v_i for an orthonormal basis {v_4..v_d} of the
//                       complement of span{v1, v2, v3}. We take v_i = e_i: the power method with
//                       Gaussian starts is rotation-equivariant on that complement, so any basis
//                       gives the same failure probability.
// A trial succeeds when the recovered vectors match the true ones with v̂ᵀv ≥ 1/4 for all
// three (under the best matching: the theorem's "there exists a permutation"). ‖E‖op is the
// symmetric tensor spectral norm max_{‖u‖=1} |E(u,u,u)|, computed by a shifted symmetric
// higher-order power method with restarts (Kolda & Mayo 2011, with an adaptive shift).
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/random.h"
#include "core/common/status.h"
#include "core/tensor/decomposer.h"
#include "core/tensor/tensor3.h"

namespace dplda {

enum class TpmNoiseModel { Gaussian, Adversarial, WeaklyCorrelated };
const char* tpmNoiseModelName(TpmNoiseModel m);   // "gaussian", "adversarial", "weakly-correlated"
const char* tpmNoiseModelTitle(TpmNoiseModel m);  // "random Gaussian noise", ...
Result<TpmNoiseModel> parseTpmNoiseModel(const std::string& text);

// The x axes of Figure 1: the noise level σ = ‖E‖op scaled by a function of d.
enum class NoiseScaling { Sigma, SigmaSqrtD, SigmaD, SigmaLnD };
inline constexpr NoiseScaling kNoiseScalings[] = {NoiseScaling::Sigma, NoiseScaling::SigmaSqrtD, NoiseScaling::SigmaD,
                                                  NoiseScaling::SigmaLnD};
const char* noiseScalingKey(NoiseScaling s);    // "sigma", "sigma_sqrt_d", "sigma_d", "sigma_ln_d"
const char* noiseScalingLabel(NoiseScaling s);  // "σ", "σ√d", "σd", "σ ln d" (UTF-8)
double scaleNoiseLevel(double sigma, int d, NoiseScaling s);

// ---- the symmetric tensor operator norm ----
struct OperatorNormOptions {
  int restarts = 10;          // random starts, iterated together for the first phase
  int keep = 2;               // starts continued to convergence after the first phase
  int firstPhase = 30;        // iterations of the first phase
  int maxIterations = 2000;   // total per start
  double tolerance = 1e-10;   // stop when the value changes by less than tolerance × value
};
struct OperatorNormResult {
  double value = 0.0;   // max over starts of E(u,u,u) at the ascent's end point
  Eigen::VectorXd u;    // the maximiser found (unit norm)
  int iterations = 0;   // the best start's iterations
  bool converged = false;
};
// Maximises E(u,u,u) over the unit sphere from `restarts` random starts by the iteration
// u ← normalise(E(I,u,u) + α u). A step that would decrease E(u,u,u) is refused and the shift α
// raised (α ← max(2α, ‖E(I,u,u)‖): a shorter, safer step); after an accepted step α is halved
// (to 0 once small), so the ascent takes the plain power step whenever that ascends. The values
// never decrease, so every start ends at a local maximum.
// The result is a lower bound on ‖E‖op that equals it when some start reaches the global maximum.
Result<OperatorNormResult> tensorOperatorNorm(const Tensor3& E, RandomSource& rng,
                                              const OperatorNormOptions& options = {});

// ---- the experiment's tensors ----
Tensor3 tpmSignalTensor(int d);  // e1⊗e1⊗e1 + 0.75 e2⊗e2⊗e2 + 0.5 e3⊗e3⊗e3 (d >= 3)
inline const double kTpmSignalWeights[3] = {1.0, 0.75, 0.5};
// The raw (unscaled) noise tensor; rng is used by the Gaussian model only.
Tensor3 tpmNoiseTensor(TpmNoiseModel model, int d, RandomSource& rng);

// Algorithm 1 of seed 004 (the robust tensor power method), stopped after `components`
// deflations: the same steps, in the same order, with the same random draws as
// RobustPowerMethod, which always extracts T.dim() components (too many for a d x d x d tensor
// with a rank-3 signal). With options.restarts = 0, L = max(10, 2⌈r ln r⌉) for r = components.
// Returns the components sorted by λ descending (λ made positive by flipping v); when
// inExtractionOrder is given it receives the same vectors in the order they were found.
Result<TensorEigenpairs> leadingTensorEigenpairs(const Tensor3& T, int components, const PowerMethodOptions& options,
                                                 RandomSource& rng, Eigen::MatrixXd* inExtractionOrder = nullptr,
                                                 Feedback* feedback = nullptr);

// The largest over matchings of min_i v̂_{π(i)}ᵀ v_i for the true columns of `truth` and the
// recovered columns of `recovered` (at least as many as truth; ≤ 8 true columns).
double bestMatchedMinimumOverlap(const Eigen::MatrixXd& truth, const Eigen::MatrixXd& recovered);

// ---- the experiment ----
struct TpmModelLevels {
  TpmNoiseModel model = TpmNoiseModel::Gaussian;
  std::vector<double> sigmas;  // ‖E‖op values, > 0
};

struct TpmNoiseSpec {
  std::vector<TpmModelLevels> models;
  std::vector<int> dims = {25, 50, 100, 200};
  int trials = 4;
  std::uint64_t seed = 1;
  PowerMethodOptions power{0, 100, 1e-8};  // L default (10 for r = 3), R = 100, tolerance
  double successThreshold = 0.25;
  OperatorNormOptions operatorNorm;
  int threads = 0;  // 0: all cores
  int maxDim = 300;  // d^3 doubles per tensor: 300 -> 216 MB
};
// The default levels: log-spaced ranges around each model's phase transition for d in [25, 200].
std::vector<TpmModelLevels> defaultTpmLevels(int count);
Status validateTpmNoiseSpec(const TpmNoiseSpec& spec);

struct TpmNoiseRow {
  int modelIndex = 0, dimIndex = 0, levelIndex = 0, trial = 0;
  int d = 0;
  double sigma = 0.0;
  double rawOperatorNorm = 0.0;  // ‖E‖op of the raw noise before rescaling
  bool operatorNormConverged = true;
  bool success = false;
  double minOverlap = 0.0;       // bestMatchedMinimumOverlap
  int iterations = 0;            // power steps of the decomposition
  double elapsedMs = 0.0;
};

struct TpmNoisePoint {
  int modelIndex = 0, dimIndex = 0, levelIndex = 0;
  int d = 0;
  double sigma = 0.0;
  int trials = 0;
  int failures = 0;
  double failureProbability = 0.0;
};

struct TpmNoiseResult {
  TpmNoiseSpec spec;
  std::vector<TpmNoiseRow> rows;      // ordered model, d, level, trial
  std::vector<TpmNoisePoint> points;  // ordered model, d, level
  int threadsUsed = 1;
  double elapsedMs = 0.0;
  const TpmNoisePoint& point(int model, int dim, int level) const;
};

// Seeds: the Gaussian noise of (d, trial) and the power method's starts of (d, trial) are each
// derived from spec.seed and shared by every noise level (and the starts by every model), so
// the curves use common random numbers and the result does not depend on the thread count.
Result<TpmNoiseResult> runTpmNoise(const TpmNoiseSpec& spec, Feedback* feedback = nullptr);

std::string tpmNoiseResultsCsv(const TpmNoiseResult& result);  // one row per trial
std::string tpmNoiseSummaryCsv(const TpmNoiseResult& result);  // one row per point, all four scalings

}  // namespace dplda
