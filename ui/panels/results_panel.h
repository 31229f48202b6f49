#pragma once
// The bottom dock: results tabs — sweeps (the session's ε sweep and the papers' experiments, see
// ExperimentView), diagnostics (the exact eigen spectrum with the k-th gap, and a table in two
// labelled parts: what the run released — its privacy claim, σ̃_k, g̃, γ̃_s, a released spectrum,
// preconditions on released values — then the exact statistics of the corpus, "non-private
// (teaching)": σ_k, the eigengaps, γ_s, utility loss, checks, or why the non-private model could
// not be computed), topics (true vs recovered, matched, and two models side by side, see
// TopicsView), the privacy ledger, the run history (pin runs to compare them on the error-vs-ε
// plot; entries carry the run's privacy claim, N, the corpus, the bound set and the accountant;
// double-click restores a run's settings) and the Audit tab (AuditPanel: an empirical ε lower
// bound of one release against its claim). Diagnostics lists each precondition once, naming the
// releases whose bounds need it, and charts σ_k vs σ̃_k and γ_s vs γ̃_s over the session's runs. VI and DP-VI runs (issue 10) show their fit, DP-VI
// its zCDP ledger; the held-out perplexity of every model is in Diagnostics and, prominently,
// beside the tabs.
#include <QJsonArray>
#include <QMap>
#include <QPair>
#include <QVector>
#include <QTabWidget>
#include <memory>

#include "ui/session/session.h"

class QListWidget;
class QListWidgetItem;
class QSpinBox;
class QTableWidget;
class QLabel;

namespace dplda {

class AuditPanel;
class EigenSpectrumPlot;
class SigmaGammaPlot;
class ErrorVsEpsilonPlot;
class ExperimentView;
class PlotWidget;
class TopicsPlot;
class TopicsView;
struct RunOutcome;

class ResultsPanel : public QTabWidget {
  Q_OBJECT

 public:
  explicit ResultsPanel(QWidget* parent = nullptr);

  void setStale(bool stale);  // every plot: results of old parameters are veiled at once
  void showOutcome(const RunOutcome& outcome);
  void setMetadata(const QJsonObject& metadata);
  // Pinned run summaries (stored in the session); shown as points on the error-vs-ε plot.
  void setPinned(const QJsonArray& pinned);
  // The current session: the Audit tab's configuration, and what a restored history entry keeps
  // (pins, pinned sweeps, the lesson).
  void setSession(const SessionState& s);

  ExperimentView* experiments() const { return m_experiments; }
  ErrorVsEpsilonPlot* errorPlot() const;
  EigenSpectrumPlot* spectrumPlot() const { return m_spectrum; }
  SigmaGammaPlot* runsPlot() const { return m_runsPlot; }  // σ_k, σ̃_k, γ_s, γ̃_s over the runs (log y)
  AuditPanel* audit() const { return m_audit; }
  TopicsPlot* topicsPlot() const;
  TopicsView* topicsView() const { return m_topicsView; }
  // The headline beside the tabs: the run's held-out perplexity ("" without a split).
  QString headlineText() const;
  QTableWidget* ledgerTable() const { return m_ledger; }
  QString ledgerNote() const;
  QTableWidget* diagnosticsTable() const { return m_diag; }
  QListWidget* historyList() const { return m_history; }
  PlotWidget* currentPlot() const;  // the plot of the visible tab, or null
  // Exports the visible tab by the file's suffix: its plot (.png/.pdf/.svg/.csv) or, on the
  // Ledger tab, the table as .csv. False with a message naming the problem.
  bool exportCurrent(const QString& path, QString* error = nullptr);
  // Asks where to export the visible tab (its plot's formats, or CSV on the Ledger tab),
  // starting in the folder remembered for exports; "" when cancelled, or when the tab has
  // nothing to export (`problem` then says so).
  QString askExportPath(QString* problem);

  // A summary of a run for the history and for pinning.
  static QJsonObject summarize(const RunOutcome& outcome);
  // The settings a history entry restores: its recorded session (pins, pinned sweeps and the lesson
  // of `current` kept), or for older entries `current` with the entry's edges, ε, δ and bounds.
  static SessionState restoredSettings(const SessionState& current, const QJsonObject& summary);

 signals:
  // The user (un)pinned a history entry; the main window stores the new list in the session.
  void pinnedEdited(const QJsonArray& pinned, const QString& what);
  // A history entry was double-clicked: the main window applies these settings (undoable).
  void restoreRequested(const SessionState& settings, const QString& what);

 private:
  void addHistory(const QJsonObject& summary);
  QListWidgetItem* historyItem(const QJsonObject& summary, bool pinned) const;
  void addRunPoint(const RunOutcome& o);  // the σ/γ-over-runs chart

  ExperimentView* m_experiments = nullptr;
  EigenSpectrumPlot* m_spectrum = nullptr;
  SigmaGammaPlot* m_runsPlot = nullptr;
  QTabWidget* m_diagPlots = nullptr;
  QMap<QString, QPair<QVector<double>, QVector<double>>> m_runSeries;  // key -> (run ids, values)
  AuditPanel* m_audit = nullptr;
  SessionState m_session;
  QTableWidget* m_diag = nullptr;
  TopicsView* m_topicsView = nullptr;
  QLabel* m_headline = nullptr;
  QTableWidget* m_ledger = nullptr;
  QLabel* m_ledgerNote = nullptr;
  QListWidget* m_history = nullptr;
  QJsonArray m_pinned;
  bool m_updatingHistory = false;
};

}  // namespace dplda
