#include "ui/panels/results_panel.h"

#include "ui/common/scroll_page.h"

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
#include <QMap>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "core/moments/clipped_moments.h"
#include "ui/common/last_folder.h"
#include "ui/panels/audit_panel.h"
#include "ui/session/session_privacy.h"
#include "ui/common/palette.h"
#include "ui/common/privacy_text.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/model_rows.h"
#include "ui/panels/topic_browser.h"
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
  QString text = QObject::tr("#%1  %2  ε %3  →  %4 %5%6%7")
                     .arg(s.value("run").toInt())
                     .arg(s.value("label").toString(), g(s.value("epsilon").toDouble()),
                          s.value("error_kind").toString(), g(err),
                          s.value("released").toBool() ? QString() : QObject::tr("  (nothing released)"),
                          weak ? QObject::tr("  [%1]").arg(claim) : QString());
  // Second line: N, the corpus, the bound set and the accountant (older entries lack them).
  QStringList more;
  if (s.contains("docs")) more << QObject::tr("N %1").arg(s.value("docs").toInt());
  if (s.contains("corpus")) more << s.value("corpus").toString();
  if (s.contains("bounds")) more << QObject::tr("%1 bounds").arg(s.value("bounds").toString());
  if (s.contains("accountant")) more << QObject::tr("accountant: %1").arg(s.value("accountant").toString());
  if (!more.isEmpty()) text += "\n      " + more.join("  ·  ");
  return text;
}

// One row per distinct precondition (name, result, detail), with the ledger's releases that list it.
struct UniquePrecondition {
  QString name, detail;
  bool holds = false;
  QStringList releases;
};
QVector<UniquePrecondition> uniquePreconditions(const std::vector<Precondition>& all, const std::vector<LedgerEntry>& ledger) {
  QVector<UniquePrecondition> out;
  QMap<QString, int> index;
  auto keyOf = [](const Precondition& c) {
    return QString::fromStdString(c.name) + QChar(0x1f) + QString::fromStdString(c.detail) + (c.holds ? "1" : "0");
  };
  for (const Precondition& c : all) {
    const QString key = keyOf(c);
    if (index.contains(key)) continue;
    index.insert(key, out.size());
    out.push_back({readablePrivacyText(c.name), readablePrivacyText(c.detail), c.holds, {}});
  }
  for (const LedgerEntry& e : ledger)
    for (const Precondition& c : e.preconditions) {
      const auto it = index.constFind(keyOf(c));
      if (it == index.cend()) continue;
      QStringList& names = out[*it].releases;
      const QString r = QString::fromStdString(e.release);
      if (!names.contains(r)) names << r;
    }
  return out;
}

// "synthetic d 30, k 3, seed 5", "UCI: folder", "text: file" (full path in the settings).
QString corpusText(const SessionState& s) {
  switch (s.source) {
    case SessionState::Source::Synthetic:
      return QObject::tr("synthetic d %1, k %2, seed %3")
          .arg(s.generator.vocabSize)
          .arg(s.generator.topicCount)
          .arg(seedToText(s.generator.seed));
    case SessionState::Source::Uci: return QObject::tr("UCI: %1").arg(QFileInfo(s.corpusPath).fileName());
    case SessionState::Source::Text: return QObject::tr("text: %1").arg(QFileInfo(s.corpusPath).fileName());
  }
  return QString();
}

// What a history entry restores: the session without pins, pinned sweeps and lesson text.
QJsonObject settingsOf(SessionState s) {
  s.pinned = QJsonArray();
  s.pinnedSweeps = QJsonArray();
  s.lessonTitle.clear();
  s.lessonText.clear();
  return sessionToJson(s);
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
  // σ_k vs σ̃_k and γ_s vs γ̃_s over the session's runs (seed 002 Figure 4, run by run), log y.
  m_runsPlot = new SigmaGammaPlot;
  m_runsPlot->setObjectName("sigmaGammaRunsPlot");
  m_runsPlot->setTitle(tr("σ_k vs σ̃_k and γ_s vs γ̃_s over the runs"));
  m_runsPlot->setXLabel(tr("run"));
  m_runsPlot->setYLabel(tr("value (log)"));
  m_runsPlot->setLogY(true);
  m_diagPlots = new QTabWidget;
  m_diagPlots->setTabPosition(QTabWidget::South);
  m_diagPlots->setDocumentMode(true);
  m_diagPlots->addTab(m_spectrum, tr("Spectrum"));
  m_diagPlots->addTab(m_runsPlot, tr("σ, γ over runs"));
  m_diag = makeTable({tr("quantity"), tr("value"), tr("meaning")});
  m_diag->setWordWrap(true);  // nothing clipped: long names and values wrap, rows grow
  m_diag->setTextElideMode(Qt::ElideNone);
  diag->addWidget(m_diagPlots);
  diag->addWidget(m_diag);
  diag->setStretchFactor(0, 2);
  diag->setStretchFactor(1, 3);
  diag->setSizes({400, 600});  // the table has a released and a teaching part
  addTab(scrollPage(diag, true), tr("Diagnostics"));
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
  connect(m_history, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* item) {
    const QJsonObject summary = item->data(Qt::UserRole).toJsonObject();
    emit restoreRequested(restoredSettings(m_session, summary),
                          tr("restore the settings of run %1").arg(summary.value("run").toInt()));
  });

  // Audit: an empirical ε lower bound of one release against its claim
  m_audit = new AuditPanel;
  addTab(m_audit, tr("Audit"));
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
  // Every plot keeps a readable data area on a 1280×720 screen (the Sweeps tab's own too).
  for (PlotWidget* plot : findChildren<PlotWidget*>()) plot->setMinimumDataHeight(kPlotDataHeight);
}

ErrorVsEpsilonPlot* ResultsPanel::errorPlot() const { return m_experiments->errorPlot(); }

TopicsPlot* ResultsPanel::topicsPlot() const { return m_topicsView->plot(); }

QString ResultsPanel::headlineText() const { return m_headline->text(); }

QString ResultsPanel::ledgerNote() const { return m_ledgerNote->text(); }

PlotWidget* ResultsPanel::currentPlot() const {
  switch (currentIndex()) {
    case 0: return m_experiments->currentPlot();
    case 1: return qobject_cast<PlotWidget*>(m_diagPlots->currentWidget());
    case 2: return m_topicsView->currentPlot();
    default: return currentWidget() == m_audit ? m_audit->currentPlot() : nullptr;
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
  m_runsPlot->setStale(stale);
  m_topicsView->setStale(stale);
  m_headline->setStyleSheet(stale ? "color: gray;" : QString());
  const QString style = stale ? "color: gray;" : QString();
  m_ledger->setStyleSheet(style);
  m_diag->setStyleSheet(style);
}

void ResultsPanel::setMetadata(const QJsonObject& metadata) {
  m_experiments->setSessionMetadata(metadata);
  m_spectrum->setMetadata(metadata);
  for (PlotWidget* p : m_topicsView->findChildren<PlotWidget*>()) p->setMetadata(metadata);  // words, browser, mixture
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
                      {"label", vi ? modelLabel(s.model) : configurationLabel(s)},
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
  // N of the privacy statement (the training part), the corpus, bound set and accountant, and
  // every setting, so that a double-click restores the run.
  summary.insert("docs", o.trainDocCount > 0 ? o.trainDocCount : o.docCount);
  summary.insert("corpus", corpusText(s));
  if (!vi) summary.insert("bounds", QString::fromLatin1(boundSetName(s.bounds)));
  summary.insert("accountant", s.model == SessionState::Model::DpVi ? QString("zCDP")
                               : vi                                  ? tr("none (not private)")
                               : s.e6Release == SessionState::TensorRelease::Noise
                                   ? QString::fromLatin1(accountantName(s.accountant))
                                   : QString("%1, e6 %2").arg(QString::fromLatin1(accountantName(s.accountant)),
                                                              tensorReleaseLabel(s.e6Release)));
  summary.insert("settings", settingsOf(s));
  return summary;
}

SessionState ResultsPanel::restoredSettings(const SessionState& current, const QJsonObject& summary) {
  SessionState s = current;
  auto recorded = sessionFromJson(summary.value("settings").toObject());
  if (summary.contains("settings") && recorded.ok()) {
    s = recorded.value();
  } else {  // an older entry: what it recorded
    if (summary.contains("edges")) {
      if (auto e = parseEdgeSet(summary.value("edges").toString().toStdString()); e.ok()) s.edges = e.value();
    }
    s.epsilon = summary.value("epsilon").toDouble(s.epsilon);
    s.delta = summary.value("delta").toDouble(s.delta);
    if (auto b = parseBoundSet(summary.value("bounds").toString().toStdString()); b.ok()) s.bounds = b.value();
  }
  s.pinned = current.pinned;
  s.pinnedSweeps = current.pinnedSweeps;
  s.lessonTitle = current.lessonTitle;
  s.lessonText = current.lessonText;
  return s;
}

void ResultsPanel::setSession(const SessionState& s) {
  m_session = s;
  m_audit->setSession(s);
}

void ResultsPanel::addRunPoint(const RunOutcome& o) {
  if (o.variational) return;
  const int k = o.session.topicCount();
  const double run = static_cast<double>(o.id);
  auto add = [&](const QString& key, std::optional<double> v) {
    if (!v || !std::isfinite(*v)) return;
    auto& [xs, ys] = m_runSeries[key];
    xs << run;
    ys << *v;
    while (xs.size() > 200) xs.removeFirst(), ys.removeFirst();
  };
  add("sigma", o.eigenvalues.size() >= k && k > 0 ? std::optional<double>(o.eigenvalues[k - 1]) : std::nullopt);
  add("sigma_tilde", o.priv ? o.priv->diagnostics.sigmaKTilde : std::nullopt);
  add("gamma", o.hasNonPrivate ? std::optional<double>(o.gammaS) : std::nullopt);
  add("gamma_tilde", o.priv ? o.priv->diagnostics.gammaSTilde : std::nullopt);
  const QMap<QString, QPair<QString, int>> labels = {
      {"sigma", {tr("σ_k(M̂₂) exact (teaching)"), 0}}, {"sigma_tilde", {tr("σ̃_k released"), 1}},
      {"gamma", {tr("γ_s exact (teaching)"), 2}}, {"gamma_tilde", {tr("γ̃_s released"), 3}}};
  for (auto it = m_runSeries.cbegin(); it != m_runSeries.cend(); ++it)
    m_runsPlot->setSeries(it.key(), labels[it.key()].first, it.value().first, it.value().second, labels[it.key()].second);
  m_runsPlot->resetView();
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
    else if (!p.released) rows.push_back({tr("released"), tr("nothing"), readablePrivacyText(p.status.message())});
    if (d.sigmaKTilde) rows.push_back({"σ̃_k", g(*d.sigmaKTilde), tr("Procedure 1 private lower bound on σ_k(M̂₂)")});
    if (d.gapTilde)
      rows.push_back({tr("g̃ (eigengap~)"), g(*d.gapTilde),
                      tr("Procedure 1 private lower bound on the eigengap min_{i≤k} (σ_i − σ_{i+1})")});
    if (d.gammaSTilde) rows.push_back({"γ̃_s", g(*d.gammaSTilde), tr("Procedure 1 private lower bound on γ_s(T̂)")});
    if (d.releasedEigenvalues.size() > 0)
      rows.push_back({tr("σ₁…σ_{k+1} released"), spectrum(d.releasedEigenvalues),
                      tr("eigenvalues of the released (noisy) M̂₂ that W was built from")});
    if (o.error) rows.push_back({tr("private error"), g(o.error->l2Mean), tr("mean ℓ₂ vs truth")});
    // Releases share preconditions (N >= 3, σ̃_k > Δ2, …): each once, naming the releases that need it.
    for (const UniquePrecondition& c : uniquePreconditions(d.preconditions, p.ledger)) {
      const QString needed = c.releases.isEmpty() ? QString() : tr(" — needed by %1").arg(c.releases.join(", "));
      rows.push_back({c.name, c.holds ? tr("holds") : tr("FAILS"), tr("on released or public values: %1%2").arg(c.detail, needed)});
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
  if (o.hasNonPrivate) {
    rows.push_back({"γ_s", g(o.gammaS), teaching + tr("tensor eigengap of the exact T̂")});
    const TensorEigenpairs& td = o.decomposition;
    const QString residual = td.maxResidual ? tr(", worst residual %1·‖T̂‖").arg(g(*td.maxResidual)) : QString();
    rows.push_back({tr("decomposition of T̂"),
                    td.converged() ? tr("converged")
                                 : tr("%1 of %2 components did not converge").arg(td.unconverged).arg(td.lambda.size()),
                    teaching + tr("%1; %2 iterations%3").arg(QString::fromStdString(td.method)).arg(td.iterations).arg(residual)});
  }
  if (o.baselineError)
    rows.push_back({tr("non-private error"), g(o.baselineError->l2Mean), teaching + tr("mean ℓ₂ vs truth")});
  if (o.utilityLoss)
    rows.push_back({tr("utility loss"), g(o.utilityLoss->l2Mean), teaching + tr("mean ℓ₂ of the private vs the non-private output")});
  if (np) {
    for (const UniquePrecondition& c : uniquePreconditions(np->checks, {}))
      rows.push_back({c.name, c.holds ? tr("holds") : tr("fails"), teaching + tr("on the exact values: %1").arg(c.detail)});
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
  // Columns fit the rows up to a limit; longer names (exact checks) and a long released spectrum
  // wrap instead of being clipped, and the rows grow to hold them. The section headers, set
  // afterwards, span all three columns.
  m_diag->resizeColumnsToContents();
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
  m_diag->resizeRowsToContents();
  addRunPoint(o);

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
      pre << QString("%1 %2").arg(p.holds ? "✔" : "✘", readablePrivacyText(p.name));
      allHold = allHold && p.holds;
    }
    setCell(m_ledger, r, 0, readablePrivacyText(e.release));
    setCell(m_ledger, r, 1, QString::fromStdString(e.node));
    setCell(m_ledger, r, 2, QString::fromStdString(e.mechanism));
    setCell(m_ledger, r, 3, g(e.sensitivity));
    m_ledger->item(r, 3)->setToolTip(readablePrivacyText(e.sensitivityFormula));
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
    if (const MomentClip clip = momentClipOf(s); clip.enabled) {
      note += tr("Documents clipped to the public bounds <b>%1</b>: every moment sensitivity is Lemma C4's "
                 "(docs/PRIVACY.md §12). ").arg(QString::fromStdString(momentClipText(clip)));
    }
    note += tr("Spent ε %1, δ %2 of (%3, %4) by basic composition. Noise: %5.")
               .arg(g(o.priv->epsilonSpent), g(o.priv->deltaSpent), g(s.epsilon), g(s.delta),
                    QString::fromStdString(o.priv->noiseSource));
    note += " " + accountantComparisonNote(o.priv->accounts);
    if (!o.priv->released) note += " <b>" + readablePrivacyText(o.priv->status.message()).toHtmlEscaped() + "</b>";
    for (const auto& w : o.priv->warnings) note += "<br>⚠ " + readablePrivacyText(w).toHtmlEscaped();
  }
  m_ledgerNote->setText(note);
  addHistory(summarize(o));
}

}  // namespace dplda
