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
// three. The paper compares the i-th recovered vector with v_i ("v̂_iᵀv_i ≥ 1/4"), i.e. in the
// order Algorithm 1 extracts them (the default, which is what makes adversarial noise fail:
// it pulls every start to v2 first); the theorem allows any matching, which is offered as
// the alternative criterion. ‖E‖op is the
// symmetric tensor spectral norm max_{‖u‖=1} |E(u,u,u)|, computed by a shifted symmetric
// higher-order power method with restarts (Kolda & Mayo 2011, with an adaptive shift).
#include <Eigen/Dense>
#include <cstdint>
#include <functional>
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
inline constexpr NoiseScaling kNoiseScalings[] = {NoiseScaling::Sigma, NoiseScaling::SigmaSqrtD,
                                                  NoiseScaling::SigmaD, NoiseScaling::SigmaLnD};
const char* noiseScalingKey(NoiseScaling s);    // "sigma", "sigma_sqrt_d", "sigma_d", "sigma_ln_d"
const char* noiseScalingLabel(NoiseScaling s);  // "σ", "σ√d", "σd", "σ ln d" (UTF-8)
double scaleNoiseLevel(double sigma, int d, NoiseScaling s);

// ---- symmetric tensors seen through their contractions ----
// Everything the power methods do with a symmetric d x d x d tensor goes through T(I, u, u)
// (SymmetricTensorOperator, DenseTensorOperator: core/tensor/decomposer.h), so the tensor can be
// dense or applied in closed form (the structured noise models need no d³ storage and O(d) work
// per vector).

// The experiment's tensor signalWeight · (e1⊗e1⊗e1 + 0.75 e2⊗e2⊗e2 + 0.5 e3⊗e3⊗e3) + noiseScale · E.
// E is the dense raw noise for the Gaussian model (held by reference) and the closed form for
// the other two: adversarial E(I,u,u) = v2‖u‖² + 2u(v2ᵀu); weakly correlated E(I,u,u)_i = u_i²
// for i >= 4 (0 otherwise). Tests check the closed forms against tpmNoiseTensor.
class TpmTensorOperator final : public SymmetricTensorOperator {
 public:
  TpmTensorOperator(TpmNoiseModel model, int d, double signalWeight, double noiseScale,
                    const Tensor3* gaussianNoise = nullptr);
  int dim() const override { return m_d; }
  Eigen::MatrixXd contractTwice(const Eigen::MatrixXd& U) const override;

 private:
  TpmNoiseModel m_model;
  int m_d;
  double m_signal, m_scale;
  const Tensor3* m_dense;
};

// ---- the symmetric tensor operator norm ----
struct OperatorNormOptions {
  int restarts = 40;         // random starts, iterated together (one GEMM per step) in the first phase
  int keep = 3;              // the best starts after the first phase, continued to convergence
  int firstPhase = 25;       // iterations of the first phase
  int maxIterations = 1000;  // total per start
  double tolerance = 1e-7;   // stop when the value changes by less than tolerance × value (~1e-5 accuracy)
};
struct OperatorNormResult {
  double value = 0.0;  // max over starts of E(u,u,u) at the ascent's end point
  Eigen::VectorXd u;   // the maximiser found (unit norm)
  int iterations = 0;  // the best start's iterations
  bool converged = false;
};
// Maximises E(u,u,u) over the unit sphere from `restarts` random starts by the iteration
// u ← normalise(E(I,u,u) + α u). A step that would decrease E(u,u,u) is refused and the shift α
// raised (α ← max(2α, ‖E(I,u,u)‖): a shorter, safer step); after an accepted step α is halved
// (to 0 once small), so the ascent takes the plain power step whenever that ascends. The values
// never decrease, so every start ends at a local maximum. Gaussian tensors have many local
// maxima with small basins around the global one: with 10 starts about a third of the runs
// stopped 5-10% low at d = 15-50; with the defaults repeated runs agree to about 0.3%.
// The result is a lower bound on ‖E‖op
// (for a symmetric tensor, max |E(u,u,u)| over unit u) that equals it when some start reaches
// the global maximum.
Result<OperatorNormResult> tensorOperatorNorm(const SymmetricTensorOperator& E, RandomSource& rng,
                                              const OperatorNormOptions& options = {});
Result<OperatorNormResult> tensorOperatorNorm(const Tensor3& E, RandomSource& rng,
                                              const OperatorNormOptions& options = {});

// ---- the experiment's tensors ----
inline const double kTpmSignalWeights[3] = {1.0, 0.75, 0.5};
Tensor3 tpmSignalTensor(int d);  // e1⊗e1⊗e1 + 0.75 e2⊗e2⊗e2 + 0.5 e3⊗e3⊗e3 (d >= 3)
// The raw (unscaled) dense noise tensor; rng is used by the Gaussian model only.
Tensor3 tpmNoiseTensor(TpmNoiseModel model, int d, RandomSource& rng);

// The largest over matchings of min_i v̂_{π(i)}ᵀ v_i for the true columns of `truth` and the
// recovered columns of `recovered` (at least as many as truth; ≤ 8 true columns).
double bestMatchedMinimumOverlap(const Eigen::MatrixXd& truth, const Eigen::MatrixXd& recovered);

// ---- the experiment ----
struct TpmModelLevels {
  TpmNoiseModel model = TpmNoiseModel::Gaussian;
  std::vector<double> sigmas;  // ‖E‖op values, > 0
};

enum class TpmSuccessCriterion {
  ExtractionOrder,  // v̂_i (the i-th component found) against v_i, as in the paper's experiment
  BestMatching,     // the best one-to-one matching, as in Theorem 2.2 ("there exists a permutation")
};
const char* tpmSuccessCriterionName(TpmSuccessCriterion c);  // "extraction-order" | "best-matching"

struct TpmNoiseSpec {
  std::vector<TpmModelLevels> models;
  std::vector<int> dims = {25, 50, 100, 200};
  int trials = 4;
  std::uint64_t seed = 1;
  PowerMethodOptions power{0, 30, 1e-8};  // L default (10 for r = 3), R = 30, tolerance
  double successThreshold = 0.25;
  TpmSuccessCriterion criterion = TpmSuccessCriterion::ExtractionOrder;
  OperatorNormOptions operatorNorm;
  int threads = 0;   // 0: all cores
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
  bool success = false;  // by the spec's criterion
  // The smallest overlap v̂ᵀv by the criterion over the components found. The extraction stops
  // at the first component that rules success out, so a failed trial may have fewer than 3.
  double overlap = 0.0;
  int componentsFound = 0;
  int iterations = 0;  // power steps of the decomposition
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
  TpmNoisePoint& point(int model, int dim, int level);
};

// The points before any trial has run (ordered model, d, level): trials = 0 and a NaN failure
// probability, so a live plot draws them as gaps until TpmNoiseListener::pointDone fills them.
std::vector<TpmNoisePoint> emptyTpmNoisePoints(const TpmNoiseSpec& spec);

// Observer of a running experiment: pointDone is called once per point when its last trial is
// done (from the worker threads, never two calls at once).
struct TpmNoiseListener {
  std::function<void(const TpmNoisePoint& point)> pointDone;
};

// Seeds: the Gaussian noise of (d, trial) and the power method's starts of (d, trial) are each
// derived from spec.seed and shared by every noise level (and the starts by every model), so
// the curves use common random numbers and the result does not depend on the thread count.
Result<TpmNoiseResult> runTpmNoise(const TpmNoiseSpec& spec, Feedback* feedback = nullptr,
                                   const TpmNoiseListener* listener = nullptr);

std::string tpmNoiseResultsCsv(const TpmNoiseResult& result);  // one row per trial
std::string tpmNoiseSummaryCsv(const TpmNoiseResult& result);  // one row per point, all four scalings

}  // namespace dplda
