#include "ui/panels/model_files.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <cmath>

#include "app/cli/json_output.h"
#include "core/common/text_escape.h"
#include "core/pipeline/privacy_statement.h"
#include "ui/session/session_privacy.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {

// The privacy blocks are the command line's (app/cli/json_output.h), so a model file says what
// `dplda run --json` says; the app names its configuration as its panels do.
QJsonObject spectralPrivacy(const SessionState& s, const PrivateRunResult& r) {
  QJsonObject o = cli::privacyToJson(privacyOptionsOf(s), r);
  o.insert("config", configurationLabel(s));
  return o;
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
    privacy = o.variational->ledger ? cli::dpViPrivacyToJson(*o.variational->ledger, s.epsilon, s.delta,
                                                             o.variational->accounts)
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
