// Public pieces of core/vi: options, digamma, the per-document E-step, fitVi.
#include "core/vi/variational_lda.h"

#include <cmath>
#include <limits>

#include "core/common/number_text.h"
#include "core/vi/vi_engine.h"

namespace dplda {

const char* viMethodName(ViMethod m) { return m == ViMethod::Batch ? "batch" : "online"; }

Result<ViMethod> parseViMethod(const std::string& text) {
  if (text == "batch") return ViMethod::Batch;
  if (text == "online") return ViMethod::Online;
  return invalidArgument("the VI method must be batch or online, got '" + text + "'");
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
  double r = 0.0;
  while (x < 8.0) {  // ψ(x) = ψ(x + 1) − 1/x
    r -= 1.0 / x;
    x += 1.0;
  }
  const double f = 1.0 / (x * x);
  // Asymptotic series ln x − 1/(2x) − Σ B_2n/(2n x^2n); the first omitted term is < 2e-15 at x = 8.
  const double series =
      f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132 - f * (691.0 / 32760 - f / 12))))));
  return r + std::log(x) - 0.5 / x - series;
}

Eigen::MatrixXd expDirichletExpectation(const Eigen::MatrixXd& lambda) {
  const Eigen::Index k = lambda.rows(), d = lambda.cols();
  Eigen::VectorXd psiSum(k);
  for (Eigen::Index i = 0; i < k; ++i) {
    double s = 0.0;
    for (Eigen::Index w = 0; w < d; ++w) s += lambda(i, w);  // fixed order
    psiSum[i] = digamma(s);
  }
  Eigen::MatrixXd out(k, d);
#pragma omp parallel for schedule(static) if (k * d > 100000)
  for (Eigen::Index w = 0; w < d; ++w) {
    for (Eigen::Index i = 0; i < k; ++i) out(i, w) = std::exp(digamma(lambda(i, w)) - psiSum[i]);
  }
  return out;
}

int inferDocument(const Eigen::MatrixXd& B, const Eigen::VectorXd& alpha, const int* words, const double* counts,
                  int nnz, double tolerance, int maxIterations, Eigen::VectorXd& gamma, Eigen::VectorXd& expElogTheta,
                  Eigen::VectorXd& phiNorm) {
  const int k = static_cast<int>(alpha.size());
  expElogTheta.resize(k);
  phiNorm.resize(nnz);
  const double* b0 = B.data();
  auto updateTheta = [&] {
    const double psiSum = digamma(gamma.sum());
    for (int i = 0; i < k; ++i) expElogTheta[i] = std::exp(digamma(gamma[i]) - psiSum);
  };
  auto updateNorm = [&] {
    for (int j = 0; j < nnz; ++j) {
      const double* b = b0 + static_cast<std::ptrdiff_t>(words[j]) * k;
      double acc = 0.0;
      for (int i = 0; i < k; ++i) acc += expElogTheta[i] * b[i];
      phiNorm[j] = acc + 1e-100;  // as Hoffman's code: never divide by zero
    }
  };
  updateTheta();
  updateNorm();
  Eigen::VectorXd acc(k);
  int it = 0;
  while (it < maxIterations) {
    acc.setZero();
    for (int j = 0; j < nnz; ++j) {
      const double f = counts[j] / phiNorm[j];
      const double* b = b0 + static_cast<std::ptrdiff_t>(words[j]) * k;
      for (int i = 0; i < k; ++i) acc[i] += b[i] * f;
    }
    double change = 0.0;
    for (int i = 0; i < k; ++i) {
      const double g = alpha[i] + expElogTheta[i] * acc[i];
      change += std::abs(g - gamma[i]);
      gamma[i] = g;
    }
    ++it;
    updateTheta();
    updateNorm();
    if (change / k < tolerance) break;
  }
  return it;
}

Result<ViFit> fitVi(const Corpus& train, int k, const ViOptions& options, Feedback* feedback) {
  DPLDA_RETURN_IF_ERROR(validateViOptions(options, k, train));
  vi_detail::EngineHooks hooks;  // no clipping, no noise
  return vi_detail::runEngine(train, k, options, hooks, feedback);
}

}  // namespace dplda
