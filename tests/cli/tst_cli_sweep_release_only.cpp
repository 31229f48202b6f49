// `dplda sweep --release-only` (issue 23 §2): results.csv, summary.csv, report.md and the figures
// hold released values only. The columns allowed are listed here, apart from the code: a new
// column that is not a released value fails the test until it is classified. The same sweep
// without the flag is the negative control (it does carry exact statistics).
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
  int code = -1;
  QString out, err;
};

Run runCli(const QStringList& args) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  if (!env.contains("QT_QPA_PLATFORM")) env.insert("QT_QPA_PLATFORM", "offscreen");
  p.setProcessEnvironment(env);
  p.start(qEnvironmentVariable("DPLDA_CLI"), args);
  if (!p.waitForFinished(600000)) return {-1, {}, "timed out"};
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

QString readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QStringList header(const QString& csv) { return readAll(csv).section('\n', 0, 0).split(','); }

// The released columns: public inputs, the release decision, errors against the public truth,
// the released Procedure-1 bounds, the ledger's budgets and noise scales.
const QSet<QString> kReleasedResults = {
    "case", "N", "d", "k", "alpha0", "config", "edges", "epsilon", "delta", "bounds", "trial", "noise_seed",
    "released", "status", "reason", "error_l2", "error_l1", "error_alpha", "error_frobenius", "sigma_k_tilde",
    "gamma_s_tilde", "epsilon_spent", "delta_spent", "epsilon_gdp", "epsilon_pld", "noise_scales"};

QSet<QString> releasedSummary() {
  QSet<QString> s = {"case", "N", "d", "k", "alpha0", "config", "edges", "epsilon", "trials", "released",
                     "release_rate"};
  for (const char* q : {"error_l2", "error_l1", "error_alpha", "sigma_k_tilde", "gamma_s_tilde", "error_frobenius"})
    for (const char* part : {"_median", "_q10", "_q90"}) s.insert(QString(q) + part);
  return s;
}

}  // namespace

class TestCliSweepReleaseOnly : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;

  QStringList sweep(const QString& out) const {
    return {"sweep", "--corpus", m_dir.filePath("corpus"), "--truth", m_dir.filePath("corpus/truth.json"),
            "--topics", "3", "--configs", "none,1,dp-vi", "--epsilons", "1,4", "--trials", "2", "--holdout", "0.1",
            "--iterations", "3", "--formats", "png", "--threads", "2", "--seed", "3", "--out", out};
  }

 private slots:
  void initTestCase() {
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    const Run g = runCli({"generate", "--vocab", "20", "--topics", "3", "--docs", "3000", "--seed", "2", "--out",
                          m_dir.filePath("corpus")});
    QVERIFY2(g.code == 0, qPrintable(g.err));
  }

  void onlyReleasedValuesAreWritten() {
    const QString full = m_dir.filePath("full"), rel = m_dir.filePath("release");
    Run r = runCli(sweep(full));
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = runCli(sweep(rel) << "--release-only");
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(!r.out.contains(" ms per run"));  // no timing on stdout either

    // The negative control carries what the release-only output must not.
    const QStringList fullHeader = header(full + "/results.csv");
    QVERIFY(fullHeader.contains("loss_l2") && fullHeader.contains("perplexity") && fullHeader.contains("sigma_k"));
    const int sigmaColumn = static_cast<int>(fullHeader.indexOf("sigma_k"));
    const QString exactSigma = readAll(full + "/results.csv").section('\n', 1, 1).split(',').value(sigmaColumn);
    QVERIFY2(exactSigma.size() > 6, qPrintable(exactSigma));  // a full-precision number: its text is a fingerprint

    for (const QString& c : header(rel + "/results.csv")) QVERIFY2(kReleasedResults.contains(c), qPrintable(c));
    const QSet<QString> summaryAllowed = releasedSummary();
    for (const QString& c : header(rel + "/summary.csv")) QVERIFY2(summaryAllowed.contains(c), qPrintable(c));
    QVERIFY(header(rel + "/results.csv").contains("error_l2"));  // the released utility stays

    // No row of a non-private configuration: configurations 1 and dp-vi, 2 epsilons, 2 trials.
    const QStringList rows = readAll(rel + "/results.csv").split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 1 + 2 * 2 * 2);
    const int config = static_cast<int>(header(rel + "/results.csv").indexOf("config"));
    for (int i = 1; i < rows.size(); ++i) {
      const QString label = rows[i].split(',').value(config);
      QVERIFY2(label == "1" || label == "dp-vi", qPrintable(rows[i]));
    }
    QVERIFY(!QFile::exists(rel + "/timings.csv"));
    QVERIFY(QFile::exists(full + "/timings.csv"));

    const QString report = readAll(rel + "/report.md");
    QVERIFY(report.contains("Release-only output"));
    for (const char* banned : {"non-private perplexity", "Median held-out perplexity", "utility loss (mean",
                               "## Timing", "ms per run", "timings.csv", "non-private error"}) {
      QVERIFY2(!report.contains(banned), banned);
    }
    QVERIFY(readAll(full + "/report.md").contains("## Timing"));

    // Figures: none of the non-released quantities, no non-private curve or line.
    QVERIFY(!QFile::exists(rel + "/figures/utility_loss_l2.png"));
    QVERIFY(!QFile::exists(rel + "/figures/perplexity.png"));
    QVERIFY(QFile::exists(full + "/figures/perplexity.png"));
    QVERIFY(QFile::exists(rel + "/figures/error_l2.png"));
    const QDir figures(rel + "/figures");
    for (const QString& f : figures.entryList({"*.csv"})) {
      const QString text = readAll(figures.filePath(f));
      QVERIFY2(!text.contains("non-private"), qPrintable(f));
    }
    // sweep.json, the archive the app opens, too; the full sweep's holds it (the check can fail).
    QVERIFY(readAll(full + "/sweep.json").contains(exactSigma));
    for (const QString& f : QDir(rel).entryList({"*.csv", "*.md", "*.json"}) + figures.entryList({"*.csv"})) {
      const QString text = readAll(QDir(rel).filePath(f)) + readAll(figures.filePath(f));
      QVERIFY2(!text.contains(exactSigma), qPrintable(f + " holds the exact sigma_k " + exactSigma));
    }
  }

  void refusals() {
    Run r = runCli({"sweep", "--preset", "tpm-noise", "--release-only", "--out", m_dir.filePath("x")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--release-only applies to epsilon sweeps"), qPrintable(r.err));
    r = runCli({"sweep", "--corpus", m_dir.filePath("corpus"), "--topics", "3", "--configs", "none,vi",
                "--release-only", "--out", m_dir.filePath("y")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("needs a private configuration"), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestCliSweepReleaseOnly)
#include "tst_cli_sweep_release_only.moc"
