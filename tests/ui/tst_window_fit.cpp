// The window fits a laptop or a projector: its minimum width stays within 1280 px from the
// start, after every lesson, a finished preset and a pinned sweep (long titles and "custom
// {e0,…}" labels used to push it to 2037 px); at 1280×720 the δ field shows its whole value
// and the results plot keeps a usable height; presentation mode hides the docks and scales text.
#include <QDockWidget>
#include <QLayout>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/graph/graph_canvas.h"
#include "ui/main_window.h"
#include "ui/panels/budget_bar.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/results_panel.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/worker/run_worker.h"

using namespace dplda;

namespace {

constexpr int kSmallScreenWidth = 1280;

// The width the window cannot go below: its layout's minimum (what the window manager enforces).
int minimumWidth(MainWindow& w) {
  w.layout()->activate();
  return std::max(w.minimumSizeHint().width(), w.minimumSize().width());
}

// The names of the widgets whose minimum width is largest, to say what is too wide.
QString widestChildren(QWidget& w) {
  QList<QPair<int, QString>> sizes;
  for (QWidget* c : w.findChildren<QWidget*>())
    if (c->isVisibleTo(&w))
      sizes.append({c->minimumSizeHint().width(),
                    QString("%1 '%2' %3").arg(c->metaObject()->className(), c->objectName()).arg(c->minimumSizeHint().width())});
  std::sort(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  QStringList out;
  for (int i = 0; i < std::min<qsizetype>(16, sizes.size()); ++i) out << sizes[i].second;
  return out.join("; ");
}

}  // namespace

class TstWindowFit : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("dplda-test");
    QCoreApplication::setApplicationName("tst_window_fit");
    initExplorerResources();
  }

  void minimumWidthFitsASmallScreen() {
    MainWindow w;
    w.setAutoRun(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(minimumWidth(w) <= kSmallScreenWidth,
             qPrintable(QString("minimum width %1: %2").arg(minimumWidth(w)).arg(widestChildren(w))));
    QVERIFY2(w.minimumSizeHint().height() <= 720, qPrintable(QString::number(w.minimumSizeHint().height())));
  }

  void usableAt1280x720() {
    MainWindow w;
    w.setAutoRun(false);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTest::qWait(50);
    QCOMPARE(w.width(), 1280);
    QCOMPARE(w.height(), 720);
    // δ = 1e-05 is shown whole (it used to be squeezed to "e-05").
    QLineEdit* delta = w.budgetBar()->deltaEdit();
    QCOMPARE(delta->text(), QString("1e-05"));
    const int room = delta->contentsRect().width() - delta->textMargins().left() - delta->textMargins().right() - 4;
    QVERIFY2(delta->fontMetrics().horizontalAdvance(delta->text()) <= room,
             qPrintable(QString("δ field %1 px wide").arg(delta->width())));
    // The results plot and the graph share the height; neither is a sliver.
    QVERIFY2(w.results()->errorPlot()->height() >= 200,
             qPrintable(QString("plot %1 px tall").arg(w.results()->errorPlot()->height())));
    QVERIFY2(w.canvas()->height() >= 200, qPrintable(QString("graph %1 px tall").arg(w.canvas()->height())));
  }

  void staysWithinTheScreenAfterLessonsPresetsAndPins() {
    MainWindow w;
    w.setAutoRun(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    for (const QString& lesson : MainWindow::lessonNames()) {
      QString err;
      QVERIFY2(w.loadLesson(lesson, &err), qPrintable(err));
      w.setAutoRun(false);
      QVERIFY2(minimumWidth(w) <= kSmallScreenWidth,
               qPrintable(QString("lesson %1: minimum width %2: %3").arg(lesson).arg(minimumWidth(w)).arg(widestChildren(w))));
    }
    // A finished preset (its long figure titles in the combo), then pinned.
    ExperimentView* view = w.results()->experiments();
    QVERIFY(view->setSource("figure2-small-corpus"));
    view->setTrials(1);
    view->requestRun();
    QTRY_VERIFY_WITH_TIMEOUT(view->shownUpdate() && view->shownUpdate()->run->finished, 60000);
    QVERIFY2(minimumWidth(w) <= kSmallScreenWidth,
             qPrintable(QString("after a preset: %1: %2").arg(minimumWidth(w)).arg(widestChildren(w))));
    QString err;
    QVERIFY2(view->pinShown(&err), qPrintable(err));
    QVERIFY2(minimumWidth(w) <= kSmallScreenWidth,
             qPrintable(QString("after a pin: %1: %2").arg(minimumWidth(w)).arg(widestChildren(w))));
    // Every figure of the preset, and a custom edge set in the preset combo.
    for (const QString& key : view->figureKeys()) {
      QVERIFY(view->setCurrentFigure(key));
      QVERIFY2(minimumWidth(w) <= kSmallScreenWidth,
               qPrintable(QString("figure %1: %2: %3").arg(key).arg(minimumWidth(w)).arg(widestChildren(w))));
    }
    SessionState s = w.model()->state();
    s.edges = (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 7);
    w.model()->edit(s, "custom edges");
    QVERIFY2(minimumWidth(w) <= kSmallScreenWidth,
             qPrintable(QString("custom edges: %1: %2").arg(minimumWidth(w)).arg(widestChildren(w))));
  }

  void presentationModeHidesDocksAndScalesText() {
    MainWindow w;
    w.setAutoRun(false);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    const auto docks = w.findChildren<QDockWidget*>();
    QVERIFY(docks.size() >= 2);
    const int canvasWidth = w.canvas()->width();
    const double fontSize = w.font().pointSizeF();
    const QFont tickFont = w.results()->errorPlot()->xAxis->tickLabelFont();
    QTest::keyClick(&w, Qt::Key_F5);
    QTest::qWait(50);
    for (QDockWidget* d : docks) QVERIFY(d->isHidden());
    QVERIFY2(w.canvas()->width() > canvasWidth + 200, qPrintable(QString::number(w.canvas()->width())));
    QTest::keyClick(&w, Qt::Key_Equal, Qt::ControlModifier);
    QTest::keyClick(&w, Qt::Key_Plus, Qt::ControlModifier);
    QVERIFY(w.font().pointSizeF() > fontSize * 1.5);
    QVERIFY(w.budgetBar()->deltaEdit()->font().pointSizeF() > fontSize * 1.5);  // children follow
    QVERIFY(w.results()->errorPlot()->xAxis->tickLabelFont().pointSizeF() > tickFont.pointSizeF() * 1.5);
    // Exports keep their normal size.
    QTemporaryDir dir;
    SessionState s;
    s.generator.vocabSize = 30;
    s.generator.topicCount = 3;
    s.generator.docCount = 3000;
    s.noiseSeed = 1;
    s.trials = 1;
    s.sweepEpsilons = "1:10:2";
    w.model()->reset(s);
    w.setAutoRun(false);
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == w.runner()->currentId(), 25000);
    w.results()->setCurrentIndex(1);
    QString err;
    QVERIFY2(w.exportCurrentPlot(dir.filePath("spectrum.svg"), &err), qPrintable(err));
    QVERIFY(w.results()->spectrumPlot()->xAxis->tickLabelFont().pointSizeF() > tickFont.pointSizeF() * 1.5);
    QTest::keyClick(&w, Qt::Key_0, Qt::ControlModifier);
    QCOMPARE(w.font().pointSizeF(), fontSize);
    QCOMPARE(w.results()->errorPlot()->xAxis->tickLabelFont().pointSizeF(), tickFont.pointSizeF());
    QTest::keyClick(&w, Qt::Key_F5);
    QTest::qWait(50);
    for (QDockWidget* d : docks) QVERIFY(!d->isHidden());
  }
};

QTEST_MAIN(TstWindowFit)
#include "tst_window_fit.moc"
