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

// A pass whose lanes are small takes this many instead, so that up to 16 threads share it (with
// 4 lanes the whitened tensor pass stopped at 3.5x on 16 cores; issue 27 §3). Small: at most
// kWideLaneBytes of scratch per lane (NYT-sized, d = 20 000, k = 20: 6.5 MB). The count depends on
// the sizes only, never on the thread count.
inline constexpr int kWideLanes = 16;
inline constexpr double kWideLaneBytes = 8.0 * (1 << 20);
inline int laneCountFor(double bytesPerLane) { return bytesPerLane <= kWideLaneBytes ? kWideLanes : kLanes; }

// Scratch of one lane of the whitened tensor pass (moments.cpp), in bytes: the d x kp scatter rows,
// two d-vectors, the block's rows-by-pairs K beside its Y, HY and padded Y, and R (k x np).
inline double whitenedTensorLaneBytes(Eigen::Index d, Eigen::Index k) {
  const Eigen::Index kp = (k + 7) / 8 * 8, np = k * (k + 1) / 2;
  const double nb = static_cast<double>(std::min<Eigen::Index>(blockRows(np), 1024));
  return sizeof(double) * (static_cast<double>(d) * (kp + 2.0) + nb * (np + 3.0 * kp) + static_cast<double>(k) * np);
}

// A k³-sized accumulator (the whitened tensor's R, the clipped lanes' tensors) larger than this is
// kept once and shared by the threads instead of once per lane (issue 28).
inline constexpr double kSharedTensorBytes = 128.0 * (1 << 20);

// The whitened tensor pass's R (k x k(k+1)/2) is shared above kSharedTensorBytes (k >= 320), and
// the pass then runs one lane; else laneCountFor its lane's scratch.
inline bool whitenedTensorSharesR(Eigen::Index k) {
  return static_cast<double>(k) * static_cast<double>(k * (k + 1) / 2) * sizeof(double) > kSharedTensorBytes;
}
inline int whitenedTensorLanes(Eigen::Index d, Eigen::Index k) {
  return whitenedTensorSharesR(k) ? 1 : laneCountFor(whitenedTensorLaneBytes(d, k));
}

// The M̂2 product passes (second_moment_operator.cpp): at most kGramPassLanes lanes of documents,
// each holding d rows of B vectors and B sums, with B as large as keeps those rows (2 · d · B
// doubles) within kGramPassLaneDoubles (~640 KiB of the 1 MiB L2), 2 to 8.
inline constexpr Eigen::Index kGramPassLanes = 16;
inline constexpr Eigen::Index kGramPassLaneDoubles = 80000;
// The doubles all lanes of one pass hold at most (for the memory estimate).
inline double gramPassDoubles(Eigen::Index d) {
  return static_cast<double>(kGramPassLanes) * static_cast<double>(std::max<Eigen::Index>(4 * d, kGramPassLaneDoubles));
}

// Threads only pay off above ~1e6 multiply-adds; small corpora stay on the calling thread.
// An exception in a lane (std::bad_alloc) is rethrown on the calling thread (ParallelGuard).
template <class F>
void forEachLane(double work, F&& f, int lanes = kLanes) {
  ParallelGuard guard;
#pragma omp parallel for schedule(static, 1) if (work > 1e6)
  for (int lane = 0; lane < lanes; ++lane) guard.run([&] { f(lane); });
  guard.rethrow();
}

// dst[0..width) += a · src[0..width): rows padded to a multiple of 8 vectorise without a tail.
inline void addScaledRow(double* __restrict dst, double a, const double* __restrict src, Eigen::Index width) {
#pragma omp simd
  for (Eigen::Index t = 0; t < width; ++t) dst[t] += a * src[t];
}

}  // namespace dplda::moments_detail
