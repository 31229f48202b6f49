// The window fits a laptop or a projector: its minimum width stays within 1280 px from the
// start, after every lesson, a finished preset and a pinned sweep (long titles and "custom
// {e0,…}" labels used to push it to 2037 px); at 1280×720 the δ field shows its whole value
// and the results plot keeps a usable height; presentation mode hides the docks and scales text.
#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>
#include <QTextDocumentFragment>
#include <QScrollArea>
#include <QScrollBar>
#include <QStackedWidget>
#include <QStyleOptionComboBox>
#include <QStyleOptionTab>
#include <QTabBar>
#include <QTabWidget>
#include <QLayout>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/graph/graph_canvas.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/panels/audit_panel.h"
#include "ui/panels/generator_panel.h"
#include "ui/panels/inspector_panel.h"
#include "ui/main_window.h"
#include "ui/panels/budget_bar.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/results_panel.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/window/presentation_mode.h"
#include "ui/worker/run_worker.h"

#include "small_session.h"

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

// Makes `w` the shown page of every tab widget and stacked widget it lies in.
void bringForward(QWidget* w) {
  for (QWidget *child = w, *p = w->parentWidget(); p; child = p, p = p->parentWidget()) {
    auto* stack = qobject_cast<QStackedWidget*>(p);
    if (!stack) continue;
    if (auto* tabs = qobject_cast<QTabWidget*>(stack->parentWidget())) tabs->setCurrentWidget(child);
    else stack->setCurrentWidget(child);
  }
  QApplication::processEvents();
}

// The data area of `plot` as drawn now.
QRect dataArea(PlotWidget* plot) {
  plot->replot(QCustomPlot::rpImmediateRefresh);
  return plot->axisRect()->rect();
}

// Text the widget would show cut: a check box, button or one-line label narrower than its text,
// a combo box whose current item is wider than its text field. "" when it shows all its text.
QString cutText(QWidget* w) {
  if (auto* combo = qobject_cast<QComboBox*>(w)) {
    QStyleOptionComboBox opt;
    opt.initFrom(combo);
    opt.editable = combo->isEditable();
    opt.frame = true;
    const QRect field = combo->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, combo);
    const int needed = combo->fontMetrics().horizontalAdvance(combo->currentText());
    return needed > field.width() ? QString("combo '%1' %2 px in %3 px").arg(combo->currentText()).arg(needed).arg(field.width())
                                  : QString();
  }
  if (auto* tabs = qobject_cast<QTabBar*>(w)) {  // a tab whose title is elided ("Corpus _m…")
    for (int i = 0; i < tabs->count(); ++i) {
      QStyleOptionTab opt;
      opt.initFrom(tabs);
      opt.rect = tabs->tabRect(i);
      opt.text = tabs->tabText(i);
      const QRect field = tabs->style()->subElementRect(QStyle::SE_TabBarTabText, &opt, tabs);
      const int needed = tabs->fontMetrics().horizontalAdvance(QString(tabs->tabText(i)).remove(QLatin1Char('&')));
      if (needed > field.width()) return QString("tab '%1' %2 px in %3 px").arg(tabs->tabText(i)).arg(needed).arg(field.width());
    }
    return {};
  }
  // A line edit too narrow for its text or, empty, for its placeholder ("fold…").
  if (auto* edit = qobject_cast<QLineEdit*>(w)) {
    const QString shown = edit->text().isEmpty() ? edit->placeholderText() : edit->text();
    const QMargins m = edit->textMargins();
    const int room = edit->contentsRect().width() - m.left() - m.right() - 4;
    const int needed = edit->fontMetrics().horizontalAdvance(shown);
    return needed > room ? QString("line edit '%1' %2 px in %3 px").arg(shown).arg(needed).arg(room) : QString();
  }
  const bool oneLine = qobject_cast<QAbstractButton*>(w) ||
                       (qobject_cast<QLabel*>(w) && !static_cast<QLabel*>(w)->wordWrap() &&
                        w->sizePolicy().horizontalPolicy() != QSizePolicy::Ignored);
  if (!oneLine || w->sizeHint().width() <= w->width()) return {};
  return QString("%1 '%2' %3 px in %4 px")
      .arg(w->metaObject()->className(),
           qobject_cast<QLabel*>(w) ? static_cast<QLabel*>(w)->text() : static_cast<QAbstractButton*>(w)->text())
      .arg(w->sizeHint().width())
      .arg(w->width());
}

QStringList cutTexts(QWidget* root) {
  QStringList cut;
  for (QWidget* w : root->findChildren<QWidget*>())
    if (w->isVisible() && !w->window()->inherits("QMenu"))
      if (const QString c = cutText(w); !c.isEmpty()) cut << c;
  return cut;
}

// A session with a finished sweep of three curves (legend entries) that runs in seconds.
// The window's minimum height and what stacks up to it: each visible widget with its place, height
// and minimum, and every tab page's minimum (hidden pages count too), for a failure message.
QString verticalReport(const QMainWindow& w) {
  QStringList parts{QString("window minimum %1 px").arg(w.minimumSizeHint().height())};
  for (QWidget* c : w.findChildren<QWidget*>()) {
    if (!c->isVisible() || c->height() < 16 || c->minimumSizeHint().height() < 16) continue;
    parts << QString("%1 '%2' y %3 h %4 min %5")
                 .arg(c->metaObject()->className(), c->objectName())
                 .arg(c->mapTo(&w, QPoint(0, 0)).y())
                 .arg(c->height())
                 .arg(std::max(c->minimumSizeHint().height(), c->minimumHeight()));
  }
  for (auto* tabs : w.findChildren<QStackedWidget*>("qt_tabwidget_stackedwidget"))
    for (int i = 0; i < tabs->count(); ++i)
      parts << QString("tab page %1 '%2' min %3")
                   .arg(i)
                   .arg(tabs->widget(i)->metaObject()->className())
                   .arg(std::max(tabs->widget(i)->minimumSizeHint().height(), tabs->widget(i)->minimumHeight()));
  return parts.join("\n");
}

SessionState sweptSession() {
  SessionState s = test::smallSession(Preset::Config1);
  s.compareSound = true;
  return s;
}

}  // namespace

class TstWindowFit : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::useTestSettings("tst_window_fit");
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

  // Issue 24 §2: a classroom screen. At 1280×720 (the default window, 1260×680, and the whole
  // screen) and at 1920×1080: every plot's data area is at least 200 px high, the window still
  // fits once the sweep's plots have taken that height, no text of the graph is drawn below 11 px, the corpus panel needs no horizontal scroll bar, and no check
  // box, button, label or combo box of the panels, the toolbar or the tabs cuts its text.
  void classroomScreen_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("default window at 1280x720") << QSize(1260, 680);
    QTest::newRow("1280x720") << QSize(1280, 720);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
  }
  void classroomScreen() {
    QFETCH(QSize, size);
    MainWindow w;
    w.setAutoRun(false);
    w.model()->reset(sweptSession());
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(w.size() == size, qPrintable(QString("%1x%2: %3").arg(w.width()).arg(w.height()).arg(widestChildren(w))));
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == w.runner()->currentId(), 60000);
    QStringList report;
    for (PlotWidget* plot : w.results()->findChildren<PlotWidget*>()) {
      bringForward(plot);
      // The plot's minimum height follows its layout over queued relayouts (see presentationModePresents).
      QTRY_VERIFY2_WITH_TIMEOUT(dataArea(plot).height() >= 200,
                                qPrintable(QString("%1 data %2 px high").arg(plot->title()).arg(dataArea(plot).height())), 10000);
      const QRect area = dataArea(plot);
      report << QString("%1 '%2': data %3x%4").arg(plot->metaObject()->className(), plot->title()).arg(area.width()).arg(area.height());
      QVERIFY2(area.width() >= 200, qPrintable(report.join("; ")));
    }
    bringForward(w.results()->experiments()->errorPlot());
    const double graphText = w.canvas()->smallestTextPixels();
    report << QString("graph text >= %1 px (view scale %2)").arg(graphText, 0, 'f', 1).arg(w.canvas()->viewScale(), 0, 'f', 2);
    QVERIFY2(graphText >= 11 - 1e-9, qPrintable(report.join("; ")));
    auto* scroll = qobject_cast<QScrollArea*>(w.generatorPanel()->parentWidget()->parentWidget());
    QVERIFY(scroll);
    QVERIFY2(!scroll->horizontalScrollBar()->isVisible(),
             qPrintable(QString("corpus panel %1 px in %2 px").arg(w.generatorPanel()->minimumSizeHint().width()).arg(scroll->viewport()->width())));
    for (QWidget* part : std::initializer_list<QWidget*>{w.generatorPanel(), w.budgetBar(), w.results()}) {
      const QStringList cut = cutTexts(part);
      QVERIFY2(cut.isEmpty(), qPrintable(cut.join("; ")));
    }
    // The sweep's plots keep their data height by raising their minimum: the window must still fit
    // (on a 1280×720 screen a taller minimum pushes the status bar below the screen's edge).
    if (w.minimumSizeHint().height() > size.height()) qInfo("%s", qPrintable(verticalReport(w)));
    QTRY_VERIFY2(w.minimumSizeHint().height() <= size.height(), qPrintable(QString::number(w.minimumSizeHint().height())));
    QTRY_COMPARE(w.size(), size);
    qInfo("%dx%d: %s", size.width(), size.height(), qPrintable(report.join("; ")));
  }

  // Issue 24 §2 with a lesson open (its text in the Inspector), every lesson at 1280×720: the
  // sweep's plot keeps a data area of at least 200 px each way, the graph's text at least 11 px,
  // and no text of the panels, toolbar, tabs or dock tabs is cut.
  void lessonsAt1280x720_data() {
    QTest::addColumn<QString>("lesson");
    for (const QString& lesson : MainWindow::lessonNames()) QTest::newRow(qPrintable(lesson)) << lesson;
  }
  void lessonsAt1280x720() {
    QFETCH(QString, lesson);
    MainWindow w;
    w.setAutoRun(false);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QString err;
    QVERIFY2(w.loadLesson(lesson, &err), qPrintable(err));
    w.setAutoRun(false);
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == w.runner()->currentId(), 60000);
    QTest::qWait(50);
    QCOMPARE(w.size(), QSize(1280, 720));
    QVERIFY2(w.inspector()->isVisible(), "the lesson's text is not on screen");
    QStringList report;
    PlotWidget* plot = w.results()->errorPlot();
    if (plot->isVisible()) {
      // The plot's minimum height follows its layout over queued relayouts (see presentationModePresents).
      QTRY_VERIFY2_WITH_TIMEOUT(dataArea(plot).height() >= 200,
                                qPrintable(QString("error plot data %1x%2").arg(dataArea(plot).width()).arg(dataArea(plot).height())), 10000);
      const QRect area = dataArea(plot);
      report << QString("error plot data %1x%2").arg(area.width()).arg(area.height());
      QVERIFY2(area.width() >= 200, qPrintable(report.join("; ")));
    }
    const double graphText = w.canvas()->smallestTextPixels();
    report << QString("graph %1x%2, text >= %3 px").arg(w.canvas()->width()).arg(w.canvas()->height()).arg(graphText, 0, 'f', 1);
    QVERIFY2(graphText >= 11 - 1e-9, qPrintable(report.join("; ")));
    QStringList cut;
    for (QWidget* part : std::initializer_list<QWidget*>{w.generatorPanel(), w.budgetBar(), w.results()}) cut << cutTexts(part);
    for (QTabBar* tabs : w.findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) cut << cutText(tabs);  // the docks' tabs
    cut.removeAll(QString());
    QVERIFY2(cut.isEmpty(), qPrintable(cut.join("; ")));
    qInfo("%s at 1280x720: %s", qPrintable(lesson), qPrintable(report.join("; ")));
  }

  // The corpus panel's text rows (Format, Column, Path, …) show their whole text at 1280×720.
  // Issue 24 §5: a long status message was cut at 1280 px with no way to read its end. It is
  // elided to the bar ("…") with the whole message in the tooltip, and never widens the window.
  void longStatusMessagesAreElidedWithTheirTextInTheTooltip() {
    MainWindow w;
    w.setAutoRun(false);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTemporaryDir dir;
    const QString path = dir.filePath(QString("a-folder-name-long-enough-to-run-past-the-status-bar-").repeated(4) +
                                      "/missing/plot.png");
    QString error;
    QVERIFY(!w.exportCurrentPlot(path, &error));
    QTest::qWait(50);
    QCOMPARE(w.width(), 1280);
    QLabel* status = nullptr;
    for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
      if (!l->toolTip().isEmpty() && l->toolTip().contains("missing/plot.png")) status = l;
    QVERIFY2(status, "no status label carries the whole message in its tooltip");
    QVERIFY(status->text().contains(QChar(0x2026)));  // elided
    QVERIFY(status->fontMetrics().horizontalAdvance(QTextDocumentFragment::fromHtml(status->text()).toPlainText()) <=
            status->width());
    QVERIFY(w.statusText().contains("missing/plot.png"));  // the whole message, for the tests and the log
  }

  void corpusFormatControlsShowTheirText() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = w.model()->state();
    s.source = SessionState::Source::Text;
    s.textFormat = TextFormat::JsonLines;
    w.model()->reset(s);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTest::qWait(50);
    auto* format = w.generatorPanel()->findChild<QComboBox*>("text_format");
    QVERIFY(format && format->isVisible() && format->isEnabled());
    QCOMPARE(format->currentText(), QString("JSON Lines"));
    auto* column = w.generatorPanel()->findChild<QLineEdit*>("text_column");
    QVERIFY(column && column->isVisible() && column->isEnabled());
    QVERIFY2(column->width() >= 150, qPrintable(QString::number(column->width())));
    const QStringList cut = cutTexts(w.generatorPanel());
    QVERIFY2(cut.isEmpty(), qPrintable(cut.join("; ")));
  }

  // Issue 24 §3: presentation mode presents. F5 on a 1920×1080 window scales the window's text,
  // the banner, the graph's texts and the plots' by 1.5 together, and keeps the lesson's text
  // (the Inspector) on screen; on a 1280×720 window it stays readable (graph text ≥ 11 px, plot
  // data ≥ 200 px); Ctrl+= makes the graph's text larger, never smaller.
  void presentationModePresents() {
    MainWindow w;
    w.setAutoRun(false);
    QString err;
    QVERIFY2(w.loadLesson("08_few_documents", &err), qPrintable(err));
    w.setAutoRun(false);
    w.resize(1920, 1080);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    const double font = w.font().pointSizeF();
    const double banner = w.canvas()->findChildren<QLabel*>().first()->font().pointSizeF();
    const double tick = w.results()->errorPlot()->xAxis->tickLabelFont().pointSizeF();
    const double graphMin = w.canvas()->minimumTextPixels();
    QTest::keyClick(&w, Qt::Key_F5);
    QTest::qWait(50);
    QVERIFY(w.presentation()->isActive());
    QCOMPARE(w.presentation()->scale(), 1.5);
    QVERIFY(w.font().pointSizeF() >= 1.5 * font - 1e-9);
    QVERIFY(w.canvas()->findChildren<QLabel*>().first()->font().pointSizeF() >= 1.5 * banner - 1e-9);
    QVERIFY(w.results()->errorPlot()->xAxis->tickLabelFont().pointSizeF() >= 1.5 * tick - 1e-9);
    QVERIFY(w.canvas()->smallestTextPixels() >= 1.5 * graphMin - 1e-9);
    auto* inspectorDock = qobject_cast<QDockWidget*>(w.inspector()->parentWidget());
    QVERIFY(inspectorDock && inspectorDock->isVisible());  // the lesson's text
    QVERIFY2(w.inspector()->plainText().contains("Few documents") || w.inspector()->plainText().contains("1 000"),
             qPrintable(w.inspector()->plainText().left(200)));
    QVERIFY(!qobject_cast<QDockWidget*>(w.findChild<QDockWidget*>("GeneratorDock"))->isVisible());
    // Ctrl+= : larger graph text.
    const double before = w.canvas()->smallestTextPixels();
    QTest::keyClick(&w, Qt::Key_Equal, Qt::ControlModifier);
    QTest::qWait(50);
    QVERIFY2(w.canvas()->smallestTextPixels() > before, qPrintable(QString("%1 -> %2").arg(before).arg(w.canvas()->smallestTextPixels())));
    QTest::keyClick(&w, Qt::Key_0, Qt::ControlModifier);
    QTest::keyClick(&w, Qt::Key_F5);
    QTest::qWait(200);  // the plots' minimum heights follow their normal text again
    // A 1280×720 window: scale 1, still readable.
    w.resize(1280, 720);
    QTest::qWait(50);
    QCOMPARE(w.height(), 720);
    QTest::keyClick(&w, Qt::Key_F5);
    QTest::qWait(50);
    QVERIFY(w.presentation()->isActive());
    QCOMPARE(w.presentation()->scale(), 1.0);
    QVERIFY(w.canvas()->smallestTextPixels() >= 11 - 1e-9);
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == w.runner()->currentId(), 60000);
    // The plots' minimum heights return from presentation scale over a few queued relayouts; on a
    // loaded machine that takes longer than a fixed wait (CI once read 178 px mid-way).
    QTRY_VERIFY2_WITH_TIMEOUT(dataArea(w.results()->errorPlot()).height() >= 200,
                              qPrintable(QString::number(dataArea(w.results()->errorPlot()).height())), 10000);
    QTest::keyClick(&w, Qt::Key_F5);
    QTest::qWait(50);
    QVERIFY(!w.presentation()->isActive());
    QCOMPARE(w.font().pointSizeF(), font);
    QVERIFY(w.findChild<QDockWidget*>("GeneratorDock")->isVisible());
  }

  void presentationModeHidesDocksAndScalesText() {
    MainWindow w;
    w.setAutoRun(false);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QList<QDockWidget*> docks;  // the docks shown (at 1280 px the Inspector waits to be asked for)
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
      if (d->isVisible()) docks << d;
    QVERIFY(!docks.isEmpty());
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
