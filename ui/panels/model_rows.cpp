#include "ui/panels/model_rows.h"

#include <QObject>
#include <QTableWidget>
#include <cmath>

#include "core/eval/perplexity.h"
#include "ui/common/privacy_text.h"
#include "ui/panels/table_export.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {
QString g(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QString("—"); }
QString tr(const char* text) { return QObject::tr(text); }
const char* kEvaluationNote = "evaluation: post-processing of the model on the held-out documents, which never enter "
                              "a fit; the perplexity is a statistic of the test documents, not a private release";
}  // namespace

QVector<DiagnosticRow> variationalRows(const RunOutcome& o) {
  QVector<DiagnosticRow> rows;
  if (!o.variational) return rows;
  const VariationalOutcome& v = *o.variational;
  const ViFit& f = v.fit;
  const QString teaching = tr("non-private (teaching): ");
  rows.push_back({tr("Released: the variational model's output"), {}, {}, true});
  if (v.ledger) {
    const DpViLedger& L = *v.ledger;
    rows.push_back({tr("privacy claim"), QString::fromStdString(L.claim), readablePrivacyText(L.summary)});
    rows.push_back({tr("accountant"), QString::fromStdString(L.accountant),
                    tr("zCDP over %1 Gaussian releases, ρ = %2; no amplification by subsampling claimed")
                        .arg(L.releases).arg(g(L.rho))});
  } else {
    rows.push_back({tr("privacy claim"), QStringLiteral("not-private"),
                    tr("non-private variational inference: no noise, not a private release")});
  }
  rows.push_back({tr("model"), QObject::tr("%1, %2 VB").arg(modelLabel(v.model), viMethodName(f.method)),
                  QObject::tr("%1 passes, %2 M-steps, %3, η = %4")
                      .arg(f.passes)
                      .arg(f.updates)
                      .arg(o.session.vi.learnAlpha
                               ? QObject::tr("α learned from the topics' token shares (%1 … %2, total α₀)")
                                     .arg(g(f.model.alpha.minCoeff()), g(f.model.alpha.maxCoeff()))
                               : QObject::tr("α = α₀/k each"))
                      .arg(g(f.eta))});
  if (o.error) rows.push_back({tr("error"), g(o.error->l2Mean), tr("mean ℓ₂ vs truth")});
  rows.push_back({tr("Non-private (teaching): statistics of the fit, computed from the data, not released"), {}, {}, true});
  const double visits = std::max(1.0, static_cast<double>(o.trainDocCount) * std::max(1, f.passes));
  rows.push_back({tr("E-step updates per visit"), g(static_cast<double>(f.estepIterations) / visits),
                  teaching + QObject::tr("%1 document visits hit the limit").arg(f.estepNotConverged)});
  if (v.ledger) {
    rows.push_back({tr("clipped document visits"), QString::number(v.clippedVisits),
                    teaching + tr("visits whose statistics were scaled down to norm C (data-dependent)")});
  }
  rows.push_back({tr("time"), QObject::tr("%1 ms").arg(f.milliseconds, 0, 'f', 0), teaching + tr("the fit")});
  return rows;
}

QVector<DiagnosticRow> heldOutRows(const RunOutcome& o) {
  QVector<DiagnosticRow> rows;
  if (o.testDocCount <= 0) return rows;
  const SessionState& s = o.session;
  rows.push_back({tr("Held-out evaluation (post-processing)"), {}, {}, true});
  rows.push_back({tr("held-out split"),
                  QObject::tr("%1 of %2 documents").arg(o.testDocCount).arg(o.trainDocCount + o.testDocCount),
                  QObject::tr("fraction %1, seed %2; the model saw only the other %3 (public split)")
                      .arg(g(s.holdout), seedToText(s.holdoutSeed)).arg(o.trainDocCount)});
  auto add = [&](const std::optional<HeldOutScore>& score, const QString& name) {
    if (!score) return;
    if (!score->has()) {
      rows.push_back({name, tr("not computed"), score->failure});
      return;
    }
    rows.push_back({name, g(score->result->perplexity),
                    QObject::tr("document completion; ELBO bound %1 over %2 documents")
                        .arg(g(score->result->elboBoundPerplexity)).arg(score->result->documents)});
  };
  const QString model = o.variational ? modelLabel(o.variational->model) : QObject::tr("released");
  add(o.perplexity, QObject::tr("perplexity (%1)").arg(model));
  if (!o.variational && o.session.edges) add(o.baselinePerplexity, tr("perplexity (non-private, teaching)"));
  add(o.truthPerplexity, tr("perplexity (truth)"));
  rows.push_back({tr("estimator"), tr("document completion"), QString::fromStdString(perplexityEstimatorText())});
  rows.push_back({tr("smoothing"), g(kDefaultPerplexitySmoothing),
                  QString::fromStdString(perplexitySmoothingText(kDefaultPerplexitySmoothing))});
  rows.push_back({tr("evaluation"), tr("post-processing"), tr(kEvaluationNote)});
  return rows;
}

void fillDpViLedger(QTableWidget* t, const RunOutcome& o) {
  const DpViLedger& L = *o.variational->ledger;
  t->setRowCount(1);
  setResultsCell(t, 0, 0, tr("expected sufficient statistics (k × d) of every iteration"));
  setResultsCell(t, 0, 1, tr("λ (VI M-step)"));
  setResultsCell(t, 0, 2, QObject::tr("gaussian ×%1, %2").arg(L.releases).arg(QString::fromStdString(L.accountant)));
  setResultsCell(t, 0, 3, g(L.sensitivity));
  t->item(0, 3)->setToolTip(tr("2C (Frobenius, replace one document; docs/PRIVACY.md §10)"));
  setResultsCell(t, 0, 4, g(L.epsilon));
  setResultsCell(t, 0, 5, g(L.delta));
  setResultsCell(t, 0, 6, g(L.sigma));
  setResultsCell(t, 0, 7, tr("yes"));
  setResultsCell(t, 0, 8, QObject::tr("T = %1, C = %2, σ/Δ = %3, ρ = %4").arg(L.releases).arg(g(L.clip), g(L.noiseMultiplier), g(L.rho)));
}

QString dpViLedgerNote(const RunOutcome& o) {
  const DpViLedger& L = *o.variational->ledger;
  const SessionState& s = o.session;
  QString note = QObject::tr("Privacy claim: <b>%1</b>. DP-VI (%2 VB): T = %3 Gaussian releases, clip C = %4 "
                             "(sensitivity 2C = %5), σ = %6; accountant <b>zCDP</b> (%7), ρ = %8. Spent ε %9, δ %10")
                     .arg(QString::fromStdString(L.claim), QString::fromStdString(L.method)).arg(L.releases)
                     .arg(g(L.clip), g(L.sensitivity), g(L.sigma), QString::fromStdString(L.accountant), g(L.rho),
                          g(L.epsilon), g(L.delta));
  note += QObject::tr(" of (%1, %2), including the samplers' reserve %3. Noise: %4.")
              .arg(g(s.epsilon), g(s.delta), g(L.samplerDelta), QString::fromStdString(L.noiseSource));
  note += "<br>" + accountantComparisonNote(o.variational->accounts);
  for (const auto& n : L.notes) note += "<br>" + QString::fromStdString(n).toHtmlEscaped();
  return note;
}

QString accountantComparisonNote(const AccountantComparison& c) {
  auto value = [](double x) { return std::isnan(x) ? QObject::tr("not computed") : std::isinf(x) ? QStringLiteral("∞") : g(x); };
  QString note = QObject::tr("The same releases at δ = %1: %2 ε %3, Gaussian-DP ε %4, <b>PLD ε %5</b> (each a valid "
                             "bound, the smallest the tightest; docs/PRIVACY.md §16).")
                     .arg(value(c.delta), c.ledgerAccountant == "zcdp" ? QStringLiteral("zCDP") : QObject::tr("basic"),
                          value(c.ledger), value(c.gaussianDp), value(c.pld));
  if (!c.note.empty()) note += " " + QString::fromStdString(c.note).toHtmlEscaped();
  return note;
}

QString perplexityHeadline(const RunOutcome& o) {
  if (!o.perplexity) return QString();
  QString text = o.perplexity->has() ? QObject::tr("Held-out perplexity %1").arg(g(o.perplexity->result->perplexity))
                                     : QObject::tr("Held-out perplexity not computed");
  if (o.truthPerplexity && o.truthPerplexity->has())
    text += QObject::tr(" (truth %1)").arg(g(o.truthPerplexity->result->perplexity));
  return text;
}

QString perplexityHeadlineTip(const RunOutcome& o) {
  if (!o.perplexity) return QString();
  QString tip = o.perplexity->has() ? QString() : o.perplexity->failure + "\n";
  return tip + QObject::tr("estimator: %1\nsmoothing: %2\n%3")
                   .arg(QString::fromStdString(perplexityEstimatorText()),
                        QString::fromStdString(perplexitySmoothingText(kDefaultPerplexitySmoothing)), tr(kEvaluationNote));
}

}  // namespace dplda
