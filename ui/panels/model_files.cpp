#include "ui/panels/model_files.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <cmath>

#include "core/common/text_escape.h"
#include "core/pipeline/privacy_statement.h"
#include "ui/session/session_privacy.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {

QJsonValue numberOrNotComputed(double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue("not computed"); }

QJsonArray strings(const std::vector<std::string>& v) {
  QJsonArray a;
  for (const auto& s : v) a.append(QString::fromStdString(s));
  return a;
}

// The spectral run's statement and ledger, with the keys of `dplda run --json`'s "privacy".
QJsonObject spectralPrivacy(const SessionState& s, const PrivateRunResult& r) {
  QJsonArray edges;
  for (int e = 0; e < kEdgeCount; ++e)
    if (contains(s.edges, e)) edges.append("e" + QString::number(e));
  QJsonArray ledger;
  for (const LedgerEntry& e : r.ledger) {
    QJsonArray le;
    for (int x : e.edges) le.append("e" + QString::number(x));
    ledger.append(QJsonObject{{"release", QString::fromStdString(e.release)},
                              {"node", QString::fromStdString(e.node)},
                              {"edges", le},
                              {"mechanism", QString::fromStdString(e.mechanism)},
                              {"sensitivity", numberOrNotComputed(e.sensitivity)},
                              {"sensitivity_formula", QString::fromStdString(e.sensitivityFormula)},
                              {"epsilon", e.epsilon},
                              {"delta", e.delta},
                              {"sigma", numberOrNotComputed(e.sigma)},
                              {"bounds", QString::fromStdString(e.bounds)},
                              {"spent", e.spent},
                              {"draws", e.draws},
                              {"note", QString::fromStdString(e.note)}});
  }
  return QJsonObject{{"edges", edges},
                     {"config", configurationLabel(s)},
                     {"private", r.statement.isPrivate()},
                     {"privacy_claim", privacyClaimName(r.statement.claim)},
                     {"pure_dp", r.statement.pureEpsilon},
                     {"claim", QString::fromStdString(r.statement.summary)},
                     {"cautions", strings(r.statement.cautions)},
                     {"explanation", QString::fromStdString(r.statement.explanation)},
                     {"epsilon_total", s.edges ? s.epsilon : 0.0},
                     {"delta_total", s.edges ? s.delta : 0.0},
                     {"epsilon_spent", r.epsilonSpent},
                     {"delta_spent", r.deltaSpent},
                     {"accountant", accountantName(s.accountant)},
                     {"composition", QString::fromStdString(r.composition)},
                     {"mechanism", mechanismName(s.mechanism)},
                     {"bounds", boundSetName(s.bounds)},
                     {"noise_source", QString::fromStdString(r.noiseSource)},
                     {"ledger", ledger}};
}

// DP-VI's ledger as `dplda run --model dp-vi --json` reports it (app/cli/vi_command.cpp).
QJsonObject dpViPrivacy(const SessionState& s, const DpViLedger& L) {
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
                          {"sigma", L.sigma},
                          {"noise_multiplier", L.noiseMultiplier},
                          {"rho", L.rho},
                          {"epsilon", L.epsilon},
                          {"delta", L.delta},
                          {"spent", true}};
  return QJsonObject{{"private", L.claim == "proven"},
                     {"privacy_claim", QString::fromStdString(L.claim)},
                     {"claim", QString::fromStdString(L.summary)},
                     {"epsilon_total", s.epsilon},
                     {"delta_total", s.delta},
                     {"epsilon_spent", L.epsilon},
                     {"delta_spent", L.delta},
                     {"accountant", QString::fromStdString(L.accountant)},
                     {"noise_source", QString::fromStdString(L.noiseSource)},
                     {"ledger", QJsonArray{entry}},
                     {"notes", strings(L.notes)}};
}

QJsonObject notPrivate(const char* claim) {
  return QJsonObject{{"private", false}, {"privacy_claim", "not-private"}, {"claim", claim}};
}

std::string compact(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString(); }

}  // namespace

Result<ModelFile> runModelFile(const RunOutcome& o, bool fingerprint) {
  if (!o.status.isOk() || !o.train) return badInput("no model to save: the session has no finished run");
  const SessionState& s = o.session;
  ModelFile m;
  QJsonObject privacy;
  if (o.variational) {
    m.model = o.variational->ledger ? "dp-vi" : "vi";
    m.lda = o.variational->fit.model;
    privacy = o.variational->ledger ? dpViPrivacy(s, *o.variational->ledger)
                                    : notPrivate("non-private variational inference: no noise, not a private release");
  } else if (o.priv && o.priv->released && o.priv->output && s.edges) {
    m.model = "spectral";
    m.lda = LdaModel{o.priv->output->alpha, o.priv->output->topics};
    privacy = spectralPrivacy(s, *o.priv);
  } else if (o.hasNonPrivate) {
    m.model = "spectral";
    m.lda = LdaModel{o.nonPrivate.alpha, o.nonPrivate.topics};
    privacy = s.edges ? notPrivate("the non-private spectral model (the private run released nothing): exact "
                                   "statistics of the training documents, not a release")
                      : notPrivate("no noise on any edge: the non-private spectral model, not a private release");
  } else {
    return badInput("no model to save: the run released nothing and the non-private model could not be computed");
  }
  m.isPrivate = privacy.value("private").toBool();
  m.claim = privacy.value("claim").toString().toStdString();
  m.privacyJson = compact(privacy);
  QJsonObject session = sessionToJson(s);
  session.remove("pinned");
  session.remove("pinned_sweeps");
  session.remove("lesson");
  m.parametersJson = compact(QJsonObject{{"program", "dplda-explorer"},
                                         {"model", QString::fromStdString(m.model)},
                                         {"topics_k", s.topicCount()},
                                         {"alpha0", s.alpha0()},
                                         {"decomposer", s.decomposer},
                                         {"init_seed", seedToText(s.initSeed)},
                                         {"holdout", QJsonObject{{"fraction", s.holdout},
                                                                 {"seed", seedToText(s.holdoutSeed)}}},
                                         {"session", session}});
  m.vocabulary = corpusWords(*o.train);
  // The folder `dplda run` would be given: a UCI corpus's (a text source or a generated corpus has none).
  if (s.source == SessionState::Source::Uci) {
    const QFileInfo info(s.corpusPath);
    m.training.path = (info.isDir() ? info.canonicalFilePath() : info.canonicalPath()).toStdString();
  }
  m.training.documents = o.train->docCount();
  m.training.heldOutSplit = o.test != nullptr;
  if (fingerprint) m.training.fingerprint = corpusFingerprint(*o.train);  // not private: the app shows the diagnostics
  return m;
}

Result<ModelFile> readSessionModel(const QString& path, const Corpus& corpus) {
  auto m = readModelFile(path.toStdString());
  if (!m.ok()) return m.status();
  const Status same = checkSameVocabulary(m.value().vocabulary, corpus, "the session's corpus");
  if (!same.isOk()) {
    return Status(same.code(), "the model " + escapeText(path.toStdString()) + " does not fit this session: " +
                                   same.message());
  }
  return m;
}

QString modelStatement(const ModelFile& m) {
  return (m.isPrivate ? QObject::tr("private release — %1") : QObject::tr("NOT private — %1"))
      .arg(QString::fromStdString(m.claim));
}

}  // namespace dplda
