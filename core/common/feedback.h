#pragma once
// Progress and cancellation passed into long computations (after QGIS's QgsFeedback):
// core polls isCanceled() between chunks and reports progress in [0, 1]. Thread-safe.
#include <atomic>
#include <functional>
#include <mutex>

namespace dplda {

class Feedback {
 public:
  using ProgressCallback = std::function<void(double)>;

  void cancel() { m_canceled.store(true, std::memory_order_relaxed); }
  bool isCanceled() const { return m_canceled.load(std::memory_order_relaxed); }

  // Reports progress; the callback is invoked at most every 1% to stay cheap.
  void setProgress(double fraction);
  double progress() const { return m_progress.load(std::memory_order_relaxed); }
  void setProgressCallback(ProgressCallback cb);

 private:
  std::atomic<bool> m_canceled{false};
  std::atomic<double> m_progress{0.0};
  std::atomic<double> m_lastReported{-1.0};
  std::mutex m_mutex;
  ProgressCallback m_callback;
};

// Null-safe helpers so core code can take an optional Feedback*.
inline bool isCanceled(const Feedback* fb) { return fb && fb->isCanceled(); }
inline void reportProgress(Feedback* fb, double fraction) {
  if (fb) fb->setProgress(fraction);
}

}  // namespace dplda
