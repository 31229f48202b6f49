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
}  // namespace

class TstMainWindow : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::useTestSettings("tst_main_window");
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
    test::commitLine(w.budgetBar()->epsilonEdit(), "0.5");
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
    test::commitLine(bar->epsilonEdit(), "abc");
    QVERIFY(bar->errorText().contains("ε"));
    test::commitLine(bar->epsilonEdit(), "0");
    QVERIFY2(bar->errorText().contains("total ε must be") && bar->errorText().contains("got 0"), qPrintable(bar->errorText()));
    test::commitLine(bar->epsilonEdit(), "1");
    test::commitLine(bar->deltaEdit(), "2");
    QVERIFY(bar->errorText().contains("δ"));
    test::commitLine(bar->deltaEdit(), "1e-5");
    QVERIFY(bar->errorText().isEmpty());
    test::commitLine(bar->noiseSeedEdit(), "seven");
    QVERIFY(bar->errorText().contains("noise seed"));
    test::commitLine(bar->noiseSeedEdit(), "");
    GeneratorPanel* gen = w.generatorPanel();
    qobject_cast<QSpinBox*>(gen->field("topics"))->setValue(60);  // k > d = 50
    QVERIFY(gen->fieldError("topics").contains("k ≤ d"));
    test::commitLine(qobject_cast<QLineEdit*>(gen->field("seed")), "12x");
    QVERIFY(gen->fieldError("seed").contains("12x"));
    test::commitLine(qobject_cast<QLineEdit*>(gen->field("sweep_epsilons")), "0.1:nan:3");
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
};

QTEST_MAIN(TstMainWindow)
#include "tst_main_window.moc"
