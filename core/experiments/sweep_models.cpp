#include "core/experiments/sweep_models.h"

#include <chrono>
#include <cmath>

#include "core/common/random.h"
#include "core/corpus/holdout.h"
#include "core/eval/coherence.h"
#include "core/eval/metrics.h"
#include "core/eval/perplexity.h"
#include "core/pipeline/accountant_comparison.h"
#include "core/vi/dp_vi.h"

namespace dplda {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

const char* sweepModelName(SweepModel m) {
  switch (m) {
    case SweepModel::Spectral: return "spectral";
    case SweepModel::Vi: return "vi";
    case SweepModel::DpVi: return "dp-vi";
  }
  return "spectral";
}

std::uint64_t holdoutSplitSeed(const SweepSpec& spec) { return deriveSeed(spec.seeds.data, 5); }
std::uint64_t perplexitySeed(const SweepSpec& spec) { return deriveSeed(spec.seeds.data, 6); }

Status splitForHoldout(const SweepSpec& spec, PreparedCase& pc) {
  if (spec.holdout <= 0.0) return Status();
  auto split = splitHoldout(*pc.corpus, spec.holdout, holdoutSplitSeed(spec));
  if (!split.ok()) return split.status();
  pc.heldOut = std::make_shared<const Corpus>(std::move(split.value().test));
  pc.corpus = std::make_shared<const Corpus>(std::move(split.value().train));
  return Status();
}

bool needsViFits(const SweepSpec& spec) {
  for (const SweepConfiguration& c : spec.configurations)
    if (c.model != SweepModel::Spectral) return true;
  return false;
}

ViOptions viOptionsFor(const SweepSpec& spec, const SweepCase& c, int trial) {
  ViOptions o = spec.vi;
  if (c.viBatchSize > 0) o.batchSize = c.viBatchSize;
  if (c.viPasses > 0) o.iterations = c.viPasses;
  if (c.viTau0 > 0) o.tau0 = c.viTau0;
  if (c.viKappa > 0) o.kappa = c.viKappa;
  o.alpha0 = c.alpha0;
  o.alpha.resize(0);
  o.seed = deriveSeed(spec.seeds.init, static_cast<std::uint64_t>(trial));
  o.computeElbo = false;
  o.threads = 1;  // the sweep already runs one trial per core
  return o;
}

PerplexityScore scorePerplexity(const PreparedCase& pc, const SweepSpec& spec, const LdaModel& model) {
  PerplexityScore score;
  if (!pc.heldOut) return score;
  PerplexityOptions o;
  o.threads = 1;
  auto p = heldOutPerplexity(model, *pc.heldOut, perplexitySeed(spec), o);
  if (!p.ok()) {
    score.problem = "held-out perplexity not computed: " + p.status().message();
    return score;
  }
  score.perplexity = p.value().perplexity;
  score.bound = p.value().elboBoundPerplexity;
  return score;
}

void applyScore(const PerplexityScore& score, SweepRow& row) {
  row.perplexity = score.perplexity;
  row.perplexityBound = score.bound;
  if (!score.problem.empty()) row.reason = score.problem;
}

void fitViTrial(const SweepSpec& spec, const SweepCase& c, PreparedCase& pc, int trial) {
  ViTrialFit& out = pc.vi[trial];
  const ViOptions options = viOptionsFor(spec, c, trial);
  int dpViFits = 0;
  for (const SweepConfiguration& cfg : spec.configurations) dpViFits += cfg.model == SweepModel::DpVi;
  dpViFits *= static_cast<int>(spec.epsilons.size());
  // Batch VB's first iteration runs against λ_0 alone, the same for VI and for DP-VI at every ε:
  // computed once, with VI's sum and DP-VI's clipped one (most E-step updates are in it).
  if (options.method == ViMethod::Batch && dpViFits > 0) {
    const double inf = std::numeric_limits<double>::infinity();
    auto first = firstBatchPass(*pc.corpus, c.topicCount, options, {inf, spec.dpViClip});
    if (first.ok()) {
      out.firstPass = std::make_shared<SharedFirstPass>();
      out.firstPass->pass = std::move(first).value();
      out.firstPass->users.store(dpViFits);
    }  // else each fit reports its own error
  }
  auto fit = fitVi(*pc.corpus, c.topicCount, options, nullptr, out.firstPass ? &out.firstPass->pass : nullptr);
  if (!fit.ok()) {
    out.status = fit.status();
    return;
  }
  out.model = fit.value().model;
  out.perplexity = scorePerplexity(pc, spec, *out.model);
}

namespace {

// Utility loss against the reference and error against the truth (no perplexity).
void scoreErrors(const PreparedCase& pc, const LdaModel& released, const LdaModel* reference, SweepRow& row) {
  if (reference && reference->topics.size() > 0) {
    const TopicErrors loss = compareTopics(reference->topics, reference->alpha, released.topics, released.alpha);
    row.lossL2 = loss.l2Mean;
    row.lossL1 = loss.l1Mean;
    row.lossAlpha = loss.alphaError;
    row.lossFrobenius = loss.frobenius;
  }
  if (pc.truth) {
    const TopicErrors err = compareTopics(pc.truth->topics, pc.truth->alpha, released.topics, released.alpha);
    row.errorL2 = err.l2Mean;
    row.errorL1 = err.l1Mean;
    row.errorAlpha = err.alphaError;
    row.errorFrobenius = err.frobenius;
  }
}

}  // namespace

void scoreCoherence(const PreparedCase& pc, const SweepSpec& spec, const LdaModel& model, SweepRow& row) {
  if (spec.coherenceTopWords <= 0 || model.vocabSize() < 2) return;
  auto c = topicCoherence(model.topics, *pc.corpus, std::min(spec.coherenceTopWords, model.vocabSize()));
  if (!c.ok()) {
    if (row.reason.empty()) row.reason = "coherence not computed: " + c.status().message();
    return;
  }
  row.coherenceNpmi = c.value().meanNpmi;
  row.coherenceUmass = c.value().meanUmass;
}

void scoreRelease(const PreparedCase& pc, const SweepSpec& spec, const LdaModel& released,
                  const LdaModel* reference, SweepRow& row, bool isBaseline) {
  scoreErrors(pc, released, reference, row);
  scoreCoherence(pc, spec, released, row);
  applyScore(isBaseline ? pc.baselinePerplexity : scorePerplexity(pc, spec, released), row);
}

void runViTrial(const SweepSpec& spec, const SweepCase& c, const PreparedCase& pc, SweepRow& row) {
  const auto start = std::chrono::steady_clock::now();
  const SweepConfiguration& cfg = spec.configurations[row.configIndex];
  const ViTrialFit& vi = pc.vi[row.trial];
  const LdaModel* reference = vi.model ? &*vi.model : nullptr;
  if (cfg.model == SweepModel::Vi) {
    row.epsilonSpent = row.deltaSpent = 0.0;
    if (!vi.model) {
      row.status = vi.status.code();
      row.reason = vi.status.message();
    } else {
      row.released = true;
      // The same fit at every ε: its perplexity was scored once, in fitViTrial.
      scoreErrors(pc, *vi.model, reference, row);
      scoreCoherence(pc, spec, *vi.model, row);
      applyScore(vi.perplexity, row);
    }
  } else {
    DpViOptions o;
    o.vi = viOptionsFor(spec, c, row.trial);
    o.clip = spec.dpViClip;
    o.epsilon = row.epsilon;
    o.delta = spec.delta;
    // Tests of the noise-free path scale the noise like the spectral trials do.
    if (spec.noiseMultiplier != 1.0) {
      auto cal = calibrateDpVi(row.epsilon, spec.delta, dpViReleaseCount(o.vi, pc.corpus->docCount()), o.clip,
                               static_cast<double>(c.topicCount) * pc.corpus->vocabSize());
      if (cal.ok()) o.noiseMultiplier = cal.value().noiseMultiplier * spec.noiseMultiplier;
    }
    SeededRandom noise(row.noiseSeed);
    auto fit = fitDpVi(*pc.corpus, c.topicCount, o, noise, nullptr, vi.firstPass ? &vi.firstPass->pass : nullptr);
    // acq_rel: the last user frees it after every other fit has stopped reading it.
    if (vi.firstPass && vi.firstPass->users.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      vi.firstPass->pass = ViFirstPass{};
    }
    if (!fit.ok()) {
      row.status = fit.status().code();
      row.reason = fit.status().message();
    } else {
      const DpViLedger& ledger = fit.value().ledger;
      row.released = true;
      row.epsilonSpent = ledger.epsilon;
      row.deltaSpent = ledger.delta;
      const AccountantComparison accounts = compareDpViAccountants(ledger, pc.corpus->provenance);
      row.epsilonGaussianDp = accounts.gaussianDp;
      row.epsilonPld = accounts.pld;
      row.noiseScales.push_back({"statistics x" + std::to_string(ledger.releases) + " (dp-vi)",
                                 ledger.epsilon, ledger.delta, ledger.sigma, true});
      scoreRelease(pc, spec, fit.value().fit.model, reference, row);
    }
  }
  row.elapsedMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace dplda
