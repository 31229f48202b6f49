#include "core/common/feedback.h"

#include <algorithm>
#include <cmath>

namespace dplda {

void Feedback::setProgress(double fraction) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  m_progress.store(fraction, std::memory_order_relaxed);
  double last = m_lastReported.load(std::memory_order_relaxed);
  if (fraction < 1.0 && std::abs(fraction - last) < 0.01) return;
  m_lastReported.store(fraction, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_callback) m_callback(fraction);
}

void Feedback::setProgressCallback(ProgressCallback cb) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_callback = std::move(cb);
}

}  // namespace dplda
