// Opening a sweep folder in the app (issue 25: "the app can open it"): a folder written by
// writeExperimentFolder, as `dplda sweep --out` writes it, opens as a source of the Sweeps tab with
// the run's own figures; it can be pinned and saved again, not run; a folder without a sweep.json
// or with a broken one is refused with a message and changes nothing.
#include <QFile>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

#include "core/experiments/presets.h"
#include "core/experiments/sweep_archive.h"
#include "tests/experiments/sweep_test_case.h"
#include "ui/experiments/experiment_output.h"
#include "ui/main_window.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/results_panel.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/worker/run_worker.h"

using namespace dplda;

namespace {

ExperimentRun smallRun() {
  static const SyntheticCorpus sc = sweep_test::makeCorpus(30, 3, 3000, 5);
  ExperimentRun run;
  run.preset.name = "folder-test";
  run.preset.title = "A sweep written to a folder";
  run.preset.description = "configurations none, 1 and 1/clip/gdp";
  run.preset.sweep.cases = {sweep_test::loadedCase(sc)};
  run.preset.sweep.configurations = parseConfigurations("none,1,1/clip/gdp").value();
  run.preset.sweep.epsilons = {0.5, 5.0, 50.0};
  run.preset.sweep.trials = 2;
  run.preset.sweep.threads = 2;
  auto r = runSweep(run.preset.sweep);
  if (!r.ok()) qFatal("%s", r.status().message().c_str());
  run.sweep = std::make_shared<const SweepResult>(std::move(r.value()));
  run.finished = true;
  return run;
}

QByteArray fileText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestSweepFolder : public QObject {
  Q_OBJECT

 private slots:
  void openedFolderShowsTheSweepsFiguresAndSavesTheSameFolder() {
    const ExperimentRun run = smallRun();
    QTemporaryDir written;
    ReportContext context;
    context.title = run.preset.title;
    context.description = run.preset.description;
    context.commandLine = "dplda sweep --corpus C --configs none,1,1/clip/gdp --out " + written.path().toStdString();
    context.seedNote = "all seeds derived from --seed 1";
    auto out = writeExperimentFolder(run, written.path().toStdString(), {}, context);
    QVERIFY2(out.ok(), out.status().message().c_str());
    QVERIFY(QFileInfo(written.filePath("sweep.json")).size() > 0);

    MainWindow w;
    w.setAutoRun(false);
    ExperimentView* view = w.results()->experiments();
    QString err;
    QVERIFY2(w.openSweepResults(written.path(), &err), qPrintable(err));
    QVERIFY(view->sourceIsOpenedFolder());
    QCOMPARE(w.results()->currentWidget(), static_cast<QWidget*>(view));
    // The figures of the run itself, drawn from the file: the same curves, point for point.
    QStringList keys;
    for (const ExperimentFigure& f : experimentFigures(run)) keys << f.key;
    QCOMPARE(view->figureKeys(), keys);
    QVERIFY(view->setCurrentFigure("error_l2"));
    ErrorVsEpsilonPlot expected;
    for (const ExperimentFigure& f : experimentFigures(run))
      if (f.key == "error_l2") QVERIFY(f.fill(expected, &err));
    QVERIFY(!expected.curveKeys().isEmpty());
    QCOMPARE(view->errorPlot()->curveKeys(), expected.curveKeys());
    for (const QString& key : expected.curveKeys()) {
      ErrorVsEpsilonPlot::CurveData a, b;
      QVERIFY(expected.curveData(key, &a));
      QVERIFY(view->errorPlot()->curveData(key, &b));
      QCOMPARE(b.eps, a.eps);
      QCOMPARE(b.median, a.median);
    }
    // Read from disk: nothing to run; pinning and saving work as for a sweep run here.
    QPushButton* runButton = nullptr;
    for (QPushButton* b : view->findChildren<QPushButton*>())
      if (b->text() == "Run") runButton = b;
    QVERIFY(runButton && !runButton->isEnabled());
    QVERIFY2(view->pinShown(&err), qPrintable(err));
    QCOMPARE(w.model()->state().pinnedSweeps.size(), 1);
    QTemporaryDir again;
    QVERIFY2(view->saveShown(again.path(), &err), qPrintable(err));
    for (const char* f : {"results.csv", "summary.csv", "timings.csv", "sweep.json"})
      QCOMPARE(fileText(again.filePath(f)), fileText(written.filePath(f)));
    // The report names the command that ran the sweep, not the app.
    QVERIFY(fileText(again.filePath("report.md")).contains("--configs none,1,1/clip/gdp"));
    QVERIFY(QFileInfo(again.filePath("figures/error_l2.png")).size() > 0);
  }

  void foldersThatAreNotSweepsAreRefusedAndChangeNothing() {
    MainWindow w;
    w.setAutoRun(false);
    ExperimentView* view = w.results()->experiments();
    const QString before = view->source();
    QTemporaryDir empty;
    QString err;
    QVERIFY(!w.openSweepResults(empty.path(), &err));
    QVERIFY2(err.contains("holds no sweep.json"), qPrintable(err));
    QFile broken(empty.filePath("sweep.json"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("{\"format\": \"dplda-sweep\", \"version\": 1, \"experiment\": 3}");
    broken.close();
    QVERIFY(!w.openSweepResults(empty.path(), &err));
    QVERIFY2(err.contains("experiment must be an object"), qPrintable(err));
    QCOMPARE(view->source(), before);
  }
};

QTEST_MAIN(TestSweepFolder)
#include "tst_sweep_folder.moc"
