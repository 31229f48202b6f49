// The variational models and the held-out scores of a session's run (issue 10).
#include "ui/worker/model_run.h"

#include <QObject>
#include <algorithm>
#include <memory>

#include "core/common/random.h"
#include "core/eval/metrics.h"
#include "core/vi/vi_parameters.h"
#include "ui/worker/run_worker.h"

namespace dplda {

std::uint64_t perplexitySeedFor(const SessionState& s) { return deriveSeed(s.holdoutSeed, 1); }

HeldOutScore scoreHeldOut(const LdaModel& model, const Corpus& test, std::uint64_t seed, Feedback* fb) {
  HeldOutScore score;
  auto p = heldOutPerplexity(model, test, seed, PerplexityOptions{}, fb);
  if (p.ok()) score.result = std::move(p).value();
  else score.failure = QString::fromStdString(p.status().message());
  return score;
}

void scoreCoherence(const Corpus& train, RunOutcome& out) {
  auto score = [&](const Eigen::MatrixXd& topics) -> std::optional<CoherenceResult> {
    const int n = std::min<int>(kDefaultCoherenceTopWords, static_cast<int>(topics.rows()));
    auto c = topicCoherence(topics, train, n);
    return c.ok() ? std::optional<CoherenceResult>(std::move(c).value()) : std::nullopt;
  };
  if (out.variational) out.coherence = score(out.variational->fit.model.topics);
  else if (out.priv && out.priv->released && out.priv->output) out.coherence = score(out.priv->output->topics);
  if (out.hasNonPrivate) out.baselineCoherence = score(out.nonPrivate.topics);
}

Status runVariationalModel(const SessionState& s, const Corpus& train, const Corpus* test, Feedback* fb,
                           const std::function<void(const QString&)>& stage, RunOutcome& out) {
  const bool isPrivate = s.model == SessionState::Model::DpVi;
  const int k = s.topicCount();
  VariationalOutcome v;
  v.model = s.model;
  const ViOptions vi = toViOptions(s.vi, s.alpha0(), s.initSeed);
  stage(isPrivate ? QObject::tr("DP-VI (%1 VB)").arg(viMethodName(vi.method))
                  : QObject::tr("variational LDA (%1 VB)").arg(viMethodName(vi.method)));
  if (isPrivate) {
    DpViOptions dp;
    dp.vi = vi;
    dp.clip = s.vi.clip;
    dp.epsilon = s.epsilon;
    dp.delta = s.delta;
    DPLDA_RETURN_IF_ERROR(validateDpViOptions(dp, k, train));
    std::unique_ptr<RandomSource> noise;
    if (s.noiseSeed) noise = std::make_unique<SeededRandom>(*s.noiseSeed);
    else noise = std::make_unique<SecureRandom>();
    auto r = fitDpVi(train, k, dp, *noise, fb);
    if (!r.ok()) return r.status();
    v.fit = std::move(r.value().fit);
    v.ledger = std::move(r.value().ledger);
    v.accounts = compareDpViAccountants(*v.ledger, train.provenance);
    v.clippedVisits = r.value().clippedVisits;
  } else {
    DPLDA_RETURN_IF_ERROR(validateViOptions(vi, k, train));
    auto r = fitVi(train, k, vi, fb);
    if (!r.ok()) return r.status();
    v.fit = std::move(r).value();
  }
  if (isCanceled(fb)) return cancelled();
  const LdaModel& m = v.fit.model;
  if (out.truth && out.truth->vocabSize() == m.vocabSize() && out.truth->topicCount() <= m.topicCount())
    out.error = compareTopics(out.truth->topics, out.truth->alpha, m.topics, m.alpha);
  out.variational = std::move(v);
  scoreCoherence(train, out);
  if (test) {
    stage(QObject::tr("held-out perplexity (evaluation)"));
    const std::uint64_t seed = perplexitySeedFor(s);
    out.perplexity = scoreHeldOut(out.variational->fit.model, *test, seed, fb);
    if (out.truth) out.truthPerplexity = scoreHeldOut(*out.truth, *test, seed, fb);
    if (isCanceled(fb)) return cancelled();
  }
  return Status::ok();
}

void scoreSpectralRun(const SessionState& s, const Corpus& test, Feedback* fb, RunOutcome& out) {
  const std::uint64_t seed = perplexitySeedFor(s);
  if (out.priv && out.priv->released && out.priv->output) {
    out.perplexity = scoreHeldOut(LdaModel{out.priv->output->alpha, out.priv->output->topics}, test, seed, fb);
  }
  if (out.hasNonPrivate) {
    out.baselinePerplexity = scoreHeldOut(LdaModel{out.nonPrivate.alpha, out.nonPrivate.topics}, test, seed, fb);
  }
  if (out.truth) out.truthPerplexity = scoreHeldOut(*out.truth, test, seed, fb);
}

}  // namespace dplda
