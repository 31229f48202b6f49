#pragma once
// A minimal parallel loop for the experiments (std::thread, no pool kept between calls).
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/common/feedback.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace dplda {

// The thread count to use: `requested` when > 0, else the hardware's (at least 1).
inline int resolveThreadCount(int requested) {
  return requested > 0 ? requested : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// Runs fn(index, worker) for every index in [0, count) on up to `threads` new threads (worker in
// [0, threads)), handing out indices in increasing order from a shared counter. Stops handing
// out indices once `feedback` is cancelled. The first exception thrown by fn is rethrown after
// every worker has stopped. Callers write results to per-index slots, so the outcome does not
// depend on scheduling.
//
// Each worker runs its linear algebra single-threaded (OpenMP teams of 1 inside Eigen and the
// moment passes): the parallelism is the workers', so `threads` is the number of cores used,
// and nested teams would oversubscribe the cores (on a busy machine OpenMP's spin-waiting
// then costs far more than it gains). The caller's own OpenMP setting is left untouched.
template <class F>
void parallelFor(int count, int threads, Feedback* feedback, F&& fn) {
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex errorMutex;
  auto work = [&](int worker) {
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    while (!isCanceled(feedback) && !failed.load()) {
      const int i = next.fetch_add(1);
      if (i >= count) return;
      try {
        fn(i, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!error) error = std::current_exception();
        failed.store(true);
        return;
      }
    }
  };
  const int n = std::max(1, std::min(threads, count));
  std::vector<std::thread> pool;
  for (int w = 0; w < n; ++w) pool.emplace_back(work, w);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace dplda
