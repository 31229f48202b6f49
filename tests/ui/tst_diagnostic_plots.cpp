// The diagnostic plots (σ_k/γ_s, the eigenvalue spectrum, the topics, the failure probability of
// the private power method): their series, CSV tables and exports. Runs offscreen.
#include <QApplication>
#include <QTemporaryDir>
#include <QtTest>

#include "plot_files.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/series_plot.h"
#include "ui/plots/topics_plot.h"
#include "ui/plots/tpm_noise_plot.h"

using namespace dplda;
using namespace dplda::plot_files;

class TstDiagnosticPlots : public QObject {
  Q_OBJECT

 private slots:
  void init() { QVERIFY(m_dir.isValid()); }

  void sigmaGammaPlot() {
    SigmaGammaPlot plot;
    const QVector<double> k = {2, 3, 4, 5, 6, 7};
    QVector<double> sigma, sigmaTilde, gamma, gammaTilde;
    for (double x : k) {
      sigma << 1.0 / x;
      sigmaTilde << 1.0 / x - 0.2;  // the private lower bound can go negative
      gamma << 0.3 / (x * x);
      gammaTilde << 0.3 / (x * x) - 0.002;
    }
    QVERIFY(plot.setSeries("sigma", "σ_k(M̂2)", k, sigma));
    QVERIFY(plot.setSeries("sigma_tilde", "σ̃_k (private lower bound)", k, sigmaTilde));
    QVERIFY(plot.setSeries("gamma", "γ_s", k, gamma));
    QVERIFY(plot.setSeries("gamma_tilde", "γ̃_s", k, gammaTilde));
    QString error;
    QVERIFY(!plot.setSeries("bad", "bad", {1, 2}, {1}, -1, &error));
    QVERIFY(error.contains("bad"));
    QVERIFY(!plot.setSeries("bad", "bad", {1, std::nan("")}, {1, 2}, -1, &error));
    QCOMPARE(plot.seriesKeys().size(), 4);
    QCOMPARE(plot.hiddenPointCount(), 0);
    plot.setLogY(true);
    int nonPositive = 0;
    for (double v : sigmaTilde) nonPositive += v <= 0;
    for (double v : gammaTilde) nonPositive += v <= 0;
    QVERIFY(nonPositive > 0);
    QCOMPARE(plot.hiddenPointCount(), nonPositive);
    QVERIFY(plot.footnote().startsWith(QString::number(nonPositive) + " point(s) ≤ 0"));
    QVERIFY(plot.yAxis->range().lower > 0);
    checkAllExports(plot, m_dir.path(), "sigma_gamma", 4 * 6);  // hidden points stay in the CSV
    plot.setLogY(false);
    QCOMPARE(plot.hiddenPointCount(), 0);
    QVERIFY(plot.footnote().isEmpty());
    const Csv csv = readCsv(m_dir.path() + "/sigma_gamma.csv");
    QCOMPARE(csv.header, (QStringList{"series_key", "series_label", "x", "y"}));
    QCOMPARE(csv.rows[6][0], QString("sigma_tilde"));
    QCOMPARE(csv.rows[6][3].toDouble(), sigmaTilde[0]);
    plot.removeSeries("gamma");
    QCOMPARE(plot.csvTable().rows.size(), 3 * 6);
  }

  void eigenSpectrumPlot() {
    EigenSpectrumPlot plot;
    QString error;
    QVERIFY(!plot.setSpectrum({}, 1, &error));
    QVERIFY(!plot.setSpectrum({3, 2, 1}, 4, &error));
    QVERIFY(error.contains("k = 4"));
    QVERIFY(!plot.setSpectrum({3, std::nan(""), 1}, 1, &error));
    QVERIFY(!plot.hasData());
    const QVector<double> sigmas = {5.0, 3.0, 2.0, 0.5, -0.1};
    QVERIFY(plot.setSpectrum(sigmas, 3));
    QCOMPARE(plot.gap(), 1.5);
    QVERIFY(plot.yAxis->range().lower < -0.1);  // the negative eigenvalue is visible
    checkAllExports(plot, m_dir.path(), "spectrum", 5);
    const Csv csv = readCsv(m_dir.path() + "/spectrum.csv");
    QCOMPARE(csv.header, (QStringList{"index", "sigma", "in_top_k", "k"}));
    for (int i = 0; i < 5; ++i) {
      QCOMPARE(csv.rows[i][0].toInt(), i + 1);
      QCOMPARE(csv.rows[i][1].toDouble(), sigmas[i]);
      QCOMPARE(csv.rows[i][2], QString(i < 3 ? "1" : "0"));
    }
    QVERIFY(plot.setSpectrum({2, 1}, 2));
    QVERIFY(std::isnan(plot.gap()));  // no σ_{k+1}: no gap
  }

  void topicsPlot() {
    // Three true topics over six words; recovered topics are a noisy permutation.
    const QVector<QVector<double>> truth = {{0.5, 0.3, 0.1, 0.05, 0.05, 0.0},
                                            {0.0, 0.1, 0.2, 0.3, 0.4, 0.0},
                                            {0.1, 0.1, 0.1, 0.1, 0.1, 0.5}};
    const QVector<QVector<double>> recovered = {{0.1, 0.1, 0.2, 0.3, 0.3, 0.0},
                                                {0.12, 0.08, 0.1, 0.1, 0.1, 0.5},
                                                {0.45, 0.35, 0.1, 0.05, 0.05, 0.0}};
    const QVector<int> matching = {2, 0, 1};
    const QStringList words = {"gene", "dna", "cell", "ball", "goal", "vote"};
    TopicsPlot plot;
    QString error;
    QVERIFY(!plot.setTopics(truth, recovered, {2, 0, 5}, words, 3, &error));
    QVERIFY(error.contains("matching[2]"));
    QVERIFY(!plot.setTopics(truth, recovered, matching, {"a"}, 3, &error));
    QVERIFY(!plot.setTopics(truth, {{0.5, 0.5}}, {0, 0, 0}, {}, 3, &error));
    QVERIFY(!plot.hasData());
    QVERIFY2(plot.setTopics(truth, recovered, matching, words, 3, &error), qPrintable(error));
    QCOMPARE(plot.topicCount(), 3);
    QCOMPARE(plot.shownWords(), (QVector<int>{0, 1, 2}));  // by max(true, recovered)
    // Topic 1 vs recovered 3: |0.5 - 0.45| + |0.3 - 0.35| = 0.1 in ℓ1.
    QVERIFY2(plot.footnote().contains("ℓ₁ = 0.1,"), qPrintable(plot.footnote()));
    plot.setCurrentTopic(1);
    QCOMPARE(plot.shownWords(), (QVector<int>{4, 3, 2}));  // goal 0.4, ball 0.3, then cell 0.2 (max)
    plot.setCurrentTopic(99);
    QCOMPARE(plot.currentTopic(), 2);
    QCOMPARE(plot.shownWords().first(), 5);  // "vote"
    checkAllExports(plot, m_dir.path(), "topics", 3 * 3);
    const Csv csv = readCsv(m_dir.path() + "/topics.csv");
    QCOMPARE(csv.header, (QStringList{"topic", "recovered_topic", "rank", "word_index", "word", "true_prob",
                                      "recovered_prob"}));
    for (const QStringList& row : csv.rows) {
      const int t = row[0].toInt() - 1, r = row[1].toInt() - 1, w = row[3].toInt();
      QCOMPARE(r, matching[t]);
      QCOMPARE(row[4], words[w]);
      QCOMPARE(row[5].toDouble(), truth[t][w]);
      QCOMPARE(row[6].toDouble(), recovered[r][w]);
    }
    // Without truth (real data): recovered topics only.
    QVERIFY(plot.setTopics({}, recovered, {}, {}, 2, &error));
    QCOMPARE(plot.topicCount(), 3);
    QCOMPARE(plot.csvTable().rows.first()[4], QString("w%1").arg(plot.csvTable().rows.first()[3]));
  }

  void failureProbabilityPlot() {
    const auto [lo, hi] = wilsonInterval(0.5, 100);  // reference: 0.4038, 0.5962
    QVERIFY(std::abs(lo - 0.40383) < 1e-4);
    QVERIFY(std::abs(hi - 0.59617) < 1e-4);
    const auto [lo0, hi0] = wilsonInterval(0.0, 20);  // reference: [0, 0.1611]
    QCOMPARE(lo0, 0.0);
    QVERIFY(std::abs(hi0 - 0.16113) < 1e-4);

    FailureProbabilityPlot plot;
    plot.setNoiseLabel("σ√d");
    QVERIFY(plot.xAxis->label().contains("σ√d"));
    QString error;
    QVERIFY(!plot.setSeries("d25", "d = 25", {0.1, 0.2}, {0.5, 1.2}, -1, &error));
    QVERIFY(error.contains("[0, 1]"));
    const QVector<double> xs = {0.4, 0.1, 0.2, 0.8};  // unsorted on purpose
    const QVector<double> ys = {0.6, 0.0, 0.1, 1.0};
    QVERIFY(plot.setSeries("d25", "d = 25", xs, ys));
    QVERIFY(plot.setSeries("d50", "d = 50", {0.1, 0.2, 0.4, 0.8}, {0.0, 0.3, 0.9, 1.0}));
    QVERIFY(!plot.setTrials("d25", {10, 10}, &error));
    QVERIFY(!plot.setTrials("nope", {10}, &error));
    QVERIFY(plot.setTrials("d25", {40, 10, 20, 30}));
    QCOMPARE(plot.yAxis->range().lower, -0.03);
    QCOMPARE(plot.yAxis->range().upper, 1.03);
    checkAllExports(plot, m_dir.path(), "tpm", 8);
    const Csv csv = readCsv(m_dir.path() + "/tpm.csv");
    QCOMPARE(csv.header, (QStringList{"series_key", "series_label", "x", "y", "trials", "ci95_low", "ci95_high"}));
    // Sorted by x, trials follow their points: x = 0.4 had 40 trials.
    QCOMPARE(csv.rows[2][2].toDouble(), 0.4);
    QCOMPARE(csv.rows[2][4], QString("40"));
    QCOMPARE(csv.rows[2][5].toDouble(), wilsonInterval(0.6, 40).first);
    QVERIFY(csv.rows[4][4].isEmpty());  // d50 has no trial counts
    plot.setLogX(true);
    QCOMPARE(plot.xAxis->scaleType(), QCPAxis::stLogarithmic);
    // Setting the series again drops stale trial counts.
    QVERIFY(plot.setSeries("d25", "d = 25", xs, ys));
    QVERIFY(plot.csvTable().rows[0][4].isEmpty());
  }

 private:
  QTemporaryDir m_dir;
};

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  TstDiagnosticPlots test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_diagnostic_plots.moc"
