// The main window's promises to the keyboard and to unsaved work: Esc cancels a preset sweep,
// both redo keys redo, the title shows "*" and closing asks Save / Discard / Cancel, and typed
// input that the session refuses is shown on its field and veils the results it no longer matches.
#include <QAction>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "ui/main_window.h"
#include "ui/panels/budget_bar.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/generator_panel.h"
#include "ui/panels/results_panel.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/plots/topics_plot.h"
#include "ui/worker/run_worker.h"

#include "small_session.h"

using namespace dplda;

namespace {

SessionState smallSession() { return test::smallSession(Preset::Config1); }

void commitLine(QLineEdit* edit, const QString& text) {
  edit->setText(text);
  emit edit->editingFinished();
}

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

}  // namespace

class TstWindowBehaviour : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("dplda-test");
    QCoreApplication::setApplicationName("tst_window_behaviour");
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
    commitLine(eps, "0.5");
    commitLine(eps, "0.25");
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

    commitLine(w.budgetBar()->epsilonEdit(), "0.5");
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
    commitLine(w.budgetBar()->epsilonEdit(), "0.25");
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
    commitLine(w.budgetBar()->epsilonEdit(), "2");
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
    commitLine(delta, "2");
    QVERIFY(w.results()->errorPlot()->isStale());
    QVERIFY(w.results()->spectrumPlot()->isStale());
    QVERIFY2(delta->toolTip().contains("δ"), qPrintable(delta->toolTip()));  // the problem, on the field
    QVERIFY(delta->styleSheet().contains("border"));
    QVERIFY2(w.statusText().contains("Invalid input"), qPrintable(w.statusText()));
    QVERIFY(w.model()->state() == before);
    // Valid again: the field's own tooltip comes back.
    commitLine(delta, "1e-5");
    QVERIFY(!delta->toolTip().contains("got"));
    QVERIFY(delta->styleSheet().isEmpty());

    // ε, typed invalid after a fresh run: stale again.
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == w.runner()->currentId(), 25000);
    QVERIFY(!w.results()->errorPlot()->isStale());
    commitLine(w.budgetBar()->epsilonEdit(), "-1");
    QVERIFY(w.results()->errorPlot()->isStale());
    QVERIFY(w.results()->topicsPlot()->isStale());
    QVERIFY(w.model()->state() == before);
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
