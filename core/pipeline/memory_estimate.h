#pragma once
// What a spectral fit will hold at its peak, estimated from d, k, N and the options before any
// stage allocates (issue 28): `--topics 800` on a 158 KB corpus used to abort in std::bad_alloc
// after minutes. The estimate counts the large objects of each stage (the k × k × k whitened
// tensor and its working copies, the moment passes' per-lane d × k accumulators, the eigen
// step's d × d or d × O(k) matrices) and keeps the largest stage on top of what lasts the whole
// run; it is an estimate, stated as one, of the order of the measured peak.
#include <string>

#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/spectral_pipeline.h"

namespace dplda {

struct SpectralMemory {
  double bytes = 0.0;       // the estimated peak
  std::string largest;      // what dominates it, e.g. "the 800 x 800 x 800 whitened tensor (4.1 GB) ..."
};

SpectralMemory estimateSpectralMemory(int vocabSize, int topicCount, const SpectralOptions& options);

// What the passes over this corpus still allocate beside the stages above (the corpus itself is
// held already; its loader checked it): the per-document vectors (the M̂2 operator's weights, the
// clipping scales), and either the eigen step's packed copy of a resident corpus's counts (4 bytes
// per count, SecondMomentOperator::packCounts) or, for a streamed corpus (Corpus::mapped), one
// block of the cache's mapping per thread (issue 27 §4).
SpectralMemory corpusPassMemory(const Corpus& corpus, const SpectralOptions& options);

// What a private release holds beside the fit: Laplace noise on M3 is drawn on the explicit
// d x d x d tensor and seen through W (d x d x k on the way); Gaussian releases are drawn in
// k-space (projected) and are counted by the fit's own k³ terms. Zero bytes when nothing extra.
SpectralMemory privateReleaseMemory(int vocabSize, int topicCount, const PrivacyOptions& privacy);

// Ok when the estimate (with corpusPassMemory and the release's, when `privacy` is given) fits in
// memoryBudget(); else ResourceLimit naming what it needs, why, what this process can allocate
// under which limit, and the largest k that fits. `topicsName` is how the caller's user sets k
// ("--topics" on the command line, "Topics k" in the app).
Status checkSpectralMemory(const SpectralOptions& options, const Corpus& corpus, const PrivacyOptions* privacy = nullptr,
                           const std::string& topicsName = "--topics");

}  // namespace dplda
