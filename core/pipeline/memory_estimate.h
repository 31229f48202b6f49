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
#include "core/pipeline/spectral_pipeline.h"

namespace dplda {

struct SpectralMemory {
  double bytes = 0.0;       // the estimated peak
  std::string largest;      // what dominates it, e.g. "the 800 x 800 x 800 whitened tensor (4.1 GB) ..."
};

SpectralMemory estimateSpectralMemory(int vocabSize, int topicCount, const SpectralOptions& options);

// Ok when the estimate fits in availableMemoryBytes(); else ResourceLimit naming what it needs,
// why, what this process can allocate and the largest k that fits.
Status checkSpectralMemory(const SpectralOptions& options, const Corpus& corpus);

}  // namespace dplda
