#pragma once
// Internal to core/moments: how the moment passes split their work. A fixed number of lanes, each
// summing its own blocks in order, added in order: results are bit-identical for any thread count.
#include <Eigen/Core>
#include <algorithm>

#include "core/common/parallel_guard.h"

namespace dplda::moments_detail {

// Rows per dense block: bounds scratch memory to ~64 MiB whatever d is.
inline Eigen::Index blockRows(Eigen::Index width) {
  return std::clamp<Eigen::Index>((Eigen::Index{1} << 23) / std::max<Eigen::Index>(width, 1), 64, 4096);
}

// Work is split into a fixed number of lanes, each summing its own blocks in order, and the
// lanes are added in order: the result is bit-identical whatever the number of threads.
inline constexpr int kLanes = 4;

// A k³-sized accumulator (the whitened tensor's R, the clipped lanes' tensors) larger than this is
// kept once and shared by the threads instead of once per lane (issue 28).
inline constexpr double kSharedTensorBytes = 128.0 * (1 << 20);

// Threads only pay off above ~1e6 multiply-adds; small corpora stay on the calling thread.
// An exception in a lane (std::bad_alloc) is rethrown on the calling thread (ParallelGuard).
template <class F>
void forEachLane(double work, F&& f) {
  ParallelGuard guard;
#pragma omp parallel for schedule(static, 1) if (work > 1e6)
  for (int lane = 0; lane < kLanes; ++lane) guard.run([&] { f(lane); });
  guard.rethrow();
}

// dst[0..width) += a · src[0..width): rows padded to a multiple of 8 vectorise without a tail.
inline void addScaledRow(double* __restrict dst, double a, const double* __restrict src, Eigen::Index width) {
#pragma omp simd
  for (Eigen::Index t = 0; t < width; ++t) dst[t] += a * src[t];
}

}  // namespace dplda::moments_detail
