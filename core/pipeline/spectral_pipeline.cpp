#include "core/pipeline/spectral_pipeline.h"

#include "core/tensor/sign_conventions.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace dplda {


Status validateSpectralOptions(const SpectralOptions& o, const Corpus& corpus) {
  DPLDA_RETURN_IF_ERROR(validateMomentInputs(corpus, o.alpha0));
  DPLDA_RETURN_IF_ERROR(validateTopicCount(o.topicCount, corpus.vocabSize(), corpus.docCount()));
  DPLDA_RETURN_IF_ERROR(validatePowerMethodOptions(o.power));
  DPLDA_RETURN_IF_ERROR(validateMomentClip(o.clip));
  if (o.decomposer == "online" && o.clip.enabled) {
    return invalidArgument("the online decomposer reads the unclipped documents; clipping the moments needs the "
                           "fast, robust or simultaneous decomposer");
  }
  if (o.decomposer == "online") return validateOnlinePowerOptions(o.online, corpus.docCount(), o.topicCount);
  return makeDecomposer(o.decomposer, o.power).status();
}

void SpectralPipeline::setCorpus(std::shared_ptr<const Corpus> corpus) {
  m_corpus = std::move(corpus);
  m_operator.reset();
  m_dense.reset();
  m_thirdMoment.reset();
  m_scales.reset();
  m_momentsValid = m_eigenValid = m_whitenValid = m_tensorValid = m_decomposeValid = m_unwhitenValid = false;
}

void SpectralPipeline::setOptions(const SpectralOptions& o) {
  const SpectralOptions& old = m_options;
  if (o.alpha0 != old.alpha0 || !(o.clip == old.clip)) {
    m_momentsValid = false;
    m_dense.reset();
    m_thirdMoment.reset();
    m_scales.reset();
  }
  if (o.topicCount != old.topicCount || o.eigenSolver != old.eigenSolver) m_eigenValid = false;
  if (o.decomposer != old.decomposer || o.initSeed != old.initSeed || o.power.restarts != old.power.restarts ||
      o.power.maxIterations != old.power.maxIterations || o.power.tolerance != old.power.tolerance ||
      o.online.batchSize != old.online.batchSize || o.online.iterations != old.online.iterations ||
      o.online.restarts != old.online.restarts || o.online.shuffle != old.online.shuffle ||
      o.online.orderSeed != old.online.orderSeed) {
    m_decomposeValid = false;
  }
  m_options = o;
}

Result<Eigen::MatrixXd> SpectralPipeline::secondMomentDense(Feedback* feedback) {
  if (!m_operator) return Status(StatusCode::InvalidArgument, "run the pipeline before asking for M2");
  if (!m_dense) {
    auto dense = m_operator->toDense(feedback);
    if (!dense.ok()) return dense.status();
    m_dense = std::make_shared<const Eigen::MatrixXd>(std::move(dense).value());
  }
  return *m_dense;
}

void SpectralPipeline::setExplicitThirdMomentLimit(std::size_t maxBytes) {
  m_thirdMomentLimit = maxBytes;
  if (m_thirdMoment && explicitThirdMomentBytes(m_thirdMoment->dim()) > maxBytes) m_thirdMoment.reset();
}

Status SpectralPipeline::prepareExplicitThirdMoment(Feedback* feedback) {
  if (!m_corpus) return invalidArgument("no corpus loaded");
  if (m_thirdMoment) return Status::ok();
  // The clipped M̂3ᶜ is formed from the documents through each W (one pass; no explicit form).
  if (m_options.clip.enabled) return Status::ok();
  if (explicitThirdMomentBytes(m_corpus->vocabSize()) > m_thirdMomentLimit) return Status::ok();
  auto m3 = thirdMomentDense(*m_corpus, m_options.alpha0, m_thirdMomentLimit, feedback);
  if (!m3.ok()) return m3.status();
  m_thirdMoment = std::make_shared<const Tensor3>(std::move(m3).value());
  return Status::ok();
}

Result<Tensor3> SpectralPipeline::whitenedTensor(const Eigen::MatrixXd& W, Feedback* feedback) const {
  if (!m_corpus) return invalidArgument("no corpus loaded");
  if (!m_thirdMoment) {
    if (m_options.clip.enabled && !m_scales) return invalidArgument("run the pipeline's moments stage first");
    return whitenedThirdMoment(*m_corpus, m_options.alpha0, W, feedback, m_scales ? &m_scales->scales : nullptr);
  }
  const int d = m_thirdMoment->dim();
  if (W.rows() != d || W.cols() < 1) {
    return invalidArgument("the whitening matrix must be " + std::to_string(d) + " x k, got " +
                           std::to_string(W.rows()) + " x " + std::to_string(W.cols()));
  }
  if (!W.allFinite()) return numericalFailure("the whitening matrix contains NaN or infinite entries");
  Tensor3 T = m_thirdMoment->multilinear(W);
  if (!T.allFinite()) return numericalFailure("the whitened tensor has NaN or infinite entries");
  return T;
}

template <class F>
Status SpectralPipeline::stage(const char* name, bool valid, F&& compute) {
  if (valid) {
    m_timings.push_back({name, 0.0, true});
    return Status::ok();
  }
  const auto start = std::chrono::steady_clock::now();
  Status status = compute();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  m_timings.push_back({name, ms, false});
  return status;
}

Result<SpectralModel> SpectralPipeline::runThrough(PipelineStage last, Feedback* feedback) {
  m_timings.clear();
  if (!m_corpus) return invalidArgument("no corpus loaded");
  DPLDA_RETURN_IF_ERROR(validateSpectralOptions(m_options, *m_corpus));
  const Corpus& corpus = *m_corpus;
  const SpectralOptions& o = m_options;
  auto wanted = [&](PipelineStage s) { return static_cast<int>(s) <= static_cast<int>(last); };

  // A stage recomputed invalidates everything downstream of it.
  if (!m_momentsValid) m_eigenValid = false;
  DPLDA_RETURN_IF_ERROR(stage("second_moment", m_momentsValid, [&] {
    m_scales.reset();
    if (o.clip.enabled) {
      auto sc = clippedMomentScales(corpus, o.clip);
      if (!sc.ok()) return sc.status();
      m_scales = std::make_shared<const ClippedMomentScales>(std::move(sc).value());
    }
    m_operator.emplace(corpus, o.alpha0, m_scales ? &m_scales->scales : nullptr);
    m_dense.reset();
    if (corpus.vocabSize() <= kDenseEigenLimit) {
      auto dense = m_operator->toDense(feedback);
      if (!dense.ok()) return dense.status();
      m_dense = std::make_shared<const Eigen::MatrixXd>(std::move(dense).value());
    }
    m_momentsValid = true;
    return Status::ok();
  }));
  if (!wanted(PipelineStage::Eigen)) return m_model;
  if (!m_eigenValid) m_whitenValid = false;
  DPLDA_RETURN_IF_ERROR(stage("eigen", m_eigenValid, [&] {
    auto eig = m_dense ? topEigenpairs(*m_dense, o.topicCount) : topEigenpairs(*m_operator, o.topicCount, feedback, o.eigenSolver);
    if (!eig.ok()) return eig.status();
    m_model.eigen = std::move(eig).value();
    m_eigenValid = true;
    return Status::ok();
  }));
  if (!wanted(PipelineStage::Whiten)) return m_model;
  if (!m_whitenValid) m_tensorValid = false;
  DPLDA_RETURN_IF_ERROR(stage("whiten", m_whitenValid, [&] {
    auto w = whitenFromEigenpairs(m_model.eigen, o.topicCount);
    if (!w.ok()) return w.status();
    m_model.whitening = std::move(w).value();
    m_whitenValid = true;
    return Status::ok();
  }));
  if (!wanted(PipelineStage::Tensor)) return m_model;
  if (!m_tensorValid) m_decomposeValid = false;
  DPLDA_RETURN_IF_ERROR(stage("tensor", m_tensorValid, [&] {
    if (o.decomposer == "online") {
      // The online method never forms T̂; one pass for its diagonal keeps the T̂_iii >= 0 convention.
      const CorpusTensorOperator op(corpus, o.alpha0, m_model.whitening.W);
      const Eigen::MatrixXd columns = op.contractTwice(Eigen::MatrixXd::Identity(o.topicCount, o.topicCount));
      Eigen::VectorXd signs(o.topicCount);
      for (int i = 0; i < o.topicCount; ++i) signs[i] = columns(i, i) < 0.0 ? -1.0 : 1.0;
      m_model.whitening.applyColumnSigns(signs);
      m_model.tensor = Tensor3();
      m_tensorValid = true;
      return Status::ok();
    }
    auto t = whitenedThirdMoment(corpus, o.alpha0, m_model.whitening.W, feedback,
                                 m_scales ? &m_scales->scales : nullptr);
    if (!t.ok()) return t.status();
    m_model.tensor = std::move(t).value();
    const Eigen::VectorXd signs = canonicalTensorSigns(m_model.tensor);
    applyCoordinateSigns(m_model.tensor, signs);
    m_model.whitening.applyColumnSigns(signs);
    m_tensorValid = true;
    return Status::ok();
  }));
  if (!wanted(PipelineStage::Decompose)) return m_model;
  if (!m_decomposeValid) m_unwhitenValid = false;
  DPLDA_RETURN_IF_ERROR(stage("decompose", m_decomposeValid, [&] {
    m_model.online.reset();
    if (o.decomposer == "online") {
      SeededRandom rng(o.initSeed);
      auto on = onlineRobustPowerMethod(corpus, o.alpha0, m_model.whitening.W, o.online, rng, feedback);
      if (!on.ok()) return on.status();
      m_model.eigenpairs = on.value().pairs;
      m_model.gammaS = tensorEigengap(m_model.eigenpairs.lambda);
      m_model.online = std::move(on).value();
      m_decomposeValid = true;
      return Status::ok();
    }
    auto decomposer = makeDecomposer(o.decomposer, o.power);
    if (!decomposer.ok()) return decomposer.status();
    SeededRandom rng(o.initSeed);
    auto td = decomposer.value()->decompose(m_model.tensor, rng, feedback);
    if (!td.ok()) return td.status();
    m_model.eigenpairs = std::move(td).value();
    m_model.gammaS = tensorEigengap(m_model.eigenpairs.lambda);
    m_decomposeValid = true;
    return Status::ok();
  }));
  if (!wanted(PipelineStage::Output)) return m_model;
  DPLDA_RETURN_IF_ERROR(stage("unwhiten", m_unwhitenValid, [&] {
    auto u = unwhiten(m_model.eigenpairs, m_model.whitening.unwhitening, o.alpha0);
    if (!u.ok()) return u.status();
    auto out = projectTopicsToSimplex(u.value());
    if (!out.ok()) return out.status();
    m_model.unwhitened = std::move(u).value();
    m_model.output = std::move(out).value();
    m_unwhitenValid = true;
    return Status::ok();
  }));
  return m_model;
}

}  // namespace dplda
