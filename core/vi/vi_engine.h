#pragma once
// The VB engine shared by fitVi and fitDpVi (internal to core/vi). One code path for both, so
// that DP-VI with no clipping and zero noise is bit-identical to non-private VI.
#include <Eigen/Dense>
#include <functional>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"
#include "core/vi/variational_lda.h"

namespace dplda::vi_detail {

struct EngineHooks {
  // Frobenius-norm clip of each document's contribution s_n (k x d); +infinity = none.
  double clip = std::numeric_limits<double>::infinity();
  // Applied to every summed statistic (k x d) before its M-step, e.g. noise + clamping at 0.
  std::function<void(Eigen::MatrixXd& statistics)> privatise;
  long long clippedVisits = 0;  // out: document visits whose contribution was scaled down
};

// Runs batch or online VB on `corpus` (validated by the caller).
Result<ViFit> runEngine(const Corpus& corpus, int k, const ViOptions& options, EngineHooks& hooks,
                        Feedback* feedback);

}  // namespace dplda::vi_detail
