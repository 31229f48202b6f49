// The held-out evaluation of `dplda run` (see holdout_output.h; docs/PRIVACY.md §15).
#include "app/cli/holdout_output.h"

#include <QJsonArray>
#include <cmath>

#include "app/cli/commands.h"
#include "app/cli/model_output.h"
#include "app/cli/output_paths.h"
#include "core/common/number_text.h"
#include "core/common/text_escape.h"
#include "core/corpus/uci_io.h"
#include "core/eval/perplexity.h"
#include "core/vi/vi_parameters.h"

namespace dplda::cli {

namespace {

const char* kEvaluationNote =
    "held-out evaluation: post-processing of the released model on the public split's test documents, which "
    "never enter the fit; the perplexity is a statistic of the test documents and NOT itself a private release";
const char* kReleaseOnlyNote =
    "the split is public (N, the fraction and the seed); no statistic of the held-out documents is in a "
    "--release-only output except a private evaluation (--holdout-epsilon, docs/PRIVACY.md §15)";

QJsonObject perplexityToJson(const PerplexityResult& p) {
  return QJsonObject{{"perplexity", p.perplexity},
                     {"elbo_bound_perplexity", p.elboBoundPerplexity},
                     {"log_likelihood", p.logLikelihood},
                     {"scored_tokens", static_cast<double>(p.scoredTokens)},
                     {"observed_tokens", static_cast<double>(p.observedTokens)},
                     {"bound_tokens", static_cast<double>(p.boundTokens)},
                     {"documents", p.documents},
                     {"estimator", QString::fromStdString(p.estimator)},
                     {"smoothing", QString::fromStdString(p.smoothing)}};
}

// The private evaluation's ledger row, in the spectral ledger's shape.
QJsonObject ledgerRow(const PrivateHoldoutRelease& r) {
  return QJsonObject{{"release", "held-out evaluation: clipped mean log-likelihood per token"},
                     {"node", "heldout"},
                     {"edges", QJsonArray{}},
                     {"mechanism", "laplace"},
                     {"sensitivity", r.sensitivity},
                     {"sensitivity_formula", QString::fromStdString(privateHoldoutSensitivityText())},
                     {"clip", r.clip},
                     {"documents", r.documents},
                     {"epsilon", r.epsilon},
                     {"delta", 0.0},
                     {"sigma", r.scale},
                     {"spent", true},
                     {"draws", 1.0},
                     {"sampler_excess_delta", r.samplerDelta},
                     {"composition", "basic: its epsilon is added to the run's"}};
}

// Basic composition with the run's releases: (ε1, δ1) then (ε_h, 0) is (ε1 + ε_h, δ1)-DP; the
// sampler's δ joins the δ as drawn where the run reports one.
void addToPrivacy(QJsonObject& json, const PrivateHoldoutRelease& r) {
  QJsonObject p = json["privacy"].toObject();
  QJsonArray ledger = p["ledger"].toArray();
  ledger.append(ledgerRow(r));
  p["ledger"] = ledger;
  p["epsilon_total"] = p["epsilon_total"].toDouble() + r.epsilon;
  p["epsilon_spent"] = p["epsilon_spent"].toDouble() + r.epsilon;
  if (p.contains("delta_as_drawn")) p["delta_as_drawn"] = p["delta_as_drawn"].toDouble() + r.samplerDelta;
  p["epsilon_holdout"] = r.epsilon;
  const QString add = " The held-out evaluation (Laplace, epsilon " + QString::fromStdString(shortNumber(r.epsilon)) +
                      ") is added by basic composition: the totals include it (docs/PRIVACY.md §15).";
  p["claim"] = p["claim"].toString() + add;
  if (p.contains("composition")) p["composition"] = p["composition"].toString() + "; held-out evaluation: basic";
  json["privacy"] = p;
}

void releasePrivately(const HeldOutSettings& s, const HoldoutSplit& split, const LdaModel* model, std::uint64_t seed,
                      RandomSource& noise, QJsonObject& json, std::ostream& out) {
  if (!model) {
    json.insert("private_holdout", QJsonObject{{"released", false}, {"reason", "the model was not released"}});
    out << "  private evaluation: not drawn (the model was not released; nothing charged)\n";
    return;
  }
  const PrivateHoldoutRelease r = take(releaseHeldOutLogLikelihood(*model, split.test, seed, *s.privateEvaluation, noise));
  json.insert("private_holdout", QJsonObject{{"released", true},
                                             {"perplexity", r.perplexity},
                                             {"mean_log_likelihood_per_token", r.meanLogLikelihood},
                                             {"clip", r.clip},
                                             {"documents", r.documents},
                                             {"mechanism", "laplace"},
                                             {"sensitivity", r.sensitivity},
                                             {"epsilon", r.epsilon},
                                             {"delta", 0.0},
                                             {"scale", r.scale},
                                             {"sampler_excess_delta", r.samplerDelta},
                                             {"estimates", QString::fromStdString(privateHoldoutEstimandText())},
                                             {"estimator", QString::fromStdString(perplexityEstimatorText())}});
  addToPrivacy(json, r);
  const QJsonObject p = json["privacy"].toObject();
  out << "  private evaluation (released): perplexity " << r.perplexity << ", mean log-likelihood per token "
      << r.meanLogLikelihood << " (each document clipped to [-" << r.clip << ", 0], mean over " << r.documents
      << " documents)\n"
      << "    ledger: laplace, sensitivity " << r.sensitivity << " (B / N_test), epsilon " << r.epsilon
      << ", delta 0 (sampler tails " << r.samplerDelta << "), scale " << r.scale << "\n"
      << "    run total with it (basic composition): epsilon " << p["epsilon_spent"].toDouble() << ", delta "
      << p["delta_spent"].toDouble() << "\n"
      << "    estimates: " << privateHoldoutEstimandText() << "\n";
}

}  // namespace

HeldOutSettings heldOutSettingsFrom(const Arguments& a, bool privateRun) {
  HeldOutSettings s;
  s.releaseOnly = a.flag("release-only");
  s.privateRun = privateRun;
  if (!a.has("holdout")) {
    for (const char* o : kHoldoutOptions) {
      if (a.has(o)) {
        throw UsageError("--holdout-seed, --write-split, --score-model, --holdout-epsilon and --holdout-clip need "
                         "--holdout FRACTION");
      }
    }
    return s;
  }
  if (s.releaseOnly && a.has("write-split")) {
    throw UsageError("--write-split writes the held-out and training documents themselves, which a --release-only "
                     "run never outputs; split the corpus in a separate run without --release-only");
  }
  if (s.releaseOnly && a.has("score-model")) {
    throw UsageError("--score-model prints an exact statistic of the held-out documents, which a --release-only run "
                     "never outputs; score it in a separate, non-private run");
  }
  if (a.has("holdout-clip") && !a.has("holdout-epsilon")) {
    throw UsageError("--holdout-clip bounds the private held-out evaluation; give --holdout-epsilon E with it");
  }
  if (a.has("holdout-epsilon")) {
    if (!privateRun) {
      throw UsageError("--holdout-epsilon releases a private held-out evaluation of a private model; give an edge set "
                       "(--config or --edges) or --model dp-vi");
    }
    PrivateHoldoutOptions o;
    o.epsilon = a.number("holdout-epsilon");
    o.clip = a.number("holdout-clip", o.clip);
    // The vocabulary and the split are not known yet: ε and an explicit B are checked now.
    if (const Status st = validatePrivateHoldout(o, 1, 1); !st.isOk()) throw UsageError(st.message());
    s.privateEvaluation = o;
  }
  return s;
}

std::optional<HoldoutSplit> holdoutFrom(const Arguments& a, const Corpus& corpus) {
  if (!a.has("holdout")) return std::nullopt;
  const double f = a.number("holdout");
  if (const std::string problem = holdoutFractionProblem(f); !problem.empty()) throw UsageError(problem);
  auto split = splitHoldout(corpus, f, a.seed("holdout-seed", 1));
  if (!split.ok()) throw InputError(split.status().message());
  if (a.has("write-split")) {
    const std::string dir = a.text("write-split");
    const OutputRules rules = outputRules(a, runInputs(a));  // checked up front too (checkRunOutputs)
    require(writeUciCorpus(split->train, dir + "/train", rules));
    require(writeUciCorpus(split->test, dir + "/test", rules));
  }
  return std::move(split).value();
}

void reportHeldOut(const Arguments& a, const HeldOutSettings& settings, const HoldoutSplit& split, const LdaModel* model,
                   const LdaModel* truth, RandomSource& noise, QJsonObject& json, std::ostream& out) {
  const std::uint64_t seed = deriveSeed(split.seed, 1);  // the halves of each test document
  // From the ids: the caller may have moved the training corpus into its pipeline.
  const int trainDocs = static_cast<int>(split.trainIds.size());
  json.insert("holdout", QJsonObject{{"fraction", split.fraction},
                                     {"seed", QString::number(split.seed)},
                                     {"train_docs", trainDocs},
                                     {"test_docs", split.test.docCount()},
                                     {"note", settings.releaseOnly ? kReleaseOnlyNote : kEvaluationNote}});
  out << "held-out: " << split.test.docCount() << " of " << trainDocs + split.test.docCount()
      << " documents (fraction " << split.fraction << ", seed " << split.seed << "); the model saw only the other "
      << trainDocs << "\n";
  if (settings.privateEvaluation) releasePrivately(settings, split, model, seed, noise, json, out);
  if (settings.releaseOnly) {
    if (!settings.privateEvaluation) {
      out << "  perplexity withheld: a statistic of the held-out documents is not part of a --release-only output "
             "(--holdout-epsilon E releases a private one)\n";
    }
    return;
  }
  auto score = [&](const LdaModel& m, const char* key, const std::string& label) {
    auto p = heldOutPerplexity(m, split.test, seed);
    if (!p.ok()) {
      json.insert(key, QJsonObject{{"failure", QString::fromStdString(p.status().message())}});
      out << "  " << label << ": perplexity not computed: " << p.status().message() << "\n";
      return;
    }
    json.insert(key, perplexityToJson(p.value()));
    out << "  " << label << ": perplexity " << p->perplexity << " (document completion), ELBO bound "
        << p->elboBoundPerplexity << (settings.privateRun ? " [non-private: exact statistics of the held-out documents]" : "")
        << "\n";
  };
  if (model) score(*model, "perplexity", "model");
  if (truth) score(*truth, "truth_perplexity", "truth");
  if (a.has("score-model")) {
    const LdaModel other = readScoredModel(a.text("score-model"), split.test);  // a model file or a truth.json
    score(other, "score_model_perplexity", "--score-model " + escapeText(a.text("score-model")));
  }
  if (model || truth) {
    out << "  estimator: " << perplexityEstimatorText() << "\n  smoothing: "
        << perplexitySmoothingText(kDefaultPerplexitySmoothing) << "\n";
  }
}

}  // namespace dplda::cli
