#pragma once
// The DP-LDA Explorer main window: the computation graph in the centre with the results tabs
// below it, the budget bar on top, the generator & corpus panel on the left and the inspector
// on the right. It wires views to the SessionModel (every edit is undoable) and the
// RunController (every computation runs off the GUI thread); it computes nothing itself.
#include <QMainWindow>
#include <QMap>
#include <QTimer>
#include <memory>
#include <optional>

#include "ui/session/session_model.h"
#include "ui/worker/run_worker.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;

namespace dplda {

class BudgetBar;
class GeneratorPanel;
class GraphCanvas;
class InspectorPanel;
class LessonController;
class PresentationMode;
class ResultsPanel;
class UnsavedChangesGuard;

// Registers the compiled-in resources (lessons); call once after QApplication exists.
void initExplorerResources();

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  SessionModel* model() { return &m_model; }
  RunController* runner() { return m_runner; }
  GraphCanvas* canvas() const { return m_canvas; }
  BudgetBar* budgetBar() const { return m_budget; }
  GeneratorPanel* generatorPanel() const { return m_generator; }
  InspectorPanel* inspector() const { return m_inspector; }
  ResultsPanel* results() const { return m_results; }
  QString statusText() const;

  // Delay between a parameter change and the automatic run (ms); 0 runs at the next event loop turn.
  void setDebounce(int ms) { m_debounce.setInterval(ms); }
  void setAutoRun(bool on) {
    m_autoRun = on;
    if (!on) m_debounce.stop();
  }

  // Id of the run whose results are shown (0: none yet).
  quint64 shownRunId() const { return m_shownRun; }
  quint64 shownSweepId() const { return m_shownSweep; }
  bool isBusy() const { return m_runner->isBusy() || m_debounce.isActive(); }
  RunController* experimentRunner() const { return m_experiments; }

  // Replace the session (no question asked; the menus ask first, see askToReplaceSession).
  bool openSession(const QString& path, QString* error = nullptr);
  // Opens a sweep folder (File ▸ Open sweep results…: the folder `dplda sweep --out` or Save…
  // wrote, or its sweep.json) in the Sweeps tab beside the session's own sweep.
  bool openSweepResults(const QString& path, QString* error = nullptr);
  bool saveSession(const QString& path, QString* error = nullptr);
  QString sessionPath() const { return m_path; }
  // Lesson presets compiled into the app (":/lessons/<name>.json").
  static QStringList lessonNames();
  bool loadLesson(const QString& name, QString* error = nullptr);
  LessonController* lessons() const { return m_lessons; }
  PresentationMode* presentation() const { return m_presentation; }
  // The menus' way to open a session or a lesson: with unsaved changes, asks Save / Discard /
  // Cancel first (as quitting does); false when the user cancels. The replaced session's undo
  // history goes with it (undo never steps back into another session).
  bool openSessionAsking(const QString& path);
  bool loadLessonAsking(const QString& name);
  bool exportCurrentPlot(const QString& path, QString* error = nullptr);

 public slots:
  void runNow();
  void cancelRun();

 protected:
  void showEvent(QShowEvent* event) override;  // the first show decides whether the Inspector starts hidden

 signals:
  void runShown(quint64 id);
  void sweepShown(quint64 id);

 private:
  void buildActions();
  void onStateChanged(const SessionState& previous, const SessionState& current);
  void onRunReady(std::shared_ptr<const RunOutcome> outcome);
  void showSpectralOnCanvas(const RunOutcome& outcome);  // statement, node states, edge captions
  void onSessionSweep(std::shared_ptr<const ExperimentUpdate> update);
  void startExperiment(const QString& preset, int trials);
  void setStatus(const QString& text, bool error = false);
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void updateTitle();
  QJsonObject plotMetadata(quint64 runId, const QString& noise, const QString& claim) const;
  // N for the privacy statement: the document count of the last corpus loaded for this
  // session's corpus, else the generator's N (synthetic), else 0 (unknown).
  int publicDocCount(const SessionState& s) const;
  // The canvas banner and budget indicator follow the session's edges, bounds, ε, δ and N.
  void updatePrivacyStatement(const SessionState& s);
  // A panel's typed input became invalid (message) or valid again (""); `source` names the panel.
  void onInputProblem(const QString& source, const QString& message);

  SessionModel m_model;
  RunController* m_runner = nullptr;       // the session's runs and its ε sweep
  RunController* m_experiments = nullptr;  // preset experiments, independent of session edits
  GraphCanvas* m_canvas = nullptr;
  BudgetBar* m_budget = nullptr;
  GeneratorPanel* m_generator = nullptr;
  InspectorPanel* m_inspector = nullptr;
  QDockWidget* m_inspectorDock = nullptr;
  bool m_shownBefore = false;
  ResultsPanel* m_results = nullptr;
  LessonController* m_lessons = nullptr;
  UnsavedChangesGuard* m_unsaved = nullptr;
  PresentationMode* m_presentation = nullptr;  // "*" in the title; asks before work is thrown away
  QLabel* m_status = nullptr;
  QLabel* m_stage = nullptr;  // the running stage, next to the progress bar
  QString m_summary;  // the last run's one-line summary
  std::shared_ptr<const RunOutcome> m_shownOutcome;  // the last run shown (the sweep's release hint)
  bool m_summaryIsError = false;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancel = nullptr;
  QMenu* m_recentMenu = nullptr;
  QAction* m_cancelAction = nullptr;
  QTimer m_debounce;
  bool m_autoRun = true;
  quint64 m_shownRun = 0;
  quint64 m_shownSweep = 0;
  QString m_path;
  QString m_runningExperiment;  // the preset last started, named when it is cancelled
  // The lesson just loaded pins its first finished sweep of these settings (lesson 8's N = 1 000).
  std::optional<SessionState> m_lessonPinFor;
  QString m_loadedCorpusKey;  // corpusKey of the last corpus a run loaded
  int m_loadedDocCount = 0;   // its document count
  QMap<QString, QString> m_inputProblems;  // by panel: invalid typed input not in the session
};

}  // namespace dplda
