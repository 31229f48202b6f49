// The main window end to end (offscreen): canvas clicks drive the preset combo and the privacy
// indicator; runs go through the worker and fill every plot; cancel is prompt; superseded
// results never show; sessions round-trip; undo/redo; bad input is refused visibly; exports.
#include <QComboBox>
#include <QFileDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QImage>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "ui/graph/graph_canvas.h"
#include "ui/main_window.h"
#include "ui/panels/budget_bar.h"
#include "ui/panels/generator_panel.h"
#include "ui/panels/inspector_panel.h"
#include "ui/panels/results_panel.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/plots/topics_plot.h"
#include "ui/panels/experiment_view.h"
#include "ui/plots/series_plot.h"
#include "ui/worker/run_worker.h"
#include "core/common/random.h"
#include "core/corpus/text_import.h"
#include "core/pipeline/private_run.h"
#include "core/pipeline/spectral_pipeline.h"
#include "core/privacy/budget.h"

#include "small_session.h"

using namespace dplda;

namespace {
SessionState smallSession() { return test::smallSession(Preset::Config2); }

// Picks `folder` in Qt's own directory chooser (no native dialogs offscreen) and accepts it.
void chooseFolder(QFileDialog* chooser, const QString& folder) {
  chooser->setDirectory(folder);  // with nothing selected, a directory chooser returns where it is
  QMetaObject::invokeMethod(chooser, "accept");
}

void commitLine(QLineEdit* edit, const QString& text) {
  edit->setText(text);
  emit edit->editingFinished();
}

// The first row of the diagnostics table whose first column is `name` (-1 when none).
int diagnosticsRow(QTableWidget* t, const QString& name) {
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->item(r, 0) && t->item(r, 0)->text() == name) return r;
  return -1;
}
// The first row whose first column starts with `prefix` (section headers).
int diagnosticsRowStarting(QTableWidget* t, const QString& prefix) {
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->item(r, 0) && t->item(r, 0)->text().startsWith(prefix)) return r;
  return -1;
}
QString cell(QTableWidget* t, int row, int col) { return row >= 0 && t->item(row, col) ? t->item(row, col)->text() : QString(); }

// A plain-text corpus of d = 6 words whose exact M̂2 has σ_5 = σ_6 < 0: three one-word
// document types, and d, e, f mostly together (the three-word documents give M̂2 two negative
// directions that the few one-word documents do not offset). With k = 5 the non-private
// whitening is undefined; a noisy M2 (configuration 1) can still be whitened.
QString writeRankDeficientCorpus(const QTemporaryDir& dir) {
  const QString path = dir.filePath("rank_deficient.txt");
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  const std::pair<int, const char*> lines[] = {{30, "alpha alpha alpha"},   {30, "bravo bravo bravo"},
                                               {30, "charlie charlie charlie"}, {60, "delta echo foxtrot"},
                                               {9, "delta delta delta"},   {9, "echo echo echo"},
                                               {9, "foxtrot foxtrot foxtrot"}};
  for (const auto& [n, text] : lines)
    for (int i = 0; i < n; ++i) f.write(QByteArray(text) + "\n");
  return path;
}
}  // namespace

class TstMainWindow : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // recent files go to a test location
    QCoreApplication::setOrganizationName("dplda-test");
    QCoreApplication::setApplicationName("tst_main_window");
    initExplorerResources();
  }

  void canvasClicksUpdatePresetAndIndicator() {
    MainWindow w;
    w.setAutoRun(false);
    // A new window starts on configuration 1, which releases at the default corpus size.
    QCOMPARE(w.model()->state().edges, presetEdges(Preset::Config1));
    SessionState start;
    start.edges = presetEdges(Preset::Config2);
    w.model()->reset(start);
    QVERIFY(w.budgetBar()->presetText().startsWith("config 2"));
    QVERIFY(w.budgetBar()->indicatorText().contains("private"));
    QVERIFY(!w.budgetBar()->indicatorText().contains("NOT"));
    w.canvas()->toggleEdge(6);  // {e5}: W+ is noisy but T -> TD -> U is a leaking path
    QCOMPARE(w.model()->state().edges, EdgeSet(1u << 5));
    QVERIFY(w.budgetBar()->presetText().startsWith("custom"));
    QVERIFY(w.budgetBar()->indicatorText().contains("NOT private"));
    QVERIFY(w.results()->errorPlot()->isStale());
    w.canvas()->toggleEdge(7);  // {e5, e7} = configuration 3
    QVERIFY(w.budgetBar()->presetText().startsWith("config 3"));
    QVERIFY(!w.budgetBar()->indicatorText().contains("NOT"));
    QVERIFY2(w.budgetBar()->indicatorText().contains("heuristic bounds"), qPrintable(w.budgetBar()->indicatorText()));
    QVERIFY(!w.budgetBar()->indicatorText().contains("✔"));
    // The combo drives the canvas too.
    QComboBox* combo = w.budgetBar()->presetCombo();
    const int idx = combo->findData(static_cast<int>(Preset::Config4));
    combo->setCurrentIndex(idx);
    emit combo->activated(idx);
    QCOMPARE(w.canvas()->noisyEdges(), presetEdges(Preset::Config4));
    // Undo walks back through the clicks.
    w.model()->undoStack()->undo();
    QCOMPARE(w.canvas()->noisyEdges(), presetEdges(Preset::Config3));
    w.model()->undoStack()->undo();
    w.model()->undoStack()->undo();
    QCOMPARE(w.canvas()->noisyEdges(), presetEdges(Preset::Config2));
  }

  void runFillsPlots() {
    MainWindow w;
    w.setAutoRun(false);
    w.model()->reset(smallSession());
    QSignalSpy shown(&w, &MainWindow::runShown);
    w.runNow();
    const quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == id, 25000);
    QCOMPARE(w.shownRunId(), id);
    QCOMPARE(shown.count(), 1);
    ResultsPanel* r = w.results();
    QVERIFY(r->spectrumPlot()->hasData());
    QCOMPARE(r->spectrumPlot()->k(), 3);
    QVERIFY(r->spectrumPlot()->gap() > 0);
    QVERIFY(r->topicsPlot()->hasData());
    QCOMPARE(r->topicsPlot()->topicCount(), 3);
    // The session's sweep: error and release-rate figures of the session's configuration.
    ExperimentView* view = r->experiments();
    QCOMPARE(view->source(), QString("session"));
    QVERIFY(view->figureKeys().contains("error_l2"));
    QVERIFY(view->figureKeys().contains("release_rate"));
    QCOMPARE(view->currentFigureKey(), QString("error_l2"));
    QVERIFY(r->errorPlot()->hasBaseline());
    QVERIFY(!r->errorPlot()->isStale());
    QVERIFY(view->setCurrentFigure("release_rate"));
    auto* rate = qobject_cast<SeriesPlot*>(view->currentPlot());
    QVERIFY(rate && rate->seriesKeys() == QStringList{"2"});
    QVERIFY(view->setCurrentFigure("error_l2"));
    QVERIFY(view->shownUpdate()->run->finished);
    QCOMPARE(view->shownUpdate()->run->sweep->spec.trials, 2);
    QCOMPARE(view->shownUpdate()->run->sweep->spec.epsilons, (std::vector<double>{0.5, 5, 50}));
    // Config 2: Procedure 1 (σ_k) + W+ + T releases.
    QVERIFY(r->ledgerTable()->rowCount() >= 3);
    QVERIFY(r->diagnosticsTable()->rowCount() >= 3);
    QCOMPARE(w.canvas()->nodeState(Node::T), NodeState::UpToDate);
    QVERIFY(!w.canvas()->edgeCaption(6).isEmpty());
    QCOMPARE(r->historyList()->count(), 1);
    // The inspector explains a noisy edge with the ledger's numbers.
    w.canvas()->setSelectedEdge(6);
    QVERIFY(w.inspector()->plainText().contains("Sensitivity"));
    QVERIFY(w.inspector()->plainText().contains("σ ="));
    // Metadata carries the seeds.
    const QJsonObject meta = r->errorPlot()->metadata();
    QCOMPARE(meta.value("generator").toObject().value("seed").toString(), QString("5"));
    QCOMPARE(meta.value("privacy").toObject().value("noise_seed").toString(), QString("11"));
    // A parameter change veils the plots at once.
    SessionState s = w.model()->state();
    s.epsilon = 2.0;
    w.model()->edit(s, "change ε");
    QVERIFY(r->errorPlot()->isStale());
    QVERIFY(r->topicsPlot()->isStale());
    QCOMPARE(w.canvas()->nodeState(Node::OUT), NodeState::Stale);
  }

  void presetExperimentGrowsLivePinsAndSaves() {
    // A preset runs beside the session, arrives in snapshots while its points complete, can be
    // pinned (an undoable session edit drawn as dashed curves) and saved as a folder.
    MainWindow w;
    w.setAutoRun(false);
    ExperimentView* view = w.results()->experiments();
    QVERIFY(view->setSource("figure2-small-corpus"));
    view->setTrials(2);
    QSignalSpy updates(w.experimentRunner(), &RunController::experimentReady);
    view->requestRun();
    QTRY_VERIFY_WITH_TIMEOUT(view->shownUpdate() && view->shownUpdate()->run->finished, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(!view->isRunning(), 5000);
    // Snapshots before the end: the first has every point pending, later ones fill in.
    QVERIFY(updates.count() >= 2);
    auto first = updates.first().at(0).value<std::shared_ptr<const ExperimentUpdate>>();
    QVERIFY(!first->run->finished);
    QCOMPARE(first->pointsDone, 0);
    for (const SweepSummaryRow& row : first->run->sweep->summary) QCOMPARE(row.trials, 0);
    auto last = view->shownUpdate();
    QCOMPARE(last->pointsDone, last->pointsTotal);
    QCOMPARE(last->pointsTotal, 5 * 10);
    QVERIFY(last->commandLine.contains("--preset figure2-small-corpus"));
    const SweepResult& result = *last->run->sweep;
    for (const SweepSummaryRow& row : result.summary) QCOMPARE(row.trials, 2);
    QVERIFY(view->figureKeys().contains("error_l2"));
    QCOMPARE(view->currentFigureKey(), QString("error_l2"));
    const int curves = w.results()->errorPlot()->curveKeys().size();
    QVERIFY(curves >= 1);  // configuration 1 releases at N = 1e4

    // Pin: stored in the session, drawn dashed beside the live curves; undo unpins.
    QString err;
    QVERIFY2(view->pinShown(&err), qPrintable(err));
    QCOMPARE(w.model()->state().pinnedSweeps.size(), 1);
    QVERIFY(w.results()->errorPlot()->curveKeys().contains("pin-0-0"));
    QCOMPARE(w.results()->errorPlot()->curveKeys().size(), 2 * curves);
    // The pinned curves are the figure's own numbers.
    ErrorVsEpsilonPlot::CurveData live, pinned;
    QVERIFY(w.results()->errorPlot()->curveData("1", &live));
    QVERIFY(w.results()->errorPlot()->curveData("pin-0-0", &pinned));
    QCOMPARE(pinned.median, live.median);
    w.model()->undoStack()->undo();
    QCOMPARE(w.model()->state().pinnedSweeps.size(), 0);
    QVERIFY(!w.results()->errorPlot()->curveKeys().contains("pin-0-0"));
    // Redo pins it again; the Unpin button removes the selected pin.
    w.model()->undoStack()->redo();
    QCOMPARE(w.model()->state().pinnedSweeps.size(), 1);
    auto* pins = view->findChild<QListWidget*>();
    QVERIFY(pins && pins->count() == 1 && !pins->isHidden());
    pins->setCurrentRow(0);
    QPushButton* unpin = nullptr;
    for (QPushButton* b : view->findChildren<QPushButton*>())
      if (b->text() == "Unpin") unpin = b;
    QVERIFY(unpin && unpin->isEnabled());
    QTest::mouseClick(unpin, Qt::LeftButton);
    QCOMPARE(w.model()->state().pinnedSweeps.size(), 0);
    QVERIFY(pins->isHidden());
    QVERIFY(!w.results()->errorPlot()->curveKeys().contains("pin-0-0"));

    // Save writes the same folder as `dplda sweep`.
    QTemporaryDir dir;
    QVERIFY2(view->saveShown(dir.path(), &err), qPrintable(err));
    for (const char* f : {"results.csv", "summary.csv", "timings.csv", "report.md", "figures/error_l2.png",
                          "figures/error_l2.svg", "figures/error_l2.pdf", "figures/error_l2.csv",
                          "figures/release_rate.png"})
      QVERIFY2(QFileInfo(dir.filePath(f)).size() > 0, f);
    QFile report(dir.filePath("report.md"));
    QVERIFY(report.open(QIODevice::ReadOnly));
    QVERIFY(report.readAll().contains("--preset figure2-small-corpus"));
    QFile summary(dir.filePath("summary.csv"));
    QVERIFY(summary.open(QIODevice::ReadOnly));
    QCOMPARE(QString(summary.readAll()), QString::fromStdString(sweepSummaryCsv(result)));

    // The Save… button: a folder chooser, then, over an earlier experiment, a question first.
    QPushButton* save = nullptr;
    for (QPushButton* b : view->findChildren<QPushButton*>())
      if (b->text() == "Save…") save = b;
    QVERIFY(save && save->isEnabled());
    QTemporaryDir other;
    QTimer::singleShot(300, [&] {
      auto* chooser = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
      QVERIFY(chooser);
      chooseFolder(chooser, other.path());
    });
    QTest::mouseClick(save, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(other.filePath("report.md")).size() > 0, 20000);
    QFile mine(other.filePath("results.csv"));
    QVERIFY(mine.open(QIODevice::WriteOnly | QIODevice::Truncate));
    mine.write("the user's own table\n");
    mine.close();
    QTimer::singleShot(300, [&] {
      auto* chooser = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
      QVERIFY(chooser);
      QTimer::singleShot(300, [] {  // "already holds an experiment. Replace it?" → No
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        QVERIFY(box);
        box->button(QMessageBox::No)->click();
      });
      chooseFolder(chooser, other.path());
    });
    QTest::mouseClick(save, Qt::LeftButton);
    QVERIFY(mine.open(QIODevice::ReadOnly));
    QCOMPARE(mine.readAll(), QByteArray("the user's own table\n"));
  }

  void pinnedSessionSweepSurvivesABoundsChange() {
    // Lesson 9's flow: pin the session's sweep, switch the bound set; the new sweep is drawn with
    // the pinned one beside it, and the pinned numbers are those of the first sweep.
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = smallSession();
    s.edges = presetEdges(Preset::Config1);
    w.model()->reset(s);
    w.runNow();
    quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == id, 25000);
    ExperimentView* view = w.results()->experiments();
    ErrorVsEpsilonPlot::CurveData first;
    QVERIFY(w.results()->errorPlot()->curveData("1", &first));
    QString err;
    QVERIFY2(view->pinShown(&err), qPrintable(err));
    s = w.model()->state();  // now holds the pin
    s.bounds = BoundSet::Printed;
    w.model()->edit(s, "bounds as printed");
    w.runNow();
    id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == id, 25000);
    QCOMPARE(view->shownUpdate()->run->sweep->spec.bounds, BoundSet::Printed);
    ErrorVsEpsilonPlot::CurveData pinned, second;
    QVERIFY(w.results()->errorPlot()->curveData("pin-0-0", &pinned));
    QVERIFY(w.results()->errorPlot()->curveData("1", &second));
    QCOMPARE(pinned.median, first.median);
    QVERIFY(second.median != first.median);  // other bounds, other noise scales
    QVERIFY(w.model()->state().pinnedSweeps.at(0).toObject().value("label").toString().contains("sound"));
  }

  void presetExperimentCancels() {
    MainWindow w;
    w.setAutoRun(false);
    ExperimentView* view = w.results()->experiments();
    QVERIFY(view->setSource("figure2"));
    view->setTrials(1000);
    view->requestRun();
    QTRY_VERIFY_WITH_TIMEOUT(view->shownUpdate() && view->shownUpdate()->pointsTotal > 0, 30000);
    QVERIFY(view->isRunning());
    view->requestRun();  // the Run button reads Cancel while the preset runs
    QTRY_VERIFY_WITH_TIMEOUT(!view->isRunning(), 10000);
    QCOMPARE(view->shownUpdate()->status.code(), StatusCode::Cancelled);
    QString err;
    QVERIFY(!view->pinShown(&err));  // nothing finished to pin
    QVERIFY(err.contains("finished"));
    QVERIFY(!view->saveShown(QDir::tempPath(), &err));
  }

  void cancelStopsPromptly() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState big = smallSession();
    big.generator.docCount = 200000;
    big.generator.meanLength = 100;
    w.model()->reset(big);
    w.setAutoRun(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.runNow();
    const quint64 bigId = w.runner()->currentId();
    QVERIFY(w.runner()->isBusy());
    QTest::qWait(150);
    QElapsedTimer t;
    t.start();
    QTest::keyClick(&w, Qt::Key_Escape);  // Esc cancels
    QVERIFY(!w.runner()->isBusy());
    QVERIFY(w.statusText().contains("Cancelled"));
    // The window stays usable: a small run right after finishes and shows its results.
    w.model()->reset(smallSession());
    w.setAutoRun(false);
    w.runNow();
    const quint64 smallId = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownRunId() == smallId, 15000);
    QVERIFY2(t.elapsed() < 10000, "the cancelled generation kept the worker busy");
    QVERIFY(w.shownRunId() != bigId);
  }

  void cancelledSessionSweepSaysSo() {
    // Esc during the session's sweep: the Sweeps tab keeps the points done and says "cancelled"
    // instead of "running" forever.
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = smallSession();
    s.comparePresets = true;
    s.trials = 50;
    s.sweepEpsilons = "0.1:100:50";
    w.model()->reset(s);
    w.runNow();
    ExperimentView* view = w.results()->experiments();
    QTRY_VERIFY_WITH_TIMEOUT(view->shownUpdate() && view->shownUpdate()->pointsTotal > 0, 20000);
    QVERIFY(!view->shownUpdate()->run->finished);
    w.cancelRun();
    QCOMPARE(view->shownUpdate()->status.code(), StatusCode::Cancelled);
    QString err;
    QVERIFY(!view->pinShown(&err));
  }

  void supersededResultIsNeverShown() {
    MainWindow w;
    w.setAutoRun(false);
    w.model()->reset(smallSession());
    w.setAutoRun(false);
    QSignalSpy shown(&w, &MainWindow::runShown);
    QSignalSpy sweeps(&w, &MainWindow::sweepShown);
    const quint64 a = w.runner()->start(w.model()->state(), true);
    SessionState sb = smallSession();
    sb.edges = presetEdges(Preset::Config4);
    w.model()->reset(sb);
    w.setAutoRun(false);
    const quint64 b = w.runner()->start(w.model()->state(), true);
    QVERIFY(b != a);
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == b, 25000);
    for (const auto& args : shown) QCOMPARE(args.at(0).toULongLong(), b);
    for (const auto& args : sweeps) QCOMPARE(args.at(0).toULongLong(), b);
    QCOMPARE(w.results()->historyList()->count(), 1);
  }

  void sessionRoundTripThroughWindow() {
    QTemporaryDir dir;
    const QString path = dir.filePath("session.json");
    SessionState s = smallSession();
    s.edges = (1u << 2) | (1u << 3) | (1u << 8);  // custom
    s.epsilon = 0.7;
    s.delta = 1e-6;
    s.mechanism = Mechanism::Laplace;
    s.bounds = BoundSet::Printed;
    s.shareReleases = true;
    s.generator.prior = GeneratorParams::Prior::Symmetric;
    s.generator.beta = 0.25;
    s.generator.fixedLength = true;
    s.initSeed = 99;
    s.comparePresets = true;
    {
      MainWindow w;
      w.setAutoRun(false);
      w.model()->reset(s);
      w.setAutoRun(false);
      QString err;
      QVERIFY2(w.saveSession(path, &err), qPrintable(err));
    }
    MainWindow w2;
    w2.setAutoRun(false);
    QString err;
    QVERIFY2(w2.openSession(path, &err), qPrintable(err));
    w2.setAutoRun(false);
    QVERIFY(w2.model()->state() == s);
    QCOMPARE(w2.canvas()->noisyEdges(), s.edges);
    QCOMPARE(w2.budgetBar()->epsilonEdit()->text(), QString("0.7"));
    QCOMPARE(w2.budgetBar()->noiseSeedEdit()->text(), QString("11"));
    QVERIFY(w2.budgetBar()->presetText().startsWith("custom"));
    QCOMPARE(qobject_cast<QSpinBox*>(w2.generatorPanel()->field("docs"))->value(), 3000);
    QCOMPARE(w2.model()->undoStack()->count(), 0);
  }

  void undoRedoOfTypedEpsilon() {
    MainWindow w;
    w.setAutoRun(false);
    commitLine(w.budgetBar()->epsilonEdit(), "0.5");
    QCOMPARE(w.model()->state().epsilon, 0.5);
    QCOMPARE(w.budgetBar()->epsilonSlider()->value(), BudgetBar::sliderPosition(0.5));
    w.model()->undoStack()->undo();
    QCOMPARE(w.model()->state().epsilon, 1.0);
    QCOMPARE(w.budgetBar()->epsilonEdit()->text(), QString("1"));
    w.model()->undoStack()->redo();
    QCOMPARE(w.model()->state().epsilon, 0.5);
    // The slider moves on a log scale.
    w.budgetBar()->epsilonSlider()->setValue(BudgetBar::sliderPosition(10.0));
    QCOMPARE(w.model()->state().epsilon, 10.0);
    QCOMPARE(BudgetBar::sliderEpsilon(0), 0.01);
    QCOMPARE(BudgetBar::sliderEpsilon(400), 100.0);
  }

  void badInputIsShownAndSessionKept() {
    MainWindow w;
    w.setAutoRun(false);
    const SessionState before = w.model()->state();
    BudgetBar* bar = w.budgetBar();
    commitLine(bar->epsilonEdit(), "abc");
    QVERIFY(bar->errorText().contains("ε"));
    commitLine(bar->epsilonEdit(), "0");
    QVERIFY2(bar->errorText().contains("total ε must be") && bar->errorText().contains("got 0"), qPrintable(bar->errorText()));
    commitLine(bar->epsilonEdit(), "1");
    commitLine(bar->deltaEdit(), "2");
    QVERIFY(bar->errorText().contains("δ"));
    commitLine(bar->deltaEdit(), "1e-5");
    QVERIFY(bar->errorText().isEmpty());
    commitLine(bar->noiseSeedEdit(), "seven");
    QVERIFY(bar->errorText().contains("noise seed"));
    commitLine(bar->noiseSeedEdit(), "");
    GeneratorPanel* gen = w.generatorPanel();
    qobject_cast<QSpinBox*>(gen->field("topics"))->setValue(60);  // k > d = 50
    QVERIFY(gen->fieldError("topics").contains("k ≤ d"));
    commitLine(qobject_cast<QLineEdit*>(gen->field("seed")), "12x");
    QVERIFY(gen->fieldError("seed").contains("12x"));
    commitLine(qobject_cast<QLineEdit*>(gen->field("sweep_epsilons")), "0.1:nan:3");
    QVERIFY2(gen->fieldError("sweep_epsilons").contains("nan"), qPrintable(gen->fieldError("sweep_epsilons")));
    QVERIFY(w.model()->state() == before);
    // An unreadable corpus: the run fails with a message next to the folder field.
    SessionState s = before;
    s.source = SessionState::Source::Uci;
    s.corpusPath = QDir::temp().filePath("dplda-no-such-corpus-folder");
    w.model()->edit(s, "load corpus");
    w.setAutoRun(false);
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(!w.generatorPanel()->fieldError("corpus").isEmpty(), 10000);
    QVERIFY(w.generatorPanel()->fieldError("corpus").contains("dplda-no-such-corpus-folder"));
    QCOMPARE(w.canvas()->nodeState(Node::D), NodeState::Failed);
    QVERIFY(w.model()->state() == s);
    // A broken session file is refused and changes nothing.
    QTemporaryDir dir;
    QFile f(dir.filePath("bad.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"generator": {"topics": "five"}})");
    f.close();
    QString err;
    QVERIFY(!w.openSession(f.fileName(), &err));
    QVERIFY(err.contains("generator.topics"));
    QVERIFY(w.model()->state() == s);
  }

  void exportsWriteValidFiles() {
    MainWindow w;
    w.setAutoRun(false);
    w.model()->reset(smallSession());
    w.setAutoRun(false);
    w.runNow();
    const quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == id, 25000);
    QTemporaryDir dir;
    for (int tab : {0, 1, 2}) {
      w.results()->setCurrentIndex(tab);
      for (const char* ext : {"png", "svg", "pdf", "csv"}) {
        const QString path = dir.filePath(QString("plot%1.%2").arg(tab).arg(ext));
        QString err;
        QVERIFY2(w.exportCurrentPlot(path, &err), qPrintable(err));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray head = f.read(8);
        if (QString(ext) == "png") QVERIFY(!QImage(path).isNull());
        if (QString(ext) == "pdf") QVERIFY(head.startsWith("%PDF"));
        if (QString(ext) == "svg") QVERIFY(f.readAll().contains("<svg"));
        if (QString(ext) == "csv") QVERIFY(head.size() > 0);
        QVERIFY(QFile::exists(path + ".json"));
      }
    }
    w.results()->setCurrentIndex(3);  // the ledger has no plot
    QString err;
    QVERIFY(!w.exportCurrentPlot(dir.filePath("x.png"), &err));
    QVERIFY(!err.isEmpty());
    w.results()->setCurrentIndex(0);
    QVERIFY(!w.exportCurrentPlot(dir.filePath("x.bmp"), &err));
    QVERIFY(err.contains("bmp"));
  }

  void lessonsLoad() {
    const QStringList names = MainWindow::lessonNames();
    QVERIFY2(names.size() >= 8, qPrintable(names.join(",")));
    MainWindow w;
    w.setAutoRun(false);
    QString err;
    QVERIFY2(w.loadLesson("03_config2", &err), qPrintable(err));
    w.setAutoRun(false);
    QCOMPARE(w.model()->state().edges, presetEdges(Preset::Config2));
    QVERIFY(w.model()->state().lessonTitle.contains("Configuration 2"));
    QVERIFY(w.inspector()->plainText().contains("Procedure 1"));
    for (const QString& n : names) QVERIFY2(w.loadLesson(n, &err), qPrintable(n + ": " + err));
    w.setAutoRun(false);
    QVERIFY(!w.loadLesson("no_such_lesson", &err));
  }

  // A plain-text corpus (two word groups, one document per line, d = 30, k = 2) imports in the
  // worker and runs through to topics, ledger and sweep; a missing file is reported at the path.
  void plainTextCorpusRuns() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QStringList groups[2] = {
        {"apple", "banana", "cherry", "grape", "lemon", "mango", "melon", "peach", "pear", "plum", "berry", "fig",
         "kiwi", "lime", "date"},
        {"engine", "wheel", "brake", "motor", "gear", "piston", "clutch", "valve", "axle", "pedal", "tyre", "bolt",
         "chassis", "pump", "spark"}};
    QFile f(dir.filePath("docs.txt"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    std::uint64_t x = 12345;  // a tiny LCG: fixed text, no dependence on std distributions
    auto next = [&x](int n) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<int>((x >> 33) % static_cast<std::uint64_t>(n));
    };
    const int lines = 300;
    for (int d = 0; d < lines; ++d) {
      const int main = d % 2;
      QStringList words;
      for (int j = 0; j < 12; ++j) words << groups[next(10) < 8 ? main : 1 - main][next(15)];
      f.write((words.join(' ') + "\n").toUtf8());
    }
    f.close();

    MainWindow w;
    w.setAutoRun(false);
    SessionState s = smallSession();
    s.source = SessionState::Source::Text;
    s.corpusPath = f.fileName();
    s.vocabularyFile = test::writeWordList(f.fileName(), f.fileName() + ".vocab");
    QVERIFY(!s.vocabularyFile.isEmpty());
    s.generator.vocabSize = 30;
    s.generator.topicCount = 2;
    s.generator.alpha0 = 1.0;
    s.trials = 1;
    w.model()->reset(s);
    QComboBox* source = qobject_cast<QComboBox*>(w.generatorPanel()->field("source"));
    QVERIFY(source);
    QCOMPARE(source->currentData().toString(), QString("text"));
    QVERIFY(w.generatorPanel()->field("separator")->isEnabled());
    QVERIFY(w.generatorPanel()->field("vocab")->isEnabled());
    QVERIFY(!w.generatorPanel()->field("docs")->isEnabled());
    QVERIFY(w.generatorPanel()->field("vocab")->toolTip().contains("d most frequent"));

    QSignalSpy ready(w.runner(), &RunController::runReady);
    w.runNow();
    const quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == id, 25000);
    QCOMPARE(w.shownRunId(), id);
    QVERIFY(!ready.isEmpty());
    auto o = ready.last().at(0).value<std::shared_ptr<const RunOutcome>>();
    QVERIFY2(o->status.isOk(), o->status.message().c_str());
    QCOMPARE(o->docCount, lines);
    QCOMPARE(o->vocabSize, 30);
    QVERIFY(o->words.contains("apple") && o->words.contains("engine"));
    QVERIFY(!o->truth);
    ResultsPanel* r = w.results();
    QVERIFY(r->topicsPlot()->hasData());
    QCOMPARE(r->topicsPlot()->topicCount(), 2);
    QVERIFY(r->ledgerTable()->rowCount() >= 3);
    // No truth: the sweep measures utility loss only, and its release rate.
    QCOMPARE(r->experiments()->figureKeys(), (QStringList{"utility_loss_l2", "release_rate"}));
    QVERIFY(r->experiments()->setCurrentFigure("release_rate"));
    QVERIFY(r->experiments()->currentPlot()->hasData());

    // A missing file: the worker's error shows next to the path field.
    s.corpusPath = dir.filePath("no-such-text.txt");
    w.model()->edit(s, "load corpus");
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(!w.generatorPanel()->fieldError("corpus").isEmpty(), 10000);
    QVERIFY(w.generatorPanel()->fieldError("corpus").contains("no-such-text.txt"));
    QVERIFY(w.statusText().contains("no-such-text.txt"));
    QCOMPARE(w.canvas()->nodeState(Node::D), NodeState::Failed);
  }

  // The banner and the indicator come from the privacy statement of the session's edges,
  // bounds, ε, δ and N: "✓ Private" only for a proven cut, cautions for δ ≥ 1/N and a huge ε.
  void privacyStatementFollowsTheSession() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = smallSession();  // N = 3000 in the corpus panel
    s.edges = presetEdges(Preset::Config1);
    w.model()->reset(s);
    QVERIFY(w.canvas()->bannerText().startsWith("✓ Private"));
    QVERIFY(w.canvas()->cautionText().isEmpty());
    QVERIFY(w.budgetBar()->indicatorText().contains("✔ private"));
    // N of the fit: the training part, 3000 − round(0.1 · 3000) with the default held-out split.
    QCOMPARE(w.canvas()->statementInputs().docCount, 2700);

    commitLine(w.budgetBar()->deltaEdit(), "0.5");
    QCOMPARE(w.model()->state().delta, 0.5);
    QVERIFY2(w.canvas()->cautionText().contains("δ = 0.5 ≥ 1/N"), qPrintable(w.canvas()->cautionText()));
    QVERIFY(w.budgetBar()->indicatorText().contains("1 caution"));
    QVERIFY(w.budgetBar()->indicatorToolTip().contains("1/N"));
    // N comes from the corpus panel: δ = 0.005 is below 1/100 but not below 1/3000.
    commitLine(w.budgetBar()->deltaEdit(), "0.005");
    QVERIFY(w.canvas()->cautionText().contains("1/N"));
    qobject_cast<QSpinBox*>(w.generatorPanel()->field("docs"))->setValue(100);
    QCOMPARE(w.model()->state().generator.docCount, 100);
    QVERIFY2(w.canvas()->cautionText().isEmpty(), qPrintable(w.canvas()->cautionText()));

    commitLine(w.budgetBar()->epsilonEdit(), "1e9");
    QCOMPARE(w.model()->state().epsilon, 1e9);
    QVERIFY2(w.canvas()->cautionText().contains(QString::fromUtf8("ε = 1×10⁹")), qPrintable(w.canvas()->cautionText()));
    QVERIFY(w.budgetBar()->indicatorText().contains("1 caution"));
    commitLine(w.budgetBar()->epsilonEdit(), "1");

    // The printed bounds: a cut, never "private".
    s = w.model()->state();
    s.bounds = BoundSet::Printed;
    w.model()->edit(s, "bounds as printed");
    QVERIFY2(w.canvas()->bannerText().startsWith("⚠ Cut, printed bounds"), qPrintable(w.canvas()->bannerText()));
    QVERIFY(!w.canvas()->bannerText().contains("✓"));
    QVERIFY(w.budgetBar()->indicatorText().contains("printed bounds"));
    QVERIFY(!w.budgetBar()->indicatorText().contains("✔"));

    // {e0, e6}: a cut that no proven bound covers.
    s.bounds = BoundSet::Sound;
    w.model()->edit(s, "sound bounds");
    w.canvas()->setNoisyEdges((1u << 0) | (1u << 6));
    QCOMPARE(w.model()->state().edges, EdgeSet((1u << 0) | (1u << 6)));
    QVERIFY2(w.canvas()->bannerText().contains("not covered by a proven bound: T"),
             qPrintable(w.canvas()->bannerText()));
    QVERIFY(w.budgetBar()->indicatorText().contains("not covered"));
  }

  // The private run comes first and does not depend on the exact pipeline: on a corpus whose
  // exact σ_k(M̂2) is negative, configuration 1 still releases, and the failed non-private model
  // is a labelled diagnostic, not the run's failure.
  void exactFailureStillShowsThePrivateRelease() {
    QTemporaryDir dir;
    const QString path = writeRankDeficientCorpus(dir);
    QVERIFY(!path.isEmpty());
    // What core says about this corpus: the exact pipeline fails…
    const QString list = test::writeWordList(path, dir.filePath("vocab-list.txt"));
    QVERIFY(!list.isEmpty());
    TextImportParams params;
    params.input = path.toStdString();
    params.vocabularyRule = VocabularyRule::PublicFile;
    params.vocabularyFile = list.toStdString();
    auto imported = importText(params);
    QVERIFY(imported.ok());
    auto corpus = std::make_shared<const Corpus>(std::move(imported).value());
    QCOMPARE(corpus->vocabSize(), 6);
    SpectralOptions so;
    so.topicCount = 5;
    so.alpha0 = 1.0;
    SpectralPipeline exact;
    exact.setCorpus(corpus);
    exact.setOptions(so);
    auto model = exact.run();
    QVERIFY(!model.ok());
    QVERIFY2(model.status().message().find("sigma_k") != std::string::npos, model.status().message().c_str());
    auto eigen = exact.runThrough(PipelineStage::Eigen);
    QVERIFY(eigen.ok() && eigen->eigen.values[4] < 0);
    // …and a noise seed with which configuration 1 (the session's options) releases anyway.
    PrivacyOptions po;
    po.edges = presetEdges(Preset::Config1);
    po.epsilon = 10;
    po.delta = 0.01;
    std::optional<std::uint64_t> seed;
    for (std::uint64_t candidate = 1; candidate <= 60 && !seed; ++candidate) {
      SpectralPipeline p;
      p.setCorpus(corpus);
      p.setOptions(so);
      SeededRandom noise(candidate);
      auto r = runPrivate(p, po, noise);
      QVERIFY(r.ok());
      if (r->released) seed = candidate;
    }
    QVERIFY2(seed, "no noise seed in 1..60 releases configuration 1 on this corpus");

    MainWindow w;
    w.setAutoRun(false);
    SessionState s;
    s.source = SessionState::Source::Text;
    s.corpusPath = path;
    s.vocabularyFile = list;
    s.generator.vocabSize = 6;
    s.generator.topicCount = 5;
    s.generator.alpha0 = 1.0;
    s.edges = po.edges;
    s.epsilon = po.epsilon;
    s.delta = po.delta;  // ≥ 1/N once the corpus is loaded (N = 177)
    s.noiseSeed = *seed;
    s.holdout = 0;  // the seed search above ran on the whole corpus
    s.trials = 1;
    s.sweepEpsilons = "10";
    w.model()->reset(s);
    QCOMPARE(w.canvas()->statementInputs().docCount, 0);  // a text corpus: N unknown before loading
    QVERIFY(w.canvas()->cautionText().isEmpty());
    QSignalSpy ready(w.runner(), &RunController::runReady);
    w.runNow();
    const quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == id, 25000);
    QCOMPARE(w.shownRunId(), id);
    auto o = ready.last().at(0).value<std::shared_ptr<const RunOutcome>>();
    QVERIFY2(o->status.isOk(), o->status.message().c_str());
    QVERIFY(o->priv && o->priv->released && o->priv->output);
    QVERIFY(!o->hasNonPrivate);
    QVERIFY2(o->nonPrivateFailure.contains("sigma_k"), qPrintable(o->nonPrivateFailure));
    QVERIFY(o->utilityLoss == std::nullopt && o->baselineError == std::nullopt);
    QCOMPARE(o->eigenvalues.size(), 6);  // the exact spectrum still shows, for teaching

    // The private output is shown; the run is not a failure.
    ResultsPanel* r = w.results();
    QVERIFY(r->topicsPlot()->hasData());
    QCOMPARE(r->topicsPlot()->topicCount(), 5);
    QCOMPARE(r->topicsPlot()->title(), QString("private spectral topic — no truth for this corpus"));
    QCOMPARE(w.canvas()->nodeState(Node::OUT), NodeState::UpToDate);
    QVERIFY2(!w.statusText().contains("failed"), qPrintable(w.statusText()));
    QVERIFY2(w.statusText().contains("non-private model not computed"), qPrintable(w.statusText()));
    QVERIFY(r->spectrumPlot()->hasData());
    // The failure is a labelled non-private diagnostic.
    QTableWidget* t = r->diagnosticsTable();
    const int row = diagnosticsRow(t, "non-private model");
    QVERIFY(row >= 0);
    QCOMPARE(cell(t, row, 1), QString("not computed"));
    QVERIFY(cell(t, row, 2).startsWith("non-private (teaching): "));
    QVERIFY(cell(t, row, 2).contains("sigma_k"));
    QVERIFY(row > diagnosticsRowStarting(t, "Non-private (teaching)"));
    QCOMPARE(diagnosticsRow(t, "γ_s"), -1);  // nothing exact past the failure
    emit w.canvas()->nodeSelected(Node::M2);
    QVERIFY(w.inspector()->plainText().contains("non-private model: whitening is undefined"));
    // N is now the loaded corpus's: δ = 0.01 ≥ 1/177.
    QCOMPARE(w.canvas()->statementInputs().docCount, 177);
    QVERIFY2(w.canvas()->cautionText().contains("1/N"), qPrintable(w.canvas()->cautionText()));
  }

  // Released values and the exact statistics of the corpus sit in separate, labelled parts of
  // the diagnostics table and of the inspector.
  void diagnosticsKeepReleasedApartFromTeaching() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = smallSession();  // configuration 2, sound bounds: σ̃_k and g̃ are released
    s.generator.docCount = 10000;      // with ε = 10, Procedure 1's bounds clear Δ2 and 2Δ2
    s.epsilon = 10;
    w.model()->reset(s);
    QSignalSpy ready(w.runner(), &RunController::runReady);
    w.runNow();
    const quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownRunId() == id, 20000);
    auto o = ready.last().at(0).value<std::shared_ptr<const RunOutcome>>();
    QVERIFY(o->priv && o->hasNonPrivate);
    QVERIFY2(o->priv->released, o->priv->status.message().c_str());
    QVERIFY(o->priv->diagnostics.gapTilde);
    QTableWidget* t = w.results()->diagnosticsTable();
    const int released = diagnosticsRowStarting(t, "Released (private)");
    const int teaching = diagnosticsRowStarting(t, "Non-private (teaching)");
    QVERIFY(released == 0 && teaching > released);
    QCOMPARE(t->columnSpan(teaching, 0), 3);
    QCOMPARE(cell(t, diagnosticsRow(t, "privacy claim"), 1), QString("proven"));
    for (const QString& name : {QString("σ̃_k"), QString("g̃ (eigengap~)")}) {
      const int r = diagnosticsRow(t, name);
      QVERIFY2(r > released && r < teaching, qPrintable(name));
    }
    QCOMPARE(cell(t, diagnosticsRow(t, "g̃ (eigengap~)"), 1), QString::number(*o->priv->diagnostics.gapTilde, 'g', 4));
    for (const QString& name : {QString("σ_k(M̂₂)"), QString("γ_s"), QString("decomposition of T̂"),
                                QString("eigengap g"), QString("utility loss"), QString("non-private error")}) {
      const int r = diagnosticsRow(t, name);
      QVERIFY2(r > teaching, qPrintable(name));
      QVERIFY2(cell(t, r, 2).startsWith("non-private (teaching): "), qPrintable(name));
    }
    // The exact decomposition says whether it converged, with its method and residual.
    const int td = diagnosticsRow(t, "decomposition of T̂");
    QCOMPARE(cell(t, td, 1), o->decomposition.converged() ? QString("converged") : QString("%1 of %2 components did not converge")
                                                                                      .arg(o->decomposition.unconverged)
                                                                                      .arg(o->decomposition.lambda.size()));
    QVERIFY(cell(t, td, 2).contains(QString::fromStdString(o->decomposition.method)));
    QVERIFY(cell(t, td, 2).contains("worst residual"));
    // Every row after the teaching header is labelled so, up to the held-out evaluation's section.
    const int heldOut = diagnosticsRowStarting(t, "Held-out evaluation");
    QVERIFY(heldOut > teaching);
    for (int r = teaching + 1; r < heldOut; ++r)
      QVERIFY2(cell(t, r, 2).startsWith("non-private (teaching): "), qPrintable(cell(t, r, 0)));
    QVERIFY(w.results()->spectrumPlot()->title().contains("non-private (teaching)"));
    // The inspector: released first, the exact spectrum in a teaching paragraph.
    emit w.canvas()->nodeSelected(Node::M2);
    const QString text = w.inspector()->plainText();
    QVERIFY2(text.contains("Released (private)") && text.contains("g̃ = "), qPrintable(text));
    QVERIFY(text.contains("Non-private (teaching)"));
    QVERIFY(text.indexOf("σ̃_k") < text.indexOf("Non-private (teaching)"));
    QVERIFY(text.indexOf("σ₁…σ_{k+1} of M̂₂") > text.indexOf("Non-private (teaching)"));
    emit w.canvas()->nodeSelected(Node::TD);
    QVERIFY(w.inspector()->plainText().contains("Non-private (teaching)"));
    QVERIFY(w.inspector()->plainText().contains("γ_s = "));
  }

  // A run under the printed bounds carries its claim, not a bare "released", into the history
  // (saved with pinned runs) and the metadata written next to exported plots.
  void printedBoundsRunCarriesItsClaim() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = smallSession();
    s.edges = presetEdges(Preset::Config1);
    s.bounds = BoundSet::Printed;
    w.model()->reset(s);
    QSignalSpy ready(w.runner(), &RunController::runReady);
    w.runNow();
    const quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownRunId() == id, 20000);
    QListWidgetItem* item = w.results()->historyList()->item(0);
    QVERIFY(item);
    QCOMPARE(item->data(Qt::UserRole).toJsonObject().value("privacy_claim").toString(), QString("printed-bounds"));
    QVERIFY2(item->text().contains("[printed-bounds]"), qPrintable(item->text()));
    QCOMPARE(w.results()->spectrumPlot()->metadata().value("privacy_claim").toString(), QString("printed-bounds"));
    QVERIFY2(w.statusText().contains("printed-bounds"), qPrintable(w.statusText()));
    // The banner shows the run's own statement.
    auto o = ready.last().at(0).value<std::shared_ptr<const RunOutcome>>();
    QVERIFY(o->priv);
    QCOMPARE(w.canvas()->statement().claim, o->priv->statement.claim);
    QCOMPARE(w.canvas()->statement().summary, o->priv->statement.summary);
    QVERIFY(w.canvas()->bannerText().startsWith("⚠ Cut, printed bounds"));
    QTableWidget* t = w.results()->diagnosticsTable();
    QCOMPARE(cell(t, diagnosticsRow(t, "privacy claim"), 1), QString("printed-bounds"));
    QTRY_VERIFY_WITH_TIMEOUT(!w.runner()->isBusy(), 25000);
  }

  // Weights "1,2,...,n" over configuration 1's n releases give ε shares in that ratio; a wrong
  // count is an error naming the number of releases and leaves the window usable.
  void budgetSplitReachesTheLedger() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = smallSession();
    s.edges = presetEdges(Preset::Config1);
    s.epsilon = 1.2;
    s.shareReleases = false;  // e2 and e5 released apart: three releases
    w.model()->reset(s);
    const int n = static_cast<int>(planReleases(s.edges, false, s.bounds).size());
    QCOMPARE(n, 3);  // σ_k and two node releases; the split below is one weight per release
    BudgetBar* bar = w.budgetBar();
    commitLine(bar->splitEdit(), "1,x");
    QVERIFY(bar->errorText().contains("split"));
    QVERIFY(w.model()->state().splitWeights.empty());  // unchanged
    commitLine(bar->splitEdit(), "1,2,3");
    QVERIFY(bar->errorText().isEmpty());
    QCOMPARE(w.model()->state().splitWeights, (std::vector<double>{1, 2, 3}));

    QSignalSpy ready(w.runner(), &RunController::runReady);
    w.runNow();
    quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownRunId() == id, 20000);
    auto o = ready.last().at(0).value<std::shared_ptr<const RunOutcome>>();
    QVERIFY(o->priv);
    const std::vector<LedgerEntry>& ledger = o->priv->ledger;
    QCOMPARE(static_cast<int>(ledger.size()), 3);
    double sum = 0;
    for (int i = 0; i < 3; ++i) {
      QVERIFY(std::abs(ledger[i].epsilon - 1.2 * (i + 1) / 6.0) < 1e-12);
      sum += ledger[i].epsilon;
    }
    QVERIFY(std::abs(sum - 1.2) < 1e-12);
    QCOMPARE(w.results()->ledgerTable()->rowCount(), 3);
    QTRY_VERIFY_WITH_TIMEOUT(!w.runner()->isBusy(), 25000);

    // Two weights for three releases: the run reports it, nothing crashes.
    commitLine(bar->splitEdit(), "1,2");
    QCOMPARE(w.model()->state().splitWeights, (std::vector<double>{1, 2}));
    w.runNow();
    id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(!w.runner()->isBusy(), 20000);
    QVERIFY(w.shownRunId() != id);
    QVERIFY2(w.statusText().contains("2 weights") && w.statusText().contains("3 releases"),
             qPrintable(w.statusText()));
    QCOMPARE(w.canvas()->nodeState(Node::OUT), NodeState::Failed);
    // Still usable: back to uniform, the next run releases.
    commitLine(bar->splitEdit(), "uniform");
    QVERIFY(w.model()->state().splitWeights.empty());
    w.runNow();
    id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownRunId() == id, 20000);
    auto u = ready.last().at(0).value<std::shared_ptr<const RunOutcome>>();
    QVERIFY(u->priv && u->priv->released);
    QVERIFY(std::abs(u->priv->ledger[0].epsilon - 0.4) < 1e-12);
  }
};

QTEST_MAIN(TstMainWindow)
#include "tst_main_window.moc"
