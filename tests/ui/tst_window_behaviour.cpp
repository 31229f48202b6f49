// The main window's promises to the keyboard and to unsaved work: Esc cancels a preset sweep,
// both redo keys redo, the title shows "*" and closing asks Save / Discard / Cancel, and typed
// input that the session refuses is shown on its field and veils the results it no longer matches.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QToolBar>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <cmath>

#include "ui/graph/graph_canvas.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/main_window.h"
#include "ui/panels/budget_bar.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/generator_panel.h"
#include "ui/panels/results_panel.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/plots/topics_plot.h"
#include "ui/session/session_privacy.h"
#include "ui/window/run_summary.h"
#include "ui/worker/run_worker.h"

#include "small_session.h"

using namespace dplda;

namespace {

SessionState smallSession() { return test::smallSession(Preset::Config1); }

// Clicks `button` in the next message box that opens (polls until one is modal). The out
// parameter records the box's text, for the assertions.
void answerNextMessageBox(QMessageBox::StandardButton button, QString* text = nullptr) {
  auto* timer = new QTimer;
  timer->setInterval(50);
  QObject::connect(timer, &QTimer::timeout, [timer, button, text] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return;
    if (text) *text = box->text() + "\n" + box->informativeText();
    timer->stop();
    timer->deleteLater();
    box->button(button)->click();
  });
  timer->start();
}

// Picks the combo entry whose data is `data`, as a user's click does (activated is what the bar hears).
void choose(QComboBox* c, const QVariant& data) {
  const int i = c->findData(data);
  QVERIFY(i >= 0);
  c->setCurrentIndex(i);
  emit c->activated(i);
}

// The window's action whose menu text (without "&") is `text`.
QAction* action(QWidget& w, const QString& text) {
  for (QAction* a : w.findChildren<QAction*>())
    if (QString(a->text()).remove('&') == text) return a;
  return nullptr;
}

void runAndWait(MainWindow& w) {
  w.runNow();
  const quint64 id = w.runner()->currentId();
  QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == id, 30000);
}

}  // namespace

class TstWindowBehaviour : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::useTestSettings("tst_window_behaviour");
    QApplication::setQuitOnLastWindowClosed(false);  // the tests close windows and go on
    initExplorerResources();
  }

  void escapeCancelsAPresetSweep() {
    MainWindow w;
    w.setAutoRun(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    ExperimentView* view = w.results()->experiments();
    QVERIFY(view->setSource("figure2-small-corpus"));  // the smallest corpus: its first snapshot comes soon
    view->setTrials(1000);
    view->requestRun();
    QTRY_VERIFY_WITH_TIMEOUT(view->shownUpdate() && view->shownUpdate()->pointsTotal > 0, 60000);
    QVERIFY(view->isRunning());
    QVERIFY(!w.runner()->isBusy());  // only the preset runs
    QTest::keyClick(&w, Qt::Key_Escape);
    QTRY_VERIFY_WITH_TIMEOUT(!view->isRunning(), 10000);
    QCOMPARE(view->shownUpdate()->status.code(), StatusCode::Cancelled);
  }

  void bothRedoKeysRedo() {
    MainWindow w;
    w.setAutoRun(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QLineEdit* eps = w.budgetBar()->epsilonEdit();
    test::commitLine(eps, "0.5");
    test::commitLine(eps, "0.25");
    w.setFocus();  // not in a line edit, which has its own undo
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(w.model()->state().epsilon, 0.5);
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(w.model()->state().epsilon, 1.0);
    QTest::keyClick(&w, Qt::Key_Y, Qt::ControlModifier);
    QCOMPARE(w.model()->state().epsilon, 0.5);
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(w.model()->state().epsilon, 0.25);
  }

  void titleShowsUnsavedChangesAndCloseAsks() {
    QTemporaryDir dir;
    const QString path = dir.filePath("session.json");
    MainWindow w;
    w.setAutoRun(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.windowTitle().contains("[*]"));
    QVERIFY(!w.isWindowModified());
    QVERIFY(w.close());  // nothing to lose: no question
    w.show();

    test::commitLine(w.budgetBar()->epsilonEdit(), "0.5");
    QVERIFY(w.isWindowModified());
    // Cancel: the window stays, with its changes.
    QString asked;
    answerNextMessageBox(QMessageBox::Cancel, &asked);
    QVERIFY(!w.close());
    QVERIFY(w.isVisible());
    QVERIFY2(asked.contains("unsaved changes"), qPrintable(asked));
    QCOMPARE(w.model()->state().epsilon, 0.5);

    // Saved: clean again; a new change, then Save on close writes it to the session's file.
    QString err;
    QVERIFY2(w.saveSession(path, &err), qPrintable(err));
    QVERIFY(!w.isWindowModified());
    test::commitLine(w.budgetBar()->epsilonEdit(), "0.25");
    QVERIFY(w.isWindowModified());
    w.model()->undoStack()->undo();  // back to the saved state: nothing unsaved
    QVERIFY(!w.isWindowModified());
    w.model()->undoStack()->redo();
    answerNextMessageBox(QMessageBox::Save);
    QVERIFY(w.close());
    auto saved = loadSession(path);
    QVERIFY(saved.ok());
    QCOMPARE(saved.value().epsilon, 0.25);

    // Discard closes without writing.
    w.show();
    test::commitLine(w.budgetBar()->epsilonEdit(), "2");
    answerNextMessageBox(QMessageBox::Discard);
    QVERIFY(w.close());
    QCOMPARE(loadSession(path).value().epsilon, 0.25);
  }

  void invalidBudgetInputMarksResultsStale() {
    MainWindow w;
    w.setAutoRun(false);
    w.model()->reset(smallSession());
    w.runNow();
    const quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == id, 25000);
    QVERIFY(!w.results()->errorPlot()->isStale());
    QVERIFY(!w.results()->spectrumPlot()->isStale());
    const SessionState before = w.model()->state();

    QLineEdit* delta = w.budgetBar()->deltaEdit();
    test::commitLine(delta, "2");
    QVERIFY(w.results()->errorPlot()->isStale());
    QVERIFY(w.results()->spectrumPlot()->isStale());
    QVERIFY2(delta->toolTip().contains("δ"), qPrintable(delta->toolTip()));  // the problem, on the field
    QVERIFY(delta->styleSheet().contains("border"));
    QVERIFY2(w.statusText().contains("Invalid input"), qPrintable(w.statusText()));
    QVERIFY(w.model()->state() == before);
    // Valid again: the field's own tooltip comes back.
    test::commitLine(delta, "1e-5");
    QVERIFY(!delta->toolTip().contains("got"));
    QVERIFY(delta->styleSheet().isEmpty());

    // ε, typed invalid after a fresh run: stale again.
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == w.runner()->currentId(), 25000);
    QVERIFY(!w.results()->errorPlot()->isStale());
    test::commitLine(w.budgetBar()->epsilonEdit(), "-1");
    QVERIFY(w.results()->errorPlot()->isStale());
    QVERIFY(w.results()->topicsPlot()->isStale());
    QVERIFY(w.model()->state() == before);
  }

  // Issue 24: a new window opens on what the tool found: the paper's configuration 1 beside its
  // sound improvements (1/clip/gdp, whitened/gdp) on the figure-2 corpus, no caution in its
  // statement; at ε = 1 the whitened release's error is a small fraction of configuration 1's,
  // which sits near the random-guess line.
  void firstImpressionComparesWithTheSoundImprovements() {
    MainWindow w;
    w.setAutoRun(false);
    const SessionState s = w.model()->state();
    QVERIFY(s.compareSound);
    QCOMPARE(s.edges, presetEdges(Preset::Config1));
    QCOMPARE(s.generator.docCount, 100000);
    QCOMPARE(s.generator.topicCount, 5);
    QVERIFY(privacyStatement(sessionStatementInputs(s, trainingDocCount(s, s.generator.docCount))).cautions.empty());
    w.runNow();  // N = 100 000 and 63 private runs: slow on a loaded machine, hence the long wait
    const quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == id, 400000);
    const auto u = w.results()->experiments()->shownUpdate();
    QVERIFY(u && u->run && u->run->finished && u->run->sweep);
    const SweepResult& r = *u->run->sweep;
    QStringList labels;
    for (const SweepConfiguration& c : r.spec.configurations) labels << QString::fromStdString(c.label);
    QCOMPARE(labels, QStringList({"1", "1/clip/gdp", "whitened/gdp"}));
    int one = -1;
    for (int e = 0; e < int(r.spec.epsilons.size()); ++e)
      if (std::abs(r.spec.epsilons[e] - 1.0) < 1e-9) one = e;
    QVERIFY(one >= 0);
    const double config1 = r.summaryRow(0, 0, one).errorL2.median;
    const double clipped = r.summaryRow(0, 1, one).errorL2.median;
    const double whitened = r.summaryRow(0, 2, one).errorL2.median;
    const double guess = r.cases[0].guessErrorL2;
    qInfo("at eps 1: config 1 %.3f, 1/clip/gdp %.3f, whitened/gdp %.3f, random guess %.3f", config1, clipped, whitened,
          guess);
    QVERIFY2(whitened < 0.1 && whitened < config1 / 3, qPrintable(QString("%1 vs %2").arg(whitened).arg(config1)));
    QVERIFY2(clipped < config1, qPrintable(QString("%1 vs %2").arg(clipped).arg(config1)));
    // Configuration 1 stays far from useful: its median over the app's few trials spread 0.18-0.28
    // over launches (fresh noise each time) against a random guess of 0.44.
    QVERIFY2(config1 > guess / 3, qPrintable(QString("%1 vs guess %2").arg(config1).arg(guess)));
    // The session's own curve is configuration 1's (the budget bar's expected error reads it).
    QVERIFY(std::isfinite(w.results()->experiments()->sessionReading(s).expectedErrorL2));
    ErrorVsEpsilonPlot::CurveData c;
    QVERIFY(w.results()->experiments()->errorPlot()->curveData("whitened/gdp", &c));
  }

  // Issue 24: on the whitened release, Ctrl+1 (Run ▸ Use config 1) leaves it: e6 by noise on T
  // again, a run, the banner and status bar about configuration 1 (it used to say "Cannot run:
  // the whitened release is a mechanism for the cut {e2,e5,e6}" over stale results). Visiting the
  // whitened release keeps the user's "share releases" (shown ticked and greyed there) for the
  // way back, where it used to be silently unticked for good.
  void useConfigLeavesTheWhitenedReleaseAndShareComesBack() {
    MainWindow w;
    w.setAutoRun(false);
    w.model()->reset(smallSession());
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    BudgetBar* bar = w.budgetBar();
    QVERIFY(w.model()->state().shareReleases);
    QVERIFY(bar->shareCheck()->isChecked() && bar->shareCheck()->isEnabled());
    bar->shareCheck()->setChecked(false);  // the user's choice: releases apart
    QVERIFY(!w.model()->state().shareReleases);
    choose(bar->presetCombo(), -2);  // the whitened release
    QVERIFY(w.model()->state().whitenedRelease());
    QVERIFY(!w.model()->state().shareReleases);                           // the choice is kept…
    QVERIFY(bar->shareCheck()->isChecked() && !bar->shareCheck()->isEnabled());  // …and shown as what it is here
    runAndWait(w);
    QVERIFY2(w.canvas()->bannerText().contains("whitened"), qPrintable(w.canvas()->bannerText()));
    const quint64 whitenedRun = w.shownRunId();

    w.setFocus();
    QTest::keyClick(&w, Qt::Key_1, Qt::ControlModifier);
    const SessionState& s = w.model()->state();
    QCOMPARE(s.edges, presetEdges(Preset::Config1));
    QCOMPARE(s.e6Release, SessionState::TensorRelease::Noise);
    QVERIFY(validateSession(s).isEmpty());
    QCOMPARE(bar->e6Combo()->currentData().toInt(), int(SessionState::TensorRelease::Noise));
    QVERIFY(!bar->shareCheck()->isChecked() && bar->shareCheck()->isEnabled());  // the user's choice again
    runAndWait(w);
    QVERIFY(w.shownRunId() > whitenedRun);
    QVERIFY2(!w.statusText().contains("Cannot run"), qPrintable(w.statusText()));
    QVERIFY2(!w.canvas()->bannerText().contains("whitened"), qPrintable(w.canvas()->bannerText()));
    QCOMPARE(w.canvas()->statement().claim, PrivacyClaim::Proven);  // configuration 1, sound bounds
    // Back and forth with Run ▸ Use config 2 too, and the same from the budget bar's list.
    choose(bar->presetCombo(), -2);
    QVERIFY(w.model()->state().whitenedRelease());
    QVERIFY(action(w, "Use config 2"));
    action(w, "Use config 2")->trigger();
    QCOMPARE(w.model()->state().edges, presetEdges(Preset::Config2));
    QVERIFY(!w.model()->state().whitenedRelease());
    QVERIFY(validateSession(w.model()->state()).isEmpty());
  }

  // Issue 24: loading a lesson or opening a session with unsaved changes asks first, as quitting
  // does. Cancel keeps the session and its undo history; Discard replaces it, and the undo history
  // goes with the old session (undo never steps back into it).
  void replacingTheSessionAsksFirst() {
    QTemporaryDir dir;
    const QString other = dir.filePath("other.json");
    SessionState saved = smallSession();
    saved.epsilon = 4.0;
    QVERIFY(saveSession(saved, other).isOk());
    MainWindow w;
    w.setAutoRun(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // Nothing to lose: no question.
    QVERIFY(w.loadLessonAsking(MainWindow::lessonNames().first()));
    w.setAutoRun(false);
    test::commitLine(w.budgetBar()->epsilonEdit(), "0.5");
    test::commitLine(w.budgetBar()->epsilonEdit(), "0.25");
    QCOMPARE(w.model()->undoStack()->count(), 2);
    const SessionState edited = w.model()->state();

    QString asked;
    answerNextMessageBox(QMessageBox::Cancel, &asked);
    QVERIFY(!w.loadLessonAsking(MainWindow::lessonNames().last()));
    QVERIFY2(asked.contains("unsaved changes") && asked.contains("lesson"), qPrintable(asked));
    QVERIFY(w.model()->state() == edited);
    QCOMPARE(w.model()->undoStack()->count(), 2);
    answerNextMessageBox(QMessageBox::Cancel, &asked);
    QVERIFY(!w.openSessionAsking(other));
    QVERIFY2(asked.contains("open another session"), qPrintable(asked));
    QVERIFY(w.model()->state() == edited);
    w.model()->undoStack()->undo();
    QCOMPARE(w.model()->state().epsilon, 0.5);  // the history is intact
    w.model()->undoStack()->redo();

    answerNextMessageBox(QMessageBox::Discard);
    QVERIFY(w.openSessionAsking(other));
    w.setAutoRun(false);
    QCOMPARE(w.model()->state().epsilon, 4.0);
    QCOMPARE(w.model()->undoStack()->count(), 0);
    QVERIFY(!w.isWindowModified());
    // The menu's lesson entries ask too.
    test::commitLine(w.budgetBar()->epsilonEdit(), "2");
    QAction* lesson = action(w, lessonMenuTitle(MainWindow::lessonNames().last()));
    QVERIFY(lesson);
    answerNextMessageBox(QMessageBox::Cancel, &asked);
    lesson->trigger();
    QCOMPARE(w.model()->state().epsilon, 2.0);
    answerNextMessageBox(QMessageBox::Discard);
    lesson->trigger();
    w.setAutoRun(false);
    QCOMPARE(w.model()->state().lessonTitle, lessonMenuTitle(MainWindow::lessonNames().last()));
    QCOMPARE(w.model()->undoStack()->count(), 0);
  }

  // Issue 24: a finished session sweep that released nothing says so, and why (each
  // configuration's refusal at the largest ε), where the plot said "no data yet".
  void sweepThatReleasedNothingSaysWhy() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = smallSession();
    s.edges = presetEdges(Preset::Config2);  // N = 1 000: Procedure 1's lower bounds never clear
    s.generator.docCount = 1000;
    s.sweepEpsilons = "0.5,1,2";
    w.model()->reset(s);
    runAndWait(w);
    ErrorVsEpsilonPlot* plot = w.results()->experiments()->errorPlot();
    const auto u = w.results()->experiments()->shownUpdate();
    QVERIFY(u && u->run && u->run->finished && u->run->sweep);
    for (const SweepRow& row : u->run->sweep->rows) QVERIFY(!row.released);
    QVERIFY(!plot->hasData());
    const QString text = plot->placeholderText();
    QVERIFY2(text.contains("nothing was released at any ε from 0.5 to 2") && text.contains("Config 2 at ε = 2:"),
             qPrintable(text));
    QVERIFY2(text.size() > 90, qPrintable(text));  // the reason follows
    // A sweep that draws again restores the usual text.
    s.edges = presetEdges(Preset::Config1);
    w.model()->edit(s, "config 1");
    runAndWait(w);
    QVERIFY(plot->hasData());
    QCOMPARE(plot->placeholderText(), QString("no data yet"));
  }

  // Issue 24: the status bar follows a preset experiment to its end: "Experiment … started…"
  // never outlives it, whether it finished or was cancelled.
  void statusBarFollowsAnExperimentToItsEnd() {
    MainWindow w;
    w.setAutoRun(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    ExperimentView* view = w.results()->experiments();
    QVERIFY(view->setSource("figure2-small-corpus"));
    view->setTrials(1);
    view->requestRun();
    QVERIFY2(w.statusText().contains("started"), qPrintable(w.statusText()));
    QTRY_VERIFY_WITH_TIMEOUT(!view->isRunning() && view->shownUpdate() && view->shownUpdate()->run &&
                                 view->shownUpdate()->run->finished, 60000);
    QVERIFY2(w.statusText().contains("finished") && !w.statusText().contains("started"), qPrintable(w.statusText()));
    view->setTrials(1000);
    view->requestRun();
    QTRY_VERIFY_WITH_TIMEOUT(view->shownUpdate() && view->shownUpdate()->pointsTotal > 0 &&
                                 !view->shownUpdate()->run->finished, 60000);
    QVERIFY2(w.statusText().contains("started"), qPrintable(w.statusText()));
    QTest::keyClick(&w, Qt::Key_Escape);
    QTRY_VERIFY_WITH_TIMEOUT(!view->isRunning(), 10000);
    QTRY_VERIFY2(w.statusText().contains("cancelled") && !w.statusText().contains("started"),
                 qPrintable(w.statusText()));
  }

  // Issue 24: the budget toolbar keeps its height (three rows) whatever the configuration, so the
  // graph below it never moves under the mouse (it grew and shrank between two and four rows).
  void toolbarKeepsItsHeight() {
    MainWindow w;
    w.setAutoRun(false);
    w.resize(1280, 720);
    w.model()->reset(smallSession());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* toolbar = w.findChild<QToolBar*>("BudgetBar");
    QVERIFY(toolbar);
    auto geometry = [&] {
      QApplication::processEvents();
      w.layout()->activate();
      return QPair<int, int>(toolbar->height(), w.canvas()->mapTo(&w, QPoint(0, 0)).y());
    };
    const auto first = geometry();
    QStringList seen;
    auto expectSame = [&](const QString& what) {
      const auto now = geometry();
      seen << QString("%1: toolbar %2 px, graph at y %3").arg(what).arg(now.first).arg(now.second);
      QVERIFY2(now == first, qPrintable(seen.join("\n")));
    };
    for (Preset p : {Preset::None, Preset::Config2, Preset::Config3, Preset::Input, Preset::Config1}) {
      w.model()->edit(withEdges(w.model()->state(), presetEdges(p)), "edges");
      expectSame(edgeSetLabel(presetEdges(p)));
    }
    w.model()->edit(withWhitenedRelease(w.model()->state()), "whitened");
    expectSame("whitened release");
    SessionState s = w.model()->state();
    s.edges = (1u << 2) | (1u << 6);  // a click on the graph: the whitened release's problem shows
    w.model()->edit(s, "custom");
    QVERIFY(!w.budgetBar()->e6ProblemText().isEmpty());
    expectSame("whitened release with custom edges");
    test::commitLine(w.budgetBar()->deltaEdit(), "2");  // a typed problem
    QVERIFY(!w.budgetBar()->errorText().isEmpty());
    expectSame("invalid δ");
    test::commitLine(w.budgetBar()->deltaEdit(), "1e-5");
    w.model()->edit(withEdges(w.model()->state(), presetEdges(Preset::None)), "none");
    expectSame("none again");
    qInfo("%s", qPrintable(seen.join("; ")));
  }

  void spinBoxesSayWhyInsteadOfReverting() {
    MainWindow w;
    w.setAutoRun(false);
    w.model()->reset(smallSession());
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == w.runner()->currentId(), 25000);
    const SessionState before = w.model()->state();
    GeneratorPanel* gen = w.generatorPanel();
    auto* docs = qobject_cast<QSpinBox*>(gen->field("docs"));
    QVERIFY(docs);
    // Typed as a user types it: select all, "0", Enter.
    docs->setFocus();
    docs->selectAll();
    QTest::keyClicks(docs, "0");
    QTest::keyClick(docs, Qt::Key_Return);
    QCOMPARE(docs->value(), 0);  // not silently back to 3000
    QVERIFY2(gen->fieldError("docs").contains(">= 3"), qPrintable(gen->fieldError("docs")));
    QVERIFY2(docs->toolTip().contains("got 0"), qPrintable(docs->toolTip()));
    QVERIFY(w.results()->errorPlot()->isStale());
    QVERIFY(w.model()->state() == before);
    // Topics k = 0 and trials = 0 too.
    auto* topics = qobject_cast<QSpinBox*>(gen->field("topics"));
    topics->setValue(0);
    QVERIFY2(gen->fieldError("topics").contains("k must be >= 1"), qPrintable(gen->fieldError("topics")));
    auto* trials = qobject_cast<QSpinBox*>(gen->field("trials"));
    trials->setValue(0);
    QVERIFY2(gen->fieldError("trials").contains("1..50"), qPrintable(gen->fieldError("trials")));
    QVERIFY(w.model()->state() == before);
    // Fixed: the errors go and the next edit reaches the session.
    docs->setValue(3000);
    topics->setValue(3);
    trials->setValue(3);
    QVERIFY(gen->problem().isEmpty());
    QCOMPARE(w.model()->state().trials, 3);
  }
};

QTEST_MAIN(TstWindowBehaviour)
#include "tst_window_behaviour.moc"
