// dplda run: a non-private fit, or a private release with its ledger. The output keeps the
// released object (topics, α, the released diagnostics) apart from the exact statistics of the
// corpus, which are computed after the release, only for teaching, and left out with
// --release-only (docs/PRIVACY.md §6).
#include <QJsonArray>
#include <QJsonObject>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/holdout_output.h"
#include "app/cli/model_output.h"
#include "app/cli/output_paths.h"
#include "app/cli/vi_command.h"
#include "core/common/text_escape.h"
#include "core/corpus/corpus_cache.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "core/corpus/vocabulary_compaction.h"
#include "core/eval/metrics.h"
#include "core/pipeline/memory_estimate.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/privacy/budget.h"
#include "core/whitening/block_eigensolver.h"

namespace dplda::cli {

namespace {

constexpr const char* kNotComputed = "not computed";

// A value this configuration does not release: the key is left out (Undefined), not null.
QJsonValue optionalNumber(const std::optional<double>& x) {
  return x ? numberOrNotComputed(*x) : QJsonValue(QJsonValue::Undefined);
}
// The same for the text output.
std::string numberText(double x) {
  std::ostringstream s;
  s.precision(4);
  if (std::isfinite(x)) s << x;
  else s << kNotComputed;
  return s.str();
}
// How the eigenpairs of M2 (or of a released M2) were found: the solver, its products and the
// residual check ‖M u − σ u‖ / |σ_1| (σ_{k+1}'s separately for the block method).
QJsonObject eigenStepToJson(const EigenpairsTopK& e) {
  QJsonObject o{{"method", QString::fromStdString(e.method)},
                {"vector_products", e.operatorProducts},
                {"max_residual", e.maxResidual}};
  if (e.blockProducts > 0) {
    o.insert("passes", e.blockProducts);
    o.insert("block_width", e.blockWidth);
    o.insert("trailing_residual", e.trailingResidual);
    o.insert("converged", e.converged);  // false: stopped at the gap-free method's pass budget
  }
  return o;
}

std::string eigenStepText(const EigenpairsTopK& e) {
  std::ostringstream out;
  out << e.method << ", largest residual |M u - sigma u| / |sigma_1| = " << e.maxResidual;
  if (e.blockProducts > 0) out << " (sigma_k+1: " << e.trailingResidual << ")";
  if (!e.converged) {
    out << "; stopped at its pass budget (gap-free: each value within " << 100.0 * kGapFreeValueAccuracy
        << "% of the exact one, from below)";
  }
  return out.str();
}

// What a private run released besides the topics: Procedure 1's bounds and a released spectrum.
QJsonObject releasedDiagnosticsToJson(const PrivacyDiagnostics& d) {
  QJsonObject o{{"sigma_k_tilde", optionalNumber(d.sigmaKTilde)},
                {"eigengap_tilde", optionalNumber(d.gapTilde)},
                {"gamma_s_tilde", optionalNumber(d.gammaSTilde)},
                {"preconditions", preconditionsToJson(d.preconditions)},
                {"note", "released values: private, the only data-dependent values in any noise scale"}};
  if (d.releasedEigenvalues.size()) o.insert("released_m2_eigenvalues", toJson(d.releasedEigenvalues));
  if (d.releasedEigen) o.insert("released_m2_eigen_step", eigenStepToJson(*d.releasedEigen));
  return o;
}

// Reads the privacy options of `dplda run`; edges stay empty when none were asked for.
PrivacyOptions privacyOptionsFrom(const Arguments& a) {
  PrivacyOptions o;
  if (a.has("config") && a.has("edges")) throw UsageError("give either --config or --edges, not both");
  if (a.has("config") && a.text("config") == "whitened") {
    o.edges = (1u << 2) | (1u << 5) | (1u << 6);
    o.whitened.enabled = true;
  } else if (a.has("config")) {
    auto preset = parsePreset(a.text("config"));
    if (!preset.ok()) throw UsageError(preset.status().message());
    o.edges = presetEdges(preset.value());
  } else if (a.has("edges")) {
    auto edges = parseEdgeSet(a.text("edges"));
    if (!edges.ok()) throw UsageError(edges.status().message());
    o.edges = edges.value();
  }
  o.epsilon = a.number("epsilon", o.epsilon);
  o.delta = a.number("delta", o.delta);
  if (a.has("mechanism")) {
    auto m = parseMechanism(a.text("mechanism"));
    if (!m.ok()) throw UsageError(m.status().message());
    o.mechanism = m.value();
  }
  if (a.has("bounds")) {
    auto b = parseBoundSet(a.text("bounds"));
    if (!b.ok()) throw UsageError(b.status().message());
    o.bounds = b.value();
  }
  if (a.has("split")) {
    auto w = parseSplit(a.text("split"));
    if (!w.ok()) throw UsageError(w.status().message());
    o.splitWeights = w.value();
  }
  if (a.flag("share-releases") && a.flag("separate-releases"))
    throw UsageError("--share-releases and --separate-releases contradict each other");
  o.shareReleases = !a.flag("separate-releases");  // shared by default (issue 13)
  if (a.has("e6")) {
    const std::string m = a.text("e6");
    if (m != "noise" && m != "decomposition" && m != "whitened") {
      throw UsageError("--e6 must be noise (Gaussian noise on T), decomposition (seed 004 Algorithm 3) or whitened "
                       "(the whitened release, with e2 and e5), got '" + m + "'");
    }
    o.privateDecomposition = m == "decomposition";
    o.whitened.enabled = o.whitened.enabled || m == "whitened";
  }
  if (a.has("tpm-accountant")) {
    auto acc = parseTpmAccountant(a.text("tpm-accountant"));
    if (!acc.ok()) throw UsageError(acc.status().message());
    o.decompositionAccountant = acc.value();
  }
  if (a.has("accountant")) {
    auto acc = parseAccountant(a.text("accountant"));
    if (!acc.ok()) throw UsageError(acc.status().message());
    o.accountant = acc.value();
  }
  o.maxLength = a.number("max-length", o.maxLength);
  o.whitened.m2Clip.m1 = a.number("clip-m1", o.whitened.m2Clip.m1);
  o.whitened.m2Clip.m2 = a.number("clip-m2", o.whitened.m2Clip.m2);
  o.whitened.whitenedClip = a.number("clip-whitened", o.whitened.whitenedClip);
  if (!o.whitened.enabled && a.has("clip-whitened")) {
    throw UsageError("--clip-whitened bounds the whitened terms of the whitened release; give --config whitened "
                     "with it");
  }
  if (o.whitened.enabled && a.has("clip-m3")) {
    throw UsageError("--clip-m3 bounds each document's M3 term in configurations 1-4; the whitened release clips "
                     "in whitened space (--clip-whitened)");
  }
  return o;
}

// --clip-m1/--clip-m2/--clip-m3 outside the whitened release: the papers' configurations on
// clipped documents (docs/PRIVACY.md §12). A bound not given is 1, which clips nothing of its term.
MomentClip momentClipFrom(const Arguments& a, const PrivacyOptions& p) {
  MomentClip c;
  if (p.whitened.enabled || !(a.has("clip-m1") || a.has("clip-m2") || a.has("clip-m3"))) return c;
  c.enabled = true;
  c.m1 = a.number("clip-m1", 1.0);
  c.m2 = a.number("clip-m2", 1.0);
  c.m3 = a.number("clip-m3", 1.0);
  require(validateMomentClip(c));
  return c;
}

const char* kNonPrivateNote =
    "exact statistics of the corpus, computed after the run for teaching: NOT part of any private release, "
    "never used by it; leave them out with --release-only";

}  // namespace

int runCommand(const std::vector<std::string>& args) {
  const Arguments a(args,
                    {"corpus", "topics", "alpha0", "truth", "decomposer", "seed", "json", "top-words", "config",
                     "edges", "epsilon", "delta", "mechanism", "bounds", "split", "noise-seed", "max-length",
                     "accountant", "e6", "tpm-accountant", "clip-m1", "clip-m2", "clip-m3", "clip-whitened", "batch-size", "online-iterations", "model", "holdout",
                     "holdout-seed", "write-split", "score-model", "holdout-epsilon", "holdout-clip", "iterations", "vi", "vi-alpha", "clip", "tau0", "kappa",
                     "save-model", "coherence-reference", "coherence-top-words"},
                    {"share-releases", "separate-releases", "release-only", "no-cache", "force"});
  const std::string modelName = a.text("model", "spectral");
  if (modelName == "vi" || modelName == "dp-vi") return runViCommand(a, modelName);
  if (modelName != "spectral") throw UsageError("--model must be spectral, vi or dp-vi, got '" + modelName + "'");
  for (const char* opt : kViOnlyOptions) {
    if (a.has(opt)) throw UsageError("--" + std::string(opt) + " needs --model vi or dp-vi");
  }
  const std::string corpusPath = a.text("corpus");
  SpectralOptions o;
  o.topicCount = a.integer("topics");
  o.alpha0 = a.number("alpha0", o.alpha0);
  o.decomposer = a.text("decomposer", o.decomposer);
  o.initSeed = a.seed("seed", o.initSeed);
  const int nTop = a.integer("top-words", 10);
  if (nTop < 1) throw UsageError("--top-words must be >= 1, got " + std::to_string(nTop));
  if (o.decomposer == "online") {
    o.online.batchSize = a.integer("batch-size", 0);
    o.online.iterations = a.integer("online-iterations", o.online.iterations);
    o.online.orderSeed = deriveSeed(o.initSeed, 1);
  } else {
    if (a.has("batch-size") || a.has("online-iterations")) {
      throw UsageError("--batch-size and --online-iterations need --decomposer online");
    }
    require(makeDecomposer(o.decomposer).status());
  }
  PrivacyOptions privacy = privacyOptionsFrom(a);
  o.clip = momentClipFrom(a, privacy);
  const bool isPrivateRun = privacy.edges != 0;
  const bool teaching = !a.flag("release-only");
  if (!isPrivateRun && !teaching) throw UsageError("--release-only needs an edge set (--config or --edges)");
  privacy.nonPrivateDiagnostics = teaching;
  const HeldOutSettings heldOut = heldOutSettingsFrom(a, isPrivateRun);
  require(validatePrivacyOptions(privacy));
  std::unique_ptr<RandomSource> noise;
  if (a.has("noise-seed")) noise = std::make_unique<SeededRandom>(a.seed("noise-seed", 0));
  else noise = std::make_unique<SecureRandom>();

  checkRunOutputs(a);  // before the corpus is read: a refused output is known at once, not after the fit
  checkModelOutputs(a);
  CorpusCacheOptions cache = corpusCacheOptionsFromEnvironment(!a.flag("no-cache"));  // issue 11
  // Streamed from the cache's mapping (issue 27 §4: the fit holds blocks of documents, not the
  // counts), except where a stage reads a resident corpus: a held-out split, the online decomposer.
  cache.stream = !a.has("holdout") && o.decomposer != "online";
  Corpus full = take(loadUciCorpus(corpusPath, cache));
  const int fullDocCount = full.docCount();
  // --holdout: the spectral model is fitted on the training part only (N public = its size).
  // The corpus is moved, never copied: at NYTimes scale a copy is 0.8 GB (issue 11).
  std::optional<HoldoutSplit> split = holdoutFrom(a, full);
  auto corpus = std::make_shared<Corpus>(std::move(split ? split->train : full));
  full = Corpus();  // with a split, the whole corpus is no longer needed (reportHeldOut counts ids)
  std::optional<LdaModel> truth;
  if (a.has("truth")) {
    truth = take(readTruthJson(a.text("truth"), TruthShape{corpus->vocabSize(), o.topicCount}));
    if (truth->vocabSize() != corpus->vocabSize()) {
      throw InputError("the truth file has topics over " + std::to_string(truth->vocabSize()) +
                       " words but the corpus vocabulary has " + std::to_string(corpus->vocabSize()));
    }
    // compareTopics needs at least as many fitted topics (else every error is NaN).
    if (truth->topicCount() > o.topicCount) {
      throw InputError("the truth file has " + std::to_string(truth->topicCount()) + " topics but --topics is " +
                       std::to_string(o.topicCount) + "; errors need at least as many fitted topics");
    }
  }
  require(validateSpectralOptions(o, *corpus));
  // A non-private fit sees only the words some document uses (vocabulary_compaction.h); the
  // output speaks of the original ids. A private release keeps every declared word.
  VocabularyCompaction compaction;
  if (!isPrivateRun) compaction = compactVocabulary(*corpus);
  if (compaction.compacted() && o.topicCount > corpus->vocabSize()) {
    throw InputError("--topics " + std::to_string(o.topicCount) + " but the documents use only " +
                     std::to_string(corpus->vocabSize()) + " of the " + std::to_string(compaction.vocabSize) +
                     " words of the vocabulary");
  }
  SpectralPipeline pipeline;
  pipeline.setCorpus(corpus);
  pipeline.setOptions(o);
  require(checkSpectralMemory(o, *corpus, isPrivateRun ? &privacy : nullptr));  // before any stage allocates: k is capped by what fits
  // The release first: nothing non-private is computed before it (a failure of the exact
  // pipeline must not decide whether a private run releases).
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  PrivateRunResult priv = take(runPrivate(pipeline, privacy, *noise));
  const double runMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  // Stage timings of the first pass over the stages (a private run fetches only some of them).
  std::vector<StageTiming> timings = pipeline.timings();
  std::optional<SpectralModel> model;  // the non-private model, for teaching (and the baseline)
  std::string modelFailure;
  if (teaching) {
    auto m = pipeline.run();
    if (m.ok()) model = std::move(m).value();
    else modelFailure = m.status().message();
    if (isPrivateRun) timings = pipeline.timings();
  }
  const int wordsUsed = corpus->vocabSize();
  if (compaction.compacted()) {  // back to the original word ids for every output
    restoreVocabulary(*corpus, compaction);
    if (priv.output) priv.output->topics = expandWordRows(priv.output->topics, compaction);
  }

  QJsonObject json;
  json.insert("status", priv.status.isOk() ? QString("ok") : QString::fromStdString(priv.status.toString()));
  json.insert("released", priv.released);
  json.insert("model", "spectral");
  QJsonObject corpusJson = corpusSummaryJson(*corpus, fullDocCount, teaching);
  if (teaching) corpusJson.insert("words_fitted", wordsUsed);  // a count of the data: teaching output only
  json.insert("corpus", corpusJson);
  json.insert("topics_k", o.topicCount);
  json.insert("alpha0", o.alpha0);
  json.insert("decomposer", QString::fromStdString(o.decomposer));
  json.insert("init_seed", QString::number(o.initSeed));
  QJsonObject privacyJson = privacyToJson(privacy, priv);
  if (o.clip.enabled) {  // public bounds of the clipped estimators (docs/PRIVACY.md §12)
    privacyJson.insert("moment_clip", QJsonObject{{"c1", o.clip.m1}, {"c2", o.clip.m2}, {"c3", o.clip.m3}});
  }
  json.insert("privacy", privacyJson);
  if (isPrivateRun) json.insert("released_diagnostics", releasedDiagnosticsToJson(priv.diagnostics));

  std::ostringstream out;
  out.precision(4);
  out << "corpus: " << fullDocCount << " documents, vocabulary " << corpus->vocabSize();
  if (wordsUsed < corpus->vocabSize()) out << " (" << wordsUsed << " used by the documents fitted)";
  if (corpus->droppedDocuments) out << " (" << corpus->droppedDocuments << " short documents dropped on loading)";
  out << ", vocabulary " << vocabularyOriginName(corpus->provenance.vocabulary) << "\n";
  if (isPrivateRun) {
    out << "privacy: edges " << edgeSetToString(privacy.edges) << " - " << privacyClaimName(priv.statement.claim)
        << ": " << priv.statement.summary << "\n";
    out << "  total epsilon " << privacy.epsilon << ", delta " << privacy.delta << " (" << boundSetName(privacy.bounds)
        << " bounds, " << accountantName(privacy.accountant) << " composition, noise " << priv.noiseSource << ")\n";
    if (corpus->provenance.vocabulary == VocabularyOrigin::PrivateSelection) {
      out << "  with the vocabulary selection (basic composition): epsilon " << priv.epsilonSpent << ", delta "
          << priv.deltaSpent << " spent in all\n";
    }
    out << "  epsilon spent at the same delta: " << accountantComparisonText(priv.accounts) << "\n";
    for (const LedgerEntry& e : priv.ledger) {
      if (e.pureEpsilon) {  // the Laplace mechanism on an l1 bound (docs/PRIVACY.md §18)
        out << "  " << e.release << ": " << e.mechanism << ", sensitivity (l1) " << numberText(e.sensitivity)
            << ", epsilon " << e.epsilon << " (pure, delta 0), scale b " << numberText(e.sigma)
            << (e.spent ? "" : " (not spent)") << "\n";
        continue;
      }
      out << "  " << e.release << ": " << e.mechanism << ", sensitivity " << numberText(e.sensitivity) << ", epsilon "
          << e.epsilon << ", delta " << e.delta << ", scale " << numberText(e.sigma) << (e.spent ? "" : " (not spent)")
          << "\n";
    }
    if (priv.diagnostics.sigmaKTilde) out << "  sigma_k~ = " << *priv.diagnostics.sigmaKTilde << " (released)\n";
    if (priv.diagnostics.gapTilde) out << "  eigengap~ = " << *priv.diagnostics.gapTilde << " (released)\n";
    if (priv.diagnostics.gammaSTilde) out << "  gamma_s~ = " << *priv.diagnostics.gammaSTilde << " (released)\n";
    if (priv.diagnostics.releasedEigen) {
      out << "  eigenpairs of the released M2: " << eigenStepText(*priv.diagnostics.releasedEigen) << "\n";
    }
  }
  if (priv.released) {
    const UnwhitenedTopics& result = *priv.output;
    json.insert("alpha", toJson(result.alpha));
    json.insert("topics", columnsToJson(result.topics));
    json.insert("top_words", topWords(*corpus, result.topics, nTop));
    if (truth) {  // the truth is public (a synthetic corpus's generator): post-processing
      const TopicErrors err = compareTopics(truth->topics, truth->alpha, result.topics, result.alpha);
      json.insert("error", QJsonObject{{"l2_mean", err.l2Mean}, {"l1_mean", err.l1Mean}, {"alpha", err.alphaError}});
      QJsonArray m;
      for (int x : err.matching) m.append(x);
      json.insert("matching", m);
      out << "error vs truth: l2 " << err.l2Mean << ", l1 " << err.l1Mean << ", alpha " << err.alphaError << "\n";
    }
    out << (isPrivateRun ? "released topics" : "topics") << " (alpha, top words):\n";
    for (Eigen::Index c = 0; c < result.topics.cols(); ++c) {
      out << "  " << c + 1 << "  alpha " << result.alpha[c] << ":";
      for (int i : topIndices(result.topics.col(c), nTop)) out << " " << escapeControls(corpus->wordName(i));
      out << "\n";
    }
    const LdaModel released{result.alpha, result.topics};
    if (split) reportHeldOut(a, heldOut, *split, &released, truth ? &*truth : nullptr, *noise, json, out);
    reportModelOutputs(a, {"spectral", teaching, split.has_value(), corpus.get(), &released}, json, out);
  } else {
    out << priv.status.message() << "\n";
    if (a.has("save-model")) out << "no model saved: nothing was released\n";
    if (split) reportHeldOut(a, heldOut, *split, nullptr, truth ? &*truth : nullptr, *noise, json, out);
  }

  if (teaching) {
    const NonPrivateDiagnostics& np = priv.diagnostics.nonPrivate;
    QJsonObject exact{{"note", kNonPrivateNote},
                      {"nnz", static_cast<double>(corpus->nnz())},
                      {"max_length", corpus->maxLength()}};
    out << (isPrivateRun ? "\nnon-private diagnostics (exact statistics, for teaching; not part of the release):\n"
                         : "");
    if (model) {
      exact.insert("eigenvalues", toJson(model->eigen.values));
      exact.insert("eigen_method", QString::fromStdString(model->eigen.method));
      exact.insert("eigen_step", eigenStepToJson(model->eigen));
      exact.insert("gap", model->whitening.gap());
      exact.insert("tensor_eigenvalues", toJson(model->eigenpairs.lambda));
      exact.insert("gamma_s", model->gammaS);
      exact.insert("decomposer_method", QString::fromStdString(model->eigenpairs.method));
      exact.insert("decomposer_iterations", model->eigenpairs.iterations);
      exact.insert("decomposer_converged", model->eigenpairs.converged());
      exact.insert("decomposer_unconverged_components", model->eigenpairs.unconverged);
      if (model->eigenpairs.maxResidual) {
        exact.insert("decomposer_max_residual", *model->eigenpairs.maxResidual);
      }
      if (model->online) {
        exact.insert("online", QJsonObject{{"samples_used", static_cast<double>(model->online->samplesUsed)},
                                           {"passes", model->online->passes},
                                           {"batch_size", model->online->batchSize},
                                           {"restarts", model->online->restarts},
                                           {"iterations", o.online.iterations}});
      }
      exact.insert("timings_ms", timingsToJson(timings));
      out << "M2 eigenvalues:";
      for (Eigen::Index i = 0; i < model->eigen.values.size(); ++i) out << " " << model->eigen.values[i];
      out << "  (gap sigma_k - sigma_k+1 = " << model->whitening.gap() << ")\n";
      out << "eigen step: " << eigenStepText(model->eigen) << "\n";
      out << "tensor eigengap gamma_s = " << model->gammaS << "\n";
      out << "decomposer: " << model->eigenpairs.iterations << " iterations";
      if (model->eigenpairs.maxResidual) {
        out << ", largest residual |T~(I,v,v) - lambda v| / |T|_F = " << *model->eigenpairs.maxResidual;
      }
      if (!model->eigenpairs.converged()) {
        out << "  [warning: " << model->eigenpairs.unconverged << " of " << model->eigenpairs.lambda.size()
            << " components did not converge within the iteration limit]";
      }
      out << "\n";
      if (isPrivateRun && priv.released) {
        const TopicErrors loss =
            compareTopics(model->output.topics, model->output.alpha, priv.output->topics, priv.output->alpha);
        exact.insert("utility_loss",
                     QJsonObject{{"l2_mean", loss.l2Mean}, {"l1_mean", loss.l1Mean}, {"alpha", loss.alphaError}});
        out << "utility loss vs the non-private output: l2 " << loss.l2Mean << ", l1 " << loss.l1Mean << "\n";
      }
      if (!isPrivateRun) {
        out << "time (ms):";
        for (const auto& t : timings) out << " " << t.stage << " " << t.milliseconds;
      }
    } else {
      exact.insert("failure", QString::fromStdString(modelFailure));
      out << "the non-private model could not be computed: " << modelFailure << "\n";
    }
    if (isPrivateRun) exact.insert("checks", preconditionsToJson(np.checks));
    if (std::isfinite(np.clipped.m3)) {  // clipping inside configurations 1-4 (docs/PRIVACY.md §12)
      const auto& c = np.clipped;
      exact.insert("clipped_fractions", QJsonObject{{"m1", c.m1}, {"m2", c.m2}, {"m3", c.m3}});
      out << "documents clipped (" << momentClipText(o.clip) << "): M1 " << c.m1 << ", M2 " << c.m2 << ", M3 "
          << c.m3 << "\n";
    }
    if (std::isfinite(np.clipped.whitenedBound)) {
      const auto& c = np.clipped;
      exact.insert("clipped_fractions", QJsonObject{{"m1", c.m1}, {"m2", c.m2}, {"whitened_y", c.y},
                                                    {"whitened_p", c.p}, {"whitened_t", c.t},
                                                    {"whitened_bound", c.whitenedBound}});
      out << "documents clipped (whitened release): M1 " << c.m1 << ", M2 " << c.m2 << "; whitened y " << c.y
          << ", p " << c.p << ", t " << c.t << " (C = " << c.whitenedBound << ")\n";
    }
    json.insert("non_private_diagnostics", exact);
  }
  // Timings depend on the data (e.g. power iterations): teaching output only.
  if (teaching) out << (isPrivateRun ? "time (ms): private run " : "  total ") << runMs << "\n";
  std::cout << out.str();
  if (isPrivateRun) {
    for (const auto& w : priv.warnings) std::cerr << "dplda run: warning: " << w << "\n";
  }
  if (a.has("json")) require(writeJsonFile(a.text("json"), json, runJsonRules(a)));
  if (!priv.released) {
    std::cerr << "dplda run: " << priv.status.message() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace dplda::cli
