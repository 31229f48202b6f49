#include "core/experiments/online_tpm.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>

#include "core/eval/matching.h"
#include "core/eval/metrics.h"
#include "core/experiments/parallel.h"
#include "core/experiments/sweep.h"
#include "core/experiments/table_text.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/tensor/online_power_method.h"
#include "core/whitening/unwhitening.h"

namespace dplda {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Least-squares slope of y against x (both already logged); NaN below two points.
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  if (n < 2) return kNaN;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : kNaN;
}

struct TopicScore {
  double l2 = kNaN, alpha = kNaN;
};

TopicScore scoreTopics(const TensorEigenpairs& td, const Whitening& w, double alpha0, const LdaModel& truth) {
  auto u = unwhiten(td, w.unwhitening, alpha0);
  if (!u.ok()) return {};
  auto out = projectTopicsToSimplex(u.value());
  if (!out.ok() || !validateTopicComparison(truth.topics, truth.alpha, out->topics, out->alpha).isOk()) return {};
  const TopicErrors e = compareTopics(truth.topics, truth.alpha, out->topics, out->alpha);
  return {e.l2Mean, e.alphaError};
}

}  // namespace

double finiteBatchFactor(int n, int N) { return std::sqrt(std::max(0.0, 1.0 / n - 1.0 / N)); }

Status validateOnlineTpmSpec(const OnlineTpmSpec& s) {
  DPLDA_RETURN_IF_ERROR(validateGeneratorParams(s.corpus));
  if (s.batchSizes.empty()) return invalidArgument("online-tpm: no batch size n");
  for (int n : s.batchSizes)
    if (n < 3 || n > s.corpus.docCount)
      return invalidArgument("online-tpm: batch sizes must be in 3..N = " + std::to_string(s.corpus.docCount) +
                             ", got " + std::to_string(n));
  if (s.iterations < 1 || s.restarts < 0) return invalidArgument("online-tpm: iterations must be >= 1, restarts >= 0");
  if (s.trials < 1 || s.trials > 100000)
    return invalidArgument("online-tpm: trials must be 1..100000, got " + std::to_string(s.trials));
  if (s.threads < 0) return invalidArgument("online-tpm: threads must be >= 0, got " + std::to_string(s.threads));
  return Status::ok();
}

std::vector<OnlineTpmPoint> emptyOnlineTpmPoints(const OnlineTpmSpec& spec, int docCount) {
  std::vector<OnlineTpmPoint> out;
  const int k = spec.corpus.topicCount;
  for (int b = 0; b < static_cast<int>(spec.batchSizes.size()); ++b) {
    OnlineTpmPoint p;
    p.batchIndex = b;
    p.n = spec.batchSizes[b];
    p.samples = static_cast<long long>(p.n) * spec.iterations * k;
    p.passes = static_cast<double>(p.samples) / docCount;
    p.tensorMedian = p.tensorLower = p.tensorUpper = p.topicMedian = p.topicLower = p.topicUpper = kNaN;
    out.push_back(p);
  }
  return out;
}

Result<OnlineTpmResult> runOnlineTpm(const OnlineTpmSpec& spec, Feedback* feedback, const OnlineTpmListener* listener) {
  DPLDA_RETURN_IF_ERROR(validateOnlineTpmSpec(spec));
  const auto start = Clock::now();
  GeneratorParams g = spec.corpus;
  g.seed = deriveSeed(spec.seed, 0);
  auto drawn = generateLdaCorpus(g, feedback);
  if (!drawn.ok()) return drawn.status();
  const auto corpus = std::make_shared<const Corpus>(std::move(drawn.value().corpus));
  const LdaModel truth = drawn.value().truth;
  const int k = g.topicCount, N = corpus->docCount();
  const double alpha0 = g.alpha0;

  // The noise-free stages and the batch reference.
  SpectralPipeline pipeline;
  pipeline.setCorpus(corpus);
  SpectralOptions so;
  so.topicCount = k;
  so.alpha0 = alpha0;
  pipeline.setOptions(so);
  auto model = pipeline.runThrough(PipelineStage::Tensor, feedback);
  if (!model.ok()) return model.status();
  const Whitening& w = model.value().whitening;
  OnlineTpmResult result;
  result.spec = spec;
  result.docCount = N;
  result.nnz = corpus->nnz();
  result.restarts = spec.restarts > 0 ? spec.restarts
                                      : std::max(10, 2 * static_cast<int>(std::ceil(k * std::log(std::max(k, 1)))));
  SeededRandom batchInit(deriveSeed(spec.seed, 1));
  auto batch = RobustPowerMethod({result.restarts, 100, 1e-10}).decompose(model.value().tensor, batchInit, feedback);
  if (!batch.ok()) return batch.status();
  const Eigen::MatrixXd& Vb = batch.value().V;
  const TopicScore ref = scoreTopics(batch.value(), w, alpha0, truth);
  result.batchTopicErrorL2 = ref.l2;
  result.batchAlphaError = ref.alpha;

  const int B = static_cast<int>(spec.batchSizes.size()), T = spec.trials;
  result.threadsUsed = resolveThreadCount(spec.threads);
  result.points = emptyOnlineTpmPoints(spec, N);
  result.rows.resize(static_cast<std::size_t>(B) * T);
  std::vector<Status> status(result.rows.size());
  std::vector<std::atomic<int>> pending(B);
  for (auto& x : pending) x.store(T);
  std::mutex listenerMutex;
  std::atomic<long long> done{0};
  std::vector<int> order(result.rows.size());
  for (int i = 0; i < static_cast<int>(order.size()); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),  // the largest batches first
                   [&](int a, int b) { return spec.batchSizes[a / T] > spec.batchSizes[b / T]; });
  parallelFor(static_cast<int>(order.size()), result.threadsUsed, feedback, [&](int task, int) {
    const int row = order[task], bi = row / T, t = row % T;
    const auto t0 = Clock::now();
    OnlinePowerOptions o;
    o.restarts = result.restarts;
    o.iterations = spec.iterations;
    o.batchSize = spec.batchSizes[bi];
    o.orderSeed = deriveSeed(spec.seed, 2000 + static_cast<std::uint64_t>(t));
    SeededRandom init(deriveSeed(spec.seed, 1000 + static_cast<std::uint64_t>(t)));
    auto on = onlineRobustPowerMethod(*corpus, alpha0, w.W, o, init);
    if (!on.ok()) {
      status[row] = on.status();
      return;
    }
    const TensorEigenpairs& td = on.value().pairs;
    OnlineTpmRow& r = result.rows[row];
    r.batchIndex = bi;
    r.trial = t;
    r.n = o.batchSize;
    r.samples = on.value().samplesUsed;
    r.passes = on.value().passes;
    const std::vector<int> match = matchTopics(Vb, td.V);
    double sum = 0.0, worst = 0.0;
    for (int i = 0; i < k; ++i) {
      const double e = match.empty() ? kNaN : (Vb.col(i) - td.V.col(match[i])).norm();
      sum += e;
      worst = std::max(worst, e);
    }
    r.tensorError = sum / k;
    r.tensorErrorMax = worst;
    const TopicScore s = scoreTopics(td, w, alpha0, truth);
    r.topicErrorL2 = s.l2;
    r.alphaError = s.alpha;
    r.elapsedMs = msSince(t0);
    reportProgress(feedback, static_cast<double>(done.fetch_add(1) + 1) / static_cast<double>(order.size()));
    if (pending[bi].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      OnlineTpmPoint& p = result.points[bi];
      std::vector<double> te, to;
      for (int tt = 0; tt < T; ++tt) {
        te.push_back(result.rows[bi * T + tt].tensorError);
        to.push_back(result.rows[bi * T + tt].topicErrorL2);
      }
      const QuantileSummary a = summarize(te, 0.1, 0.9), b = summarize(to, 0.1, 0.9);
      p.trials = T;
      p.tensorMedian = a.median;
      p.tensorLower = a.lower;
      p.tensorUpper = a.upper;
      p.topicMedian = b.median;
      p.topicLower = b.lower;
      p.topicUpper = b.upper;
      if (listener && listener->pointDone) {
        std::lock_guard<std::mutex> lock(listenerMutex);
        listener->pointDone(p);
      }
    }
  });
  if (isCanceled(feedback)) return cancelled();
  for (const Status& s : status) DPLDA_RETURN_IF_ERROR(s);

  std::vector<double> xn, yn, xf, yf;
  for (const OnlineTpmPoint& p : result.points) {
    if (!(p.tensorMedian > 0.0) || !(p.tensorUpper < kOnlineConvergedError)) continue;
    if (result.firstConverged < 0 || p.n < result.points[result.firstConverged].n) result.firstConverged = p.batchIndex;
    if (p.n * 10 <= N) {
      xn.push_back(std::log(static_cast<double>(p.n)));
      yn.push_back(std::log(p.tensorMedian));
    }
    if (p.n < N) {
      xf.push_back(std::log(finiteBatchFactor(p.n, N)));
      yf.push_back(std::log(p.tensorMedian));
    }
  }
  result.slopeVsN = slope(xn, yn);
  result.slopeVsFinite = slope(xf, yf);
  double logScale = 0.0;
  for (std::size_t i = 0; i < xf.size(); ++i) logScale += yf[i] - xf[i];
  result.finiteScale = xf.empty() ? kNaN : std::exp(logScale / static_cast<double>(xf.size()));
  result.elapsedMs = msSince(start);
  return result;
}

std::string onlineTpmResultsCsv(const OnlineTpmResult& r) {
  std::ostringstream o;
  o << "n,trial,samples,passes,tensor_error_mean,tensor_error_max,topic_error_l2,alpha_error\n";
  for (const OnlineTpmRow& row : r.rows)
    o << row.n << ',' << row.trial << ',' << row.samples << ',' << csvNumberText(row.passes) << ','
      << csvNumberText(row.tensorError) << ',' << csvNumberText(row.tensorErrorMax) << ','
      << csvOptional(row.topicErrorL2) << ',' << csvOptional(row.alphaError) << '\n';
  return o.str();
}

std::string onlineTpmSummaryCsv(const OnlineTpmResult& r) {
  std::ostringstream o;
  o << "n,samples,passes,trials,tensor_median,tensor_p10,tensor_p90,finite_batch_factor,topic_l2_median,topic_l2_p10,"
       "topic_l2_p90,batch_topic_l2\n";
  for (const OnlineTpmPoint& p : r.points)
    o << p.n << ',' << p.samples << ',' << csvNumberText(p.passes) << ',' << p.trials << ','
      << csvNumberText(p.tensorMedian) << ',' << csvNumberText(p.tensorLower) << ',' << csvNumberText(p.tensorUpper)
      << ',' << csvNumberText(finiteBatchFactor(p.n, r.docCount)) << ',' << csvOptional(p.topicMedian) << ','
      << csvOptional(p.topicLower) << ',' << csvOptional(p.topicUpper) << ',' << csvOptional(r.batchTopicErrorL2)
      << '\n';
  return o.str();
}

}  // namespace dplda
