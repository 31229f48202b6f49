#pragma once
// Internal to core/moments: how the moment passes split their work. A fixed number of lanes, each
// summing its own blocks in order, added in order: results are bit-identical for any thread count.
#include <Eigen/Core>
#include <algorithm>

namespace dplda::moments_detail {

// Rows per dense block: bounds scratch memory to ~64 MiB whatever d is.
inline Eigen::Index blockRows(Eigen::Index width) {
  return std::clamp<Eigen::Index>((Eigen::Index{1} << 23) / std::max<Eigen::Index>(width, 1), 64, 4096);
}

// Work is split into a fixed number of lanes, each summing its own blocks in order, and the
// lanes are added in order: the result is bit-identical whatever the number of threads.
inline constexpr int kLanes = 4;

// Threads only pay off above ~1e6 multiply-adds; small corpora stay on the calling thread.
template <class F>
void forEachLane(double work, F&& f) {
#pragma omp parallel for schedule(static, 1) if (work > 1e6)
  for (int lane = 0; lane < kLanes; ++lane) f(lane);
}

// dst[0..width) += a · src[0..width): rows padded to a multiple of 8 vectorise without a tail.
inline void addScaledRow(double* __restrict dst, double a, const double* __restrict src, Eigen::Index width) {
#pragma omp simd
  for (Eigen::Index t = 0; t < width; ++t) dst[t] += a * src[t];
}

}  // namespace dplda::moments_detail
