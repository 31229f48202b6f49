#include "ui/panels/results_panel.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSet>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "ui/common/last_folder.h"
#include "ui/common/palette.h"
#include "ui/common/privacy_text.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/model_rows.h"
#include "ui/panels/topics_view.h"
#include "ui/panels/table_export.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/plots/topics_plot.h"
#include "ui/window/run_summary.h"
#include "ui/worker/run_worker.h"

namespace dplda {

namespace {
QString g(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QString("—"); }

QTableWidget* makeTable(const QStringList& header) { return makeResultsTable(header); }

void setCell(QTableWidget* t, int row, int col, const QString& text, const QColor& color = QColor()) {
  setResultsCell(t, row, col, text, color);
}

QString historyText(const QJsonObject& s) {
  const double err = s.value("error").toDouble(NAN);
  // A run that released under a claim weaker than "proven" says which (older sessions' pins
  // have no claim).
  const QString claim = s.value("privacy_claim").toString();
  const bool weak = s.value("released").toBool() && !claim.isEmpty() && claim != "proven";
  return QObject::tr("#%1  %2  ε %3  →  %4 %5%6%7")
      .arg(s.value("run").toInt())
      .arg(s.value("label").toString(), g(s.value("epsilon").toDouble()),
           s.value("error_kind").toString(), g(err),
           s.value("released").toBool() ? QString() : QObject::tr("  (nothing released)"),
           weak ? QObject::tr("  [%1]").arg(claim) : QString());
}
}  // namespace

ResultsPanel::ResultsPanel(QWidget* parent) : QTabWidget(parent) {
  // Sweeps: the session's ε sweep and the papers' experiments
  m_experiments = new ExperimentView;
  addTab(m_experiments, tr("Sweeps"));

  // Diagnostics
  auto* diag = new QSplitter(Qt::Horizontal);
  m_spectrum = new EigenSpectrumPlot;
  m_spectrum->setTitle(tr("Eigenvalues of the exact M̂₂ — non-private (teaching)"));
  m_diag = makeTable({tr("quantity"), tr("value"), tr("meaning")});
  diag->addWidget(m_spectrum);
  diag->addWidget(m_diag);
  diag->setStretchFactor(0, 2);
  diag->setStretchFactor(1, 3);
  diag->setSizes({400, 600});  // the table has a released and a teaching part
  addTab(diag, tr("Diagnostics"));
  addTableExportMenu(m_diag, "diagnostics");

  // Topics: one topic at a time, and two models' topics side by side
  m_topicsView = new TopicsView;
  addTab(m_topicsView, tr("Topics"));

  // The held-out perplexity, prominent beside the tabs (for real text the only quality number).
  m_headline = new QLabel;
  m_headline->setObjectName("perplexityHeadline");
  QFont bold = m_headline->font();
  bold.setBold(true);
  m_headline->setFont(bold);
  m_headline->setContentsMargins(8, 0, 8, 0);
  setCornerWidget(m_headline, Qt::TopRightCorner);

  // Ledger
  auto* ledgerTab = new QWidget;
  auto* lv = new QVBoxLayout(ledgerTab);
  lv->setContentsMargins(2, 2, 2, 2);
  m_ledger = makeTable({tr("release"), tr("node"), tr("mechanism"), tr("sensitivity"), tr("ε"), tr("δ"), tr("σ"),
                        tr("spent"), tr("preconditions")});
  m_ledgerNote = new QLabel;
  m_ledgerNote->setWordWrap(true);
  lv->addWidget(m_ledger, 1);
  lv->addWidget(m_ledgerNote);
  addTab(ledgerTab, tr("Ledger"));
  addTableExportMenu(m_ledger, "ledger");

  // History
  auto* histTab = new QWidget;
  auto* hv = new QVBoxLayout(histTab);
  hv->setContentsMargins(2, 2, 2, 2);
  auto* hnote = new QLabel(tr("Tick a run to pin it: pinned runs stay on the error-vs-ε plot and are saved "
                              "with the session."));
  hnote->setWordWrap(true);
  m_history = new QListWidget;
  hv->addWidget(hnote);
  hv->addWidget(m_history, 1);
  addTab(histTab, tr("History"));
  connect(m_history, &QListWidget::itemChanged, this, [this] {
    if (m_updatingHistory) return;
    QJsonArray pinned;
    for (int i = 0; i < m_history->count(); ++i) {
      QListWidgetItem* it = m_history->item(i);
      if (it->checkState() == Qt::Checked) pinned.append(it->data(Qt::UserRole).toJsonObject());
    }
    m_pinned = pinned;
    m_experiments->setPinnedRuns(pinned);
    emit pinnedEdited(pinned, tr("pin or unpin a run"));
  });
}

ErrorVsEpsilonPlot* ResultsPanel::errorPlot() const { return m_experiments->errorPlot(); }

TopicsPlot* ResultsPanel::topicsPlot() const { return m_topicsView->plot(); }

QString ResultsPanel::headlineText() const { return m_headline->text(); }

QString ResultsPanel::ledgerNote() const { return m_ledgerNote->text(); }

PlotWidget* ResultsPanel::currentPlot() const {
  switch (currentIndex()) {
    case 0: return m_experiments->currentPlot();
    case 1: return m_spectrum;
    case 2: return m_topicsView->plot();
    default: return nullptr;
  }
}

bool ResultsPanel::exportCurrent(const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  const QHash<QString, ExportFormat> formats = {{"png", ExportFormat::Png}, {"pdf", ExportFormat::Pdf},
                                                {"svg", ExportFormat::Svg}, {"csv", ExportFormat::Csv}};
  if (!formats.contains(suffix)) {
    if (error) *error = tr("unknown export format '.%1' (use .png, .pdf, .svg or .csv)").arg(suffix);
    return false;
  }
  if (PlotWidget* p = currentPlot()) return p->exportTo(path, formats.value(suffix), error);
  if (currentWidget() == m_ledger->parentWidget()) {  // a table: its data as CSV
    if (suffix == "csv") return exportTableCsv(m_ledger, path, error);
    if (error) *error = tr("the ledger is a table: export it as .csv");
    return false;
  }
  if (error) *error = tr("the visible results tab has no plot or table to export");
  return false;
}

QString ResultsPanel::askExportPath(QString* problem) {
  const bool table = !currentPlot();
  if (table && currentWidget() != m_ledger->parentWidget()) {
    *problem = tr("The visible tab has nothing to export; choose Sweeps, Diagnostics, Topics or Ledger.");
    return QString();
  }
  const QString filters = table ? tr("CSV data (*.csv)") : tr("PNG (*.png);;PDF (*.pdf);;SVG (*.svg);;CSV data (*.csv)");
  QString filter;
  QString path = QFileDialog::getSaveFileName(
      this, tr("Export"), QDir(lastFolder("export")).filePath(table ? "ledger.csv" : "plot.png"), filters, &filter);
  if (path.isEmpty()) return path;
  if (QFileInfo(path).suffix().isEmpty()) path += filter.section('*', 1, 1).section(')', 0, 0);  // e.g. ".pdf"
  rememberFolder("export", path);
  return path;
}

void ResultsPanel::setStale(bool stale) {
  m_experiments->setStale(stale);
  m_spectrum->setStale(stale);
  m_topicsView->setStale(stale);
  m_headline->setStyleSheet(stale ? "color: gray;" : QString());
  const QString style = stale ? "color: gray;" : QString();
  m_ledger->setStyleSheet(style);
  m_diag->setStyleSheet(style);
}

void ResultsPanel::setMetadata(const QJsonObject& metadata) {
  m_experiments->setSessionMetadata(metadata);
  m_spectrum->setMetadata(metadata);
  m_topicsView->plot()->setMetadata(metadata);
}

QJsonObject ResultsPanel::summarize(const RunOutcome& o) {
  const SessionState& s = o.session;
  double err = NAN;
  QString kind;
  if (o.error) { err = o.error->l2Mean; kind = "ℓ₂ error"; }
  else if (o.utilityLoss) { err = o.utilityLoss->l2Mean; kind = "utility loss"; }
  // VI / DP-VI runs are labelled by their model; their edges are not used.
  const bool vi = o.variational.has_value();
  QJsonObject summary{{"run", static_cast<qint64>(o.id)},
                      {"label", vi ? modelLabel(s.model) : edgeSetLabel(s.edges)},
                      {"edges", vi ? QString() : QString::fromStdString(edgeSetToString(s.edges))},
                      {"epsilon", s.epsilon},
                      {"delta", s.delta},
                      {"error", std::isfinite(err) ? QJsonValue(err) : QJsonValue()},
                      {"error_kind", kind},
                      {"released", vi || (o.priv && o.priv->released)},
                      {"privacy_claim", runClaimName(o)},
                      {"noise", runNoiseSource(o)}};
  if (vi) summary.insert("model", QString::fromLatin1(modelName(s.model)));
  if (o.perplexity && o.perplexity->has()) summary.insert("perplexity", o.perplexity->result->perplexity);
  return summary;
}

void ResultsPanel::addHistory(const QJsonObject& summary) {
  m_updatingHistory = true;
  auto* item = new QListWidgetItem(historyText(summary));
  item->setData(Qt::UserRole, summary);
  item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
  item->setCheckState(Qt::Unchecked);
  item->setToolTip(summary.value("noise").toString());
  m_history->insertItem(0, item);
  while (m_history->count() > 200) {  // keep pinned ones
    QListWidgetItem* last = m_history->item(m_history->count() - 1);
    if (last->checkState() == Qt::Checked) break;
    delete m_history->takeItem(m_history->count() - 1);
  }
  m_updatingHistory = false;
}

void ResultsPanel::setPinned(const QJsonArray& pinned) {
  m_pinned = pinned;
  m_updatingHistory = true;
  for (int i = 0; i < m_history->count(); ++i) {
    QListWidgetItem* it = m_history->item(i);
    it->setCheckState(pinned.contains(it->data(Qt::UserRole).toJsonObject()) ? Qt::Checked : Qt::Unchecked);
  }
  for (const QJsonValue& v : pinned) {  // pinned runs of a loaded session that are not in the history
    bool found = false;
    for (int i = 0; i < m_history->count() && !found; ++i)
      found = m_history->item(i)->data(Qt::UserRole).toJsonObject() == v.toObject();
    if (!found) {
      auto* item = new QListWidgetItem(historyText(v.toObject()));
      item->setData(Qt::UserRole, v.toObject());
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setCheckState(Qt::Checked);
      m_history->addItem(item);
    }
  }
  m_updatingHistory = false;
  m_experiments->setPinnedRuns(pinned);
}

void ResultsPanel::showOutcome(const RunOutcome& o) {
  setStale(false);
  const SessionState& s = o.session;
  // Diagnostics: the exact spectrum (teaching) and a table in two parts that never mix: what
  // the run released, then the exact statistics of the corpus.
  QVector<double> sig(o.eigenvalues.data(), o.eigenvalues.data() + o.eigenvalues.size());
  QString err;
  if (!m_spectrum->setSpectrum(sig, std::min<int>(s.topicCount(), sig.size()), &err)) m_spectrum->clearSpectrum();
  using Row = DiagnosticRow;
  QVector<Row> rows;
  const int k = s.topicCount();
  const QString teaching = tr("non-private (teaching): ");
  auto spectrum = [](const Eigen::VectorXd& v) {
    QStringList parts;
    for (Eigen::Index i = 0; i < v.size(); ++i) parts << g(v[i]);
    return parts.join(", ");
  };

  if (!o.variational)
    rows.push_back({tr("Released (private): the run's outputs and the values its noise scales used"), {}, {}, true});
  rows += variationalRows(o);  // VI / DP-VI: their released and teaching parts
  if (o.priv) {
    const PrivateRunResult& p = *o.priv;
    const PrivacyDiagnostics& d = p.diagnostics;
    rows.push_back({tr("privacy claim"), QString::fromLatin1(privacyClaimName(p.statement.claim)),
                    readablePrivacyText(p.statement.summary)});
    if (s.edges == 0) rows.push_back({tr("released"), tr("nothing private"), tr("no edge is noisy")});
    else if (!p.released) rows.push_back({tr("released"), tr("nothing"), QString::fromStdString(p.status.message())});
    if (d.sigmaKTilde) rows.push_back({"σ̃_k", g(*d.sigmaKTilde), tr("Procedure 1 private lower bound on σ_k(M̂₂)")});
    if (d.gapTilde)
      rows.push_back({tr("g̃ (eigengap~)"), g(*d.gapTilde),
                      tr("Procedure 1 private lower bound on the eigengap min_{i≤k} (σ_i − σ_{i+1})")});
    if (d.gammaSTilde) rows.push_back({"γ̃_s", g(*d.gammaSTilde), tr("Procedure 1 private lower bound on γ_s(T̂)")});
    if (d.releasedEigenvalues.size() > 0)
      rows.push_back({tr("σ₁…σ_{k+1} released"), spectrum(d.releasedEigenvalues),
                      tr("eigenvalues of the released (noisy) M̂₂ that W was built from")});
    if (o.error) rows.push_back({tr("private error"), g(o.error->l2Mean), tr("mean ℓ₂ vs truth")});
    QSet<QString> seen;  // releases share preconditions (N >= 3, …): each once
    for (const Precondition& c : d.preconditions) {
      const QString name = QString::fromStdString(c.name), detail = QString::fromStdString(c.detail);
      if (seen.contains(name + QChar(0x1f) + detail)) continue;
      seen.insert(name + QChar(0x1f) + detail);
      rows.push_back({name, c.holds ? tr("holds") : tr("FAILS"), tr("on released or public values: %1").arg(detail)});
    }
  }

  if (!o.variational)
    rows.push_back({tr("Non-private (teaching): exact statistics of the corpus, not released and never used by "
                       "the release"),
                    {}, {}, true});
  if (!o.nonPrivateFailure.isEmpty())
    rows.push_back({tr("non-private model"), tr("not computed"), teaching + o.nonPrivateFailure});
  if (o.eigenvalues.size() >= k)
    rows.push_back({"σ_k(M̂₂)", g(o.eigenvalues[k - 1]), teaching + tr("k-th eigenvalue of the exact M̂₂")});
  if (o.eigenvalues.size() > k)
    rows.push_back({"σ_k − σ_{k+1}", g(o.eigenvalues[k - 1] - o.eigenvalues[k]), teaching + tr("eigengap of M̂₂ at k")});
  const NonPrivateDiagnostics* np = o.priv ? &o.priv->diagnostics.nonPrivate : nullptr;
  if (np && !np->available && np->checks.empty()) np = nullptr;  // failed before the spectrum
  if (np && o.eigenvalues.size() >= k)
    rows.push_back({tr("eigengap g"), g(np->eigengap), teaching + tr("min_{i≤k} (σ_i − σ_{i+1}) of the exact M̂₂")});
  if (o.hasNonPrivate) rows.push_back({"γ_s", g(o.gammaS), teaching + tr("tensor eigengap of the exact T̂")});
  if (o.baselineError)
    rows.push_back({tr("non-private error"), g(o.baselineError->l2Mean), teaching + tr("mean ℓ₂ vs truth")});
  if (o.utilityLoss)
    rows.push_back({tr("utility loss"), g(o.utilityLoss->l2Mean), teaching + tr("mean ℓ₂ of the private vs the non-private output")});
  if (np) {
    for (const Precondition& c : np->checks)
      rows.push_back({QString::fromStdString(c.name), c.holds ? tr("holds") : tr("fails"),
                      teaching + tr("on the exact values: %1").arg(QString::fromStdString(c.detail))});
  }

  rows += heldOutRows(o);  // every model: the held-out perplexity (evaluation)
  m_diag->clearSpans();
  m_diag->clearContents();
  m_diag->setRowCount(rows.size());
  for (int r = 0; r < rows.size(); ++r) {
    if (rows[r].header) continue;
    const QColor c = rows[r].value == tr("FAILS") ? leakColor() : QColor();
    setCell(m_diag, r, 0, rows[r].name);
    setCell(m_diag, r, 1, rows[r].value, c);
    setCell(m_diag, r, 2, rows[r].meaning);
  }
  // Columns fit the rows; the section headers, set afterwards, span all three columns.
  m_diag->resizeColumnsToContents();
  // Long names (exact checks) and a long released spectrum are elided; tooltips hold them whole.
  m_diag->setColumnWidth(0, std::min(m_diag->columnWidth(0), 200));
  m_diag->setColumnWidth(1, std::min(m_diag->columnWidth(1), 150));
  m_diag->setColumnWidth(2, 120);  // the last column stretches to the table's width
  for (int r = 0; r < rows.size(); ++r) {
    if (!rows[r].header) continue;
    setCell(m_diag, r, 0, rows[r].name);
    QTableWidgetItem* item = m_diag->item(r, 0);
    QFont bold = item->font();
    bold.setBold(true);
    item->setFont(bold);
    item->setBackground(palette().alternateBase());
    m_diag->setSpan(r, 0, 1, 3);
  }

  m_topicsView->showOutcome(o);
  m_headline->setText(perplexityHeadline(o));
  m_headline->setToolTip(perplexityHeadlineTip(o));

  // Ledger
  const auto& ledger = o.priv ? o.priv->ledger : std::vector<LedgerEntry>{};
  m_ledger->setRowCount(static_cast<int>(ledger.size()));
  for (int r = 0; r < static_cast<int>(ledger.size()); ++r) {
    const LedgerEntry& e = ledger[r];
    QStringList pre;
    bool allHold = true;
    for (const Precondition& p : e.preconditions) {
      pre << QString("%1 %2").arg(p.holds ? "✔" : "✘", QString::fromStdString(p.name));
      allHold = allHold && p.holds;
    }
    setCell(m_ledger, r, 0, QString::fromStdString(e.release));
    setCell(m_ledger, r, 1, QString::fromStdString(e.node));
    setCell(m_ledger, r, 2, QString::fromStdString(e.mechanism));
    setCell(m_ledger, r, 3, g(e.sensitivity));
    m_ledger->item(r, 3)->setToolTip(QString::fromStdString(e.sensitivityFormula));
    setCell(m_ledger, r, 4, g(e.epsilon));
    setCell(m_ledger, r, 5, g(e.delta));
    setCell(m_ledger, r, 6, g(e.sigma));
    setCell(m_ledger, r, 7, e.spent ? tr("yes") : tr("no"));
    setCell(m_ledger, r, 8, pre.join("; "), allHold ? QColor() : leakColor());
  }
  if (o.variational && o.variational->ledger) fillDpViLedger(m_ledger, o);
  m_ledger->resizeColumnsToContents();
  QString note;
  if (o.variational) {
    note = o.variational->ledger ? dpViLedgerNote(o)
                                 : tr("Non-private %1: nothing is released privately, no budget is spent.")
                                       .arg(modelLabel(o.variational->model));
  } else if (o.priv) {
    note = tr("Privacy claim: <b>%1</b>. ").arg(QString::fromLatin1(privacyClaimName(o.priv->statement.claim)));
    note += tr("Spent ε %1, δ %2 of (%3, %4) by basic composition. Noise: %5.")
               .arg(g(o.priv->epsilonSpent), g(o.priv->deltaSpent), g(s.epsilon), g(s.delta),
                    QString::fromStdString(o.priv->noiseSource));
    if (!o.priv->released) note += " <b>" + QString::fromStdString(o.priv->status.message()).toHtmlEscaped() + "</b>";
    for (const auto& w : o.priv->warnings) note += "<br>⚠ " + readablePrivacyText(w).toHtmlEscaped();
  }
  m_ledgerNote->setText(note);
  addHistory(summarize(o));
}

}  // namespace dplda
