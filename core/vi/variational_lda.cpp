// Public pieces of core/vi: options, digamma, the per-document E-step, fitVi.
#include "core/vi/variational_lda.h"

#include <cmath>
#include <limits>

#include "core/common/number_text.h"
#include "core/vi/estep.h"
#include "core/vi/vi_engine.h"

namespace dplda {

const char* viMethodName(ViMethod m) {
  return m == ViMethod::Batch ? "batch" : m == ViMethod::Online ? "online" : "poisson";
}

Eigen::VectorXd alphaFromTopicShares(const Eigen::VectorXd& rowSums, int d, double eta, double alpha0) {
  Eigen::VectorXd share = (rowSums.array() - d * eta).cwiseMax(0.0);
  const double total = share.sum();
  if (!(total > 0) || !std::isfinite(total)) return Eigen::VectorXd::Constant(rowSums.size(), alpha0 / rowSums.size());
  return (alpha0 * share / total).cwiseMax(alpha0 * 1e-6);
}

Result<ViMethod> parseViMethod(const std::string& text) {
  if (text == "batch") return ViMethod::Batch;
  if (text == "online") return ViMethod::Online;
  if (text == "poisson") return ViMethod::Poisson;
  return invalidArgument("the VI method must be batch, online or poisson, got '" + text + "'");
}

Eigen::VectorXd viAlpha(const ViOptions& options, int k) {
  if (options.alpha.size() > 0) return options.alpha;
  return Eigen::VectorXd::Constant(k, options.alpha0 / k);
}

double viEta(const ViOptions& options, int k) { return options.eta > 0 ? options.eta : 1.0 / k; }

Status validateViOptions(const ViOptions& o, int k, const Corpus& corpus) {
  if (corpus.docCount() < 1) return badInput("the training corpus has no documents");
  const int d = corpus.vocabSize();
  if (k < 1 || k > kMaxViTopics || k > d) {
    return invalidArgument("the topic count k must be in 1.." + std::to_string(std::min(d, kMaxViTopics)) +
                           " (at most the vocabulary size " + std::to_string(d) + "), got " + std::to_string(k));
  }
  if (o.iterations < 1 || o.iterations > kMaxViIterations) {
    return invalidArgument("VI iterations must be in 1.." + std::to_string(kMaxViIterations) + ", got " +
                           std::to_string(o.iterations));
  }
  if (o.batchSize < 1) return invalidArgument("the VI batch size must be >= 1, got " + std::to_string(o.batchSize));
  if (!(std::isfinite(o.tau0) && o.tau0 >= 1 && o.tau0 <= 1e12)) {
    return invalidArgument("tau0 must be in [1, 1e12] (so that rho_t <= 1), got " + shortNumber(o.tau0));
  }
  if (!(o.kappa > 0.5 && o.kappa <= 1.0)) {
    return invalidArgument("kappa must be in (0.5, 1] (Robbins-Monro), got " + shortNumber(o.kappa));
  }
  if (o.alpha.size() > 0) {
    if (o.alpha.size() != k) {
      return invalidArgument("alpha has " + std::to_string(o.alpha.size()) + " entries but k = " + std::to_string(k));
    }
    for (Eigen::Index i = 0; i < o.alpha.size(); ++i) {
      if (!(std::isfinite(o.alpha[i]) && o.alpha[i] > 0 && o.alpha[i] <= kMaxAlpha0)) {
        return invalidArgument("alpha[" + std::to_string(i) + "] must be in (0, 1e6], got " + shortNumber(o.alpha[i]));
      }
    }
  } else if (!(std::isfinite(o.alpha0) && o.alpha0 > 0 && o.alpha0 <= kMaxAlpha0)) {
    return invalidArgument("alpha0 must be in (0, 1e6], got " + shortNumber(o.alpha0));
  }
  if (!(std::isfinite(o.eta) && o.eta >= 0 && o.eta <= 1e6)) {
    return invalidArgument("eta must be in (0, 1e6] (0 = 1/k), got " + shortNumber(o.eta));
  }
  if (!(o.estepTolerance > 0 && std::isfinite(o.estepTolerance))) {
    return invalidArgument("the E-step tolerance must be finite and > 0, got " + shortNumber(o.estepTolerance));
  }
  if (o.estepMaxIterations < 1 || o.estepMaxIterations > 100000) {
    return invalidArgument("the E-step iteration limit must be in 1..100000, got " +
                           std::to_string(o.estepMaxIterations));
  }
  if (o.threads < 0) return invalidArgument("threads must be >= 0, got " + std::to_string(o.threads));
  // λ (k x d) and exp(E log β) are dense: refuse sizes that cannot fit.
  if (static_cast<double>(k) * d > 2e8) {
    return {StatusCode::ResourceLimit, "k x d = " + std::to_string(k) + " x " + std::to_string(d) +
                                           " is too large for dense variational topics (limit 2e8 entries)"};
  }
  return Status::ok();
}

double digamma(double x) {
  double out;
  vi_detail::digammaN(&x, &out, 1);
  return out;
}

Eigen::MatrixXd expDirichletExpectation(const Eigen::MatrixXd& lambda) {
  Eigen::MatrixXd out(lambda.rows(), lambda.cols());
  vi_detail::expDirichletColumns(lambda, vi_detail::dirichletRows(vi_detail::rowSumsOf(lambda)), nullptr,
                                 static_cast<int>(lambda.cols()), out);
  return out;
}

int inferDocument(const Eigen::MatrixXd& B, const Eigen::VectorXd& alpha, const int* words, const double* counts,
                  int nnz, double tolerance, int maxIterations, Eigen::VectorXd& gamma, Eigen::VectorXd& expElogTheta,
                  Eigen::VectorXd& phiNorm) {
  vi_detail::EStepScratch& s = vi_detail::threadScratch();
  const int it = vi_detail::estep(B, alpha.data(), words, counts, nnz, tolerance, maxIterations, gamma.data(), s);
  expElogTheta = Eigen::Map<const Eigen::VectorXd>(s.expElogTheta(), alpha.size());
  phiNorm = Eigen::Map<const Eigen::VectorXd>(s.phiNorm(), nnz);
  return it;
}

Result<ViFirstPass> firstBatchPass(const Corpus& train, int k, const ViOptions& options,
                                   const std::vector<double>& clips, Feedback* feedback) {
  DPLDA_RETURN_IF_ERROR(validateViOptions(options, k, train));
  if (options.method != ViMethod::Batch) return invalidArgument("a first batch pass needs the batch VI method");
  for (double clip : clips) {
    if (!(clip > 0)) return invalidArgument("the clipping norm C must be > 0, got " + shortNumber(clip));
  }
  return vi_detail::runFirstPass(train, k, options, clips, feedback);
}

Result<ViFit> fitVi(const Corpus& train, int k, const ViOptions& options, Feedback* feedback,
                    const ViFirstPass* start) {
  DPLDA_RETURN_IF_ERROR(validateViOptions(options, k, train));
  vi_detail::EngineHooks hooks;  // no clipping, no noise
  return vi_detail::runEngine(train, k, options, hooks, feedback, start);
}

}  // namespace dplda
