#include "core/pipeline/memory_estimate.h"

#include <algorithm>
#include <cmath>

#include "core/common/memory_budget.h"
#include "core/moments/clipped_moments.h"
#include "core/moments/moment_lanes.h"
#include "core/moments/moments.h"
#include "core/tensor/decomposer.h"
#include "core/whitening/whitening.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace dplda {

namespace {

int threadCount() {
#ifdef _OPENMP
  return std::max(1, omp_get_max_threads());
#else
  return 1;
#endif
}

// The eigen step's rule (whitening.cpp): the full dense decomposition up to kDenseEigenLimit.
bool denseEigen(int d, int k) { return d <= kDenseEigenLimit || k + 2 >= d; }

std::string size3(int k) { return std::to_string(k) + " x " + std::to_string(k) + " x " + std::to_string(k); }

}  // namespace

SpectralMemory estimateSpectralMemory(int vocabSize, int topicCount, const SpectralOptions& o) {
  const double d = vocabSize, k = topicCount, kp = std::ceil(k / 8.0) * 8.0;
  const double cube = k * k * k;  // doubles of one T̂
  const double threads = threadCount();
  const bool online = o.decomposer == "online";
  // For the whole run: W, W⁺, the topics (d x k each), T̂ kept by the pipeline and in the model
  // it returns (an online fit never forms T̂).
  const double lasting = 3.0 * d * k + (online ? 0.0 : 2.0 * cube);
  // The eigen step: M̂2 dense at small d, else the block eigensolver's d x O(k) bases and the lanes
  // of its product passes.
  const double eigen = denseEigen(vocabSize, topicCount)
                           ? 3.0 * d * d
                           : d * (8.0 * k + 8.0) + moments_detail::gramPassDoubles(vocabSize);
  // The whitened tensor pass (moments.cpp): per lane the d x kp scatter rows and R (k x np) unless
  // R is shared; the rows-by-pairs block K; W padded; then T̂ assembled beside R.
  const double lanes = moments_detail::whitenedTensorLanes(vocabSize, topicCount);
  double tensorPass = lanes * moments_detail::whitenedTensorLaneBytes(vocabSize, topicCount) / sizeof(double) +
                      d * kp + cube;
  if (o.clip.enabled) {  // clipped_moments.cpp: its lanes' tensors and blocks
    const ClippedWhitenedBuffers clipped = clippedWhitenedBuffers(topicCount);
    tensorPass = std::max(tensorPass, clipped.lanes * clipped.doubles + cube);
  }
  if (online) tensorPass = moments_detail::kLanes * (d * k + 2.0 * d) + d * k;
  // The decomposer: a deflated working copy of T̂ and its contractions, at most 64 MiB of
  // products per thread (tensor3.cpp), over L = 2⌈k ln k⌉ starts.
  const double starts = o.power.restarts > 0 ? o.power.restarts : defaultPowerRestarts(topicCount);
  const double decompose =
      online ? 0.0 : cube + threads * std::min(8388608.0, k * k * starts / 2.0) + 4.0 * k * starts;
  SpectralMemory m;
  m.bytes = sizeof(double) * (lasting + std::max({eigen, tensorPass, decompose}));
  const double cubeBytes = cube * sizeof(double);
  if (!online && cubeBytes * 4.0 >= m.bytes) {
    m.largest = "the " + size3(topicCount) + " whitened tensor (" + memoryText(cubeBytes) +
                " each: the one the pipeline keeps, the model's, the decomposer's deflated copy and the pass that "
                "forms it)";
  } else if (eigen >= tensorPass && eigen >= decompose) {
    m.largest = denseEigen(vocabSize, topicCount)
                    ? "the dense " + std::to_string(vocabSize) + " x " + std::to_string(vocabSize) + " second moment"
                    : "the eigensolver's " + std::to_string(vocabSize) + " x O(k) bases";
  } else {
    m.largest = "the moment pass over " + std::to_string(vocabSize) + " words (" +
                std::to_string(static_cast<int>(lanes)) + " lanes of " + std::to_string(vocabSize) + " x " +
                std::to_string(topicCount) + " accumulators)";
  }
  return m;
}

SpectralMemory corpusPassMemory(const Corpus& corpus, const SpectralOptions& o) {
  const double N = corpus.docCount(), nnz = static_cast<double>(corpus.nnz());
  // w_n (8 bytes), and three clipping scales when clipping is on.
  const double perDocument = N * sizeof(double) * (o.clip.enabled ? 4.0 : 1.0);
  SpectralMemory m;
  // SecondMomentOperator::packCounts' rule (a streamed corpus up to kPackedStreamedBytes).
  const bool packed = corpus.vocabSize() <= 65536 && nnz >= SecondMomentOperator::kPackedCountsMinNonZeros &&
                      !denseEigen(corpus.vocabSize(), o.topicCount) &&
                      (!corpus.streamed() || 4.0 * nnz <= SecondMomentOperator::kPackedStreamedBytes);
  if (corpus.streamed() && !packed) {
    // Each thread maps one block (8 bytes per count) while it reads it; the pages go after.
    m.bytes = perDocument + threadCount() * static_cast<double>(kStreamBlockEntries) * 8.0;
    m.largest = "the per-document weights and one block of the cache per thread (streamed)";
    return m;
  }
  m.bytes = perDocument + (packed ? 4.0 * nnz : 0.0);
  m.largest = packed ? "the eigen step's packed copy of the " + std::to_string(corpus.nnz()) + " counts (4 bytes each)"
                     : "the per-document weights";
  return m;
}

SpectralMemory privateReleaseMemory(int vocabSize, int topicCount, const PrivacyOptions& privacy) {
  SpectralMemory m;
  if (privacy.mechanism == Mechanism::Laplace && contains(privacy.edges, 3)) {
    const double d = vocabSize, k = topicCount;
    m.bytes = sizeof(double) * (d * d * d + d * d * k);  // the noise tensor, then its first contraction with W
    m.largest = "Laplace noise on M3, drawn on the explicit " + size3(vocabSize) + " tensor (" +
                memoryText(sizeof(double) * d * d * d) + ")";
  }
  return m;
}

Status checkSpectralMemory(const SpectralOptions& o, const Corpus& corpus, const PrivacyOptions* privacy,
                           const std::string& topicsName) {
  const int d = corpus.vocabSize(), k = o.topicCount;
  SpectralMemory fit = estimateSpectralMemory(d, k, o);
  const SpectralMemory passes = corpusPassMemory(corpus, o);
  if (passes.bytes > fit.bytes) fit.largest = passes.largest;
  fit.bytes += passes.bytes;
  const SpectralMemory release = privacy ? privateReleaseMemory(d, k, *privacy) : SpectralMemory{};
  const Result<MemoryBudget> budget = memoryBudget();
  if (!budget.ok()) return budget.status();
  const double available = budget->bytes;
  const double total = fit.bytes + release.bytes;
  if (total <= available) return Status::ok();
  const std::string needs = " needs about " + memoryText(total) + " (estimated) for ";
  if (release.bytes >= fit.bytes) {  // fewer topics do not help: the release's size is set by d
    return Status(StatusCode::ResourceLimit, "this private run" + needs + release.largest + " beside the fit (" + memoryText(fit.bytes) +
                                                 "); this process can allocate " + budgetText(budget.value()) +
                                                 ": use a Gaussian mechanism, whose M3 noise is drawn in k dimensions");
  }
  // The largest k that fits (the estimate grows with k).
  int lo = 0, hi = k;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    const double bytes = estimateSpectralMemory(d, mid, o).bytes + passes.bytes +
                         (privacy ? privateReleaseMemory(d, mid, *privacy).bytes : 0.0);
    (bytes <= available ? lo : hi) = mid;
  }
  return Status(StatusCode::ResourceLimit,
                topicsName + " " + std::to_string(k) + needs + fit.largest + (release.bytes > 0 ? " and " + release.largest : std::string()) +
                    "; this process can allocate " + budgetText(budget.value()) +
                    (lo >= 1 ? ": at most " + topicsName + " " + std::to_string(lo) + " fits"
                             : ": not even one topic fits over " + std::to_string(d) + " words"));
}

}  // namespace dplda
