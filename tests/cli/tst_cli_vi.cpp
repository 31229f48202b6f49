// dplda run --model vi|dp-vi and --holdout as a user runs them: the JSON contract (perplexity for
// every model, DP-VI's ledger and claim) and one clear line with the right exit status for every
// bad option.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"

namespace {

using cli_test::dplda;
using cli_test::Outcome;
using cli_test::readJson;

}  // namespace

class TestCliVi : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;
  QString m_corpus, m_truth;

  QStringList base(const QString& model) const {
    return {"run", "--corpus", m_corpus, "--topics", "3", "--model", model, "--truth", m_truth};
  }

 private slots:
  void initTestCase() {
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    m_corpus = m_dir.filePath("c");
    m_truth = m_corpus + "/truth.json";
    const Outcome g = dplda({"generate", "--vocab", "30", "--topics", "3", "--docs", "3000", "--prior", "symmetric",
                             "--seed", "4", "--out", m_corpus});
    QVERIFY2(g.code == 0, qPrintable(g.err));
  }

  void viWritesTopicsAndPerplexity() {
    const QString json = m_dir.filePath("vi.json");
    const Outcome r = dplda(base("vi") + QStringList{"--holdout", "0.1", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("perplexity"));
    const QJsonObject o = readJson(json);
    QCOMPARE(o["model"].toString(), QString("vi"));
    QCOMPARE(o["topics"].toArray().size(), 3);
    QCOMPARE(o["topics"].toArray()[0].toArray().size(), 30);
    QCOMPARE(o["holdout"].toObject()["test_docs"].toInt(), 300);
    QCOMPARE(o["holdout"].toObject()["train_docs"].toInt(), 2700);
    const QJsonObject p = o["perplexity"].toObject();
    const double model = p["perplexity"].toDouble(), truth = o["truth_perplexity"].toObject()["perplexity"].toDouble();
    QVERIFY(model > 1 && model < 30);
    QVERIFY(truth > 1 && model > 0.97 * truth);  // a fit cannot be much better than the truth
    QVERIFY(model < 1.1 * truth);
    QVERIFY(p["estimator"].toString().contains("Wallach"));
    QVERIFY(p["smoothing"].toString().contains("uniform"));
    QVERIFY(p.contains("elbo_bound_perplexity"));
    QCOMPARE(o["privacy"].toObject()["privacy_claim"].toString(), QString("not-private"));
    QVERIFY(o["error"].toObject()["l1_mean"].toDouble() < 0.3);
  }

  void dpViWritesItsLedgerAndClaim() {
    const QString json = m_dir.filePath("dpvi.json");
    const Outcome r = dplda(base("dp-vi") + QStringList{"--vi", "batch", "--iterations", "5", "--clip", "4", "--epsilon",
                                                        "2", "--delta", "1e-6", "--noise-seed", "3", "--holdout", "0.1",
                                                        "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("proven"));
    const QJsonObject o = readJson(json);
    const QJsonObject priv = o["privacy"].toObject();
    QCOMPARE(priv["privacy_claim"].toString(), QString("proven"));
    QVERIFY(priv["private"].toBool());
    QCOMPARE(priv["accountant"].toString(), QString("zcdp-full-release"));
    QCOMPARE(priv["epsilon_spent"].toDouble(), 2.0);
    const QJsonObject e = priv["ledger"].toArray()[0].toObject();
    QCOMPARE(e["releases"].toDouble(), 5.0);
    QCOMPARE(e["clip"].toDouble(), 4.0);
    QCOMPARE(e["sensitivity"].toDouble(), 8.0);
    QVERIFY(e["sigma"].toDouble() > 0);
    QVERIFY(o["perplexity"].toObject()["perplexity"].toDouble() > 1);
    QVERIFY(priv["noise_source"].toString().contains("seeded"));
    // --release-only leaves the run's data-dependent statistics out.
    const QString json2 = m_dir.filePath("dpvi2.json");
    const Outcome r2 = dplda(base("dp-vi") + QStringList{"--iterations", "1", "--noise-seed", "3", "--release-only",
                                                         "--json", json2});
    QVERIFY2(r2.code == 0, qPrintable(r2.err));
    QVERIFY(!readJson(json2).contains("non_private_diagnostics"));
  }

  void poissonDpViStatesBothAccounts() {
    const QString json = m_dir.filePath("poisson.json");
    const Outcome r = dplda(base("dp-vi") + QStringList{"--vi", "poisson", "--batch-size", "300", "--iterations", "2",
                                                        "--vi-alpha", "learned", "--epsilon", "1", "--noise-seed", "3",
                                                        "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("Poisson sampling, rate q 0.1"));
    QVERIFY(r.out.contains("alpha learned"));
    const QJsonObject priv = readJson(json)["privacy"].toObject();
    QCOMPARE(priv["accountant"].toString(), QString("pld-poisson-sampled"));
    QCOMPARE(priv["privacy_claim"].toString(), QString("proven"));
    const QJsonObject e = priv["ledger"].toArray()[0].toObject();
    QCOMPARE(e["releases"].toDouble(), 20.0);
    QCOMPARE(e["method"].toString(), QString("poisson"));
    QVERIFY(std::abs(e["sampling_rate"].toDouble() - 0.1) < 1e-15);
    QVERIFY(e["epsilon_full_release"].toDouble() > 1.0);  // the old accounting of the same sigma
    QCOMPARE(priv["accountants"].toObject()["pld"].toDouble(), 1.0);
    const QJsonArray alpha = readJson(json)["alpha"].toArray();
    QVERIFY(std::abs(alpha[0].toDouble() + alpha[1].toDouble() + alpha[2].toDouble() - 1.0) < 1e-9);
  }

  void spectralReportsPerplexityToo() {
    const QString json = m_dir.filePath("spectral.json");
    const Outcome r = dplda({"run", "--corpus", m_corpus, "--topics", "3", "--holdout", "0.1", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject o = readJson(json);
    QCOMPARE(o["model"].toString(), QString("spectral"));
    QCOMPARE(o["holdout"].toObject()["test_docs"].toInt(), 300);
    QVERIFY(o["perplexity"].toObject()["perplexity"].toDouble() > 1);
    QCOMPARE(o["corpus"].toObject()["docs"].toInt(), 3000);
  }

  void badOptionsGiveOneClearLine_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("needle");
    QTest::newRow("model") << QStringList{"--model", "lda"} << 2 << "--model must be spectral, vi or dp-vi";
    QTest::newRow("clip-spectral") << QStringList{"--clip", "3"} << 2 << "--clip needs --model vi or dp-vi";
    QTest::newRow("clip-vi") << QStringList{"--model", "vi", "--clip", "3"} << 2 << "--clip needs --model dp-vi";
    QTest::newRow("clip-zero") << QStringList{"--model", "dp-vi", "--clip", "0"} << 2 << "--clip must be in (0, 1e12]";
    QTest::newRow("iterations") << QStringList{"--model", "vi", "--iterations", "0"} << 2 << "--iterations";
    QTest::newRow("vi-method") << QStringList{"--model", "vi", "--vi", "gibbs"} << 2 << "--vi must be batch, online or poisson";
    QTest::newRow("batch-size") << QStringList{"--model", "vi", "--vi", "batch", "--batch-size", "10"} << 2 << "--batch-size needs --vi online or poisson";
    QTest::newRow("vi-alpha") << QStringList{"--model", "vi", "--vi-alpha", "auto"} << 2 << "--vi-alpha must be symmetric or learned";
    QTest::newRow("vi-alpha-spectral") << QStringList{"--vi-alpha", "learned"} << 2 << "--vi-alpha needs --model vi or dp-vi";
    QTest::newRow("holdout") << QStringList{"--model", "vi", "--holdout", "1.5"} << 2 << "--holdout must be a fraction";
    QTest::newRow("holdout-spectral") << QStringList{"--holdout", "0"} << 2 << "--holdout must be a fraction";
    QTest::newRow("kappa") << QStringList{"--model", "vi", "--kappa", "0.2"} << 2 << "--kappa must be in (0.5, 1]";
    QTest::newRow("config") << QStringList{"--model", "dp-vi", "--config", "1"} << 2 << "--config applies to --model spectral only";
    QTest::newRow("epsilon") << QStringList{"--model", "dp-vi", "--epsilon", "-1"} << 2 << "--epsilon must be > 0";
    QTest::newRow("topics") << QStringList{"--model", "vi", "--topics", "31"} << 3 << "topic count k";
    QTest::newRow("sampler") << QStringList{"--model", "dp-vi", "--epsilon", "45"} << 3 << "truncated tails";
    QTest::newRow("clip-degenerate") << QStringList{"--model", "dp-vi", "--clip", "1e-300"} << 3 << "--clip = 1e-300";
    QTest::newRow("split-seed") << QStringList{"--model", "vi", "--holdout-seed", "3"} << 2 << "need --holdout";
  }

  void badOptionsGiveOneClearLine() {
    QFETCH(QStringList, extra);
    QFETCH(int, code);
    QFETCH(QString, needle);
    QStringList args{"run", "--corpus", m_corpus};
    if (!extra.contains("--topics")) args << "--topics" << "3";
    const Outcome r = dplda(args + extra);
    QCOMPARE(r.code, code);
    QVERIFY2(r.err.contains(needle), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
  }
};

QTEST_GUILESS_MAIN(TestCliVi)
#include "tst_cli_vi.moc"
