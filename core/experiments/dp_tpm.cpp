#include "core/experiments/dp_tpm.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "core/eval/matching.h"
#include "core/experiments/parallel.h"
#include "core/experiments/sweep.h"
#include "core/experiments/table_text.h"
#include "core/tensor/low_rank_tensor.h"

namespace dplda {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

int defaultRestarts(int k) { return std::max(10, 2 * static_cast<int>(std::ceil(k * std::log(std::max(k, 1))))); }

double signAligned(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return std::min((a - b).norm(), (a + b).norm());
}

}  // namespace

Eigen::MatrixXd dpTpmBasis(int d, int k, double rho) {
  Eigen::MatrixXd F(d, k), E = Eigen::MatrixXd::Zero(d, k);
  for (int j = 0; j < k; ++j) {
    for (int i = 0; i < d; ++i)
      F(i, j) = std::sqrt(2.0 / d) * std::cos(std::numbers::pi * (i + 0.5) * (j + 1) / d);
    E(static_cast<int>((static_cast<long long>(j) * d) / k), j) = 1.0;  // spikes spread over the coordinates
  }
  const Eigen::MatrixXd mix = std::sqrt(1.0 - rho) * F + std::sqrt(rho) * E;
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(mix);
  Eigen::MatrixXd V = qr.householderQ() * Eigen::MatrixXd::Identity(d, k);
  for (int j = 0; j < k; ++j)  // QR's sign ambiguity: keep each column on the side of its mix column
    if (V.col(j).dot(mix.col(j)) < 0.0) V.col(j) = -V.col(j);
  return V;
}

double incoherence(const Eigen::MatrixXd& V) {
  return static_cast<double>(V.rows()) / static_cast<double>(V.cols()) * V.rowwise().squaredNorm().maxCoeff();
}

Status validateDpTpmSpec(const DpTpmSpec& s) {
  if (s.cases.empty()) return invalidArgument("dp-tpm: no case");
  for (const DpTpmCase& c : s.cases) {
    if (c.k < 1 || c.d < c.k || c.d > 100000)
      return invalidArgument("dp-tpm: case \"" + c.label + "\" needs 1 <= k <= d <= 100000, got d = " +
                             std::to_string(c.d) + ", k = " + std::to_string(c.k));
    if (!(c.coherence >= 0.0 && c.coherence <= 1.0))
      return invalidArgument("dp-tpm: case \"" + c.label + "\": the coherence must be in [0, 1], got " +
                             shortNumber(c.coherence));
    if (c.accountants.empty() || c.epsilons.empty())
      return invalidArgument("dp-tpm: case \"" + c.label + "\" has no accountant or no epsilon");
    for (double e : c.epsilons)
      if (!std::isfinite(e) || e <= 0.0)
        return invalidArgument("dp-tpm: epsilons must be finite and > 0, got " + shortNumber(e));
  }
  if (!(s.delta > 0.0 && s.delta < 1.0)) return invalidArgument("dp-tpm: delta must be in (0, 1), got " + shortNumber(s.delta));
  if (!std::isfinite(s.signal) || s.signal <= 0.0)
    return invalidArgument("dp-tpm: the signal lambda_1 must be finite and > 0, got " + shortNumber(s.signal));
  if (s.restarts < 0 || s.iterations < 1)
    return invalidArgument("dp-tpm: restarts must be >= 0 and iterations >= 1");
  if (s.trials < 1 || s.trials > 100000)
    return invalidArgument("dp-tpm: trials must be 1..100000, got " + std::to_string(s.trials));
  if (s.threads < 0) return invalidArgument("dp-tpm: threads must be >= 0, got " + std::to_string(s.threads));
  return Status::ok();
}

const DpTpmPoint& DpTpmResult::point(int c, int a, int e) const {
  for (const DpTpmPoint& p : points)
    if (p.caseIndex == c && p.accountantIndex == a && p.epsilonIndex == e) return p;
  throw std::out_of_range("no such dp-tpm point");
}

std::vector<DpTpmCaseInfo> dpTpmCaseInfos(const DpTpmSpec& spec) {
  std::vector<DpTpmCaseInfo> out;
  for (const DpTpmCase& dc : spec.cases)
    out.push_back({incoherence(dpTpmBasis(dc.d, dc.k, dc.coherence)),
                   spec.restarts > 0 ? spec.restarts : defaultRestarts(dc.k)});
  return out;
}

std::vector<DpTpmPoint> emptyDpTpmPoints(const DpTpmSpec& spec) {
  std::vector<DpTpmPoint> out;
  for (int c = 0; c < static_cast<int>(spec.cases.size()); ++c) {
    const DpTpmCase& dc = spec.cases[c];
    for (int a = 0; a < static_cast<int>(dc.accountants.size()); ++a)
      for (int e = 0; e < static_cast<int>(dc.epsilons.size()); ++e) {
        DpTpmPoint p;
        p.caseIndex = c;
        p.accountantIndex = a;
        p.epsilonIndex = e;
        p.epsilon = dc.epsilons[e];
        p.mu0 = p.multiplier = p.epsilonGaussian = p.epsilonAdvanced = p.epsilonZcdp = kNaN;
        p.topMedian = p.topLower = p.topUpper = p.meanMedian = p.meanLower = p.meanUpper = p.lambdaMedian = kNaN;
        out.push_back(p);
      }
  }
  return out;
}

Result<DpTpmResult> runDpTpm(const DpTpmSpec& spec, Feedback* feedback, const DpTpmListener* listener) {
  DPLDA_RETURN_IF_ERROR(validateDpTpmSpec(spec));
  const auto start = Clock::now();
  const int C = static_cast<int>(spec.cases.size());
  DpTpmResult result;
  result.spec = spec;
  result.threadsUsed = resolveThreadCount(spec.threads);
  result.points = emptyDpTpmPoints(spec);
  // Per case: the tensor, and where its points start.
  std::vector<LowRankTensorOperator> tensors;
  std::vector<std::size_t> firstPoint(C + 1, 0);
  for (int c = 0; c < C; ++c) {
    const DpTpmCase& dc = spec.cases[c];
    const Eigen::MatrixXd V = dpTpmBasis(dc.d, dc.k, dc.coherence);
    const Eigen::VectorXd lambda =
        dc.k == 1 ? Eigen::VectorXd::Constant(1, spec.signal)
                  : Eigen::VectorXd(Eigen::VectorXd::LinSpaced(dc.k, spec.signal, 0.5 * spec.signal));
    tensors.emplace_back(lambda, V);
    firstPoint[c + 1] = firstPoint[c] + dc.accountants.size() * dc.epsilons.size();
  }
  result.cases = dpTpmCaseInfos(spec);
  // Calibrations are deterministic: once per point, before the trials.
  const int T = spec.trials;
  std::vector<double> multipliers(result.points.size());
  for (std::size_t i = 0; i < result.points.size(); ++i) {
    DpTpmPoint& p = result.points[i];
    const DpTpmCase& dc = spec.cases[p.caseIndex];
    const TpmQueryCount q = tpmQueryCount(dc.k, result.cases[p.caseIndex].restarts, spec.iterations, dc.d);
    auto cal = calibrateTpm(dc.accountants[p.accountantIndex], p.epsilon, spec.delta, q);
    if (!cal.ok()) return Status(cal.status().code(), "dp-tpm, case \"" + dc.label + "\": " + cal.status().message());
    multipliers[i] = cal->multiplier;
    p.mu0 = result.cases[p.caseIndex].mu0;
    p.multiplier = cal->multiplier;
    p.epsilonGaussian = cal->account.epsilonGaussian;
    p.epsilonAdvanced = cal->account.epsilonAdvanced;
    p.epsilonZcdp = cal->account.epsilonZcdp;
    p.queries = q.total();
  }
  result.rows.resize(result.points.size() * T);
  std::vector<Status> status(result.rows.size());
  std::vector<std::atomic<int>> pending(result.points.size());
  for (auto& x : pending) x.store(T);
  std::mutex listenerMutex;
  std::atomic<long long> done{0};
  auto finish = [&](std::size_t pi) {
    DpTpmPoint& p = result.points[pi];
    std::vector<double> top, mean, lam;
    for (int t = 0; t < T; ++t) {
      const DpTpmRow& r = result.rows[pi * T + t];
      top.push_back(r.topError);
      mean.push_back(r.meanError);
      lam.push_back(r.lambdaError);
      p.recovered += r.topError < spec.successThreshold ? 1 : 0;
    }
    const QuantileSummary st = summarize(top, 0.1, 0.9), sm = summarize(mean, 0.1, 0.9);
    p.trials = T;
    p.topMedian = st.median;
    p.topLower = st.lower;
    p.topUpper = st.upper;
    p.meanMedian = sm.median;
    p.meanLower = sm.lower;
    p.meanUpper = sm.upper;
    p.lambdaMedian = quantile(lam, 0.5);
    if (listener && listener->pointDone) {
      std::lock_guard<std::mutex> lock(listenerMutex);
      listener->pointDone(p);
    }
  };
  // The costly tasks first (draws grow with d k L R), so the last ones are short.
  std::vector<std::size_t> order(result.rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto cost = [&](std::size_t row) {
    const DpTpmCase& dc = spec.cases[result.points[row / T].caseIndex];
    return static_cast<double>(dc.d) * dc.k * result.cases[result.points[row / T].caseIndex].restarts;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });
  parallelFor(static_cast<int>(order.size()), result.threadsUsed, feedback, [&](int task, int) {
    const std::size_t row = order[task], pi = row / T;
    const int t = static_cast<int>(row % T);
    const DpTpmPoint& p = result.points[pi];
    const DpTpmCase& dc = spec.cases[p.caseIndex];
    const auto t0 = Clock::now();
    const std::uint64_t base = deriveSeed(spec.seed, static_cast<std::uint64_t>(p.caseIndex) * 100003 + t);
    SeededRandom init(deriveSeed(base, 1)), noise(deriveSeed(base, 2));
    PrivatePowerOptions o;
    o.components = dc.k;  // a rank-k tensor in R^d: k components, as calibrated
    o.restarts = result.cases[p.caseIndex].restarts;
    o.iterations = spec.iterations;
    auto run = noisyRobustPowerMethod(tensors[p.caseIndex], o, multipliers[pi], TpmSensitivity::entryLevel(), init,
                                      noise);
    if (!run.ok()) {
      status[row] = run.status();
      return;
    }
    const TensorEigenpairs& td = run.value().pairs;
    const LowRankTensorOperator& truth = tensors[p.caseIndex];
    DpTpmRow& r = result.rows[row];
    r.caseIndex = p.caseIndex;
    r.accountantIndex = p.accountantIndex;
    r.epsilonIndex = p.epsilonIndex;
    r.trial = t;
    r.epsilon = p.epsilon;
    r.topError = signAligned(td.V.col(0), truth.V().col(0));
    r.lambdaError = std::abs(td.lambda[0] - truth.lambda()[0]) / truth.lambda()[0];
    Eigen::MatrixXd dist(dc.k, dc.k);
    for (int i = 0; i < dc.k; ++i)
      for (int j = 0; j < dc.k; ++j) dist(i, j) = signAligned(truth.V().col(i), td.V.col(j));
    const std::vector<int> match = hungarianAssignment(dist);
    double sum = 0.0;
    for (int i = 0; i < dc.k; ++i) sum += match.empty() ? kNaN : dist(i, match[i]);
    r.meanError = sum / dc.k;
    r.elapsedMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    reportProgress(feedback, static_cast<double>(done.fetch_add(1) + 1) / static_cast<double>(order.size()));
    if (pending[pi].fetch_sub(1, std::memory_order_acq_rel) == 1) finish(pi);
  });
  if (isCanceled(feedback)) return cancelled();
  for (const Status& s : status) DPLDA_RETURN_IF_ERROR(s);
  result.elapsedMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return result;
}

double dpTpmRecoveryEpsilon(const DpTpmResult& r, int c, int a) {
  const std::vector<double>& eps = r.spec.cases[c].epsilons;
  const double t = r.spec.successThreshold;
  int e = static_cast<int>(eps.size()) - 1;
  if (!(r.point(c, a, e).topMedian < t)) return kNaN;
  while (e > 0 && r.point(c, a, e - 1).topMedian < t) --e;  // the last run of recovered points
  if (e == 0) return eps[0];
  const double hi = r.point(c, a, e - 1).topMedian, lo = r.point(c, a, e).topMedian;  // hi >= t > lo
  const double f = std::isfinite(hi) && hi > lo ? (hi - t) / (hi - lo) : 1.0;
  return std::exp(std::log(eps[e - 1]) + f * (std::log(eps[e]) - std::log(eps[e - 1])));
}

std::string dpTpmResultsCsv(const DpTpmResult& r) {
  std::ostringstream o;
  o << "group,case,d,k,coherence,mu0,accountant,epsilon,trial,top_error,mean_error,lambda_error\n";
  for (const DpTpmRow& row : r.rows) {
    const DpTpmCase& c = r.spec.cases[row.caseIndex];
    o << csvCell(c.group) << ',' << csvCell(c.label) << ',' << c.d << ',' << c.k << ',' << csvNumberText(c.coherence)
      << ',' << csvNumberText(r.cases[row.caseIndex].mu0) << ',' << tpmAccountantName(c.accountants[row.accountantIndex])
      << ',' << csvNumberText(row.epsilon) << ',' << row.trial << ',' << csvNumberText(row.topError) << ','
      << csvNumberText(row.meanError) << ',' << csvNumberText(row.lambdaError) << '\n';
  }
  return o.str();
}

std::string dpTpmSummaryCsv(const DpTpmResult& r) {
  std::ostringstream o;
  o << "group,case,d,k,coherence,mu0,accountant,epsilon,queries,multiplier,epsilon_gaussian,epsilon_advanced,"
       "epsilon_zcdp,trials,recovered,top_median,top_p10,top_p90,mean_median,mean_p10,mean_p90,lambda_median\n";
  for (const DpTpmPoint& p : r.points) {
    const DpTpmCase& c = r.spec.cases[p.caseIndex];
    o << csvCell(c.group) << ',' << csvCell(c.label) << ',' << c.d << ',' << c.k << ',' << csvNumberText(c.coherence)
      << ',' << csvNumberText(p.mu0) << ',' << tpmAccountantName(c.accountants[p.accountantIndex]) << ','
      << csvNumberText(p.epsilon) << ',' << p.queries << ',' << csvNumberText(p.multiplier) << ','
      << csvNumberText(p.epsilonGaussian) << ',' << csvOptional(p.epsilonAdvanced) << ','
      << csvNumberText(p.epsilonZcdp) << ',' << p.trials << ',' << p.recovered << ',' << csvNumberText(p.topMedian)
      << ',' << csvNumberText(p.topLower) << ',' << csvNumberText(p.topUpper) << ',' << csvNumberText(p.meanMedian)
      << ',' << csvNumberText(p.meanLower) << ',' << csvNumberText(p.meanUpper) << ','
      << csvNumberText(p.lambdaMedian) << '\n';
  }
  return o.str();
}

}  // namespace dplda
