// dplda run --model vi|dp-vi: variational LDA (non-private) or DP-VI (Park et al. 2016) with its
// ledger, and held-out perplexity for every model. docs/PRIVACY.md §10 has DP-VI's proof.
#include "app/cli/vi_command.h"

#include <QJsonArray>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/holdout_output.h"
#include "app/cli/model_output.h"
#include "app/cli/json_output.h"
#include "app/cli/output_paths.h"
#include "core/common/memory_budget.h"
#include "core/common/number_text.h"
#include "core/common/text_escape.h"
#include "core/corpus/corpus_cache.h"
#include "core/corpus/truth_io.h"
#include "core/corpus/uci_io.h"
#include "core/corpus/vocabulary_compaction.h"
#include "core/eval/metrics.h"
#include "core/vi/dp_vi.h"
#include "core/vi/variational_lda.h"
#include "core/vi/vi_parameters.h"

namespace dplda::cli {

namespace {

LdaModel checkedModel(const LdaModel& m, const Corpus& corpus, const std::string& what) {
  if (m.vocabSize() != corpus.vocabSize()) {
    throw InputError(what + " has topics over " + std::to_string(m.vocabSize()) + " words but the corpus vocabulary has " +
                     std::to_string(corpus.vocabSize()));
  }
  return m;
}

}  // namespace

int runViCommand(const Arguments& a, const std::string& modelName) {
  const bool isPrivate = modelName == "dp-vi";
  for (const char* o : {"config", "edges", "mechanism", "bounds", "split", "share-releases", "e6", "tpm-accountant",
                        "accountant", "max-length", "decomposer", "online-iterations"}) {
    if (a.has(o)) throw UsageError("--" + std::string(o) + " applies to --model spectral only");
  }
  if (!isPrivate) {
    for (const char* o : {"clip", "epsilon", "delta", "noise-seed", "release-only"}) {
      if (a.has(o)) throw UsageError("--" + std::string(o) + " needs --model dp-vi");
    }
  }
  const int k = a.integer("topics");
  // The VI parameters' ranges and messages are shared with the app (core/vi/vi_parameters.h).
  ViRunParameters params;
  if (a.has("vi")) {
    auto m = parseViMethod(a.text("vi"));
    if (!m.ok()) throw UsageError("--vi must be batch, online or poisson, got '" + a.text("vi") + "'");
    params.method = m.value();
  }
  params.iterations = a.integer("iterations", params.iterations);
  if (a.has("batch-size") && !isMinibatch(params.method)) throw UsageError("--batch-size needs --vi online or poisson");
  params.batchSize = a.integer("batch-size", params.batchSize);
  params.tau0 = a.number("tau0", params.tau0);
  params.kappa = a.number("kappa", params.kappa);
  if (params.method == ViMethod::Batch && (a.has("tau0") || a.has("kappa"))) throw UsageError("--tau0 and --kappa need --vi online or poisson");
  const int nTop = a.integer("top-words", 10);
  if (nTop < 1) throw UsageError("--top-words must be >= 1, got " + std::to_string(nTop));
  DpViOptions dp;
  if (isPrivate) {
    params.clip = a.number("clip", params.clip);
    dp.epsilon = a.number("epsilon", dp.epsilon);
    dp.delta = a.number("delta", dp.delta);
  }
  const HeldOutSettings heldOut = heldOutSettingsFrom(a, isPrivate);
  // Option ranges that do not need the corpus: usage errors before reading it.
  for (const ViParameterProblem& p : checkViRunParameters(params, isPrivate)) throw UsageError(p.message);
  if (isPrivate) {
    dp.clip = params.clip;
    if (!(dp.epsilon > 0)) throw UsageError("--epsilon must be > 0, got " + shortNumber(dp.epsilon));
    if (!(dp.delta > 0 && dp.delta < 1)) throw UsageError("--delta must be in (0, 1), got " + shortNumber(dp.delta));
  }
  if (a.has("vi-alpha")) {
    const std::string shape = a.text("vi-alpha");
    if (shape != "symmetric" && shape != "learned") {
      throw UsageError("--vi-alpha must be symmetric or learned, got '" + shape + "'");
    }
    params.learnAlpha = shape == "learned";
  }
  ViOptions vi = toViOptions(params, a.number("alpha0", ViOptions{}.alpha0), a.seed("seed", ViOptions{}.seed));
  if (!(vi.alpha0 > 0 && vi.alpha0 <= kMaxAlpha0)) throw UsageError("--alpha0 must be in (0, 1e6], got " + shortNumber(vi.alpha0));
  if (k < 1) throw UsageError("--topics must be >= 1, got " + std::to_string(k));

  checkRunOutputs(a);  // before the corpus is read: a refused output is known at once, not after the fit
  checkModelOutputs(a);
  Corpus corpus = take(loadUciCorpus(a.text("corpus"), corpusCacheOptionsFromEnvironment(!a.flag("no-cache"))));
  std::optional<LdaModel> truth;
  if (a.has("truth")) {
    truth = checkedModel(take(readTruthJson(a.text("truth"), TruthShape{corpus.vocabSize(), k})), corpus, "the truth file");
    if (truth->topicCount() > k) {
      throw InputError("the truth file has " + std::to_string(truth->topicCount()) + " topics but --topics is " +
                       std::to_string(k) + "; errors need at least as many fitted topics");
    }
  }
  std::optional<HoldoutSplit> split = holdoutFrom(a, corpus);
  Corpus& train = split ? split->train : corpus;
  // Non-private VI fits the words some training document uses (vocabulary_compaction.h); DP-VI
  // adds noise to the statistics of every declared word, so it keeps them all.
  if (isPrivate) require(validateDpViOptions(dp, k, train));
  else require(validateViOptions(vi, k, train));
  VocabularyCompaction compaction;
  if (!isPrivate) compaction = compactVocabulary(train);
  if (compaction.compacted() && k > train.vocabSize()) {
    throw InputError("--topics " + std::to_string(k) + " but the training documents use only " +
                     std::to_string(train.vocabSize()) + " of the " + std::to_string(compaction.vocabSize) +
                     " words of the vocabulary");
  }
  // Before allocating: about six k x d matrices (λ, E[log β], the statistics and their noisy or
  // clipped copies, the topics) and γ (k x N).
  const double d = train.vocabSize();
  require(checkMemory(8.0 * (6.0 * k * d + 2.0 * k * train.docCount()), "--topics " + std::to_string(k),
                      "about six " + std::to_string(k) + " x " + std::to_string(train.vocabSize()) +
                          " topic-word matrices (variational parameters, expected statistics, topics)",
                      isPrivate ? "DP-VI adds noise to the statistics of every word of the declared vocabulary"
                                : "one row per word some training document uses"));

  ViFit fit;
  std::optional<DpViLedger> ledger;
  long long clipped = 0;
  std::unique_ptr<RandomSource> noise;  // the fit's noise, then the private held-out evaluation's
  if (a.has("noise-seed")) noise = std::make_unique<SeededRandom>(a.seed("noise-seed", 0));
  else noise = std::make_unique<SecureRandom>();
  if (isPrivate) {
    dp.vi = vi;
    DpViFit r = take(fitDpVi(train, k, dp, *noise));
    fit = std::move(r.fit);
    ledger = std::move(r.ledger);
    clipped = r.clippedVisits;
  } else {
    fit = take(fitVi(train, k, vi));
  }
  const bool teaching = !a.flag("release-only");
  const int wordsFitted = train.vocabSize();
  if (compaction.compacted()) {  // back to the original word ids for every output
    restoreVocabulary(train, compaction);
    fit.model.topics = expandWordRows(fit.model.topics, compaction);
  }

  QJsonObject json;
  std::ostringstream out;
  out.precision(4);
  json.insert("status", "ok");
  json.insert("released", true);
  json.insert("model", QString::fromStdString(modelName));
  QJsonObject corpusJson = corpusSummaryJson(corpus, corpus.docCount(), teaching);
  if (teaching) corpusJson.insert("words_fitted", wordsFitted);  // a count of the data: teaching output only
  json.insert("corpus", corpusJson);
  json.insert("topics_k", k);
  json.insert("alpha0", vi.alpha0);
  json.insert("vi", QJsonObject{{"method", viMethodName(vi.method)},
                                {"iterations", vi.iterations},
                                {"batch_size", isMinibatch(vi.method) ? std::min(vi.batchSize, train.docCount()) : train.docCount()},
                                {"tau0", vi.tau0},
                                {"kappa", vi.kappa},
                                {"eta", fit.eta},
                                {"estep_tolerance", vi.estepTolerance},
                                {"estep_max_iterations", vi.estepMaxIterations},
                                {"seed", QString::number(vi.seed)},
                                {"alpha", vi.learnAlpha ? "learned (alpha0 times the topics' token shares)" : "symmetric"},
                                {"updates", static_cast<double>(fit.updates)}});
  out << "corpus: " << corpus.docCount() << " documents, vocabulary " << corpus.vocabSize();
  if (wordsFitted < corpus.vocabSize()) out << " (" << wordsFitted << " used by the documents fitted)";
  out << "\n";
  out << "model: " << (isPrivate ? "DP-VI (Park et al. 2016)" : "variational LDA") << ", " << viMethodName(vi.method)
      << " VB, " << vi.iterations << " passes, " << fit.updates << " updates, alpha "
      << (vi.learnAlpha ? "learned (total " + shortNumber(vi.alpha0) + ")" : shortNumber(vi.alpha0 / k) + " each")
      << ", eta " << fit.eta << "\n";
  QJsonObject privacy;
  if (ledger) {
    const DpViLedger& L = *ledger;
    const AccountantComparison accounts = compareDpViAccountants(L, train.provenance);
    privacy = dpViPrivacyToJson(L, dp.epsilon, dp.delta, accounts);
    out << "privacy: " << L.claim << ": " << L.summary << "\n";
    out << "  ledger: " << L.releases << " releases of the k x d statistics, C " << L.clip << ", sensitivity "
        << L.sensitivity << ", sigma " << L.sigma << " (multiplier " << L.noiseMultiplier << "), accountant "
        << L.accountant << ", rho " << L.rho << ", spent epsilon " << L.epsilon << ", delta " << L.delta
        << " (noise " << L.noiseSource << ")\n";
    if (L.samplingRate > 0) {
      out << "  Poisson sampling, rate q " << L.samplingRate << ": epsilon " << L.epsilon << " with amplification ("
          << L.accountant << "), " << L.epsilonFullRelease << " counting every release as a full one (zcdp)\n";
    }
    out << "  epsilon spent at the same delta: "
        << accountantComparisonText(accounts) << "\n";
  } else {
    privacy = QJsonObject{{"private", false},
                          {"privacy_claim", "not-private"},
                          {"claim", "non-private variational inference: no noise, not a private release"}};
  }
  json.insert("privacy", privacy);
  json.insert("alpha", toJson(fit.model.alpha));
  json.insert("topics", columnsToJson(fit.model.topics));
  json.insert("top_words", topWords(corpus, fit.model.topics, nTop));
  if (truth) {
    const TopicErrors err = compareTopics(truth->topics, truth->alpha, fit.model.topics, fit.model.alpha);
    json.insert("error", QJsonObject{{"l2_mean", err.l2Mean}, {"l1_mean", err.l1Mean}, {"alpha", err.alphaError}});
    out << "error vs truth: l2 " << err.l2Mean << ", l1 " << err.l1Mean << ", alpha " << err.alphaError << "\n";
  }
  out << (isPrivate ? "released topics" : "topics") << " (alpha, top words):\n";
  for (Eigen::Index c = 0; c < fit.model.topics.cols(); ++c) {
    out << "  " << c + 1 << "  alpha " << fit.model.alpha[c] << ":";
    for (int i : topIndices(fit.model.topics.col(c), nTop)) out << " " << escapeControls(corpus.wordName(i));
    out << "\n";
  }
  if (split) reportHeldOut(a, heldOut, *split, &fit.model, truth ? &*truth : nullptr, *noise, json, out);
  reportModelOutputs(a, {modelName, teaching, split.has_value(), &train, &fit.model}, json, out);
  if (teaching) {  // data-dependent run statistics: teaching output, left out with --release-only
    json.insert("non_private_diagnostics",
                QJsonObject{{"note", "statistics of the run, computed from the data: NOT part of any private release"},
                            {"estep_iterations", static_cast<double>(fit.estepIterations)},
                            {"estep_not_converged", static_cast<double>(fit.estepNotConverged)},
                            {"clipped_document_visits", static_cast<double>(clipped)},
                            {"milliseconds", fit.milliseconds}});
    out << (isPrivate ? "non-private diagnostics (not part of the release): " : "")
        << "mean E-step updates per document visit "
        << static_cast<double>(fit.estepIterations) / std::max(1.0, static_cast<double>(train.docCount()) * fit.passes);
    if (isPrivate) out << ", clipped document visits " << clipped;
    out << "\ntime (ms): fit " << fit.milliseconds << "\n";
  }
  std::cout << out.str();
  if (a.has("json")) require(writeJsonFile(a.text("json"), json, runJsonRules(a)));
  return kExitOk;
}

}  // namespace dplda::cli
