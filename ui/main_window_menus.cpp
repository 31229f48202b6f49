// MainWindow's menus and their actions (File, Edit, Run, View, Lessons, Help), the recent
// sessions and the title; the window itself is in main_window.cpp.
#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QUndoStack>

#include "core/experiments/sweep_archive.h"
#include "ui/common/last_folder.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/main_window.h"
#include "ui/panels/generator_panel.h"
#include "ui/panels/inspector_panel.h"
#include "ui/panels/results_panel.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/topics_view.h"
#include "ui/session/session_privacy.h"
#include "ui/window/presentation_mode.h"
#include "ui/window/recent_sessions.h"
#include "ui/window/unsaved_changes_guard.h"

namespace dplda {

namespace {
constexpr int kMaxRecent = 8;
}  // namespace

void MainWindow::buildActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open session…"), this, [this] {
    const QString p = QFileDialog::getOpenFileName(
        this, tr("Open session"), m_path.isEmpty() ? lastFolder("session") : QFileInfo(m_path).absolutePath(),
        tr("Sessions (*.json)"));
    if (p.isEmpty()) return;
    rememberFolder("session", p);
    openSessionAsking(p);
  });
  open->setShortcut(QKeySequence::Open);
  m_recentMenu = file->addMenu(tr("Open &recent"));
  rebuildRecentMenu();
  auto saveAs = [this]() -> bool {
    QString p = QFileDialog::getSaveFileName(
        this, tr("Save session"), m_path.isEmpty() ? QDir(lastFolder("session")).filePath("session.json") : m_path,
        tr("Sessions (*.json)"));
    if (p.isEmpty()) return false;
    if (!p.endsWith(".json")) p += ".json";
    rememberFolder("session", p);
    QString err;
    if (saveSession(p, &err)) return true;
    QMessageBox::warning(this, tr("Save session"), err);
    return false;
  };
  auto saveNow = [this, saveAs]() -> bool {
    QString err;
    if (m_path.isEmpty()) return saveAs();
    if (saveSession(m_path, &err)) return true;
    QMessageBox::warning(this, tr("Save session"), err);
    return false;
  };
  m_unsaved = new UnsavedChangesGuard(this, m_model.undoStack(), saveNow);  // "*" in the title, asks on close
  QAction* save = file->addAction(tr("&Save session"), this, saveNow);
  save->setShortcut(QKeySequence::Save);
  QAction* saveAsAction = file->addAction(tr("Save session &as…"), this, saveAs);
  saveAsAction->setShortcut(QKeySequence::SaveAs);
  file->addSeparator();
  file->addAction(tr("&Load corpus…"), m_generator, &GeneratorPanel::loadCorpusRequested);
  file->addAction(tr("Open s&weep results…"), this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open sweep results (a folder dplda sweep --out wrote)"),
                                                          lastFolder("sweep"));
    if (dir.isEmpty()) return;
    rememberFolder("sweep", QFileInfo(dir).absolutePath());  // the next dialog starts beside it
    QString err;
    if (!openSweepResults(dir, &err)) QMessageBox::warning(this, tr("Open sweep results"), err);
  });
  QAction* exportPlot = file->addAction(tr("&Export current plot or table…"), this, [this] {
    QString err;
    const QString path = m_results->askExportPath(&err);
    if (!err.isEmpty()) setStatus(err, true);
    if (!path.isEmpty() && !exportCurrentPlot(path, &err)) QMessageBox::warning(this, tr("Export"), err);
  });
  exportPlot->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  // Model files (docs/MODEL_FORMAT.md): the format `dplda run --save-model` writes and `infer` reads.
  file->addSeparator();
  file->addAction(tr("Open &model…"), this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Open model"), lastFolder("model"),
                                                   tr("Model files (*.json);;All files (*)"));
    if (p.isEmpty()) return;
    rememberFolder("model", p);
    QString err;
    if (!m_results->topicsView()->openModelFile(p, &err)) {
      QMessageBox::warning(this, tr("Open model"), err);
      return;
    }
    m_results->setCurrentWidget(m_results->topicsView());
    m_results->topicsView()->showBrowser(true);
    setStatus(tr("Model %1 opened: its topics are beside the map's model in the topic browser, and its document "
                 "mixtures in the Document mixture view").arg(QFileInfo(p).fileName()));
  });
  file->addAction(tr("Sa&ve model…"), this, [this] {
    QString p = QFileDialog::getSaveFileName(this, tr("Save model"), QDir(lastFolder("model")).filePath("model.json"),
                                             tr("Model files (*.json)"));
    if (p.isEmpty()) return;
    if (!p.endsWith(".json")) p += ".json";
    rememberFolder("model", p);
    QString err;
    if (!m_results->topicsView()->saveModelFile(p, m_path.isEmpty() ? QStringList() : QStringList{m_path}, &err)) {
      QMessageBox::warning(this, tr("Save model"), err);
      return;
    }
    setStatus(tr("Model saved to %1 (holds a fingerprint of the training documents, not private)").arg(p));
  });
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = m_model.undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = m_model.undoStack()->createRedoAction(this, tr("&Redo"));
  // Both usual redo keys, each once: listing Ctrl+Shift+Z twice (QKeySequence::Redo is the
  // same key on X11) made the shortcut ambiguous, so neither fired.
  redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
  edit->addAction(undo);
  edit->addAction(redo);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  QAction* runAction = run->addAction(tr("&Run now"), this, &MainWindow::runNow);
  runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_cancelAction = run->addAction(tr("&Cancel"), this, &MainWindow::cancelRun);
  m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
  m_cancelAction->setEnabled(false);
  run->addSeparator();
  QAction* compare = run->addAction(tr("Compare &configurations 1–4"), this, [this] {
    SessionState s = m_model.state();
    s.comparePresets = !s.comparePresets;
    m_model.edit(s, tr("toggle comparison of configurations"));
  });
  compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
  run->addAction(tr("Compare with the &sound improvements"), this, [this] {
    SessionState s = m_model.state();
    s.compareSound = !s.compareSound;
    m_model.edit(s, tr("toggle comparison with the sound improvements"));
  });
  run->addSeparator();
  const Preset presets[] = {Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4, Preset::Input,
                            Preset::None};
  int i = 0;
  for (Preset p : presets) {
    QAction* a = run->addAction(tr("Use %1").arg(edgeSetLabel(presetEdges(p))), this, [this, p] {
      // Off the whitened release too: e6 by noise on T, as the budget bar's edge list does.
      m_model.edit(withEdges(m_model.state(), presetEdges(p)), tr("choose %1").arg(edgeSetLabel(presetEdges(p))));
    });
    if (i < 4) a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    ++i;
  }

  // F5, Ctrl++ / Ctrl+−; the Inspector stays while it holds a lesson's text.
  QMenu* view = menuBar()->addMenu(tr("&View"));
  m_presentation = new PresentationMode(this, m_canvas, view, [this](QDockWidget* dock) {
    return dock == m_inspectorDock && !m_model.state().lessonText.isEmpty();
  });
  view->addSeparator();
  for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());

  QMenu* lessons = menuBar()->addMenu(tr("&Lessons"));
  for (const QString& name : lessonNames()) {
    QFile f(":/lessons/" + name + ".json");
    QString title = name;
    if (f.open(QIODevice::ReadOnly)) {
      const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
      title = o.value("lesson").toObject().value("title").toString(name);
    }
    lessons->addAction(title, this, [this, name] { loadLessonAsking(name); });
  }
  if (lessons->isEmpty()) lessons->addAction(tr("(no lessons compiled in)"))->setEnabled(false);
  m_lessons = new LessonController(&m_model, this);  // Reset lesson (Ctrl+Shift+L), Leave lesson
  connect(m_lessons, &LessonController::lessonShown, m_inspector, &InspectorPanel::showLesson);
  connect(m_lessons, &LessonController::lessonShown, m_inspectorDock, [this] {  // the lesson's text, in front
    m_inspectorDock->show();
    m_inspectorDock->raise();
  });
  // Each lesson starts on its own view: the session's ε sweep (not whatever preset was shown).
  connect(m_lessons, &LessonController::lessonShown, this, [this] {
    m_results->setCurrentWidget(m_results->experiments());
    m_results->experiments()->showSessionSweep();
  });
  lessons->addSeparator();
  lessons->addActions({m_lessons->resetAction(), m_lessons->leaveAction()});

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About"), this, [this] {
    QMessageBox::about(this, tr("About DP-LDA Explorer"),
                       tr("<b>DP-LDA Explorer</b><br>Differentially private spectral LDA: choose where noise "
                          "enters the computation graph and see what it costs in accuracy."));
  });
}

bool MainWindow::loadLessonAsking(const QString& name) {
  if (!m_unsaved->confirm(tr("load the lesson"))) return false;
  QString err;
  if (loadLesson(name, &err)) return true;
  QMessageBox::warning(this, tr("Lesson"), err);
  return false;
}

bool MainWindow::openSweepResults(const QString& path, QString* error) {
  QString err;
  if (!m_results->experiments()->openSweepFolder(path, &err)) {
    setStatus(err, true);
    if (error) *error = err;
    return false;
  }
  m_results->setCurrentWidget(m_results->experiments());
  setStatus(tr("Opened the sweep in %1: its figures are in the Sweeps tab (pin, export and Save… work as for a sweep run "
               "here)").arg(path));
  return true;
}

bool MainWindow::openSessionAsking(const QString& path) {
  if (!m_unsaved->confirm(tr("open another session"))) return false;
  QString err;
  if (openSession(path, &err)) return true;
  QMessageBox::warning(this, tr("Open session"), err);
  return false;
}

void MainWindow::addRecent(const QString& path) {
  rememberRecentSession(path, kMaxRecent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  const QStringList recent = recentSessions();
  for (const QString& p : recent) {
    m_recentMenu->addAction(QDir::toNativeSeparators(p), this, [this, p] { openSessionAsking(p); });
  }
  m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::updateTitle() {
  // "[*]" shows as "*" while the session has unsaved changes (UnsavedChangesGuard).
  setWindowTitle(tr("DP-LDA Explorer — %1[*]").arg(m_path.isEmpty() ? tr("untitled") : QFileInfo(m_path).fileName()));
}

}  // namespace dplda
