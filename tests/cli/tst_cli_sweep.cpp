// `dplda sweep` end to end: the binary (path in DPLDA_CLI, set by ctest) runs a tiny custom
// sweep and a preset; the tables, figures and report exist and parse, seeds fix the tables,
// and bad arguments are usage errors (exit status 2).
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/experiments/sweep.h"
#include "csv_fields.h"

using namespace dplda;

namespace {

struct Run {
  int exitCode = -1;
  QString out, err;
};

Run runCli(const QStringList& args, int timeoutMs = 120000) {
  Run r;
  const QString cli = qEnvironmentVariable("DPLDA_CLI");
  if (cli.isEmpty()) return r;
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  if (!env.contains("QT_QPA_PLATFORM")) env.insert("QT_QPA_PLATFORM", "offscreen");
  env.remove("XDG_RUNTIME_DIR");  // as on a bare CI machine, where Qt would complain about it
  p.setProcessEnvironment(env);
  p.start(cli, args);
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    r.err = "timed out";
    return r;
  }
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

QString readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

// Header + rows of a CSV file (plot CSVs start with a "# {metadata}" line, skipped); every row
// must have as many fields as the header.
QVector<QStringList> readCsv(const QString& path, QString* problem) {
  QVector<QStringList> rows;
  const QStringList lines = readAll(path).split('\n', Qt::SkipEmptyParts);
  for (const QString& line : lines)
    if (!line.startsWith('#')) rows << csvFields(line);
  for (int i = 1; i < rows.size(); ++i) {
    if (rows[i].size() != rows[0].size()) {
      *problem = QString("%1 line %2: %3 fields, header has %4")
                     .arg(path)
                     .arg(i + 1)
                     .arg(rows[i].size())
                     .arg(rows[0].size());
    }
  }
  return rows;
}

}  // namespace

class TestCliSweep : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY2(!qEnvironmentVariable("DPLDA_CLI").isEmpty(), "set DPLDA_CLI to the dplda binary (ctest does)");
    QVERIFY(m_dir.isValid());
    const Run g = runCli({"generate", "--vocab", "20", "--topics", "3", "--docs", "3000", "--seed", "2",
                          "--out", m_dir.filePath("corpus")});
    QVERIFY2(g.exitCode == 0, qPrintable(g.err));
  }

  void customSweepWritesTablesFiguresAndReport() {
    const QString out = m_dir.filePath("sweep");
    const Run r = runCli({"sweep",
                          "--corpus",
                          m_dir.filePath("corpus"),
                          "--truth",
                          m_dir.filePath("corpus/truth.json"),
                          "--topics",
                          "3",
                          "--configs",
                          "none,1,2",
                          "--epsilons",
                          "0.5:4:3",
                          "--trials",
                          "2",
                          "--bounds",
                          "printed",
                          "--formats",
                          "png,svg",
                          "--threads",
                          "2",
                          "--seed",
                          "5",
                          "--out",
                          out});
    QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QVERIFY2(r.err.contains("100%"), qPrintable(r.err));  // progress on stderr

    QString problem;
    const auto results = readCsv(out + "/results.csv", &problem);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(results.size(), 1 + 3 * 3 * 2);  // header + configurations x epsilons x trials
    const int released = results[0].indexOf("released"), config = results[0].indexOf("config"),
              error = results[0].indexOf("error_l2"), eps = results[0].indexOf("epsilon");
    QVERIFY(released >= 0 && config >= 0 && error >= 0 && eps >= 0);
    for (int i = 1; i < results.size(); ++i) {
      if (results[i][released] == "true") {
        bool ok = false;
        const double e = results[i][error].toDouble(&ok);
        QVERIFY(ok && e >= 0.0 && e <= 1.5);
      }
      QVERIFY(results[i][eps].toDouble() >= 0.5 - 1e-12 && results[i][eps].toDouble() <= 4 + 1e-12);
    }
    const auto summary = readCsv(out + "/summary.csv", &problem);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(summary.size(), 1 + 3 * 3);
    QVERIFY(summary[0].contains("error_l2_median") && summary[0].contains("release_rate"));
    QVERIFY(QFile::exists(out + "/timings.csv"));

    // The figures: PNG images that load, SVG, and the data behind each plot.
    for (const char* name : {"error_l2", "error_l1", "utility_loss_l2", "release_rate"}) {
      const QString base = out + "/figures/" + name;
      QImage png(base + ".png");
      QVERIFY2(!png.isNull(), qPrintable(base + ".png does not load"));
      QCOMPARE(png.width(), 1440);
      QVERIFY(readAll(base + ".svg").contains("<svg"));
      QVERIFY(readCsv(base + ".csv", &problem).size() > 1);
      QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // The report: seeds, version, bounds, noise source, release rates, figure links that resolve.
    const QString report = readAll(out + "/report.md");
    const SweepSeeds seeds = SweepSeeds::fromSeed(5);
    for (std::uint64_t s : {seeds.data, seeds.noise, seeds.init})
      QVERIFY(report.contains(QString::number(s)));
    QVERIFY(report.contains("--seed 5"));
    QVERIFY(report.contains(DPLDA_VERSION));
    QVERIFY(report.contains("printed"));
    QVERIFY(report.contains("seeded (mt19937_64)"));
    QVERIFY(report.contains("Release rates"));
    QVERIFY(report.contains("](figures/error_l2.png)"));
    const QRegularExpression link(R"(\]\((figures/[^)]+)\))");
    int links = 0;
    for (auto it = link.globalMatch(report); it.hasNext(); ++links) {
      const QString rel = it.next().captured(1);
      QVERIFY2(QFile::exists(out + "/" + rel), qPrintable(rel));
    }
    QVERIFY(links >= 12);
  }

  void seedsFixTheResults() {
    auto sweep = [&](const QString& dir, const QString& seed) {
      return runCli({"sweep", "--corpus", m_dir.filePath("corpus"), "--topics", "3", "--configs", "none,1",
                     "--epsilons", "1,3", "--trials", "2", "--formats", "none", "--seed", seed, "--out",
                     dir});
    };
    QCOMPARE(sweep(m_dir.filePath("a"), "9").exitCode, 0);
    QCOMPARE(sweep(m_dir.filePath("b"), "9").exitCode, 0);
    QCOMPARE(sweep(m_dir.filePath("c"), "10").exitCode, 0);
    const QString a = readAll(m_dir.filePath("a/results.csv"));
    QVERIFY(!a.isEmpty());
    QCOMPARE(readAll(m_dir.filePath("b/results.csv")), a);
    QVERIFY(readAll(m_dir.filePath("c/results.csv")) != a);
    // No truth given: no error columns filled, the utility loss is.
    QVERIFY(!readAll(m_dir.filePath("a/report.md")).contains("error_l2.png"));
  }

  void presetRuns() {
    const QString out = m_dir.filePath("preset");
    const Run r = runCli(
        {"sweep", "--preset", "figure2-small-corpus", "--trials", "1", "--formats", "png", "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QString problem;
    QCOMPARE(readCsv(out + "/results.csv", &problem).size(), 1 + 5 * 10 * 1);
    QVERIFY(problem.isEmpty());
    const QString report = readAll(out + "/report.md");
    QVERIFY(report.contains("Figure 2c"));
    QVERIFY(report.contains("sound"));
    QVERIFY(!QImage(out + "/figures/release_rate.png").isNull());
  }

  // error-vs-n writes its slope table three ways: slopes.csv, the report section, a figure per epsilon.
  void errorVsNWritesItsSlopes() {
    const QString out = m_dir.filePath("error-vs-n");
    const Run r = runCli({"sweep", "--preset", "error-vs-n", "--trials", "2", "--formats", "png", "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QString problem;
    const QVector<QStringList> slopes = readCsv(out + "/slopes.csv", &problem);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(slopes.size(), 1 + 1 + 5 * 3);  // none once, five configurations at three epsilons
    QCOMPARE(slopes[0].mid(0, 5), (QStringList{"configuration", "epsilon", "quantity", "n_used", "slope"}));
    QCOMPARE(slopes[1][0], QString("none"));
    QVERIFY(slopes[1][4].toDouble() < 0);  // the non-private error falls with N
    const QString report = readAll(out + "/report.md");
    QVERIFY(report.contains("## Error against N: fitted slopes beside the theory"));
    QVERIFY(report.contains("Theorem 10"));
    for (const char* eps : {"1", "10", "100"})
      QVERIFY(!QImage(out + "/figures/error_vs_n_eps" + eps + ".png").isNull());
    QVERIFY(!QFile::exists(out + "/figures/error_l2.png"));  // no error-vs-epsilon figures here
  }

  void badArgumentsAreUsageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    const QString out = "/nonexistent-should-not-be-created";
    QTest::newRow("unknown option") << QStringList{"sweep", "--preset", "figure2", "--out",
                                                   out,     "--colour", "red"}
                                    << "--colour";
    QTest::newRow("no out") << QStringList{"sweep", "--preset", "figure2"} << "--out";
    QTest::newRow("unknown preset") << QStringList{"sweep", "--preset", "figure9", "--out", out} << "figure9";
    QTest::newRow("zero trials") << QStringList{"sweep", "--preset", "figure2", "--trials", "0", "--out", out}
                                 << "--trials";
    QTest::newRow("bad format") << QStringList{"sweep", "--preset", "figure2", "--formats",
                                               "gif",   "--out",    out}
                                << "gif";
    QTest::newRow("bad bounds") << QStringList{"sweep", "--preset", "figure2", "--bounds",
                                               "loose", "--out",    out}
                                << "loose";
    QTest::newRow("preset and corpus")
        << QStringList{"sweep", "--preset", "figure2", "--corpus", "x", "--out", out} << "--corpus";
    QTest::newRow("neither") << QStringList{"sweep", "--out", out} << "--preset";
    QTest::newRow("bad epsilons") << QStringList{"sweep",      "--corpus", "x",     "--topics", "3",
                                                 "--epsilons", "2:0.1:5",  "--out", out}
                                  << "epsilons";
    QTest::newRow("bad configs") << QStringList{"sweep",     "--corpus", "x",     "--topics", "3",
                                                "--configs", "1,9",      "--out", out}
                                 << "9";
    QTest::newRow("bad topics") << QStringList{"sweep", "--corpus", "x", "--topics", "three", "--out", out}
                                << "--topics";
    QTest::newRow("vi online") << QStringList{"sweep", "--corpus", "x", "--topics", "3", "--vi", "online", "--out", out}
                               << "--vi (the sweep's VI and DP-VI) must be batch or poisson";
    QTest::newRow("batch-size without poisson")
        << QStringList{"sweep", "--corpus", "x", "--topics", "3", "--batch-size", "100", "--out", out}
        << "--batch-size needs --vi poisson";
    QTest::newRow("vi-alpha") << QStringList{"sweep", "--corpus", "x", "--topics", "3", "--vi-alpha", "auto", "--out", out}
                              << "--vi-alpha must be symmetric or learned";
    QTest::newRow("vi with preset")
        << QStringList{"sweep", "--preset", "figure2", "--vi", "poisson", "--out", out} << "--vi cannot be combined";
    QTest::newRow("negative threads")
        << QStringList{"sweep", "--preset", "figure2", "--threads", "-1", "--out", out} << "--threads";
  }
  void badArgumentsAreUsageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const Run r = runCli(args);
    QVERIFY2(r.exitCode == 2, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QVERIFY2(r.err.contains("usage error") && r.err.contains(mentions), qPrintable(r.err));
    QVERIFY2(r.err.count('\n') == 1, qPrintable("one line on stderr, got: " + r.err));
    QVERIFY(!QFile::exists("/nonexistent-should-not-be-created"));
  }

  void missingCorpusIsBadInput() {
    const Run r = runCli({"sweep", "--corpus", m_dir.filePath("no-such-corpus"), "--topics", "3", "--out",
                          m_dir.filePath("x")});
    QCOMPARE(r.exitCode, 3);
    QVERIFY(r.err.contains("no-such-corpus"));
    QVERIFY2(r.err.count('\n') == 1, qPrintable("one line on stderr, got: " + r.err));
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_MAIN(TestCliSweep)
#include "tst_cli_sweep.moc"
