#include "core/experiments/sweep.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <sstream>

#include "core/common/memory_budget.h"
#include "core/corpus/truth_io.h"
#include "core/eval/metrics.h"
#include "core/experiments/parallel.h"
#include "core/experiments/sweep_models.h"
#include "core/experiments/table_text.h"
#include "core/pipeline/memory_estimate.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/vi/vi_parameters.h"

namespace dplda {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr long long kMaxTrialRuns = 10'000'000;

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

SpectralOptions spectralOptionsFor(const SweepSpec& spec, const SweepCase& c) {
  SpectralOptions o;
  o.topicCount = c.topicCount;
  o.alpha0 = c.alpha0;
  o.decomposer = spec.decomposer;
  o.power = spec.power;
  o.initSeed = spec.seeds.init;
  return o;
}

void prepareCase(const SweepSpec& spec, const SweepCase& c, PreparedCase& out) {
  const auto start = Clock::now();
  if (c.source.corpus) {
    out.corpus = c.source.corpus;
    out.truth = c.source.truth;
  } else {
    GeneratorParams g = *c.source.generator;
    g.seed = spec.seeds.data;
    auto sc = generateLdaCorpus(g);
    if (!sc.ok()) {
      out.status = Status(sc.status().code(), "case \"" + c.label + "\": " + sc.status().message());
      return;
    }
    out.truth = sc.value().truth;
    out.corpus = std::make_shared<const Corpus>(std::move(sc.value().corpus));
  }
  if (const Status st = splitForHoldout(spec, out); !st.isOk()) {
    out.status = Status(st.code(), "case \"" + c.label + "\": " + st.message());
    return;
  }
  if (c.source.pipeline && c.source.pipeline->corpus() == out.corpus && !out.heldOut) {
    out.pipeline = *c.source.pipeline;  // its cached stages are reused where the options match
  } else {
    out.pipeline.setCorpus(out.corpus);
  }
  out.pipeline.setOptions(spectralOptionsFor(spec, c));
  // The non-private baseline (utility loss, σ_k, γ_s) is computed for the experiment's tables;
  // when it fails the private trials still run (its failure must not decide them) and the
  // baseline columns stay empty.
  auto model = out.pipeline.run();
  if (!model.ok() && model.status().code() == StatusCode::Cancelled) {
    out.status = model.status();
    return;
  }
  // Configurations with a noisy W (e2 or e4) recompute T = M̂3(W,W,W); for small d the explicit
  // M̂3 is built once here and shared by every worker's copy of the pipeline.
  for (const SweepConfiguration& cfg : spec.configurations) {
    if (contains(cfg.edges, 2) || contains(cfg.edges, 4)) {
      const Status st = out.pipeline.prepareExplicitThirdMoment();
      if (!st.isOk()) {
        out.status = Status(st.code(), "case \"" + c.label + "\": " + st.message());
        return;
      }
      break;
    }
  }
  if (std::any_of(spec.configurations.begin(), spec.configurations.end(),
                  [](const SweepConfiguration& cfg) { return cfg.clipMoments; })) {
    SpectralOptions clipped = out.pipeline.options();
    clipped.clip = spec.momentClip;
    out.clippedPipeline.emplace(out.pipeline);
    out.clippedPipeline->setOptions(clipped);
    auto cm = out.clippedPipeline->run();  // cached for the trials; a failure is the trials' to report
    if (!cm.ok() && cm.status().code() == StatusCode::Cancelled) {
      out.status = cm.status();
      return;
    }
    if (cm.ok()) {
      out.clippedSigmaK = cm.value().whitening.sigmaK();
      out.clippedGammaS = cm.value().gammaS;
    }
  }
  SweepCaseInfo& info = out.info;
  info.label = c.label;
  info.description = c.source.description;
  info.docCount = out.corpus->docCount();
  info.vocabSize = out.corpus->vocabSize();
  info.topicCount = c.topicCount;
  info.alpha0 = c.alpha0;
  info.droppedDocuments = out.corpus->droppedDocuments;
  info.vocabulary = out.corpus->provenance.vocabulary;
  info.hasTruth = out.truth.has_value();
  info.heldOutDocuments = out.heldOut ? out.heldOut->docCount() : 0;
  info.prepareMs = msSince(start);
  if (out.truth) {  // a random guess: every topic uniform over the d words
    const Eigen::MatrixXd uniform = Eigen::MatrixXd::Constant(info.vocabSize, c.topicCount, 1.0 / info.vocabSize);
    const Eigen::VectorXd alpha = Eigen::VectorXd::Constant(c.topicCount, c.alpha0 / c.topicCount);
    info.guessErrorL2 = compareTopics(out.truth->topics, out.truth->alpha, uniform, alpha).l2Mean;
  }
  if (!model.ok()) {
    info.baselineFailure = model.status().message();
    return;
  }
  const SpectralModel& m = model.value();
  out.baseline = m.output;
  if (out.truth) {
    const TopicErrors e = compareTopics(out.truth->topics, out.truth->alpha, m.output.topics, m.output.alpha);
    info.baselineErrorL2 = e.l2Mean;
    info.baselineErrorL1 = e.l1Mean;
    info.baselineErrorAlpha = e.alphaError;
    info.baselineErrorFrobenius = e.frobenius;
  }
  out.baselinePerplexity = scorePerplexity(out, spec, LdaModel{m.output.alpha, m.output.topics});
  info.baselinePerplexity = out.baselinePerplexity.perplexity;
  info.baselinePerplexityBound = out.baselinePerplexity.bound;
  SweepRow coherence;
  scoreCoherence(out, spec, LdaModel{m.output.alpha, m.output.topics}, coherence);
  info.baselineCoherenceNpmi = coherence.coherenceNpmi;
  info.sigmaK = m.whitening.sigmaK();
  info.sigmaKPlus1 = m.whitening.sigma.size() > c.topicCount ? m.whitening.sigma[c.topicCount] : 0.0;
  info.gammaS = m.gammaS;
  info.prepareMs = msSince(start);
}

std::string releaseLabel(const LedgerEntry& e) {
  std::string s = e.node;
  if (!e.edges.empty()) {
    s += " (";
    for (std::size_t i = 0; i < e.edges.size(); ++i) {
      if (i) s += ',';
      s += 'e';
      s += std::to_string(e.edges[i]);
    }
    s += ")";
  }
  return s;
}

SweepRow runTrial(const SweepSpec& spec, const PreparedCase& pc, SpectralPipeline& pipeline, int caseIndex,
                  int configIndex, int epsilonIndex, int trial) {
  const SweepConfiguration& config = spec.configurations[configIndex];
  SweepRow row;
  row.caseIndex = caseIndex;
  row.configIndex = configIndex;
  row.epsilonIndex = epsilonIndex;
  row.trial = trial;
  row.epsilon = spec.epsilons[epsilonIndex];
  row.noiseSeed = deriveSeed(spec.seeds.noise, static_cast<std::uint64_t>(trial));
  row.errorL2 = row.errorL1 = row.errorAlpha = row.errorFrobenius = kNaN;
  row.lossL2 = row.lossL1 = row.lossAlpha = row.lossFrobenius = kNaN;
  row.perplexity = row.perplexityBound = kNaN;
  row.sigmaKTilde = row.gammaSTilde = kNaN;
  row.sigmaK = config.clipMoments ? pc.clippedSigmaK : pc.info.sigmaK;  // of the moments the row perturbs
  row.gammaS = config.clipMoments ? pc.clippedGammaS : pc.info.gammaS;
  if (config.model != SweepModel::Spectral) {
    runViTrial(spec, spec.cases[caseIndex], pc, row);
    return row;
  }

  const PrivacyOptions po = privacyOptionsFor(spec, config, row.epsilon);

  SeededRandom noise(row.noiseSeed);
  const auto start = Clock::now();
  auto r = runPrivate(pipeline, po, noise, nullptr);
  if (!r.ok()) {
    row.status = r.status().code();
    row.reason = r.status().message();
    row.elapsedMs = msSince(start);
    return row;
  }
  const PrivateRunResult& res = r.value();
  row.released = res.released && res.output.has_value();
  row.status = res.status.code();
  row.reason = res.status.message();
  row.epsilonSpent = res.epsilonSpent;
  row.deltaSpent = res.deltaSpent;
  row.epsilonGaussianDp = res.accounts.gaussianDp;
  row.epsilonPld = res.accounts.pld;
  if (res.diagnostics.sigmaKTilde) row.sigmaKTilde = *res.diagnostics.sigmaKTilde;
  if (res.diagnostics.gammaSTilde) row.gammaSTilde = *res.diagnostics.gammaSTilde;
  for (const LedgerEntry& e : res.ledger)
    row.noiseScales.push_back({releaseLabel(e), e.epsilon, e.delta, e.sigma, e.spent});
  if (row.released) {
    const LdaModel released{res.output->alpha, res.output->topics};
    const LdaModel baseline{pc.baseline.alpha, pc.baseline.topics};
    scoreRelease(pc, spec, released, &baseline, row, config.edges == 0);
  }
  row.elapsedMs = msSince(start);
  return row;
}

}  // namespace


bool configurationReleases(const SweepConfiguration& c) {
  return c.model == SweepModel::DpVi || (c.model == SweepModel::Spectral && c.edges != 0);
}

bool configurationShown(const SweepSpec& s, int g) {
  return !s.releaseOnly || configurationReleases(s.configurations[static_cast<std::size_t>(g)]);
}

Status validateSweepSpec(const SweepSpec& s) {
  if (s.cases.empty()) return invalidArgument("the sweep has no corpus (cases is empty)");
  std::set<std::string> labels;
  for (const SweepCase& c : s.cases) {
    const std::string name = "case \"" + c.label + "\"";
    if (c.label.empty()) return invalidArgument("every case needs a label");
    if (!labels.insert(c.label).second)
      return invalidArgument(name + " appears twice: case labels must be unique");
    if (static_cast<bool>(c.source.corpus) == c.source.generator.has_value()) {
      return invalidArgument(name +
                             ": give either a loaded corpus or generator parameters, not both or neither");
    }
    if (!std::isfinite(c.alpha0) || c.alpha0 <= 0.0) {
      return invalidArgument(name + ": alpha0 must be a finite number > 0, got " + csvNumberText(c.alpha0));
    }
    if (c.topicCount < 1)
      return invalidArgument(name + ": the topic count must be >= 1, got " + std::to_string(c.topicCount));
    if (c.viBatchSize < 0 || c.viPasses < 0 || c.viBatchSize > kMaxViBatchSize || c.viPasses > kMaxViIterations) {
      return invalidArgument(name + ": its VI minibatch size and passes must be 0 (the sweep's) or in 1.." +
                             std::to_string(kMaxViBatchSize) + " and 1.." + std::to_string(kMaxViIterations) + ", got " +
                             std::to_string(c.viBatchSize) + " and " + std::to_string(c.viPasses));
    }
    if (!(c.viTau0 == 0.0 || (c.viTau0 >= 1.0 && c.viTau0 <= kMaxViTau0)) ||
        !(c.viKappa == 0.0 || (c.viKappa > 0.5 && c.viKappa <= 1.0))) {
      return invalidArgument(name + ": its VI tau0 must be 0 (the sweep's) or in [1, 1e12] and its kappa 0 or in "
                             "(0.5, 1], got " + csvNumberText(c.viTau0) + " and " + csvNumberText(c.viKappa));
    }
    int truthK = 0;
    if (c.source.generator) {
      GeneratorParams g = *c.source.generator;
      g.seed = s.seeds.data;
      const Status st = validateGeneratorParams(g);
      if (!st.isOk()) return Status(st.code(), name + ": " + st.message());
      if (c.topicCount > g.vocabSize) {
        return invalidArgument(name + ": " + std::to_string(c.topicCount) +
                               " topics exceed the vocabulary size " + std::to_string(g.vocabSize));
      }
      truthK = g.topicCount;
    } else {
      const Corpus& corpus = *c.source.corpus;
      const Status k = validateTopicCount(c.topicCount, corpus.vocabSize(), corpus.docCount());
      if (!k.isOk()) return Status(k.code(), name + ": " + k.message());
      if (c.source.truth) {
        const Status st = validateLdaModel(*c.source.truth);
        if (!st.isOk()) return Status(st.code(), name + ": the truth is invalid: " + st.message());
        if (c.source.truth->vocabSize() != corpus.vocabSize()) {
          return invalidArgument(
              name + ": the truth has topics over " + std::to_string(c.source.truth->vocabSize()) +
              " words but the corpus vocabulary has " + std::to_string(corpus.vocabSize()));
        }
        truthK = c.source.truth->topicCount();
      }
    }
    if (truthK > c.topicCount) {
      return invalidArgument(name + ": the truth has " + std::to_string(truthK) +
                             " topics but the model fits only " + std::to_string(c.topicCount) +
                             "; errors need at least as many fitted topics");
    }
  }
  if (s.configurations.empty()) return invalidArgument("the sweep has no configuration");
  std::set<std::string> configLabels;
  for (const SweepConfiguration& c : s.configurations) {
    if (c.label.empty()) return invalidArgument("every configuration needs a label");
    if (!configLabels.insert(c.label).second) {
      return invalidArgument("configuration \"" + c.label + "\" appears twice: labels must be unique");
    }
    if (c.edges >= (1u << kEdgeCount))
      return invalidArgument("configuration \"" + c.label + "\" names an edge beyond e9");
  }
  if (s.epsilons.empty()) return invalidArgument("the sweep has no epsilon value");
  for (double eps : s.epsilons) DPLDA_RETURN_IF_ERROR(validatePrivacyParameters(eps, s.delta));
  if (s.trials < 1 || s.trials > 1'000'000) {
    return invalidArgument("trials must be between 1 and 1000000, got " + std::to_string(s.trials));
  }
  const long long runs = static_cast<long long>(s.cases.size()) *
                         static_cast<long long>(s.configurations.size()) *
                         static_cast<long long>(s.epsilons.size()) * s.trials;
  if (runs > kMaxTrialRuns) {
    return Status(StatusCode::ResourceLimit, "the sweep would run " + std::to_string(runs) +
                                                 " trials (limit " + std::to_string(kMaxTrialRuns) +
                                                 "); reduce trials, epsilons or cases");
  }
  if (!(s.holdout >= 0.0 && s.holdout <= 0.9)) {
    return invalidArgument("the held-out fraction must be between 0 and 0.9, got " + csvNumberText(s.holdout));
  }
  if (s.coherenceTopWords < 0 || s.coherenceTopWords == 1 || s.coherenceTopWords > kMaxVocabularySize) {
    return invalidArgument("the coherence's top words must be 0 (off) or 2.." + std::to_string(kMaxVocabularySize) +
                           ", got " + std::to_string(s.coherenceTopWords));
  }
  if (!std::isfinite(s.dpViClip) || s.dpViClip <= 0.0) {
    return invalidArgument("DP-VI's clipping norm C must be a finite number > 0, got " + csvNumberText(s.dpViClip));
  }
  if (s.releaseOnly) {
    if (s.noiseMultiplier != 1.0) return invalidArgument("a release-only sweep needs the calibrated noise (multiplier 1)");
    if (std::none_of(s.configurations.begin(), s.configurations.end(), configurationReleases)) {
      return invalidArgument("a release-only sweep needs a private configuration (an edge set or dp-vi): \"none\" "
                             "and \"vi\" are not releases");
    }
  }
  if (s.threads < 0 || s.threads > 1024)
    return invalidArgument("threads must be 0 (all cores) to 1024, got " + std::to_string(s.threads));
  if (!(s.bandLower >= 0.0 && s.bandLower < s.bandUpper && s.bandUpper <= 1.0)) {
    return invalidArgument("the quantile band needs 0 <= lower < upper <= 1, got " +
                           csvNumberText(s.bandLower) + " and " + csvNumberText(s.bandUpper));
  }
  // Seed 004's online method reads documents, not a tensor: it is a decomposer of the non-private
  // pipeline only (no sensitivity bound covers it), so a sweep with it has no private configuration.
  if (s.decomposer == "online") {
    for (const SweepConfiguration& c : s.configurations) {
      if (c.model == SweepModel::Spectral && c.edges != 0) {
        return invalidArgument("configuration \"" + c.label + "\": the online decomposer reads documents in "
                               "batches and no sensitivity bound covers it; with --decomposer online use only the "
                               "non-private baseline (none) and the variational models");
      }
    }
  } else {
    DPLDA_RETURN_IF_ERROR(makeDecomposer(s.decomposer, s.power).status());
  }
  for (const SweepConfiguration& c : s.configurations) {
    if (c.edges == 0) continue;
    for (double eps : s.epsilons) {
      const Status st = validatePrivacyOptions(privacyOptionsFor(s, c, eps));
      if (!st.isOk()) return Status(st.code(), "configuration \"" + c.label + "\": " + st.message());
    }
  }
  return Status::ok();
}

double quantile(std::vector<double> v, double q) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1.0) * std::clamp(q, 0.0, 1.0);
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

QuantileSummary summarize(const std::vector<double>& values, double lower, double upper) {
  QuantileSummary s;
  s.count = static_cast<int>(
      std::count_if(values.begin(), values.end(), [](double x) { return std::isfinite(x); }));
  if (s.count == 0) return s;
  s.median = quantile(values, 0.5);
  s.lower = quantile(values, lower);
  s.upper = quantile(values, upper);
  return s;
}

const SweepRow& SweepResult::row(int c, int g, int e, int t) const {
  return rows.at(summaryIndex(spec, c, g, e) * spec.trials + t);
}

const SweepSummaryRow& SweepResult::summaryRow(int c, int g, int e) const {
  return summary.at(summaryIndex(spec, c, g, e));
}

std::size_t summaryIndex(const SweepSpec& spec, int c, int g, int e) {
  return (static_cast<std::size_t>(c) * spec.configurations.size() + g) * spec.epsilons.size() + e;
}

namespace {

// A point before any of its trials has run: no trials, NaN statistics.
SweepSummaryRow pendingPoint(const SweepSpec& spec, int c, int g, int e) {
  SweepSummaryRow s;
  s.caseIndex = c;
  s.configIndex = g;
  s.epsilonIndex = e;
  s.epsilon = spec.epsilons[e];
  s.releaseRate = kNaN;
  s.meanElapsedMs = kNaN;
  return s;
}

}  // namespace

std::vector<SweepSummaryRow> emptySummary(const SweepSpec& spec, int caseCount) {
  std::vector<SweepSummaryRow> out;
  for (int c = 0; c < caseCount; ++c)
    for (int g = 0; g < static_cast<int>(spec.configurations.size()); ++g)
      for (int e = 0; e < static_cast<int>(spec.epsilons.size()); ++e) out.push_back(pendingPoint(spec, c, g, e));
  return out;
}

namespace {

// The summary of one point from its T rows (stored at summaryIndex(...) * T + t).
SweepSummaryRow summarizePoint(const SweepSpec& spec, const std::vector<SweepRow>& rows, int c, int g, int e) {
  const int T = spec.trials;
  const std::size_t first = summaryIndex(spec, c, g, e) * T;
  SweepSummaryRow s = pendingPoint(spec, c, g, e);
  s.trials = T;
  std::vector<double> el2, el1, ea, ef, ll2, ll1, la, lf, px, sk, gs, cn;
  double ms = 0.0;
  for (int t = 0; t < T; ++t) {
    const SweepRow& r = rows[first + t];
    ms += r.elapsedMs;
    sk.push_back(r.sigmaKTilde);
    gs.push_back(r.gammaSTilde);
    if (!r.released) continue;
    ++s.released;
    el2.push_back(r.errorL2);
    el1.push_back(r.errorL1);
    ea.push_back(r.errorAlpha);
    ll2.push_back(r.lossL2);
    ll1.push_back(r.lossL1);
    la.push_back(r.lossAlpha);
    ef.push_back(r.errorFrobenius);
    lf.push_back(r.lossFrobenius);
    px.push_back(r.perplexity);
    cn.push_back(r.coherenceNpmi);
  }
  s.releaseRate = static_cast<double>(s.released) / T;
  const double lo = spec.bandLower, hi = spec.bandUpper;
  s.errorL2 = summarize(el2, lo, hi);
  s.errorL1 = summarize(el1, lo, hi);
  s.errorAlpha = summarize(ea, lo, hi);
  s.lossL2 = summarize(ll2, lo, hi);
  s.lossL1 = summarize(ll1, lo, hi);
  s.lossAlpha = summarize(la, lo, hi);
  s.sigmaKTilde = summarize(sk, lo, hi);
  s.gammaSTilde = summarize(gs, lo, hi);
  s.errorFrobenius = summarize(ef, lo, hi);
  s.lossFrobenius = summarize(lf, lo, hi);
  s.perplexity = summarize(px, lo, hi);
  s.coherenceNpmi = summarize(cn, lo, hi);
  s.meanElapsedMs = ms / T;
  return s;
}

}  // namespace

Result<SweepResult> runSweep(const SweepSpec& spec, Feedback* feedback, const SweepListener* listener) {
  DPLDA_RETURN_IF_ERROR(validateSweepSpec(spec));
  const auto start = Clock::now();
  const int threads = resolveThreadCount(spec.threads);
  // Before anything is allocated (issue 28): every worker runs a whole fit of its own (each trial's
  // noisy tensor is its own), so a case needs its fit's peak once per thread.
  for (const SweepCase& c : spec.cases) {
    const int d = c.source.generator ? c.source.generator->vocabSize : c.source.corpus->vocabSize();
    const int workers = std::min<long long>(threads, static_cast<long long>(spec.trials) * spec.epsilons.size() *
                                                         std::max<std::size_t>(spec.configurations.size(), 1));
    const SpectralMemory m = estimateSpectralMemory(d, c.topicCount, spectralOptionsFor(spec, c));
    const Status fits = checkMemory(m.bytes * workers,
                                    "sweep case " + c.label + " on " + std::to_string(workers) + " thread(s)",
                                    m.largest + " in each (estimated)", "fewer threads or fewer topics fit better");
    if (!fits.isOk()) return fits;
  }
  const int C = static_cast<int>(spec.cases.size());
  const int G = static_cast<int>(spec.configurations.size());
  const int E = static_cast<int>(spec.epsilons.size());
  const int T = spec.trials;

  // ---- the cases: corpora and their non-private runs, in parallel ----
  std::vector<PreparedCase> prepared(C);
  parallelFor(C, threads, feedback, [&](int c, int) { prepareCase(spec, spec.cases[c], prepared[c]); });
  if (isCanceled(feedback)) return cancelled();
  for (const PreparedCase& pc : prepared) DPLDA_RETURN_IF_ERROR(pc.status);

  // ---- the trials ----
  SweepResult result;
  result.spec = spec;
  result.threadsUsed = threads;
  result.noiseSource = "seeded (mt19937_64): trial t draws its noise from SeededRandom(deriveSeed(" +
                       std::to_string(spec.seeds.noise) +
                       ", t)), the same for every configuration, epsilon and case (common random numbers); "
                       "reproducible, for experiments, not for releasing real data";
  for (const PreparedCase& pc : prepared) result.cases.push_back(pc.info);
  const int total = C * G * E * T;
  result.rows.resize(total);
  // Per worker, a copy of each case's pipeline, made on first use: copying carries the cached
  // noise-free stages, so nothing is recomputed and no pipeline is shared between threads.
  // Index 2c: the case's pipeline; 2c + 1: its clipped copy ("/clip" configurations).
  std::vector<std::vector<std::optional<SpectralPipeline>>> local(
      threads, std::vector<std::optional<SpectralPipeline>>(2 * C));
  std::mutex listenerMutex;  // the listener's calls are serialised
  if (listener && listener->casesReady) {
    std::lock_guard<std::mutex> lock(listenerMutex);
    listener->casesReady(result.cases);
  }
  // The non-private VI fit of every (case, trial): the "vi" curve and DP-VI's reference.
  // After casesReady, so that a live view knows its points at once.
  if (needsViFits(spec)) {
    for (PreparedCase& pc : prepared) pc.vi.resize(T);
    parallelFor(C * T, threads, feedback,
                [&](int i, int) { fitViTrial(spec, spec.cases[i / T], prepared[i / T], i % T); });
    if (isCanceled(feedback)) return cancelled();
  }
  std::atomic<int> done{0};
  // Trials left per point; the thread finishing a point's last trial reports its summary.
  std::vector<std::atomic<int>> pending(static_cast<std::size_t>(C) * G * E);
  for (auto& p : pending) p.store(T);
  // Scheduling order (case, ε, configuration, trial): every curve grows together in a live plot.
  parallelFor(total, threads, feedback, [&](int i, int worker) {
    const int t = i % T;
    const int g = (i / T) % G;
    const int e = (i / (T * G)) % E;
    const int c = i / (T * G * E);
    const bool clipped = spec.configurations[g].clipMoments && prepared[c].clippedPipeline.has_value();
    auto& mine = local[worker][2 * c + (clipped ? 1 : 0)];
    if (!mine) mine.emplace(clipped ? *prepared[c].clippedPipeline : prepared[c].pipeline);
    const std::size_t point = summaryIndex(spec, c, g, e);
    result.rows[point * T + t] = runTrial(spec, prepared[c], *mine, c, g, e, t);
    reportProgress(feedback, static_cast<double>(done.fetch_add(1) + 1) / total);
    // acq_rel: the last thread sees every other trial's row of this point.
    if (pending[point].fetch_sub(1, std::memory_order_acq_rel) == 1 && listener && listener->pointDone) {
      const SweepSummaryRow row = summarizePoint(spec, result.rows, c, g, e);
      std::lock_guard<std::mutex> lock(listenerMutex);
      listener->pointDone(row);
    }
  });
  if (isCanceled(feedback)) return cancelled();

  // ---- summaries ----
  for (int c = 0; c < C; ++c)
    for (int g = 0; g < G; ++g)
      for (int e = 0; e < E; ++e) result.summary.push_back(summarizePoint(spec, result.rows, c, g, e));
  result.elapsedMs = msSince(start);
  return result;
}

std::vector<double> meanTrialMsPerConfiguration(const SweepResult& r) {
  std::vector<double> sum(r.spec.configurations.size(), 0.0);
  std::vector<int> n(r.spec.configurations.size(), 0);
  for (const SweepRow& row : r.rows) {
    sum[row.configIndex] += row.elapsedMs;
    ++n[row.configIndex];
  }
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = n[i] ? sum[i] / n[i] : kNaN;
  return sum;
}

}  // namespace dplda
