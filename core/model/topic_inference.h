#pragma once
// Each document's topic proportions under a fitted model: the variational E-step of core/vi
// (inferDocument) with the model's point topics β (no smoothing) and α held fixed,
//   φ_wi ∝ exp(E[log θ_i]) β_wi,  γ = α + Σ_w c_w φ_w·,
// from γ = α + l/k (Blei et al. 2003, as the VI fit), until the mean |Δγ| < tolerance or
// maxIterations updates; the proportions are E_q[θ] = γ / Σγ. A document with no tokens in the
// model's vocabulary gets γ = α (the prior mean). Results do not depend on the thread count.
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "core/common/feedback.h"
#include "core/common/status.h"
#include "core/corpus/corpus.h"

namespace dplda {

struct InferenceOptions {
  double tolerance = 1e-8;  // mean |Δγ| (tighter than the fit's 1e-3: a result, not a step)
  int maxIterations = 1000;
  int threads = 0;          // OpenMP threads, 0 = default
};

struct DocumentTopics {
  Eigen::MatrixXd gamma;        // k x N: the variational Dirichlet parameters
  Eigen::MatrixXd proportions;  // k x N: γ / Σγ
  std::vector<int> iterations;  // E-step updates per document
  int notConverged = 0;         // documents that reached maxIterations
};

// InvalidArgument for options out of range; BadInput when the corpus's vocabulary size differs
// from the model's (the caller checks the words themselves: checkSameVocabulary).
Result<DocumentTopics> inferTopics(const LdaModel& model, const Corpus& documents, const InferenceOptions& options = {},
                                   Feedback* feedback = nullptr);

}  // namespace dplda
