#pragma once
// The Sweeps tab of the results dock: the session's own ε sweep (rerun after every run) and the
// papers' experiments (presets, run on request), drawn while they grow, point by point, with the
// same figures `dplda sweep` writes. A finished error sweep can be pinned: its curves stay on
// the error plots as dashed references (saved with the session) to compare with another sweep.
#include <QJsonArray>
#include <QJsonObject>
#include <QMap>
#include <QWidget>

#include "core/experiments/sweep.h"
#include "ui/session/session.h"
#include <memory>
#include <vector>

#include "ui/experiments/experiment_output.h"

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace dplda {

// The least height of a results plot's data area, in pixels: a classroom's 1280×720 screen
// still shows a readable plot (issue 24); the window's minimum height allows for it.
inline constexpr int kPlotDataHeight = 200;

// The sources of the Sweeps tab: the session's own ε sweep, a preset's name, or a sweep folder
// opened from disk (this prefix + the folder's absolute path).
inline const QString kSessionSweepSource = QStringLiteral("session");
inline const QString kOpenedSweepPrefix = QStringLiteral("opened:");

class ErrorVsEpsilonPlot;
class PlotWidget;
struct ExperimentUpdate;

class ExperimentView : public QWidget {
  Q_OBJECT

 public:
  explicit ExperimentView(QWidget* parent = nullptr);

  // Stores the latest state of an experiment; draws it when its source is the one shown.
  void showUpdate(const std::shared_ptr<const ExperimentUpdate>& update);
  // What the Run button does: runs the shown source (for a preset: cancels it while it runs).
  void requestRun();
  // A preset experiment started or stopped (its Run button turns into Cancel meanwhile).
  void setRunning(bool running);
  bool isRunning() const { return m_running; }
  void setProgress(double fraction);  // of the running preset, shown on its Cancel button
  // A running experiment was cancelled (`source`, or the running preset when empty): its last
  // snapshot, if it had not ended, is marked as such.
  void markCancelled(const QString& source = QString());

  // "session" or a preset name; the experiment whose latest state is shown.
  QString source() const;
  bool sourceIsOpenedFolder() const;
  bool setSource(const QString& source);
  void setTrials(int trials);  // for presets

  QStringList figureKeys() const;
  QString currentFigureKey() const { return m_figureKey; }
  bool setCurrentFigure(const QString& key);
  PlotWidget* currentPlot() const;
  ErrorVsEpsilonPlot* errorPlot() const { return m_errorPlot; }
  std::shared_ptr<const ExperimentUpdate> shownUpdate() const;

  void setStale(bool stale);                          // the session's sweep is out of date
  void setSessionMetadata(const QJsonObject& meta);   // merged into the session sweep's exports
  void setPinnedRuns(const QJsonArray& pinned);       // single runs from the history, as points
  void setPinnedSweeps(const QJsonArray& pinned);     // from the session
  // What the session's latest sweep says about the session's own configuration at its ε
  // (readSweep): NaNs without such a sweep or when the sweep ran other settings.
  SweepReading sessionReading(const SessionState& s) const;
  QJsonArray pinnedSweeps() const { return m_pinnedSweeps; }

  // Pins the shown sweep (finished error sweeps only); false with the reason otherwise.
  bool pinShown(QString* error = nullptr);
  // Pins the session's latest sweep, its label ending with `note` (e.g. "N = 1 000"): a lesson
  // keeps its starting curve on the plot so that the learner sees the next one move.
  bool pinSessionSweep(const QString& note, QString* error = nullptr);
  // Shows the session's own ε sweep and its first figure (a lesson's starting view).
  void showSessionSweep();
  // Writes the shown experiment's folder (tables, figures in PNG/PDF/SVG + CSV, report.md).
  bool saveShown(const QString& dir, QString* error = nullptr);
  // Opens a sweep folder that `dplda sweep` or Save… wrote (its sweep.json; `path` is the folder
  // or the file) as a source of its own ("opened: NAME") and shows it: its figures, pins and
  // exports work as for a sweep run here; it cannot be run again. False with the reason.
  bool openSweepFolder(const QString& path, QString* error = nullptr);

 signals:
  void runRequested(const QString& preset, int trials);  // "session": rerun the session
  void cancelRequested();
  void pinnedSweepsEdited(const QJsonArray& pinned, const QString& what);
  void message(const QString& text, bool error);

 protected:
  void resizeEvent(QResizeEvent* event) override;  // the one-line note ends where the tab ends

 private:
  void elideNote();
  void refresh();           // figure list, plot and note of the shown source
  void drawFigure(const ExperimentFigure& figure, const ExperimentUpdate& update);
  void overlayPins(const QString& figureKey);
  void updateNote();
  void updateButtons();
  void rebuildPinnedList();
  bool pin(const std::shared_ptr<const ExperimentUpdate>& u, const QString& note, QString* error);
  // The plot's text when a finished sweep drew nothing: that nothing was released, and why.
  QString nothingReleasedText(const ExperimentUpdate& u) const;

  QComboBox* m_sourceCombo = nullptr;
  QSpinBox* m_trials = nullptr;
  QPushButton* m_run = nullptr;
  QComboBox* m_figureCombo = nullptr;
  QPushButton* m_pin = nullptr;
  QPushButton* m_save = nullptr;
  QStackedWidget* m_stack = nullptr;
  ErrorVsEpsilonPlot* m_errorPlot = nullptr;
  QMap<QString, PlotWidget*> m_plots;  // one plot per class name, made on first use
  QLabel* m_note = nullptr;
  QString m_noteHtml;  // the whole note: the label shows its first line's worth, the tooltip all
  QListWidget* m_pinnedList = nullptr;
  QPushButton* m_unpin = nullptr;

  QMap<QString, std::shared_ptr<const ExperimentUpdate>> m_latest;  // by source
  std::vector<ExperimentFigure> m_figures;                          // of the shown source
  QString m_figureKey;
  QJsonObject m_sessionMeta;
  QString m_lastSaveDir;
  QJsonArray m_pinnedRuns, m_pinnedSweeps;
  bool m_running = false;
  QString m_runningSource;
  double m_progress = 0.0;
  bool m_stale = false;
  bool m_updatingCombo = false;
};

}  // namespace dplda
