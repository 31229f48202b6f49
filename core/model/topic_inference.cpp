#include "core/model/topic_inference.h"

#include <algorithm>
#include <cmath>
#include <omp.h>

#include "core/common/number_text.h"
#include "core/vi/variational_lda.h"

namespace dplda {

Result<DocumentTopics> inferTopics(const LdaModel& model, const Corpus& documents, const InferenceOptions& options,
                                   Feedback* feedback) {
  if (!(options.tolerance > 0) || !std::isfinite(options.tolerance)) {
    return invalidArgument("the E-step tolerance must be a finite number > 0, got " + shortNumber(options.tolerance));
  }
  if (options.maxIterations < 1) {
    return invalidArgument("the E-step needs at least one update, got " + std::to_string(options.maxIterations));
  }
  if (documents.vocabSize() != model.vocabSize()) {
    return badInput("the documents are over " + std::to_string(documents.vocabSize()) + " words but the model's topics over " +
                    std::to_string(model.vocabSize()));
  }
  const int k = model.topicCount();
  const int n = documents.docCount();
  const Eigen::MatrixXd B = model.topics.transpose();  // k x d: inferDocument's layout
  DocumentTopics out;
  out.gamma.resize(k, n);
  out.proportions.resize(k, n);
  out.iterations.assign(static_cast<std::size_t>(n), 0);
  const SparseCounts& c = documents.counts;
  bool stop = false;
  constexpr int kBlock = 256;  // cancellation and progress between blocks
  for (int start = 0; start < n && !stop; start += kBlock) {
    const int end = std::min(n, start + kBlock);
#pragma omp parallel for schedule(dynamic, 8) num_threads(options.threads > 0 ? options.threads : omp_get_max_threads())
    for (int d = start; d < end; ++d) {
      const Eigen::Index begin = c.outerIndexPtr()[d];
      const int nnz = static_cast<int>(c.outerIndexPtr()[d + 1] - begin);
      const double length = documents.lengths.size() ? documents.lengths[d] : 0.0;
      Eigen::VectorXd gamma = model.alpha.array() + length / k;
      Eigen::VectorXd expElogTheta, phiNorm;
      if (nnz > 0) {
        out.iterations[d] = inferDocument(B, model.alpha, c.innerIndexPtr() + begin, c.valuePtr() + begin, nnz,
                                          options.tolerance, options.maxIterations, gamma, expElogTheta, phiNorm);
      } else {
        gamma = model.alpha;
      }
      out.gamma.col(d) = gamma;
      out.proportions.col(d) = gamma / gamma.sum();
    }
    stop = isCanceled(feedback);
    reportProgress(feedback, static_cast<double>(end) / std::max(1, n));
  }
  if (stop) return cancelled();
  for (int it : out.iterations) out.notConverged += it >= options.maxIterations ? 1 : 0;
  return out;
}

}  // namespace dplda
