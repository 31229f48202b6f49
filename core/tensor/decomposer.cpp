#include "core/tensor/decomposer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace dplda {

namespace {

Status validateTensor(const Tensor3& T) {
  if (T.dim() < 1) return invalidArgument("the tensor to decompose is empty");
  if (!T.allFinite()) return numericalFailure("the tensor to decompose contains NaN or infinite entries");
  return Status::ok();
}

Status validateComponents(int components, int dim) {
  if (components < 1 || components > dim) {
    return invalidArgument("the number of components to extract must be in 1.." + std::to_string(dim) +
                           " (the tensor dimension), got " + std::to_string(components));
  }
  return Status::ok();
}

// The tensor the power method iterates on, deflated by the components found so far. Two
// policies for the one algorithm below: a dense working copy deflated explicitly (Algorithm 1 as
// written), and an operator deflated implicitly through its contractions.
class ExplicitDeflation {
 public:
  explicit ExplicitDeflation(const Tensor3& t) : m_t(t) {}
  int dim() const { return m_t.dim(); }
  Eigen::MatrixXd columns(const Eigen::MatrixXd& U) const { return m_t.contractTwiceColumns(U); }
  Eigen::VectorXd vector(const Eigen::VectorXd& u) const { return m_t.contractTwice(u); }
  double value(const Eigen::VectorXd& u) const { return m_t.contractThrice(u); }
  void deflate(double lambda, const Eigen::VectorXd& v) { m_t.addOuter(-lambda, v, v, v); }

 private:
  Tensor3 m_t;
};

class ImplicitDeflation {
 public:
  ImplicitDeflation(const SymmetricTensorOperator& op, int maxComponents)
      : m_op(op), m_V(op.dim(), maxComponents), m_lambda(maxComponents) {}
  int dim() const { return m_op.dim(); }
  // T(I,u,u) − Σ_c λ_c v_c (v_cᵀu)²: O(found · d · m) on top of the operator's contraction.
  Eigen::MatrixXd columns(const Eigen::MatrixXd& U) const {
    Eigen::MatrixXd G = m_op.contractTwice(U);
    for (int c = 0; c < m_found; ++c) {
      const Eigen::RowVectorXd p = m_V.col(c).transpose() * U;
      G.noalias() -= m_V.col(c) * (m_lambda[c] * p.array().square()).matrix();
    }
    return G;
  }
  Eigen::VectorXd vector(const Eigen::VectorXd& u) const { return columns(u); }
  double value(const Eigen::VectorXd& u) const { return u.dot(vector(u)); }
  void deflate(double lambda, const Eigen::VectorXd& v) {
    m_V.col(m_found) = v;
    m_lambda[m_found] = lambda;
    ++m_found;
  }

 private:
  const SymmetricTensorOperator& m_op;
  Eigen::MatrixXd m_V;
  Eigen::VectorXd m_lambda;
  int m_found = 0;
};

struct Extraction {
  Eigen::VectorXd lambda;  // extraction order, >= 0
  Eigen::MatrixXd V;       // d x found
  int iterations = 0;
  int unconverged = 0;
  bool stoppedEarly = false;
  int L = 0, R = 0;
};

}  // namespace

int defaultPowerRestarts(int r) {
  return std::max(10, 2 * static_cast<int>(std::ceil(r * std::log(std::max(r, 1)))));
}

namespace {

// Algorithm 1 of seed 004 for the first r components (validated by the caller).
template <class Deflated>
Result<Extraction> robustPowerIterations(Deflated& T, int r, const PowerMethodOptions& o, RandomSource& rng,
                                         const ExtractionStopRule& stop, Feedback* feedback) {
  const int k = T.dim();
  const int L = o.restarts > 0 ? o.restarts : defaultPowerRestarts(r);
  const int R = o.maxIterations;
  const double tol = o.tolerance;

  Extraction ex;
  ex.L = L;
  ex.R = R;
  ex.lambda.resize(r);
  ex.V.resize(k, r);
  int found = 0;
  for (int comp = 0; comp < r; ++comp) {
    if (isCanceled(feedback)) return cancelled();
    // L starts, R steps each; a start that has settled stops iterating (the others go on).
    Eigen::MatrixXd U(k, L);
    for (int s = 0; s < L; ++s) U.col(s) = randomUnitVector(k, rng);
    std::vector<int> active(L);
    std::iota(active.begin(), active.end(), 0);
    Eigen::MatrixXd current;
    for (int step = 0; step < R && !active.empty(); ++step) {
      current.resize(k, static_cast<Eigen::Index>(active.size()));
      for (std::size_t a = 0; a < active.size(); ++a) current.col(a) = U.col(active[a]);
      Eigen::MatrixXd next = T.columns(current);
      // A dense tensor is checked up front; an operator is checked on its first contraction.
      if (comp == 0 && step == 0 && !next.allFinite()) {
        return numericalFailure("the tensor to decompose contains NaN or infinite entries");
      }
      normaliseColumns(next, current);
      std::vector<int> still;
      for (std::size_t a = 0; a < active.size(); ++a) {
        const double change = (next.col(a) - current.col(a)).norm();
        U.col(active[a]) = next.col(a);
        if (!(change < tol)) still.push_back(active[a]);
      }
      active.swap(still);
      ++ex.iterations;
    }
    // Keep the start with the largest T(u,u,u), then polish it.
    const Eigen::MatrixXd TU = T.columns(U);
    Eigen::Index best = 0;
    (U.cwiseProduct(TU)).colwise().sum().maxCoeff(&best);
    Eigen::VectorXd u = U.col(best);
    bool settled = false;
    for (int step = 0; step < R; ++step) {
      Eigen::VectorXd next = T.vector(u);
      const double n = next.norm();
      if (!(n > 0.0) || !std::isfinite(n)) break;
      next /= n;
      const double change = (next - u).norm();
      u = next;
      ++ex.iterations;
      if (change < tol) {
        settled = true;
        break;
      }
    }
    if (!settled) ++ex.unconverged;
    double lam = T.value(u);
    if (lam < 0.0) {  // T(-v,-v,-v) = -T(v,v,v): flip to make λ positive (the deflation term is unchanged)
      lam = -lam;
      u = -u;
    }
    ex.lambda[comp] = lam;
    ex.V.col(comp) = u;
    T.deflate(lam, u);
    found = comp + 1;
    reportProgress(feedback, static_cast<double>(found) / r);
    if (stop && found < r && stop(ex.V.leftCols(found))) {
      ex.stoppedEarly = true;
      break;
    }
  }
  ex.lambda.conservativeResize(found);
  ex.V.conservativeResize(k, found);
  return ex;
}

std::string robustMethodName(int components, int dim, int L, int R) {
  const std::string params = "(L = " + std::to_string(L) + ", R = " + std::to_string(R) + ")";
  if (components == dim) return "robust tensor power method " + params;
  return "robust tensor power method, first " + std::to_string(components) + " components " + params;
}

}  // namespace

TensorEigenpairs sortedPositive(Eigen::VectorXd lambda, Eigen::MatrixXd V) {
  for (Eigen::Index i = 0; i < lambda.size(); ++i) {
    if (lambda[i] < 0.0) {  // T(-v,-v,-v) = -T(v,v,v): flip to make λ positive
      lambda[i] = -lambda[i];
      V.col(i) = -V.col(i);
    }
  }
  std::vector<int> order(lambda.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lambda[a] > lambda[b]; });
  TensorEigenpairs out;
  out.lambda.resize(lambda.size());
  out.V.resize(V.rows(), V.cols());
  for (std::size_t i = 0; i < order.size(); ++i) {
    out.lambda[i] = lambda[order[i]];
    out.V.col(i) = V.col(order[i]);
  }
  return out;
}

Eigen::VectorXd randomUnitVector(int k, RandomSource& rng) {
  Eigen::VectorXd u(k);
  for (;;) {
    for (int i = 0; i < k; ++i) u[i] = standardNormal(rng);
    const double n = u.norm();
    if (n > 0.0) return u / n;
  }
}

void normaliseColumns(Eigen::MatrixXd& next, const Eigen::MatrixXd& previous) {
  for (Eigen::Index s = 0; s < next.cols(); ++s) {
    const double n = next.col(s).norm();
    if (n > 0.0 && std::isfinite(n)) next.col(s) /= n;
    else next.col(s) = previous.col(s);
  }
}

double tensorEigengap(const Eigen::VectorXd& lambda) {
  const Eigen::Index k = lambda.size();
  if (k == 0) return 0.0;
  double gap = lambda[k - 1];  // λ_k − λ_{k+1}, λ_{k+1} = 0
  for (Eigen::Index i = 0; i + 1 < k; ++i) gap = std::min(gap, lambda[i] - lambda[i + 1]);
  return 0.25 * gap;
}

Status validatePowerMethodOptions(const PowerMethodOptions& o) {
  if (o.restarts < 0) return invalidArgument("restarts must be >= 0 (0 = default), got " + std::to_string(o.restarts));
  if (o.maxIterations < 1) {
    return invalidArgument("maximum iterations must be >= 1, got " + std::to_string(o.maxIterations));
  }
  if (!std::isfinite(o.tolerance) || o.tolerance <= 0.0) {
    std::ostringstream msg;
    msg << "tolerance must be a finite number > 0, got " << o.tolerance;
    return invalidArgument(msg.str());
  }
  return Status::ok();
}

Result<TensorEigenpairs> RobustPowerMethod::decompose(const Tensor3& T, RandomSource& rng,
                                                      Feedback* feedback) const {
  return decompose(T, T.dim(), rng, feedback);
}

Result<TensorEigenpairs> RobustPowerMethod::decompose(const Tensor3& T, int components, RandomSource& rng,
                                                      Feedback* feedback) const {
  DPLDA_RETURN_IF_ERROR(validateTensor(T));
  DPLDA_RETURN_IF_ERROR(validateComponents(components, T.dim()));
  DPLDA_RETURN_IF_ERROR(validatePowerMethodOptions(m_options));
  ExplicitDeflation deflated(T);
  auto ex = robustPowerIterations(deflated, components, m_options, rng, {}, feedback);
  if (!ex.ok()) return ex.status();
  const Extraction& e = ex.value();
  TensorEigenpairs out = sortedPositive(e.lambda, e.V);
  out.iterations = e.iterations;
  out.unconverged = e.unconverged;
  out.method = robustMethodName(components, T.dim(), e.L, e.R);
  return out;
}

Result<LeadingEigenpairs> RobustPowerMethod::extractLeading(const SymmetricTensorOperator& T, int components,
                                                            RandomSource& rng, const ExtractionStopRule& stop,
                                                            Feedback* feedback) const {
  if (T.dim() < 1) return invalidArgument("the tensor to decompose is empty");
  DPLDA_RETURN_IF_ERROR(validateComponents(components, T.dim()));
  DPLDA_RETURN_IF_ERROR(validatePowerMethodOptions(m_options));
  ImplicitDeflation deflated(T, components);
  auto ex = robustPowerIterations(deflated, components, m_options, rng, stop, feedback);
  if (!ex.ok()) return ex.status();
  const Extraction& e = ex.value();
  LeadingEigenpairs out;
  out.found = e.V;
  out.foundLambda = e.lambda;
  out.stoppedEarly = e.stoppedEarly;
  out.sorted = sortedPositive(e.lambda, e.V);
  out.sorted.iterations = e.iterations;
  out.sorted.unconverged = e.unconverged;
  out.sorted.method = robustMethodName(components, T.dim(), e.L, e.R);
  return out;
}

Result<TensorEigenpairs> SimultaneousPowerMethod::decompose(const Tensor3& T, RandomSource& rng,
                                                            Feedback* feedback) const {
  DPLDA_RETURN_IF_ERROR(validateTensor(T));
  DPLDA_RETURN_IF_ERROR(validatePowerMethodOptions(m_options));
  const int k = T.dim();
  // A random orthonormal start.
  Eigen::MatrixXd G(k, k);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) G(i, j) = standardNormal(rng);
  auto orthonormalise = [k](const Eigen::MatrixXd& A) {
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(A);
    Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(k, k);
    const Eigen::MatrixXd Rm = qr.matrixQR().triangularView<Eigen::Upper>();
    for (int i = 0; i < k; ++i)  // fix QR's sign ambiguity: diag(R) > 0
      if (Rm(i, i) < 0.0) Q.col(i) = -Q.col(i);
    return Q;
  };
  Eigen::MatrixXd V = orthonormalise(G);
  // The iteration limit scales with k: the subspace converges more slowly than one vector.
  const int maxIter = m_options.maxIterations * std::max(1, k);
  int iterations = 0;
  int moving = k;  // columns whose last step moved by tolerance or more
  for (int step = 0; step < maxIter; ++step) {
    if ((step & 15) == 0 && isCanceled(feedback)) return cancelled();
    const Eigen::MatrixXd next = orthonormalise(T.contractTwiceColumns(V));
    ++iterations;
    // Subspace distance ‖(I − V Vᵀ) V_next‖ for the column-wise iteration.
    const Eigen::RowVectorXd change = (next - V).colwise().norm();
    V = next;
    if (!V.allFinite()) return numericalFailure("the simultaneous power method produced NaN");
    moving = static_cast<int>((change.array() >= m_options.tolerance).count());
    if (moving == 0) break;
  }
  Eigen::VectorXd lambda(k);
  const Eigen::MatrixXd TV = T.contractTwiceColumns(V);
  for (int i = 0; i < k; ++i) lambda[i] = V.col(i).dot(TV.col(i));
  TensorEigenpairs out = sortedPositive(lambda, V);
  out.iterations = iterations;
  out.unconverged = moving;
  out.method = "simultaneous power method";
  reportProgress(feedback, 1.0);
  return out;
}

Result<TensorEigenpairs> SpectralInitPowerMethod::decompose(const Tensor3& T, RandomSource& rng,
                                                            Feedback* feedback) const {
  DPLDA_RETURN_IF_ERROR(validateTensor(T));
  DPLDA_RETURN_IF_ERROR(validatePowerMethodOptions(m_options));
  const int k = T.dim();
  const Eigen::Map<const Eigen::MatrixXd> slab(T.data(), k, k * k);  // slab(l, i*k+j)
  // Candidates: eigenvectors of T(I, I, θ) for two random unit θ.
  Eigen::MatrixXd candidates(k, 2 * k);
  for (int draw = 0; draw < 2; ++draw) {
    const Eigen::VectorXd theta = randomUnitVector(k, rng);
    const Eigen::VectorXd flat = slab.transpose() * theta;  // flat(i*k+j) = T(i,j,·)·θ
    Eigen::MatrixXd M = Eigen::Map<const Eigen::MatrixXd>(flat.data(), k, k);
    M = 0.5 * (M + M.transpose()).eval();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(M);
    if (eig.info() != Eigen::Success) return numericalFailure("the eigensolver failed on a contraction of the tensor");
    candidates.middleCols(draw * k, k) = eig.eigenvectors();
  }
  // T(u,u,u) of every candidate once; deflation is then applied to the values implicitly.
  const Eigen::MatrixXd TU = T.contractTwiceColumns(candidates);
  Eigen::VectorXd value = candidates.cwiseProduct(TU).colwise().sum().transpose();
  std::vector<bool> used(static_cast<std::size_t>(2 * k), false);

  // Converged = the eigen-equation holds up to a backward error: ‖T̃(I,u,u) − λu‖ <= tol·‖T‖_F
  // (as the M2 eigenvectors' ‖M̂2u − σu‖ <= 1e-10·σ_1). A step-size test ‖u_new − u‖ < tol
  // reported the Debian k = 50 tensor as unconverged: a few components converge linearly at rate
  // ~0.88 (the spectral radius of 2T̃(I,I,u)/λ on u⊥) and were still moving after R = 100 steps.
  const double tensorNorm = T.frobeniusNorm();
  const double target = m_options.tolerance * tensorNorm;
  const int R = m_options.maxIterations;
  ExplicitDeflation deflated(T);
  Eigen::VectorXd lambda(k);
  Eigen::MatrixXd V(k, k);
  int steps = 0;  // power steps of all components, for the budget
  int unconverged = 0;
  double maxResidual = 0.0;
  for (int comp = 0; comp < k; ++comp) {
    if (isCanceled(feedback)) return cancelled();
    // Largest |T(u,u,u)| (a candidate's sign is arbitrary: −u has value −T(u,u,u)).
    int best = -1;
    for (int c = 0; c < 2 * k; ++c)
      if (!used[c] && (best < 0 || std::abs(value[c]) > std::abs(value[best]))) best = c;
    used[best] = true;
    Eigen::VectorXd u = value[best] < 0.0 ? Eigen::VectorXd(-candidates.col(best)) : Eigen::VectorXd(candidates.col(best));
    // R steps each plus R in reserve, (k + 1)·R in all: a component may take the reserve and the
    // steps earlier ones left unused, and never gets fewer than R. Past R it goes on only if its
    // residual, falling at the rate of its last 10 steps, would reach the target within that
    // budget: one that oscillates, wanders or crawls (a noise-level λ) stops at R as before.
    const int budget = (comp + 2) * R - steps;
    double lam = 0.0, residual = 0.0, checkpoint = std::numeric_limits<double>::infinity();
    int step = 0;  // power steps taken from the candidate
    for (;; ++step) {
      // One contraction measures u's residual and gives the next step.
      const Eigen::VectorXd g = deflated.vector(u);
      lam = u.dot(g);
      residual = (g - lam * u).norm();
      if (residual <= target) break;
      const double n = g.norm();
      if (step >= budget || !(n > 0.0) || !std::isfinite(n)) break;
      // Checkpoints at R − 10, R, R + 10, ...
      if ((step - R) % 10 == 0) {
        const double rate = residual / checkpoint;  // over the last 10 steps
        if (step >= R) {
          const double needed = 10.0 * std::log(target / residual) / std::log(rate);  // at this rate
          if (!(rate < 1.0 && step + needed <= budget)) break;
        }
        checkpoint = residual;
      }
      u = g / n;
    }
    steps += step;
    if (!(residual <= target)) ++unconverged;
    maxResidual = std::max(maxResidual, tensorNorm > 0.0 ? residual / tensorNorm : 0.0);
    if (lam < 0.0) {
      lam = -lam;
      u = -u;
    }
    lambda[comp] = lam;
    V.col(comp) = u;
    deflated.deflate(lam, u);
    // The remaining candidates' values on the deflated tensor: − λ (vᵀu_c)³.
    const Eigen::ArrayXd proj = (candidates.transpose() * u).array();
    value.array() -= lam * proj.cube();
    reportProgress(feedback, static_cast<double>(comp + 1) / k);
  }
  TensorEigenpairs out = sortedPositive(lambda, V);
  out.iterations = steps + k;  // contractions: the steps and each component's last residual
  out.unconverged = unconverged;
  out.maxResidual = maxResidual;
  out.method = "spectral initialisation + power polish (2 contractions, R = " + std::to_string(R) +
               " steps per component, " + std::to_string((k + 1) * R) + " in all)";
  return out;
}

Result<std::shared_ptr<const TensorDecomposer>> makeDecomposer(const std::string& name, PowerMethodOptions options) {
  DPLDA_RETURN_IF_ERROR(validatePowerMethodOptions(options));
  if (name == "robust") return std::shared_ptr<const TensorDecomposer>(std::make_shared<RobustPowerMethod>(options));
  if (name == "simultaneous") {
    return std::shared_ptr<const TensorDecomposer>(std::make_shared<SimultaneousPowerMethod>(options));
  }
  if (name == "fast") return std::shared_ptr<const TensorDecomposer>(std::make_shared<SpectralInitPowerMethod>(options));
  if (name == "online") {
    return invalidArgument(
        "the online decomposer (seed 004, Algorithm 2) reads the documents, not a tensor: call "
        "onlineRobustPowerMethod (core/tensor/online_power_method.h) with the corpus and W");
  }
  return invalidArgument("unknown decomposer '" + name + "' (expected robust, simultaneous or fast)");
}

}  // namespace dplda
