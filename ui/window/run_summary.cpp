#include "ui/window/run_summary.h"

#include <QObject>
#include <cmath>

#include "ui/common/privacy_text.h"
#include "ui/worker/run_worker.h"

namespace dplda {

QString perplexityShort(const HeldOutScore* score) {
  if (!score) return QString();
  if (!score->has()) return QObject::tr("perplexity not computed: %1").arg(score->failure);
  return QObject::tr("perplexity %1").arg(score->result->perplexity, 0, 'g', 4);
}

QString runNoiseSource(const RunOutcome& o) {
  if (o.priv) return QString::fromStdString(o.priv->noiseSource);
  if (o.variational && o.variational->ledger) return QString::fromStdString(o.variational->ledger->noiseSource);
  return QString();
}

QString runClaimName(const RunOutcome& o) {
  if (o.priv) return QString::fromLatin1(privacyClaimName(o.priv->statement.claim));
  if (o.variational) return o.variational->ledger ? QString::fromStdString(o.variational->ledger->claim)
                                                  : QStringLiteral("not-private");
  return QString();
}

bool runSummaryIsError(const RunOutcome& o) { return o.priv && !o.priv->released; }

QString runSummaryText(const RunOutcome& o) {
  const QString held = o.perplexity ? QObject::tr(", held-out %1").arg(perplexityShort(&*o.perplexity)) : QString();
  if (o.variational) {
    const VariationalOutcome& v = *o.variational;
    QString label = modelLabel(v.model);
    if (v.ledger) label += QStringLiteral(", ") + QString::fromStdString(v.ledger->claim);
    QString summary = QObject::tr("Run %1 (%2, %3 VB): %4 training docs").arg(o.id).arg(label)
                          .arg(viMethodName(v.fit.method)).arg(o.trainDocCount);
    if (o.error) summary += QObject::tr(", ℓ₂ error %1").arg(o.error->l2Mean, 0, 'g', 3);
    if (v.ledger) summary += QObject::tr(", spent ε %1 (zCDP)").arg(v.ledger->epsilon, 0, 'g', 3);
    return summary + held + QObject::tr(" in %1 ms.").arg(o.milliseconds, 0, 'f', 0);
  }
  if (o.priv && !o.priv->released) {
    return QObject::tr("Run %1: %2").arg(o.id).arg(readablePrivacyText(o.priv->status.message()));
  }
  QString label = configurationLabel(o.session);
  if (o.priv && o.session.edges && o.priv->statement.claim != PrivacyClaim::Proven)
    label += QStringLiteral(", ") + QString::fromLatin1(privacyClaimName(o.priv->statement.claim));
  QString summary = QObject::tr("Run %1 (%2): %3 docs").arg(o.id).arg(label).arg(o.docCount);
  if (o.error) summary += QObject::tr(", ℓ₂ error %1").arg(o.error->l2Mean, 0, 'g', 3);
  if (o.baselineError) summary += QObject::tr(" (non-private %1)").arg(o.baselineError->l2Mean, 0, 'g', 3);
  summary += held;
  if (!o.nonPrivateFailure.isEmpty()) summary += QObject::tr("; non-private model not computed (see Diagnostics)");
  summary += QObject::tr(" in %1 ms; sweeping ε…").arg(o.milliseconds, 0, 'f', 0);
  return summary;
}

QString graphNoticeFor(const SessionState& s) {
  if (!s.isVariational()) return QString();
  QString text = QObject::tr("Model: %1 (variational LDA, %2 VB) — this graph is the spectral pipeline and is not "
                             "being run; its edges and noise settings do not apply.")
                     .arg(modelLabel(s.model), viMethodName(s.vi.method));
  if (s.model == SessionState::Model::DpVi)
    text += QObject::tr(" DP-VI adds Gaussian noise to every iteration's statistics (clip C = %1), accounted by "
                        "zCDP within ε %2, δ %3 (docs/PRIVACY.md §10).")
                .arg(s.vi.clip, 0, 'g', 4).arg(s.epsilon, 0, 'g', 4).arg(s.delta, 0, 'g', 3);
  return text;
}

int trainingDocCount(const SessionState& s, int docCount) {
  if (!(s.holdout > 0 && s.holdout < 1)) return docCount;
  return docCount - static_cast<int>(std::llround(s.holdout * docCount));  // as splitHoldout
}

QString releaseHint(const RunOutcome& o, const SweepReading& sweep) {
  if (!sweep.available || o.variational || !o.priv || o.priv->released ||
      o.priv->status.code() == StatusCode::Cancelled)
    return {};
  if (std::isfinite(sweep.releasesFrom)) {
    return QObject::tr(" In this session's ε sweep this configuration releases from ε ≈ %1 (half the trials or more).")
        .arg(sweep.releasesFrom, 0, 'g', 3);
  }
  return QObject::tr(" It released at no ε of this session's sweep: try a larger N, another configuration (the "
                     "whitened release), or the ε grid of the corpus panel.");
}

}  // namespace dplda
