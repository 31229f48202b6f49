// dplda-explorer: the desktop app.
//   dplda-explorer [SESSION.json]
//   dplda-explorer --screenshot FILE [--select e5|node:T]
//                  [--tab sweeps|diagnostics|topics|topic-map|document-mixture|ledger|history]
//                  [--experiment PRESET [--trials T]] [--figure KEY] [--size WxH] [--open-model FILE]
//                  [--document N|held-out:N] [SESSION.json]
// --screenshot renders the window offscreen once the session's runs (and sweep, and the preset
// experiment if asked for) have finished, saves it and exits (0 on success, 1 when the image
// could not be written or the run timed out).
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTimer>
#include <cstdio>

#include "core/graph/computation_graph.h"
#include "ui/common/quiet_qt_messages.h"
#include "ui/graph/graph_canvas.h"
#include "core/experiments/sweep_archive.h"
#include "ui/main_window.h"
#include "ui/panels/document_mixture.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/results_panel.h"
#include "ui/panels/topics_view.h"
#include "ui/worker/run_worker.h"

int main(int argc, char** argv) {
  // Without a display there is no window to show: --screenshot renders offscreen, anything
  // else explains itself instead of Qt's plugin abort.
  const bool noDisplay = qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
                         qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
  if (noDisplay) {
    bool screenshot = false;
    for (int i = 1; i < argc; ++i) screenshot = screenshot || QByteArray(argv[i]).startsWith("--screenshot");
    if (!screenshot) {
      std::fprintf(stderr,
                   "dplda-explorer: no display (DISPLAY is not set). Run it on a desktop, under xvfb-run, or use "
                   "--screenshot FILE to render offscreen; `dplda` is the headless command line.\n");
      return 2;
    }
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  if (qgetenv("QT_QPA_PLATFORM") == "offscreen") dplda::installQuietQtMessages("dplda-explorer");
  QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
  QApplication app(argc, argv);
  QApplication::setOrganizationName("dplda");
  QApplication::setApplicationName("dplda-explorer");
  QApplication::setApplicationVersion("0.1.0");
  dplda::initExplorerResources();

  QCommandLineParser parser;
  parser.setApplicationDescription("DP-LDA Explorer: differentially private spectral LDA");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("path", "A session file (.json) to open, or a sweep folder (one `dplda sweep --out` "
                               "wrote, or its sweep.json) to open in the Sweeps tab.", "[SESSION | SWEEP]");
  QCommandLineOption shot("screenshot", "Render the window after the runs finish, save it to FILE and exit.", "FILE");
  QCommandLineOption select("select", "Select an edge (e5) or a node (node:T) before the screenshot.", "ITEM");
  QCommandLineOption tab("tab", "Results tab to show: sweeps, diagnostics, topics, topic-map (the topic browser), document-mixture, ledger, history.", "TAB");
  QCommandLineOption experiment("experiment", "Run a preset experiment in the Sweeps tab before the screenshot.",
                                "PRESET");
  QCommandLineOption trials("trials", "Trials per point of the --experiment preset.", "T", "10");
  QCommandLineOption figure("figure", "Figure of the Sweeps tab to show (e.g. error_l2, release_rate).", "KEY");
  QCommandLineOption size("size", "Window size WxH for the screenshot (default 1500x960).", "WxH");
  QCommandLineOption lesson("lesson", "Open a built-in lesson by name.", "NAME");
  QCommandLineOption openModel("open-model", "Open a model file (File > Open model...) once the run has finished.", "FILE");
  QCommandLineOption document("document", "Document of the document-mixture view: training document N (1-based), or held-out:N.",
                              "N", "1");
  parser.addOptions({shot, select, tab, size, lesson, experiment, trials, figure, openModel, document});
  parser.process(app);

  dplda::MainWindow window;
  const QStringList args = parser.positionalArguments();
  // A sweep folder opens beside the default session (its sweep is drawn once the session has run).
  const bool sweepFolder = !args.isEmpty() && (QFileInfo(args.first()).isDir() ||
                                               QFileInfo(args.first()).fileName() == dplda::kSweepArchiveName);
  if (sweepFolder) {
    QString error;
    if (!window.openSweepResults(args.first(), &error)) {
      std::fprintf(stderr, "dplda-explorer: %s\n", qPrintable(error));
      if (parser.isSet(shot)) return 1;
    }
  } else if (!args.isEmpty()) {
    QString error;
    if (!window.openSession(args.first(), &error)) {
      std::fprintf(stderr, "dplda-explorer: %s\n", qPrintable(error));
      if (parser.isSet(shot)) return 1;
    }
  }
  if (parser.isSet(lesson)) {
    QString error;
    if (!window.loadLesson(parser.value(lesson), &error)) {
      std::fprintf(stderr, "dplda-explorer: lesson '%s': %s (available: %s)\n", qPrintable(parser.value(lesson)),
                   qPrintable(error), qPrintable(dplda::MainWindow::lessonNames().join(", ")));
      return 1;
    }
  }
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split('x');
    if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
  }
  if (!parser.isSet(shot)) {
    window.show();
    return app.exec();
  }

  // Screenshot mode: run now, wait for the worker to go idle, then grab.
  const QString file = parser.value(shot);
  window.show();
  window.runNow();
  dplda::ExperimentView* view = window.results()->experiments();
  if (parser.isSet(experiment)) {
    if (!view->setSource(parser.value(experiment))) {
      std::fprintf(stderr, "dplda-explorer: unknown experiment '%s'\n", qPrintable(parser.value(experiment)));
      return 1;
    }
    view->setTrials(parser.value(trials).toInt());
    view->requestRun();
  }
  int exitCode = 1;
  auto grab = [&] {
    if (parser.isSet(select)) {
      const QString item = parser.value(select);
      if (item.startsWith("node:")) {
        if (auto n = dplda::nodeFromName(item.mid(5).toStdString())) emit window.canvas()->nodeSelected(*n);
      } else if (item.startsWith('e')) {
        window.canvas()->setSelectedEdge(item.mid(1).toInt());
      }
    }
    if (parser.isSet(openModel)) {
      QString error;
      if (!window.results()->topicsView()->openModelFile(parser.value(openModel), &error))
        std::fprintf(stderr, "dplda-explorer: %s\n", qPrintable(error));
    }
    if (parser.isSet(tab)) {
      const QStringList tabs{"sweeps", "diagnostics", "topics", "ledger", "history"};
      const bool map = parser.value(tab) == "topic-map", mixture = parser.value(tab) == "document-mixture";
      const int i = tabs.indexOf(parser.value(tab) == "error" ? "sweeps" : map || mixture ? "topics" : parser.value(tab));
      if (i >= 0) window.results()->setCurrentIndex(i);
      window.results()->topicsView()->showBrowser(map);
      if (mixture) {
        window.results()->topicsView()->showMixture();
        QString error;
        const QString which = parser.value(document);
        const bool heldOut = which.startsWith("held-out:");
        if (!window.results()->topicsView()->mixture()->showDocument(
                heldOut ? dplda::DocumentMixtureView::Set::HeldOut : dplda::DocumentMixtureView::Set::Training,
                (heldOut ? which.mid(9) : which).toInt() - 1, &error))
          std::fprintf(stderr, "dplda-explorer: %s\n", qPrintable(error));
      }
    }
    if (parser.isSet(figure) && !view->setCurrentFigure(parser.value(figure)))
      std::fprintf(stderr, "dplda-explorer: no figure '%s' (available: %s)\n", qPrintable(parser.value(figure)),
                   qPrintable(view->figureKeys().join(", ")));
    QTimer::singleShot(400, &app, [&] {  // let queued replots and layouts settle
      const bool ok = window.grab().save(file);
      if (!ok) std::fprintf(stderr, "dplda-explorer: cannot write screenshot '%s'\n", qPrintable(file));
      else std::printf("wrote %s\n", qPrintable(QFileInfo(file).absoluteFilePath()));
      exitCode = ok ? 0 : 1;
      app.quit();
    });
  };
  auto poll = new QTimer(&app);
  int waited = 0;
  QObject::connect(poll, &QTimer::timeout, &app, [&] {
    waited += 100;
    if ((!window.isBusy() && !window.experimentRunner()->isBusy()) || waited > 180000) {
      poll->stop();
      if (waited > 180000) std::fprintf(stderr, "dplda-explorer: the run did not finish within 180 s\n");
      grab();
    }
  });
  poll->start(100);
  app.exec();
  return exitCode;
}
