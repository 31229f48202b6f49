#include "ui/main_window.h"

#include "ui/session/session_privacy.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QKeySequence>
#include <QLocale>
#include <QEvent>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>
#include <cmath>
#include <utility>

#include "ui/common/palette.h"
#include "ui/common/scroll_page.h"
#include "ui/graph/graph_canvas.h"
#include "ui/panels/audit_panel.h"
#include "ui/panels/budget_bar.h"
#include "ui/panels/generator_panel.h"
#include "ui/panels/inspector_panel.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/results_panel.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/session/session_privacy.h"
#include "ui/plots/plot_widget.h"
#include "ui/common/last_folder.h"
#include "ui/window/presentation_mode.h"
#include "ui/window/recent_sessions.h"
#include "ui/worker/released_vocabularies.h"
#include "ui/window/run_summary.h"
#include "ui/window/unsaved_changes_guard.h"
#include "ui/window/window_fit.h"

// Q_INIT_RESOURCE must be used outside any namespace; the resources live in the static dplda_ui.
static void initResourcesImpl() { Q_INIT_RESOURCE(resources); }

namespace dplda {

namespace {

// The status line shows one line elided to its width, the whole message in its tooltip: a long
// message was cut at 1280 px with no way to read its end. Re-elided when the bar resizes.
const char* kStatusText = "dpldaStatusText";
const char* kStatusColor = "dpldaStatusColor";

QString statusHtml(const QString& text, const QString& color) {
  return color.isEmpty() ? text.toHtmlEscaped() : QString("<span style='color:%1'>%2</span>").arg(color, text.toHtmlEscaped());
}

void showElidedStatus(QLabel* label) {
  const QString text = label->property(kStatusText).toString();
  const QString shown = label->fontMetrics().elidedText(text, Qt::ElideRight, std::max(1, label->width()));
  label->setText(statusHtml(shown, label->property(kStatusColor).toString()));
  label->setToolTip(shown == text ? QString() : text);
}

class StatusElider : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Resize) showElidedStatus(static_cast<QLabel*>(watched));
    return false;
  }
};

}  // namespace

void initExplorerResources() { initResourcesImpl(); }

namespace {

constexpr int kInspectorShownFrom = 1500;  // px of window width: narrower, the Inspector starts hidden

// Parameters that change the computation (everything but pins and lesson text).
bool sameRunInputs(SessionState a, SessionState b) {
  a.pinned = b.pinned;
  a.pinnedSweeps = b.pinnedSweeps;
  a.lessonTitle = b.lessonTitle;
  a.lessonText = b.lessonText;
  return a == b;
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("MainWindow");
  m_runner = new RunController(this);
  m_experiments = new RunController(this);
  m_canvas = new GraphCanvas;
  m_results = new ResultsPanel;
  auto* centre = new QSplitter(Qt::Vertical);
  centre->addWidget(m_canvas);
  centre->addWidget(m_results);
  centre->setStretchFactor(0, 2);
  centre->setStretchFactor(1, 3);  // the results get the larger share of a short screen
  centre->setChildrenCollapsible(false);
  setCentralWidget(centre);

  m_budget = new BudgetBar;
  auto* bar = addToolBar(tr("Budget"));
  bar->setObjectName("BudgetBar");
  bar->setMovable(false);
  bar->addWidget(m_budget);

  m_generator = new GeneratorPanel;
  // e6's release and the clipping bounds sit at the top of the side panel: the toolbar keeps its
  // two rows whatever the configuration (the graph under it never moves).
  m_generator->insertSection(m_budget->releaseOptions());
  QScrollArea* scroll = scrollPage(m_generator, true);
  scroll->setFrameShape(QFrame::StyledPanel);
  auto* left = new QDockWidget(tr("Corpus and model"), this);  // "&" would be a mnemonic in a tab
  left->setObjectName("GeneratorDock");
  left->setWidget(scroll);
  left->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::LeftDockWidgetArea, left);
  // Its preferred width, not more than a third of a 1280-px screen at its minimum (a scroll
  // bar appears below that); it was the panel's whole size hint and widened the window.
  scroll->setMinimumWidth(std::min(m_generator->sizeHint().width() + 24, 270));

  m_inspector = new InspectorPanel;
  auto* right = new QDockWidget(tr("Inspector"), this);
  right->setObjectName("InspectorDock");
  right->setWidget(m_inspector);
  right->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::RightDockWidgetArea, right);
  m_inspectorDock = right;

  m_status = new QLabel;
  m_status->setTextFormat(Qt::RichText);
  m_status->setMinimumWidth(1);  // elided to the bar's width; never widens the window
  m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_status->installEventFilter(new StatusElider(m_status));
  m_progress = new QProgressBar;
  m_progress->setRange(0, 1000);
  m_progress->setMaximumWidth(200);
  m_progress->setTextVisible(false);
  m_progress->hide();
  m_cancel = new QPushButton(tr("Cancel (Esc)"));
  m_cancel->hide();
  m_stage = new QLabel;
  m_stage->hide();
  statusBar()->addWidget(m_status, 1);
  statusBar()->addPermanentWidget(m_stage);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancel);

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(300);
  connect(&m_debounce, &QTimer::timeout, this, &MainWindow::runNow);

  connect(&m_model, &SessionModel::stateChanged, this, &MainWindow::onStateChanged);
  connect(m_generator, &GeneratorPanel::edited, this,
          [this](const SessionState& s, const QString& what) { m_model.edit(s, what); });
  connect(m_generator, &GeneratorPanel::loadCorpusRequested, this, [this] {
    const QString start = m_model.state().corpusPath.isEmpty() ? lastFolder("corpus") : m_model.state().corpusPath;
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Load UCI corpus folder"), start);
    if (dir.isEmpty()) return;
    rememberFolder("corpus", dir);
    SessionState s = m_model.state();
    s.source = SessionState::Source::Uci;
    s.corpusPath = dir;
    m_model.edit(s, tr("load corpus"));
  });
  connect(m_budget, &BudgetBar::edited, this,
          [this](const SessionState& s, const QString& what, int key) { m_model.edit(s, what, key); });
  connect(m_canvas, &GraphCanvas::noisyEdgesChanged, this, [this](EdgeSet edges) {
    if (edges == m_model.state().edges) return;
    SessionState s = m_model.state();
    s.edges = edges;
    m_model.edit(s, tr("toggle noise on an edge"));
  });
  // The Inspector appears on demand (see showEvent): a node or an edge chosen on the graph.
  connect(m_canvas, &GraphCanvas::edgeSelected, this, [this](int e) {
    if (e < 0) return;
    m_inspector->showEdge(e);
    m_inspectorDock->show();
  });
  connect(m_canvas, &GraphCanvas::nodeSelected, this, [this](Node n) {
    m_inspector->showNode(n);
    m_inspectorDock->show();
  });
  connect(m_results, &ResultsPanel::pinnedEdited, this, [this](const QJsonArray& pinned, const QString& what) {
    SessionState s = m_model.state();
    s.pinned = pinned;
    m_model.edit(s, what);
  });
  connect(m_results, &ResultsPanel::restoreRequested, this,
          [this](const SessionState& s, const QString& what) { m_model.edit(s, what); });

  connect(m_runner, &RunController::runReady, this, &MainWindow::onRunReady);
  connect(m_runner, &RunController::experimentReady, this, &MainWindow::onSessionSweep);
  ExperimentView* view = m_results->experiments();
  connect(view, &ExperimentView::runRequested, this, [this](const QString& preset, int trials) {
    if (preset == "session") runNow();
    else startExperiment(preset, trials);
  });
  connect(view, &ExperimentView::cancelRequested, m_experiments, &RunController::cancel);
  connect(view, &ExperimentView::message, this, [this](const QString& text, bool error) { setStatus(text, error); });
  connect(view, &ExperimentView::pinnedSweepsEdited, this, [this](const QJsonArray& pinned, const QString& what) {
    SessionState s = m_model.state();
    s.pinnedSweeps = pinned;
    m_model.edit(s, what);
  });
  connect(m_experiments, &RunController::experimentReady, view, &ExperimentView::showUpdate);
  connect(m_experiments, &RunController::busyChanged, view, &ExperimentView::setRunning);
  connect(m_experiments, &RunController::progressChanged, view,
          [view](quint64, double f, const QString&) { view->setProgress(f); });
  connect(m_experiments, &RunController::cancelled, view, [view](quint64) { view->markCancelled(); });
  // The status bar follows a preset experiment to its end: "started…" never outlives it.
  connect(m_experiments, &RunController::experimentReady, this, [this](std::shared_ptr<const ExperimentUpdate> u) {
    if (!u->status.isOk() && u->status.code() != StatusCode::Cancelled)
      setStatus(tr("Experiment %1 failed: %2").arg(u->source, QString::fromStdString(u->status.message())), true);
    else if (u->status.isOk() && u->run && u->run->finished)
      setStatus(tr("Experiment %1 finished (%2 points); its figures are in the Sweeps tab.")
                    .arg(u->source)
                    .arg(u->pointsTotal));
  });
  connect(m_experiments, &RunController::cancelled, this, [this](quint64) {
    setStatus(tr("Experiment %1 cancelled; the points completed before are shown.").arg(m_runningExperiment));
  });
  connect(m_runner, &RunController::progressChanged, this, [this](quint64, double f, const QString& stage) {
    m_progress->setValue(static_cast<int>(std::lround(f * 1000)));
    m_stage->setText(tr("%1 … %2%").arg(stage).arg(static_cast<int>(f * 100)));
  });
  connect(m_runner, &RunController::busyChanged, this, [this](bool busy) {
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_stage->setVisible(busy);
    if (busy) m_progress->setValue(0);
  });
  connect(m_runner, &RunController::cancelled, this, [this](quint64) {
    m_results->experiments()->markCancelled("session");
    for (int n = 0; n < kNodeCount; ++n)
      if (m_canvas->nodeState(static_cast<Node>(n)) == NodeState::Running) m_canvas->setNodeState(static_cast<Node>(n), NodeState::Stale);
    setStatus(tr("Cancelled. Results shown are stale; press Ctrl+R to run again."));
  });
  connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelRun);
  // Esc cancels whatever runs: the session's run and sweep, a preset experiment, or an audit.
  auto updateCancel = [this] {
    m_cancelAction->setEnabled(m_runner->isBusy() || m_experiments->isBusy() || m_results->audit()->isRunning());
  };
  for (RunController* r : {m_runner, m_experiments}) connect(r, &RunController::busyChanged, this, updateCancel);
  connect(m_results->audit(), &AuditPanel::runningChanged, this, updateCancel);
  // Invalid typed input never reaches the session: results of the last valid one are veiled.
  connect(m_budget, &BudgetBar::inputProblem, this, [this](const QString& m) { onInputProblem("budget", m); });
  connect(m_generator, &GeneratorPanel::inputProblem, this, [this](const QString& m) { onInputProblem("corpus", m); });

  buildActions();
  fitWindowToScreen(this, QSize(1500, 960));
  m_model.reset(firstSession());  // opens on what the tool found (session.h)
  updateTitle();
}

void MainWindow::onInputProblem(const QString& source, const QString& message) {
  if (message.isEmpty()) m_inputProblems.remove(source);
  else m_inputProblems.insert(source, message);
  if (!m_inputProblems.isEmpty()) {
    m_debounce.stop();
    m_results->setStale(true);
    m_canvas->setAllNodeStates(NodeState::Stale);
    setStatus(tr("Invalid input: %1. The results shown are of the last valid settings.")
                  .arg(m_inputProblems.first()), true);
  } else if (m_autoRun) {
    m_debounce.start();  // the fields are valid again: results for them
  } else {
    setStatus(tr("Input valid again; press Ctrl+R to run."));
  }
}

MainWindow::~MainWindow() { m_debounce.stop(); }

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (std::exchange(m_shownBefore, true)) return;
  // A narrow window (a 1280-px screen) gives the Inspector's width to the graph and the plots
  // until it has something to say: a lesson, or a node or edge chosen (View ▸ Inspector too).
  if (width() < kInspectorShownFrom && m_model.state().lessonText.isEmpty()) m_inspectorDock->hide();
  // There, too, the Inspector (a lesson's text) shares the left panel's place as a tab rather than
  // taking ~300 px more from the graph and the plots.
  if (width() < kInspectorShownFrom) {
    QDockWidget* corpus = findChild<QDockWidget*>("GeneratorDock");
    tabifyDockWidget(corpus, m_inspectorDock);
    resizeDocks({corpus}, {corpus->widget()->minimumWidth()}, Qt::Horizontal);  // the panel's width, not the Inspector's
    if (!m_model.state().lessonText.isEmpty()) m_inspectorDock->raise();
  }
}

QStringList MainWindow::lessonNames() { return dplda::lessonNames(); }

bool MainWindow::loadLesson(const QString& name, QString* error) {
  if (!m_lessons->load(name, error)) return false;  // ui/lessons/lesson_controller.h
  m_lessonPinFor.reset();
  if (lessonPinsFirstSweep(name)) m_lessonPinFor = m_model.state();
  m_path.clear();
  updateTitle();
  setStatus(tr("Lesson: %1").arg(m_model.state().lessonTitle));
  return true;
}

bool MainWindow::openSession(const QString& path, QString* error) {
  auto r = dplda::loadSession(path);
  if (!r.ok()) {
    const QString msg = QString::fromStdString(r.status().message());
    if (error) *error = msg;
    setStatus(msg, true);
    return false;
  }
  const QMap<QString, QString> problems = validateSession(r.value());
  if (!problems.isEmpty()) {
    const QString msg = tr("session '%1': %2").arg(path, problems.first());
    if (error) *error = msg;
    setStatus(msg, true);
    return false;
  }
  m_path = path;
  m_lessonPinFor.reset();
  m_model.reset(r.value());
  if (!r.value().lessonText.isEmpty()) {
    m_inspector->showLesson();
    m_inspectorDock->show();
  }
  addRecent(path);
  updateTitle();
  setStatus(tr("Opened %1").arg(QDir::toNativeSeparators(path)));
  return true;
}

bool MainWindow::saveSession(const QString& path, QString* error) {
  // The file carries the session's released vocabulary selection, if any: opened elsewhere, it is reused.
  const Status st = dplda::saveSession(withRecordedSelection(m_model.state()), path);
  if (!st.isOk()) {
    if (error) *error = QString::fromStdString(st.message());
    setStatus(QString::fromStdString(st.message()), true);
    return false;
  }
  m_path = path;
  m_model.undoStack()->setClean();
  addRecent(path);
  updateTitle();
  setStatus(tr("Saved %1").arg(QDir::toNativeSeparators(path)));
  return true;
}

bool MainWindow::exportCurrentPlot(const QString& path, QString* error) {
  QString err;
  const bool ok = m_results->exportCurrent(path, &err);
  if (!ok && error) *error = err;
  setStatus(ok ? tr("Exported %1").arg(path) : err, !ok);
  return ok;
}


QString MainWindow::statusText() const {
  return statusHtml(m_status->property(kStatusText).toString(), m_status->property(kStatusColor).toString());
}

void MainWindow::setStatus(const QString& text, bool error) {
  m_status->setProperty(kStatusText, text);
  m_status->setProperty(kStatusColor, error ? leakColor().name() : QString());
  showElidedStatus(m_status);
}

void MainWindow::onStateChanged(const SessionState& previous, const SessionState& s) {
  m_budget->setState(s);
  m_generator->setState(s);
  {
    QSignalBlocker block(m_canvas);  // the model already holds these edges
    m_canvas->setNoisyEdges(s.edges);
  }
  m_canvas->setModelNotice(graphNoticeFor(s));  // VI / DP-VI: the graph is not the model being run
  if (!sameRunInputs(previous, s)) {  // a shown run's statement no longer applies
    m_canvas->setRunStatement(std::nullopt);
    m_budget->setRunStatement(std::nullopt);
  }
  updatePrivacyStatement(s);
  m_inspector->setSession(s);
  m_results->setSession(s);
  if (previous.pinned != s.pinned) m_results->setPinned(s.pinned);
  if (previous.pinnedSweeps != s.pinnedSweeps) m_results->experiments()->setPinnedSweeps(s.pinnedSweeps);
  if (sameRunInputs(previous, s) && m_shownRun != 0) return;
  // Results of the old parameters are veiled at once and recomputed after a short pause.
  m_results->setStale(true);
  m_canvas->setAllNodeStates(NodeState::Stale);
  m_canvas->clearEdgeCaptions();
  if (m_autoRun) m_debounce.start();
}

void MainWindow::runNow() {
  m_debounce.stop();
  const SessionState& s = m_model.state();
  QMap<QString, QString> problems = validateSession(s);
  if (!m_inputProblems.isEmpty()) problems.insert("input", m_inputProblems.first());  // typed, not in the session
  if (!problems.isEmpty()) {
    setStatus(tr("Cannot run: %1").arg(problems.first()), true);
    return;
  }
  if (!s.isVariational()) m_canvas->setAllNodeStates(NodeState::Running);  // VI does not run the graph
  m_results->setStale(true);
  const quint64 id = m_runner->start(s, true);
  setStatus(tr("Run %1 started…").arg(id));
}

void MainWindow::cancelRun() {
  m_debounce.stop();
  m_runner->cancel();
  m_experiments->cancel();
  m_results->audit()->cancel();
}

int MainWindow::publicDocCount(const SessionState& s) const {
  // The fit sees the training part only: N public is its size.
  if (m_loadedDocCount > 0 && corpusKey(s) == m_loadedCorpusKey) return trainingDocCount(s, m_loadedDocCount);
  return s.source == SessionState::Source::Synthetic ? trainingDocCount(s, s.generator.docCount) : 0;
}

void MainWindow::updatePrivacyStatement(const SessionState& s) {
  const int n = publicDocCount(s);
  m_canvas->setStatementInputs(sessionStatementInputs(s, n));  // knows the whitened release before a run
  m_budget->setDocCount(n);
  m_results->errorPlot()->setMarkedEpsilon(s.epsilon);  // "this session" on the ε sweep
  m_budget->setSweepReading(m_results->experiments()->sessionReading(s));
}

QJsonObject MainWindow::plotMetadata(quint64 runId, const QString& noise, const QString& claim) const {
  QJsonObject meta = sessionToJson(m_model.state());
  meta.remove("pinned");
  meta.remove("lesson");
  meta.insert("run", static_cast<qint64>(runId));
  meta.insert("noise_source", noise);
  if (!claim.isEmpty()) meta.insert("privacy_claim", claim);
  meta.insert("program", "dplda-explorer");
  return meta;
}

void MainWindow::showSpectralOnCanvas(const RunOutcome& o) {
  // The run's statement may say more than its inputs (e.g. "not private as drawn").
  if (o.priv && sameRunInputs(o.session, m_model.state())) {
    m_canvas->setRunStatement(o.priv->statement);
    m_budget->setRunStatement(o.priv->statement);
  }
  m_canvas->setAllNodeStates(NodeState::UpToDate);
  m_canvas->clearEdgeCaptions();
  if (o.priv) {
    for (const LedgerEntry& e : o.priv->ledger) {
      for (int edge : e.edges) {
        const QString sigma = std::isfinite(e.sigma) && e.spent ? tr("σ %1").arg(QString::number(e.sigma, 'g', 2))
                                                                : tr("not released");
        m_canvas->setEdgeCaption(edge, QString("ε %1 · %2").arg(QString::number(e.epsilon, 'g', 2), sigma));
      }
    }
    if (!o.priv->released) m_canvas->setNodeState(Node::OUT, NodeState::Failed);
  }
}

void MainWindow::onRunReady(std::shared_ptr<const RunOutcome> o) {
  if (o->status.isOk() || o->failedStage != "corpus") {  // the corpus was loaded: N is known
    m_loadedCorpusKey = corpusKey(o->session);
    m_loadedDocCount = o->docCount;
    updatePrivacyStatement(m_model.state());
  }
  if (!o->status.isOk()) {
    const QString msg = QString::fromStdString(o->status.message());
    if (o->status.code() == StatusCode::Cancelled) return;
    if (o->failedStage == "corpus") {
      m_generator->setFieldError(o->session.source == SessionState::Source::Synthetic ? "docs" : "corpus", msg);
      m_canvas->setAllNodeStates(NodeState::Stale);
      m_canvas->setNodeState(Node::D, NodeState::Failed);
    } else if (o->failedStage == "holdout") {
      m_generator->setFieldError("holdout", msg);
    } else if (o->session.isVariational()) {
      m_generator->setFieldError("model", msg);
    } else {
      m_canvas->setAllNodeStates(NodeState::Stale);
      m_canvas->setNodeState(o->failedStage == "model" ? Node::M2 : Node::OUT, NodeState::Failed);
      if (o->failedStage == "model") m_generator->setFieldError("topics", msg);
    }
    setStatus(tr("Run %1 failed: %2").arg(o->id).arg(msg), true);
    return;
  }
  m_shownRun = o->id;
  if (!o->variational) showSpectralOnCanvas(*o);
  m_results->showOutcome(*o);
  m_results->setMetadata(plotMetadata(o->id, runNoiseSource(*o), runClaimName(*o)));
  m_inspector->setOutcome(o);
  m_shownOutcome = o;
  m_summary = runSummaryText(*o);
  m_summaryIsError = runSummaryIsError(*o);
  setStatus(m_summary, m_summaryIsError);
  emit runShown(o->id);
}

void MainWindow::startExperiment(const QString& preset, int trials) {
  const SessionState& s = m_model.state();
  ExperimentRequest request;
  request.preset = preset;
  request.trials = trials;
  // The budget bar's bound set applies to the error sweeps; the seed is the session's noise seed
  // when it has one, else 1 (the command line's default), so the figures can be reproduced.
  // (the tensor-method presets have no privacy bounds to choose)
  if (preset != "tpm-noise" && preset != "online-tpm" && preset != "dp-tpm") request.bounds = s.bounds;
  request.seed = s.noiseSeed.value_or(1);
  m_experiments->startExperiment(request);
  m_runningExperiment = preset;
  setStatus(tr("Experiment %1 started (%2 trials per point)…").arg(preset).arg(trials));
}

void MainWindow::onSessionSweep(std::shared_ptr<const ExperimentUpdate> u) {
  m_results->experiments()->showUpdate(u);
  m_budget->setSweepReading(m_results->experiments()->sessionReading(m_model.state()));
  const bool finished = u->run && u->run->finished;
  if (!finished && u->status.isOk()) return;  // a live snapshot
  if (!u->status.isOk()) {
    if (u->status.code() != StatusCode::Cancelled)
      setStatus(tr("ε sweep of run %1 failed: %2").arg(u->id).arg(QString::fromStdString(u->status.message())), true);
    return;
  }
  m_shownSweep = u->id;
  if (m_lessonPinFor && sameRunInputs(*m_lessonPinFor, m_model.state())) {
    // The lesson's starting curve, pinned as part of the lesson (no unsaved change by itself).
    m_lessonPinFor.reset();
    const bool clean = m_model.undoStack()->isClean();
    const int docs = publicDocCount(m_model.state());
    if (docs > 0) m_results->experiments()->pinSessionSweep(tr("N = %1 (lesson start)").arg(QLocale().toString(docs)));
    if (clean) m_model.undoStack()->setClean();
  }
  QString text = m_summary;
  text.replace(tr("; sweeping ε…"), tr("; ε sweep done."));
  if (m_shownOutcome) text += releaseHint(*m_shownOutcome, m_results->experiments()->sessionReading(m_shownOutcome->session));
  setStatus(text, m_summaryIsError);
  emit sweepShown(u->id);
}

}  // namespace dplda
