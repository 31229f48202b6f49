#pragma once
// The VB engine shared by fitVi and fitDpVi (internal to core/vi). One code path for both, so
// that DP-VI with no clipping and zero noise is bit-identical to non-private VI.
#include <Eigen/Dense>
#include <functional>

#include "core/common/feedback.h"
#include "core/common/random.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/vi/variational_lda.h"

namespace dplda::vi_detail {

struct EngineHooks {
  // Frobenius-norm clip of each document's contribution s_n (k x d); +infinity = none.
  double clip = std::numeric_limits<double>::infinity();
  // Applied to every summed statistic (k x d) before its M-step, e.g. noise + clamping at 0.
  std::function<void(Eigen::MatrixXd& statistics)> privatise;
  // Method poisson: the source of the samples (DP-VI: the secret noise source); null = the seed.
  RandomSource* sampling = nullptr;
  long long clippedVisits = 0;  // out: document visits whose contribution was scaled down
};

// Runs batch or online VB on `corpus` (validated by the caller); batch VB takes its first
// iteration from `start` when given (it must hold a sum for hooks.clip).
Result<ViFit> runEngine(const Corpus& corpus, int k, const ViOptions& options, EngineHooks& hooks,
                        Feedback* feedback, const ViFirstPass* start = nullptr);

// firstBatchPass's work (options and clips validated by the caller).
Result<ViFirstPass> runFirstPass(const Corpus& corpus, int k, const ViOptions& options,
                                 const std::vector<double>& clips, Feedback* feedback);

// InvalidArgument unless `start` was computed on a corpus of this shape with the same k and
// options (λ_0 seed, α, η, E-step settings), batch method, and holds a sum for `clip`; else the
// index of that sum.
Result<int> firstPassSum(const ViFirstPass& start, const Corpus& corpus, int k, const ViOptions& options, double clip);

}  // namespace dplda::vi_detail
