#pragma once
// An exception must not leave an OpenMP region: the runtime calls std::terminate, and the whole
// program aborts with "terminate called ..." (issue 28: std::bad_alloc in a worker thread). Each
// iteration of a parallel loop runs its body through guard.run(...), which keeps the first
// exception and skips the remaining iterations; after the region, guard.rethrow() hands it to
// the calling thread, where the command line reports it as a clean error.
#include <atomic>
#include <exception>
#include <mutex>

namespace dplda {

class ParallelGuard {
 public:
  template <class F>
  void run(F&& body) noexcept {
    if (m_failed.load(std::memory_order_relaxed)) return;
    try {
      body();
    } catch (...) {
      std::lock_guard<std::mutex> lock(m_mutex);
      if (!m_error) m_error = std::current_exception();
      m_failed.store(true);
    }
  }
  bool failed() const { return m_failed.load(); }
  void rethrow() const {
    if (m_error) std::rethrow_exception(m_error);
  }

 private:
  std::atomic<bool> m_failed{false};
  std::mutex m_mutex;
  std::exception_ptr m_error;
};

}  // namespace dplda
