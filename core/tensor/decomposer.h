#pragma once
// Tensor decomposition of a symmetric k x k x k tensor (SPEC §5). The decomposer is an
// interchangeable policy (after mlpack's PCA decomposition policies) so the online and
// noise-calibrated variants of seed 004 slot in later.
#include <Eigen/Dense>
#include <memory>
#include <string>

#include "core/common/feedback.h"
#include "core/common/random.h"
#include "core/common/status.h"
#include "core/tensor/tensor3.h"

namespace dplda {

struct TensorEigenpairs {
  Eigen::VectorXd lambda;  // robust eigenvalues, > 0, descending
  Eigen::MatrixXd V;       // k x k, column i is the eigenvector of lambda[i]
  int iterations = 0;      // power steps used (all starts and components)
  bool converged = true;   // every component met the tolerance within the iteration limit
  std::string method;
};

// A uniformly random point on the unit sphere in R^k.
Eigen::VectorXd randomUnitVector(int k, RandomSource& rng);
// Normalises the columns of `next`; a column that vanished (T(I,u,u) = 0) or overflowed keeps
// its direction from `previous`.
void normaliseColumns(Eigen::MatrixXd& next, const Eigen::MatrixXd& previous);

// γ_s = ¼ min_i (λ_i − λ_{i+1}) with λ_{k+1} := 0 (SPEC §1).
double tensorEigengap(const Eigen::VectorXd& lambdaDescending);

struct PowerMethodOptions {
  int restarts = 0;          // L; 0 means the default max(10, 2⌈k ln k⌉)
  int maxIterations = 100;   // R
  double tolerance = 1e-10;  // stop when ‖u_new − u‖ < tolerance
};
Status validatePowerMethodOptions(const PowerMethodOptions& options);

class TensorDecomposer {
 public:
  virtual ~TensorDecomposer() = default;
  virtual std::string name() const = 0;
  // Returns k eigenpairs of the symmetric T. Randomness (starts) comes from rng.
  virtual Result<TensorEigenpairs> decompose(const Tensor3& T, RandomSource& rng,
                                             Feedback* feedback = nullptr) const = 0;
};

// Robust tensor power method with deflation (seed 004, Algorithm 1). All L starts of a
// component iterate together, so each step is one k^2 x k by k x L GEMM.
class RobustPowerMethod final : public TensorDecomposer {
 public:
  explicit RobustPowerMethod(PowerMethodOptions options = {}) : m_options(options) {}
  std::string name() const override { return "robust"; }
  Result<TensorEigenpairs> decompose(const Tensor3& T, RandomSource& rng,
                                     Feedback* feedback = nullptr) const override;

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

// "robust" or "simultaneous"; InvalidArgument naming the value otherwise.
Result<std::shared_ptr<const TensorDecomposer>> makeDecomposer(const std::string& name,
                                                               PowerMethodOptions options = {});

}  // namespace dplda
