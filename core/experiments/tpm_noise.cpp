#include "core/experiments/tpm_noise.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <utility>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/experiments/parallel.h"
#include "core/experiments/sweep.h"
#include "core/experiments/table_text.h"

namespace dplda {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string describe(double x) { return shortNumber(x); }

}  // namespace

const char* tpmNoiseModelName(TpmNoiseModel m) {
  switch (m) {
    case TpmNoiseModel::Gaussian:
      return "gaussian";
    case TpmNoiseModel::Adversarial:
      return "adversarial";
    case TpmNoiseModel::WeaklyCorrelated:
      return "weakly-correlated";
  }
  return "gaussian";
}

const char* tpmNoiseModelTitle(TpmNoiseModel m) {
  switch (m) {
    case TpmNoiseModel::Gaussian:
      return "random Gaussian noise";
    case TpmNoiseModel::Adversarial:
      return "adversarial noise";
    case TpmNoiseModel::WeaklyCorrelated:
      return "weakly correlated noise";
  }
  return "";
}

Result<TpmNoiseModel> parseTpmNoiseModel(const std::string& text) {
  for (TpmNoiseModel m :
       {TpmNoiseModel::Gaussian, TpmNoiseModel::Adversarial, TpmNoiseModel::WeaklyCorrelated})
    if (text == tpmNoiseModelName(m)) return m;
  return invalidArgument("noise model \"" + text +
                         "\" is unknown: use gaussian, adversarial or weakly-correlated");
}

const char* tpmSuccessCriterionName(TpmSuccessCriterion c) {
  return c == TpmSuccessCriterion::ExtractionOrder ? "extraction-order" : "best-matching";
}

const char* noiseScalingKey(NoiseScaling s) {
  switch (s) {
    case NoiseScaling::Sigma:
      return "sigma";
    case NoiseScaling::SigmaSqrtD:
      return "sigma_sqrt_d";
    case NoiseScaling::SigmaD:
      return "sigma_d";
    case NoiseScaling::SigmaLnD:
      return "sigma_ln_d";
  }
  return "sigma";
}

const char* noiseScalingLabel(NoiseScaling s) {
  switch (s) {
    case NoiseScaling::Sigma:
      return "σ";
    case NoiseScaling::SigmaSqrtD:
      return "σ√d";
    case NoiseScaling::SigmaD:
      return "σd";
    case NoiseScaling::SigmaLnD:
      return "σ ln d";
  }
  return "σ";
}

double scaleNoiseLevel(double sigma, int d, NoiseScaling s) {
  switch (s) {
    case NoiseScaling::Sigma:
      return sigma;
    case NoiseScaling::SigmaSqrtD:
      return sigma * std::sqrt(static_cast<double>(d));
    case NoiseScaling::SigmaD:
      return sigma * d;
    case NoiseScaling::SigmaLnD:
      return sigma * std::log(static_cast<double>(d));
  }
  return sigma;
}

TpmTensorOperator::TpmTensorOperator(TpmNoiseModel model, int d, double signalWeight, double noiseScale,
                                     const Tensor3* gaussianNoise)
    : m_model(model), m_d(d), m_signal(signalWeight), m_scale(noiseScale), m_dense(gaussianNoise) {
  if (model == TpmNoiseModel::Gaussian && (!gaussianNoise || gaussianNoise->dim() != d)) {
    throw std::invalid_argument(
        "TpmTensorOperator: the Gaussian model needs its dense d x d x d noise tensor");
  }
}

Eigen::MatrixXd TpmTensorOperator::contractTwice(const Eigen::MatrixXd& U) const {
  Eigen::MatrixXd out(m_d, U.cols());
  switch (m_model) {
    case TpmNoiseModel::Gaussian:
      out = DenseTensorOperator(*m_dense).contractTwice(U) * m_scale;
      break;
    case TpmNoiseModel::Adversarial: {  // E(I,u,u) = v2 ‖u‖² + 2 u (v2ᵀu), v2 = e_2
      const Eigen::RowVectorXd norms = U.colwise().squaredNorm();
      out = U.array().rowwise() * (2.0 * m_scale * U.row(1).array());
      out.row(1) += m_scale * norms;
      break;
    }
    case TpmNoiseModel::WeaklyCorrelated:  // E(I,u,u)_i = u_i² for i >= 4 (0-based i >= 3)
      out = m_scale * U.array().square();
      out.topRows(std::min(3, m_d)).setZero();
      break;
  }
  for (int i = 0; i < 3 && i < m_d; ++i)
    out.row(i) += m_signal * kTpmSignalWeights[i] * U.row(i).array().square().matrix();
  return out;
}

Result<OperatorNormResult> tensorOperatorNorm(const Tensor3& E, RandomSource& rng,
                                              const OperatorNormOptions& o) {
  if (E.dim() >= 1 && !E.allFinite()) return numericalFailure("the tensor contains NaN or infinite entries");
  return tensorOperatorNorm(DenseTensorOperator(E), rng, o);
}

Result<OperatorNormResult> tensorOperatorNorm(const SymmetricTensorOperator& E, RandomSource& rng,
                                              const OperatorNormOptions& o) {
  const int d = E.dim();
  if (d < 1) return invalidArgument("the tensor is empty");
  if (o.restarts < 1 || o.keep < 1 || o.firstPhase < 0 || o.maxIterations < 1 || !(o.tolerance > 0.0)) {
    return invalidArgument(
        "operator norm options: restarts, keep and maxIterations must be >= 1, firstPhase >= 0 "
        "and the tolerance > 0");
  }
  const int L = o.restarts;
  Eigen::MatrixXd U(d, L);
  for (int s = 0; s < L; ++s) U.col(s) = randomUnitVector(d, rng);
  Eigen::MatrixXd G = E.contractTwice(U);  // G.col(s) = E(I, u_s, u_s)
  if (!G.allFinite()) return numericalFailure("the tensor contains NaN or infinite entries");
  std::vector<double> f(L), shift(L, 0.0);
  std::vector<int> iterations(L, 0);
  std::vector<bool> converged(L, false);
  for (int s = 0; s < L; ++s) f[s] = U.col(s).dot(G.col(s));
  std::vector<int> active(L);
  std::iota(active.begin(), active.end(), 0);

  for (int it = 0; it < o.maxIterations && !active.empty(); ++it) {
    if (it == o.firstPhase && static_cast<int>(active.size()) > o.keep) {
      // Continue only the most promising starts to convergence.
      std::stable_sort(active.begin(), active.end(), [&](int a, int b) { return f[a] > f[b]; });
      active.resize(o.keep);
    }
    const int m = static_cast<int>(active.size());
    Eigen::MatrixXd cand(d, m);
    for (int c = 0; c < m; ++c) {
      const int s = active[c];
      Eigen::VectorXd v = G.col(s) + shift[s] * U.col(s);
      const double n = v.norm();
      cand.col(c) = (n > 0.0 && std::isfinite(n)) ? Eigen::VectorXd(v / n) : Eigen::VectorXd(U.col(s));
    }
    const Eigen::MatrixXd Gc = E.contractTwice(cand);
    std::vector<int> still;
    for (int c = 0; c < m; ++c) {
      const int s = active[c];
      const double fc = cand.col(c).dot(Gc.col(c));
      ++iterations[s];
      const double scale = std::max(std::abs(f[s]), 1e-300);
      if (fc >= f[s] - 1e-15 * scale) {  // ascent: accept, and try a larger step next time
        const double change = std::abs(fc - f[s]);
        U.col(s) = cand.col(c);
        G.col(s) = Gc.col(c);
        f[s] = fc;
        shift[s] = shift[s] < 1e-3 * scale ? 0.0 : 0.5 * shift[s];
        if (change <= o.tolerance * std::max(std::abs(fc), 1e-300)) {
          converged[s] = true;
          continue;
        }
      } else {  // the step overshot: shift more (a shorter, safer step)
        shift[s] = std::max(2.0 * shift[s], G.col(s).norm());
      }
      still.push_back(s);
    }
    active.swap(still);
  }
  int best = 0;
  for (int s = 1; s < L; ++s)
    if (f[s] > f[best]) best = s;
  OperatorNormResult r;
  r.value = std::abs(f[best]);  // E(-u,-u,-u) = -E(u,u,u): |f| is attained too
  r.u = f[best] >= 0.0 ? Eigen::VectorXd(U.col(best)) : Eigen::VectorXd(-U.col(best));
  r.iterations = iterations[best];
  r.converged = converged[best];
  return r;
}

Tensor3 tpmSignalTensor(int d) {
  Tensor3 t(d);
  for (int i = 0; i < 3 && i < d; ++i) t(i, i, i) = kTpmSignalWeights[i];
  return t;
}

Tensor3 tpmNoiseTensor(TpmNoiseModel model, int d, RandomSource& rng) {
  Tensor3 e(d);
  switch (model) {
    case TpmNoiseModel::Gaussian: {
      // Unique entries with the variances of sym(G): 1/6 (i<j<l), 1/3 (two equal), 1 (all equal).
      const double sdDistinct = std::sqrt(1.0 / 6.0), sdPair = std::sqrt(1.0 / 3.0);
      for (int i = 0; i < d; ++i)
        for (int j = i; j < d; ++j)
          for (int l = j; l < d; ++l) {
            const bool ij = i == j, jl = j == l;
            const double x = (ij && jl ? 1.0 : ij || jl ? sdPair : sdDistinct) * standardNormal(rng);
            e(i, j, l) = e(i, l, j) = e(j, i, l) = e(j, l, i) = e(l, i, j) = e(l, j, i) = x;
          }
      break;
    }
    case TpmNoiseModel::Adversarial: {
      const int v2 = 1;  // v2 = e_2
      for (int i = 0; i < d; ++i) {
        e(v2, i, i) += 1.0;
        e(i, v2, i) += 1.0;
        e(i, i, v2) += 1.0;
      }
      break;
    }
    case TpmNoiseModel::WeaklyCorrelated:
      for (int i = 3; i < d; ++i) e(i, i, i) = 1.0;
      break;
  }
  return e;
}

double bestMatchedMinimumOverlap(const Eigen::MatrixXd& truth, const Eigen::MatrixXd& recovered) {
  const int r = static_cast<int>(truth.cols());
  const int m = static_cast<int>(recovered.cols());
  if (r < 1 || r > 8 || m < r || truth.rows() != recovered.rows())
    return std::numeric_limits<double>::quiet_NaN();
  const Eigen::MatrixXd overlap = truth.transpose() * recovered;  // (i, j) = v_iᵀ v̂_j
  // Every injective assignment of true columns to recovered ones (r ≤ 8, m small).
  double best = -std::numeric_limits<double>::infinity();
  std::vector<bool> used(m, false);
  auto search = [&](auto&& self, int i, double current) -> void {
    if (current <= best) return;
    if (i == r) {
      best = current;
      return;
    }
    for (int j = 0; j < m; ++j) {
      if (used[j]) continue;
      used[j] = true;
      self(self, i + 1, std::min(current, overlap(i, j)));
      used[j] = false;
    }
  };
  search(search, 0, std::numeric_limits<double>::infinity());
  return best;
}

std::vector<TpmModelLevels> defaultTpmLevels(int count) {
  // Around the transitions seen for d in [25, 200]: Gaussian near c/√d, adversarial near c/d,
  // weakly correlated near c/ln d (seed 004, Appendix A).
  return {{TpmNoiseModel::Gaussian, logSpaced(0.03, 1.5, count)},
          {TpmNoiseModel::Adversarial, logSpaced(0.003, 0.5, count)},
          {TpmNoiseModel::WeaklyCorrelated, logSpaced(0.03, 1.0, count)}};
}

Status validateTpmNoiseSpec(const TpmNoiseSpec& s) {
  if (s.models.empty()) return invalidArgument("tpm-noise: no noise model");
  for (const TpmModelLevels& m : s.models) {
    if (m.sigmas.empty())
      return invalidArgument(std::string("tpm-noise: no noise level for ") + tpmNoiseModelName(m.model));
    for (double x : m.sigmas)
      if (!std::isfinite(x) || x <= 0.0) {
        return invalidArgument(std::string("tpm-noise: noise levels must be finite and > 0, got ") +
                               describe(x) + " for " + tpmNoiseModelName(m.model));
      }
  }
  if (s.dims.empty()) return invalidArgument("tpm-noise: no dimension d");
  for (int d : s.dims) {
    if (d < 3)
      return invalidArgument("tpm-noise: d must be >= 3 (the signal has rank 3), got " + std::to_string(d));
    if (d > s.maxDim) {
      return Status(StatusCode::ResourceLimit,
                    "tpm-noise: d = " + std::to_string(d) + " needs " +
                        describe(3.0 * 8.0 * d * d * d / 1048576.0) +
                        " MB per thread; the limit is d = " + std::to_string(s.maxDim));
    }
  }
  if (s.trials < 1 || s.trials > 100000)
    return invalidArgument("tpm-noise: trials must be 1..100000, got " + std::to_string(s.trials));
  if (!(s.successThreshold > 0.0 && s.successThreshold <= 1.0)) {
    return invalidArgument("tpm-noise: the success threshold must be in (0, 1], got " +
                           describe(s.successThreshold));
  }
  if (s.threads < 0)
    return invalidArgument("tpm-noise: threads must be >= 0, got " + std::to_string(s.threads));
  return validatePowerMethodOptions(s.power);
}

const TpmNoisePoint& TpmNoiseResult::point(int model, int dim, int level) const {
  for (const TpmNoisePoint& p : points)
    if (p.modelIndex == model && p.dimIndex == dim && p.levelIndex == level) return p;
  throw std::out_of_range("no such tpm-noise point");
}

TpmNoisePoint& TpmNoiseResult::point(int model, int dim, int level) {
  return const_cast<TpmNoisePoint&>(std::as_const(*this).point(model, dim, level));
}

std::vector<TpmNoisePoint> emptyTpmNoisePoints(const TpmNoiseSpec& spec) {
  std::vector<TpmNoisePoint> out;
  for (int m = 0; m < static_cast<int>(spec.models.size()); ++m)
    for (int di = 0; di < static_cast<int>(spec.dims.size()); ++di)
      for (int li = 0; li < static_cast<int>(spec.models[m].sigmas.size()); ++li) {
        TpmNoisePoint p;
        p.modelIndex = m;
        p.dimIndex = di;
        p.levelIndex = li;
        p.d = spec.dims[di];
        p.sigma = spec.models[m].sigmas[li];
        p.failureProbability = std::numeric_limits<double>::quiet_NaN();
        out.push_back(p);
      }
  return out;
}

Result<TpmNoiseResult> runTpmNoise(const TpmNoiseSpec& spec, Feedback* feedback, const TpmNoiseListener* listener) {
  DPLDA_RETURN_IF_ERROR(validateTpmNoiseSpec(spec));
  const auto start = Clock::now();
  const int threads = resolveThreadCount(spec.threads);
  const int M = static_cast<int>(spec.models.size());
  const int D = static_cast<int>(spec.dims.size());
  const int T = spec.trials;
  // Seed streams: Gaussian noise of (d, t), its operator norm's starts, the power method's
  // starts of (d, t), and the operator norm of each deterministic noise tensor.
  auto seedFor = [&](std::uint64_t stream, int d, int t) {
    return deriveSeed(deriveSeed(spec.seed, stream * 100000 + static_cast<std::uint64_t>(d)),
                      static_cast<std::uint64_t>(t));
  };

  // ---- phase 1: the raw noise's operator norm, per (model, d) for the structured models and
  // per (d, trial) for the Gaussian one (whose tensor is drawn again from its seed in phase 2:
  // cheaper than keeping trials x d^3 doubles, and it balances the work) ----
  bool anyGaussian = false;
  for (const TpmModelLevels& ml : spec.models)
    anyGaussian = anyGaussian || ml.model == TpmNoiseModel::Gaussian;
  std::vector<std::array<int, 3>> normTasks;  // {model (-1: Gaussian), dim index, trial}
  for (int m = 0; m < M; ++m)
    if (spec.models[m].model != TpmNoiseModel::Gaussian)
      for (int di = 0; di < D; ++di) normTasks.push_back({m, di, 0});
  if (anyGaussian)
    for (int di = 0; di < D; ++di)
      for (int t = 0; t < T; ++t) normTasks.push_back({-1, di, t});
  std::stable_sort(normTasks.begin(), normTasks.end(), [&](const auto& a, const auto& b) {
    return (a[0] < 0) != (b[0] < 0) ? a[0] < 0 : spec.dims[a[1]] > spec.dims[b[1]];
  });
  std::vector<OperatorNormResult> fixedNorm(M * D), gaussianNorm(D * T);
  std::vector<Status> normStatus(normTasks.size());
  parallelFor(static_cast<int>(normTasks.size()), threads, feedback, [&](int i, int) {
    const auto [m, di, t] = normTasks[i];
    const int d = spec.dims[di];
    Result<OperatorNormResult> n = invalidArgument("unreachable");
    if (m < 0) {
      SeededRandom noiseRng(seedFor(1, d, t));
      const Tensor3 raw = tpmNoiseTensor(TpmNoiseModel::Gaussian, d, noiseRng);
      SeededRandom rng(seedFor(2, d, t));
      n = tensorOperatorNorm(raw, rng, spec.operatorNorm);
      if (n.ok()) gaussianNorm[di * T + t] = n.value();
    } else {
      const TpmNoiseModel model = spec.models[m].model;
      SeededRandom rng(seedFor(4 + static_cast<int>(model), d, 0));
      n = tensorOperatorNorm(TpmTensorOperator(model, d, 0.0, 1.0), rng, spec.operatorNorm);
      if (n.ok()) fixedNorm[m * D + di] = n.value();
    }
    if (!n.ok()) normStatus[i] = n.status();
  });
  if (isCanceled(feedback)) return cancelled();
  for (const Status& s : normStatus) DPLDA_RETURN_IF_ERROR(s);

  // ---- phase 2: one task per (model, d, level, trial) ----
  TpmNoiseResult result;
  result.spec = spec;
  result.threadsUsed = threads;
  std::vector<int> levelOffset(M + 1, 0);  // rows of model m start at levelOffset[m] * D * T
  for (int m = 0; m < M; ++m)
    levelOffset[m + 1] = levelOffset[m] + static_cast<int>(spec.models[m].sigmas.size());
  result.rows.resize(static_cast<std::size_t>(levelOffset[M]) * D * T);
  // Point (m, di, li) in the order of emptyTpmNoisePoints; its rows are pointIndex * T + t.
  auto pointIndex = [&](int m, int di, int li) {
    return static_cast<std::size_t>(levelOffset[m]) * D + static_cast<std::size_t>(di) * spec.models[m].sigmas.size() +
           li;
  };
  auto rowIndex = [&](int m, int di, int li, int t) { return pointIndex(m, di, li) * T + t; };
  std::vector<std::array<int, 4>> tasks;  // {model, dim index, level, trial}
  for (int m = 0; m < M; ++m)             // levels innermost: consecutive tasks share a noise tensor
    for (int di = 0; di < D; ++di)
      for (int t = 0; t < T; ++t)
        for (int li = 0; li < static_cast<int>(spec.models[m].sigmas.size()); ++li)
          tasks.push_back({m, di, li, t});
  // The costly tasks (dense Gaussian noise, large d) first, so the last ones are short.
  auto cost = [&](const std::array<int, 4>& x) {
    const double d = spec.dims[x[1]];
    return spec.models[x[0]].model == TpmNoiseModel::Gaussian ? d * d * d : d;
  };
  std::stable_sort(tasks.begin(), tasks.end(),
                   [&](const auto& a, const auto& b) { return cost(a) > cost(b); });
  std::vector<Status> taskStatus(tasks.size());
  std::atomic<long long> done{0};
  const bool inOrder = spec.criterion == TpmSuccessCriterion::ExtractionOrder;
  // Per worker, the Gaussian noise tensor last drawn, kept while consecutive tasks share it.
  struct CachedNoise {
    int d = -1, t = -1;
    Tensor3 tensor;
  };
  std::vector<CachedNoise> cache(threads);
  // The points, filled as their last trial finishes.
  result.points = emptyTpmNoisePoints(spec);
  std::vector<std::atomic<int>> pending(result.points.size());
  for (auto& p : pending) p.store(T);
  std::mutex listenerMutex;
  auto finishPoint = [&](int m, int di, int li) {
    TpmNoisePoint& p = result.points[pointIndex(m, di, li)];
    p.trials = T;
    for (int t = 0; t < T; ++t) p.failures += result.rows[rowIndex(m, di, li, t)].success ? 0 : 1;
    p.failureProbability = static_cast<double>(p.failures) / T;
    if (listener && listener->pointDone) {
      std::lock_guard<std::mutex> lock(listenerMutex);
      listener->pointDone(p);
    }
  };
  parallelFor(static_cast<int>(tasks.size()), threads, feedback, [&](int i, int worker) {
    const auto [m, di, li, t] = tasks[i];
    const auto t0 = Clock::now();
    const TpmNoiseModel model = spec.models[m].model;
    const int d = spec.dims[di];
    const OperatorNormResult& norm =
        model == TpmNoiseModel::Gaussian ? gaussianNorm[di * T + t] : fixedNorm[m * D + di];
    const Tensor3* dense = nullptr;
    if (model == TpmNoiseModel::Gaussian) {
      CachedNoise& c = cache[worker];
      if (c.d != d || c.t != t) {
        SeededRandom noiseRng(seedFor(1, d, t));
        c.tensor = tpmNoiseTensor(model, d, noiseRng);
        c.d = d;
        c.t = t;
      }
      dense = &c.tensor;
    }
    const Eigen::MatrixXd truth = Eigen::MatrixXd::Identity(d, 3);
    // The smallest overlap of the components found so far, by the criterion (the best partial
    // matching for BestMatching: necessary for a full one).
    auto overlapOf = [&](const Eigen::MatrixXd& found) {
      const int n = static_cast<int>(found.cols());
      if (inOrder) return (truth.leftCols(n).transpose() * found).diagonal().minCoeff();
      return bestMatchedMinimumOverlap(found, truth);
    };
    const ExtractionStopRule stop = [&](const Eigen::MatrixXd& found) {
      return overlapOf(found) < spec.successThreshold;
    };
    const double sigma = spec.models[m].sigmas[li];
    const TpmTensorOperator op(model, d, 1.0, sigma / norm.value, dense);
    SeededRandom init(seedFor(3, d, t));  // the same starts for every level and model
    auto pairs = RobustPowerMethod(spec.power).extractLeading(op, 3, init, stop);
    if (!pairs.ok()) {
      taskStatus[i] = pairs.status();
      return;
    }
    TpmNoiseRow& row = result.rows[rowIndex(m, di, li, t)];
    row.modelIndex = m;
    row.dimIndex = di;
    row.levelIndex = li;
    row.trial = t;
    row.d = d;
    row.sigma = sigma;
    row.rawOperatorNorm = norm.value;
    row.operatorNormConverged = norm.converged;
    row.componentsFound = static_cast<int>(pairs.value().found.cols());
    row.overlap = overlapOf(pairs.value().found);
    row.success = row.componentsFound == 3 && row.overlap >= spec.successThreshold;
    row.iterations = pairs.value().sorted.iterations;
    row.elapsedMs = msSince(t0);
    reportProgress(feedback, static_cast<double>(done.fetch_add(1) + 1) / static_cast<double>(tasks.size()));
    // acq_rel: the thread finishing a point's last trial sees every other trial's row.
    if (pending[pointIndex(m, di, li)].fetch_sub(1, std::memory_order_acq_rel) == 1) finishPoint(m, di, li);
  });
  if (isCanceled(feedback)) return cancelled();
  for (const Status& s : taskStatus) DPLDA_RETURN_IF_ERROR(s);

  result.elapsedMs = msSince(start);
  return result;
}

std::string tpmNoiseResultsCsv(const TpmNoiseResult& r) {
  std::ostringstream o;
  o << "model,d,sigma,trial,raw_operator_norm,operator_norm_converged,success,overlap,components_found,"
       "iterations\n";
  for (const TpmNoiseRow& row : r.rows) {
    o << tpmNoiseModelName(r.spec.models[row.modelIndex].model) << ',' << row.d << ','
      << csvNumberText(row.sigma) << ',' << row.trial << ',' << csvNumberText(row.rawOperatorNorm) << ','
      << (row.operatorNormConverged ? "true" : "false") << ',' << (row.success ? "true" : "false") << ','
      << csvNumberText(row.overlap) << ',' << row.componentsFound << ',' << row.iterations << '\n';
  }
  return o.str();
}

std::string tpmNoiseSummaryCsv(const TpmNoiseResult& r) {
  std::ostringstream o;
  o << "model,d,sigma,sigma_sqrt_d,sigma_d,sigma_ln_d,trials,failures,failure_probability\n";
  for (const TpmNoisePoint& p : r.points) {
    o << tpmNoiseModelName(r.spec.models[p.modelIndex].model) << ',' << p.d;
    for (NoiseScaling s : kNoiseScalings) o << ',' << csvNumberText(scaleNoiseLevel(p.sigma, p.d, s));
    o << ',' << p.trials << ',' << p.failures << ',' << csvNumberText(p.failureProbability) << '\n';
  }
  return o.str();
}

}  // namespace dplda
