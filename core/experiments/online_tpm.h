#pragma once
// The online-tpm experiment (issue 12, seed 004 §3): the online robust tensor power method
// (Algorithm 2) on a synthetic LDA corpus, its recovery error against the documents per step n
// (and the passes over the corpus), with the batch robust method on the whole corpus as the
// reference. Corollary 3.1 predicts an error falling like 1/√n; on a finite corpus of N
// documents read without replacement the batch sampling error scales like √(1/n − 1/N), which
// is the curve the experiment fits and draws.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/synthetic_generator.h"

namespace dplda {

struct OnlineTpmSpec {
  GeneratorParams corpus;      // its seed is replaced by one derived from `seed`
  std::vector<int> batchSizes;  // n, each in 3..N
  int iterations = 30;          // R
  int restarts = 0;             // L, 0 = the default max(10, 2⌈k ln k⌉)
  int trials = 5;
  std::uint64_t seed = 1;
  int threads = 0;  // 0: all cores
};
Status validateOnlineTpmSpec(const OnlineTpmSpec& spec);

struct OnlineTpmRow {
  int batchIndex = 0, trial = 0, n = 0;
  long long samples = 0;  // n R k
  double passes = 0.0;    // samples / N
  double tensorError = 0.0, tensorErrorMax = 0.0;  // matched ‖v̂ − v_batch‖, mean and max over components
  double topicErrorL2 = 0.0, alphaError = 0.0;     // the unwhitened, projected topics against the truth
  double elapsedMs = 0.0;
};

struct OnlineTpmPoint {
  int batchIndex = 0, n = 0;
  long long samples = 0;
  double passes = 0.0;
  int trials = 0;
  double tensorMedian = 0.0, tensorLower = 0.0, tensorUpper = 0.0;  // median, 10% and 90% quantiles
  double topicMedian = 0.0, topicLower = 0.0, topicUpper = 0.0;
};

struct OnlineTpmResult {
  OnlineTpmSpec spec;
  int docCount = 0;
  long long nnz = 0;
  int restarts = 0;
  std::vector<OnlineTpmRow> rows;      // ordered n, trial
  std::vector<OnlineTpmPoint> points;  // ordered n
  // The reference: the batch robust method (same L, R = 100 with early stop) on T̂ of the corpus.
  double batchTopicErrorL2 = 0.0, batchAlphaError = 0.0;
  // Least-squares slopes of log(median tensor error) over the converged points (90% quantile of
  // the tensor error below kOnlineConvergedError: below that n some trials lock onto wrong
  // components, a failure regime Corollary 3.1 says nothing about): against log n over n <= N/10
  // (Corollary 3.1: −1/2), and against log √(1/n − 1/N) over n < N (1 when the finite-corpus form
  // holds), with the scale c of the fitted curve c √(1/n − 1/N). NaN with fewer than two points.
  double slopeVsN = 0.0, slopeVsFinite = 0.0, finiteScale = 0.0;
  int firstConverged = -1;  // index of the smallest converged n (-1: none)
  int threadsUsed = 1;
  double elapsedMs = 0.0;
};

inline constexpr double kOnlineConvergedError = 0.1;

std::vector<OnlineTpmPoint> emptyOnlineTpmPoints(const OnlineTpmSpec& spec, int docCount);

struct OnlineTpmListener {
  std::function<void(const OnlineTpmPoint& point)> pointDone;  // worker threads, never two at once
};

// Seeds: the corpus from deriveSeed(seed, 0); trial t's starts and document order from seeds
// derived from (seed, t), shared by every n (common random numbers); thread-count independent.
Result<OnlineTpmResult> runOnlineTpm(const OnlineTpmSpec& spec, Feedback* feedback = nullptr,
                                     const OnlineTpmListener* listener = nullptr);

// √(1/n − 1/N): the sampling error of a batch of n of N documents, relative to the whole corpus.
double finiteBatchFactor(int n, int N);

std::string onlineTpmResultsCsv(const OnlineTpmResult& result);  // one row per (n, trial)
std::string onlineTpmSummaryCsv(const OnlineTpmResult& result);  // one row per n

}  // namespace dplda
