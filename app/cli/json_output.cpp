#include "app/cli/json_output.h"

#include <QJsonDocument>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace dplda::cli {

QJsonArray toJson(const Eigen::VectorXd& v) {
  QJsonArray a;
  for (Eigen::Index i = 0; i < v.size(); ++i) a.append(v[i]);
  return a;
}

QJsonArray columnsToJson(const Eigen::MatrixXd& m) {
  QJsonArray a;
  for (Eigen::Index c = 0; c < m.cols(); ++c) a.append(toJson(m.col(c)));
  return a;
}

QJsonObject corpusSummaryJson(const Corpus& corpus, int docs, bool withStatistics) {
  const CorpusProvenance& p = corpus.provenance;
  QJsonObject vocabulary{{"origin", vocabularyOriginName(p.vocabulary)}};
  if (!p.vocabularyFile.empty()) vocabulary.insert("file", QString::fromStdString(p.vocabularyFile));
  if (p.vocabulary == VocabularyOrigin::PrivateSelection) {
    vocabulary.insert("selection", QJsonObject{{"mechanism", "gaussian partition selection"},
                                               {"epsilon", p.selection.epsilon},
                                               {"delta", p.selection.delta},
                                               {"max_words_per_document", p.selection.maxWordsPerDocument},
                                               {"sigma", p.selection.sigma},
                                               {"threshold", p.selection.threshold}});
  }
  QJsonObject j{{"docs", docs}, {"vocab", corpus.vocabSize()}, {"vocabulary", vocabulary},
                {"short_documents_kept", p.shortDocumentsKept}};
  // Counts of short documents depend on the text: teaching output only.
  if (withStatistics) {
    j.insert("dropped_docs", corpus.droppedDocuments);
    j.insert("empty_docs", corpus.emptyDocuments);
  }
  return j;
}

QJsonArray topWords(const Corpus& corpus, const Eigen::MatrixXd& topics, int n) {
  QJsonArray out;
  for (Eigen::Index c = 0; c < topics.cols(); ++c) {
    QJsonArray words;
    for (int i : topIndices(topics.col(c), n)) words.append(QString::fromStdString(corpus.wordName(i)));
    out.append(words);
  }
  return out;
}

QJsonObject timingsToJson(const std::vector<StageTiming>& timings) {
  QJsonObject o;
  double total = 0.0;
  for (const auto& t : timings) {
    o.insert(QString::fromStdString(t.stage), t.milliseconds);
    total += t.milliseconds;
  }
  o.insert("total", total);
  return o;
}

Status writeJsonFile(const std::string& path, const QJsonObject& object, const OutputRules& rules) {
  const QByteArray bytes = QJsonDocument(object).toJson(QJsonDocument::Indented);
  return writeFileAtomically(path, std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), rules);
}

QJsonObject accountantComparisonToJson(const AccountantComparison& c) {
  auto value = [](double x) {
    return std::isnan(x) ? QJsonValue("not computed") : std::isinf(x) ? QJsonValue("infinite") : QJsonValue(x);
  };
  return QJsonObject{{"delta", value(c.delta)},
                     {QString::fromStdString(c.ledgerAccountant), value(c.ledger)},
                     {"gaussian_dp", value(c.gaussianDp)},
                     {"pld", value(c.pld)},
                     {"pld_interval", value(c.pldInterval)},
                     {"note", QString::fromStdString(c.note)},
                     {"explanation", "epsilon spent by the same releases at the same delta under each accountant; "
                                     "each is a valid upper bound, the smallest the tightest (docs/PRIVACY.md §16)"}};
}

QJsonValue numberOrNotComputed(double x) { return std::isfinite(x) ? QJsonValue(x) : QJsonValue("not computed"); }

QJsonArray strings(const std::vector<std::string>& v) {
  QJsonArray a;
  for (const auto& s : v) a.append(QString::fromStdString(s));
  return a;
}

QJsonArray preconditionsToJson(const std::vector<Precondition>& pre) {
  QJsonArray a;
  for (const auto& p : pre) {
    a.append(QJsonObject{{"name", QString::fromStdString(p.name)},
                         {"holds", p.holds},
                         {"detail", QString::fromStdString(p.detail)}});
  }
  return a;
}

QJsonObject privacyToJson(const PrivacyOptions& o, const PrivateRunResult& r) {
  QJsonArray edges;
  for (int e = 0; e < kEdgeCount; ++e)
    if (contains(o.edges, e)) edges.append("e" + QString::number(e));
  QJsonArray leak;
  for (Node n : r.decision.leakPath) leak.append(nodeName(n));
  QJsonArray ledger;
  for (const LedgerEntry& e : r.ledger) {
    QJsonArray le;
    for (int x : e.edges) le.append("e" + QString::number(x));
    ledger.append(QJsonObject{{"release", QString::fromStdString(e.release)},
                              {"node", QString::fromStdString(e.node)},
                              {"edges", le},
                              {"mechanism", QString::fromStdString(e.mechanism)},
                              {"sensitivity", numberOrNotComputed(e.sensitivity)},
                              {"sensitivity_norm", e.mechanism.rfind("laplace", 0) == 0 ? "l1" : "l2"},
                              {"pure", e.pureEpsilon},
                              {"sensitivity_formula", QString::fromStdString(e.sensitivityFormula)},
                              {"epsilon", e.epsilon},
                              {"delta", e.delta},
                              {"sigma", numberOrNotComputed(e.sigma)},
                              {"bounds", QString::fromStdString(e.bounds)},
                              {"spent", e.spent},
                              {"draws", e.draws},
                              {"sampler_excess_delta", e.samplerExcess},
                              {"sampler_limited", e.samplerLimited},
                              {"gdp_mu", numberOrNotComputed(e.mu)},
                              {"preconditions", preconditionsToJson(e.preconditions)},
                              {"note", QString::fromStdString(e.note)}});
  }
  const auto preset = presetOf(o.edges);
  return QJsonObject{{"edges", edges},
                     {"config", preset ? QJsonValue(presetName(*preset)) : QJsonValue("custom")},
                     {"private", r.statement.isPrivate()},
                     {"privacy_claim", privacyClaimName(r.statement.claim)},
                     {"pure_dp", r.statement.pureEpsilon},
                     {"claim", QString::fromStdString(r.statement.summary)},
                     {"cautions", strings(r.statement.cautions)},
                     {"is_cut", r.decision.isCut},
                     {"explanation", QString::fromStdString(r.statement.explanation)},
                     {"leak_path", leak},
                     {"epsilon_total", o.edges ? o.epsilon : 0.0},
                     {"delta_total", o.edges ? o.delta : 0.0},
                     {"epsilon_spent", r.epsilonSpent},
                     {"delta_spent", r.deltaSpent},
                     {"delta_as_drawn", o.edges ? r.deltaAsDrawn : 0.0},
                     {"accountant", accountantName(o.accountant)},
                     {"composition", QString::fromStdString(r.composition)},
                     {"accountants", accountantComparisonToJson(r.accounts)},
                     {"mechanism", mechanismName(o.mechanism)},
                     {"bounds", boundSetName(o.bounds)},
                     {"shared_releases", o.shareReleases},
                     {"noise_source", QString::fromStdString(r.noiseSource)},
                     {"ledger", ledger},
                     {"warnings", strings(r.warnings)}};
}

QJsonObject dpViPrivacyToJson(const DpViLedger& L, double epsilonTotal, double deltaTotal,
                              const AccountantComparison& accounts) {
  const QJsonObject entry{{"release", "expected sufficient statistics (k x d) of every iteration"},
                          {"mechanism", "gaussian"},
                          {"releases", static_cast<double>(L.releases)},
                          {"passes", L.passes},
                          {"method", QString::fromStdString(L.method)},
                          {"batch_size", L.batchSize},
                          {"clip", L.clip},
                          {"sensitivity", L.sensitivity},
                          {"sensitivity_formula", "2C (Frobenius, replace one document; docs/PRIVACY.md §10)"},
                          {"sampling_rate", L.samplingRate},
                          {"epsilon_full_release", L.epsilonFullRelease},
                          {"sigma", L.sigma},
                          {"noise_multiplier", L.noiseMultiplier},
                          {"rho", L.rho},
                          {"epsilon", L.epsilon},
                          {"delta", L.delta},
                          {"sampler_excess_delta", L.samplerDelta},
                          {"draws", L.draws},
                          {"spent", true}};
  return QJsonObject{{"private", L.claim == "proven"},
                     {"privacy_claim", QString::fromStdString(L.claim)},
                     {"claim", QString::fromStdString(L.summary)},
                     {"epsilon_total", epsilonTotal},
                     {"delta_total", deltaTotal},
                     {"epsilon_spent", L.epsilon},
                     {"delta_spent", L.delta},
                     {"accountant", QString::fromStdString(L.accountant)},
                     {"noise_source", QString::fromStdString(L.noiseSource)},
                     {"ledger", QJsonArray{entry}},
                     {"accountants", accountantComparisonToJson(accounts)},
                     {"notes", strings(L.notes)}};
}

}  // namespace dplda::cli
