#pragma once
// Tensor decomposition of a symmetric k x k x k tensor (SPEC §5). The decomposer is an
// interchangeable policy (after mlpack's PCA decomposition policies). Seed 004's other two
// variants: online_power_method.h (reads documents) and private_power_method.h (noisy queries).
#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/common/feedback.h"
#include "core/common/random.h"
#include "core/common/status.h"
#include "core/tensor/tensor3.h"

namespace dplda {

struct TensorEigenpairs {
  Eigen::VectorXd lambda;  // robust eigenvalues, > 0, descending
  Eigen::MatrixXd V;       // k x r (r = k unless fewer were asked for), column i belongs to lambda[i]
  int iterations = 0;      // power steps used (all starts and components; fast: polish contractions)
  int unconverged = 0;     // components that missed the tolerance within the iteration limit
  bool converged() const { return unconverged == 0; }
  // The largest ‖T̃(I,v,v) − λv‖ / ‖T‖_F over the components (T̃: T deflated by the components
  // found before v), for methods that measure it ("fast").
  std::optional<double> maxResidual;
  std::string method;
};

// The pairs with every λ made positive (v flipped: T(−v,−v,−v) = −T(v,v,v)), sorted by λ descending.
TensorEigenpairs sortedPositive(Eigen::VectorXd lambda, Eigen::MatrixXd V);

// The default number of starts L for r components: max(10, 2⌈r ln r⌉) (SPEC §5).
int defaultPowerRestarts(int r);

// A uniformly random point on the unit sphere in R^k.
Eigen::VectorXd randomUnitVector(int k, RandomSource& rng);
// Normalises the columns of `next`; a column that vanished (T(I,u,u) = 0) or overflowed keeps
// its direction from `previous`.
void normaliseColumns(Eigen::MatrixXd& next, const Eigen::MatrixXd& previous);

// γ_s = ¼ min_i (λ_i − λ_{i+1}) with λ_{k+1} := 0 (SPEC §1).
double tensorEigengap(const Eigen::VectorXd& lambdaDescending);

struct PowerMethodOptions {
  int restarts = 0;         // L; 0 means the default max(10, 2⌈k ln k⌉)
  int maxIterations = 100;  // R
  // robust, simultaneous: stop when ‖u_new − u‖ < tolerance; fast: when the residual
  // ‖T̃(I,u,u) − λu‖ <= tolerance · ‖T‖_F (see SpectralInitPowerMethod).
  double tolerance = 1e-10;
};
Status validatePowerMethodOptions(const PowerMethodOptions& options);

// A symmetric d x d x d tensor seen only through its contractions T(I, u, u): everything the
// robust power method does with a tensor. Lets a caller decompose a tensor it never forms (a
// closed-form structured tensor needs O(d) work per vector instead of d^3 storage).
class SymmetricTensorOperator {
 public:
  virtual ~SymmetricTensorOperator() = default;
  virtual int dim() const = 0;
  // Column s of the result is T(I, u_s, u_s) for column s of U (d x m).
  virtual Eigen::MatrixXd contractTwice(const Eigen::MatrixXd& U) const = 0;
};

// A dense tensor, held by reference (it must outlive the operator).
class DenseTensorOperator final : public SymmetricTensorOperator {
 public:
  explicit DenseTensorOperator(const Tensor3& t) : m_t(t) {}
  int dim() const override { return m_t.dim(); }
  Eigen::MatrixXd contractTwice(const Eigen::MatrixXd& U) const override {
    return m_t.contractTwiceColumns(U);
  }

 private:
  const Tensor3& m_t;
};

// A dense tensor through its packed copy (PackedTensor3, made once in the constructor:
// k^2 (k+1)/2 doubles, 32 MB at k = 200): half the multiply-adds of DenseTensorOperator, about 5x
// less CPU per contraction at k = 200, split over the OpenMP threads (bit-identical for any
// thread count).
// For many contractions of one large tensor (Algorithm 3 makes L (R + 1) per component).
class PackedTensorOperator final : public SymmetricTensorOperator {
 public:
  explicit PackedTensorOperator(const Tensor3& t) : m_packed(t) {}
  int dim() const override { return m_packed.dim(); }
  Eigen::MatrixXd contractTwice(const Eigen::MatrixXd& U) const override {
    return m_packed.contractTwiceColumns(U);
  }
  std::size_t bytes() const { return m_packed.bytes(); }

 private:
  PackedTensor3 m_packed;
};

// The first components of a robust power method run, in both orders.
struct LeadingEigenpairs {
  TensorEigenpairs sorted;  // by λ descending (λ made positive by flipping v), as decompose returns
  Eigen::MatrixXd found;    // the same vectors in the order they were extracted
  Eigen::VectorXd foundLambda;
  bool stoppedEarly = false;  // the stop rule ended the extraction before the asked-for count
};
// Called after each extracted component but the last with the vectors found so far (extraction
// order, λ >= 0); returning true stops the extraction (e.g. once a trial can no longer succeed).
using ExtractionStopRule = std::function<bool(const Eigen::MatrixXd& foundSoFar)>;

class TensorDecomposer {
 public:
  virtual ~TensorDecomposer() = default;
  virtual std::string name() const = 0;
  // Returns k eigenpairs of the symmetric T. Randomness (starts) comes from rng.
  virtual Result<TensorEigenpairs> decompose(const Tensor3& T, RandomSource& rng,
                                             Feedback* feedback = nullptr) const = 0;
};

// Robust tensor power method with deflation (seed 004, Algorithm 1). All L starts of a
// component iterate together, so each step is one k^2 x k by k x L GEMM; a start that has settled
// stops iterating. It may stop after r <= k deflations: Algorithm 1 finds the components one at a
// time, largest weight first when the tensor is (close to) orthogonally decomposable, so the
// first r are the r leading ones. With options.restarts = 0, L = max(10, 2⌈r ln r⌉) for the r
// components extracted (the default for r = k is unchanged).
class RobustPowerMethod final : public TensorDecomposer {
 public:
  explicit RobustPowerMethod(PowerMethodOptions options = {}) : m_options(options) {}
  std::string name() const override { return "robust"; }
  // All T.dim() components.
  Result<TensorEigenpairs> decompose(const Tensor3& T, RandomSource& rng,
                                     Feedback* feedback = nullptr) const override;
  // The first `components` (1..T.dim()) components, sorted by λ descending. With the same L
  // (an explicit options.restarts: the default L depends on r) these are the steps and random
  // draws of the full decomposition up to that point. InvalidArgument naming the value when out
  // of range.
  Result<TensorEigenpairs> decompose(const Tensor3& T, int components, RandomSource& rng,
                                     Feedback* feedback = nullptr) const;
  // Matrix-free: the first `components` (1..T.dim()) of a tensor given by its contractions,
  // deflated implicitly (T − Σ λ_c v_c⊗v_c⊗v_c applied through contractions; equal to the
  // explicit deflation of the dense overloads up to rounding). Keeps the extraction order, and
  // `stop` may end the extraction early.
  Result<LeadingEigenpairs> extractLeading(const SymmetricTensorOperator& T, int components,
                                           RandomSource& rng, const ExtractionStopRule& stop = {},
                                           Feedback* feedback = nullptr) const;

 private:
  PowerMethodOptions m_options;
};

// Simultaneous power method (Wang & Lu 2017): V ← QR([T(I, v_i, v_i)]_i) until the subspace
// stops moving; λ_i = T(v_i, v_i, v_i).
class SimultaneousPowerMethod final : public TensorDecomposer {
 public:
  explicit SimultaneousPowerMethod(PowerMethodOptions options = {}) : m_options(options) {}
  std::string name() const override { return "simultaneous"; }
  Result<TensorEigenpairs> decompose(const Tensor3& T, RandomSource& rng,
                                     Feedback* feedback = nullptr) const override;

 private:
  PowerMethodOptions m_options;
};

// Spectral initialisation + power polish ("fast", the default): the candidates are the eigenvectors
// of two random contractions T(I, I, θ) (for T = Σ λ_i v_i^⊗3, T(I,I,θ) = Σ λ_i (v_iᵀθ) v_i v_iᵀ has
// exactly the v_i as eigenvectors; two θ cover a near-tie of λ_i v_iᵀθ in one of them). Each
// component takes the remaining candidate with the largest deflated T(u,u,u), polishes it by power
// steps on the deflated tensor T̃ and deflates it. A component has converged when
// ‖T̃(I,u,u) − λu‖ <= tolerance · ‖T‖_F (λ = T̃(u,u,u)): u is then an exact eigenvector of a tensor
// within about that distance of T̃. Each component has R steps, and may take one more R and the
// steps earlier components left unused ((k + 1)·R in all) while its residual falls fast enough to
// reach the tolerance. `unconverged` counts the components that missed it, `maxResidual` gives the
// worst relative residual. About 2k + k·(polish steps) contractions instead of the robust method's
// L·R per component: ~30× less work at k = 50. Without Algorithm 1's many random starts it has no
// proven failure bound on a tensor far from orthogonally decomposable; the robust method keeps that
// guarantee (`--decomposer robust`).
class SpectralInitPowerMethod final : public TensorDecomposer {
 public:
  explicit SpectralInitPowerMethod(PowerMethodOptions options = {}) : m_options(options) {}
  std::string name() const override { return "fast"; }
  Result<TensorEigenpairs> decompose(const Tensor3& T, RandomSource& rng,
                                     Feedback* feedback = nullptr) const override;

 private:
  PowerMethodOptions m_options;
};

// "robust", "simultaneous" or "fast"; InvalidArgument naming the value otherwise ("online" reads the
// corpus, not a tensor: core/tensor/online_power_method.h).
Result<std::shared_ptr<const TensorDecomposer>> makeDecomposer(const std::string& name,
                                                               PowerMethodOptions options = {});

}  // namespace dplda
