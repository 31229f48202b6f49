// Issue 23 §2: `dplda run --holdout --release-only` on two corpora that differ only in one held-out
// document (the same noise seed, hence the same released topics). Without --release-only the
// exact held-out figures tell the two apart (the negative control); with it the outputs are
// byte-identical, and with --holdout-epsilon they differ only in the private evaluation's values.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "cli_runner.h"
#include "core/corpus/holdout.h"
#include "core/corpus/uci_io.h"

using namespace dplda;
using cli_test::Outcome;
using cli_test::readJson;

namespace {

Outcome cli(const QStringList& args) { return cli_test::dplda(args); }

QByteArray fileBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Every key or text that carries a statistic of the held-out documents.
const char* const kHeldOutStatistics[] = {"\"perplexity\"", "truth_perplexity", "log_likelihood", "bound_tokens",
                                          "observed_tokens", "scored_tokens", "elbo_bound"};

}  // namespace

class TestCliHoldout : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;
  QString m_d, m_dPrime;

  // The private runs of the issue: the whitened release (spectral) and DP-VI.
  QStringList run(const QString& corpus, const QString& model) const {
    QStringList args{"run", "--corpus", corpus, "--topics", "3", "--holdout", "0.1", "--noise-seed", "7",
                     "--truth", m_d + "/truth.json"};
    if (model == "spectral") args << "--config" << "whitened" << "--accountant" << "gdp" << "--epsilon" << "4";
    else args << "--model" << "dp-vi" << "--vi" << "batch" << "--iterations" << "3" << "--epsilon" << "2";
    return args;
  }

  // Runs on D and D′ with `extra`; the JSON files go to <tag>-d.json and <tag>-dprime.json.
  std::pair<Outcome, Outcome> both(const QString& model, const QStringList& extra, const QString& tag) const {
    const Outcome a = cli(run(m_d, model) + extra + QStringList{"--json", m_dir.filePath(tag + "-d.json")});
    const Outcome b = cli(run(m_dPrime, model) + extra + QStringList{"--json", m_dir.filePath(tag + "-dprime.json")});
    return {a, b};
  }

 private slots:
  void initTestCase() {
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    m_d = m_dir.filePath("d");
    m_dPrime = m_dir.filePath("dprime");
    const Outcome g = cli({"generate", "--vocab", "30", "--topics", "3", "--docs", "2000", "--prior", "symmetric",
                             "--seed", "5", "--out", m_d});
    QVERIFY2(g.code == 0, qPrintable(g.err));
    // D′: the first held-out document (the public split of run's defaults) replaced by 300 copies
    // of word 0; every training document is the same.
    const Corpus d = readUciCorpus(m_d.toStdString()).value();
    const HoldoutSplit split = splitHoldout(d, 0.1, 1).value();
    const int slot = split.testIds.front();
    std::vector<CountTriplet> t;
    for (int n = 0; n < d.docCount(); ++n) {
      if (n == slot) continue;
      for (SparseCounts::InnerIterator it(d.counts, n); it; ++it) t.push_back({n, static_cast<int>(it.col()), it.value()});
    }
    t.push_back({slot, 0, 300.0});
    Corpus dPrime = buildCorpus(d.docCount(), d.vocabSize(), t).value();
    dPrime.vocab = d.vocab;
    QVERIFY(writeUciCorpus(dPrime, m_dPrime.toStdString()).isOk());
    // The same provenance (generate's public vocabulary) on both neighbours.
    QVERIFY(writeCorpusProvenance(d.provenance.vocabulary == VocabularyOrigin::Unknown
                                      ? readCorpusProvenance(m_d.toStdString()).value()
                                      : d.provenance,
                                  m_dPrime.toStdString())
                .isOk());
  }

  void exactFiguresTellTheNeighboursApart_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("spectral") << "spectral";
    QTest::newRow("dp-vi") << "dp-vi";
  }
  // The negative control: the construction is a distinguisher when the exact figures are printed.
  void exactFiguresTellTheNeighboursApart() {
    QFETCH(QString, model);
    const auto [a, b] = both(model, {}, "teach-" + model);
    QVERIFY2(a.code == 0 && b.code == 0, qPrintable(a.err + b.err));
    const QJsonObject pa = readJson(m_dir.filePath("teach-" + model + "-d.json"))["perplexity"].toObject();
    const QJsonObject pb = readJson(m_dir.filePath("teach-" + model + "-dprime.json"))["perplexity"].toObject();
    QVERIFY(pa["bound_tokens"].toDouble() > 0);
    QVERIFY(pa["bound_tokens"].toDouble() != pb["bound_tokens"].toDouble());
    QVERIFY(pa["perplexity"].toDouble() != pb["perplexity"].toDouble());
    QVERIFY(a.out.contains("non-private"));  // labelled as what it is
  }

  void releaseOnlyOutputsAreIdentical_data() { exactFiguresTellTheNeighboursApart_data(); }
  void releaseOnlyOutputsAreIdentical() {
    QFETCH(QString, model);
    const auto [a, b] = both(model, {"--release-only"}, "release-" + model);
    QVERIFY2(a.code == 0 && b.code == 0, qPrintable(a.err + b.err));
    QCOMPARE(a.out, b.out);
    const QByteArray ja = fileBytes(m_dir.filePath("release-" + model + "-d.json"));
    QVERIFY(!ja.isEmpty());
    QCOMPARE(ja, fileBytes(m_dir.filePath("release-" + model + "-dprime.json")));
    for (const char* key : kHeldOutStatistics) {
      QVERIFY2(!ja.contains(key), key);
      QVERIFY2(!a.out.contains(QString(key).remove('"')) || QString(key) == "\"perplexity\"", key);
    }
    QVERIFY(a.out.contains("perplexity withheld"));
    const QJsonObject o = QJsonDocument::fromJson(ja).object();
    QCOMPARE(o["holdout"].toObject()["test_docs"].toInt(), 200);  // the split itself is public
    QVERIFY(o.contains("topics"));
  }

  void privateEvaluationDiffersOnlyInItsNoise_data() { exactFiguresTellTheNeighboursApart_data(); }
  void privateEvaluationDiffersOnlyInItsNoise() {
    QFETCH(QString, model);
    const auto [a, b] = both(model, {"--release-only", "--holdout-epsilon", "1"}, "private-" + model);
    QVERIFY2(a.code == 0 && b.code == 0, qPrintable(a.err + b.err));
    QJsonObject oa = readJson(m_dir.filePath("private-" + model + "-d.json"));
    QJsonObject ob = readJson(m_dir.filePath("private-" + model + "-dprime.json"));
    QJsonObject ha = oa["private_holdout"].toObject(), hb = ob["private_holdout"].toObject();
    QVERIFY(ha["released"].toBool());
    const double clip = std::log(30 / 1e-4);  // the default B = ln(d/s)
    QVERIFY(std::abs(ha["clip"].toDouble() - clip) < 1e-12);
    QCOMPARE(ha["documents"].toInt(), 200);
    QVERIFY(std::abs(ha["scale"].toDouble() - clip / 200) < 1e-15);
    QVERIFY(ha["estimates"].toString().contains("not the token-weighted"));
    QCOMPARE(ha["perplexity"].toDouble(), std::exp(-ha["mean_log_likelihood_per_token"].toDouble()));
    // The ledger row and the totals (basic composition).
    const QJsonObject priv = oa["privacy"].toObject();
    const QJsonArray ledger = priv["ledger"].toArray();
    const QJsonObject row = ledger.last().toObject();
    QCOMPARE(row["node"].toString(), QString("heldout"));
    QCOMPARE(row["mechanism"].toString(), QString("laplace"));
    QVERIFY(std::abs(row["sensitivity"].toDouble() - clip / 200) < 1e-15);
    QCOMPARE(row["epsilon"].toDouble(), 1.0);
    QCOMPARE(priv["epsilon_total"].toDouble(), (model == "spectral" ? 4.0 : 2.0) + 1.0);
    QVERIFY(priv["claim"].toString().contains("basic composition"));
    // Only the two released values differ (the same Laplace draw on both: seeded noise).
    for (const char* key : {"perplexity", "mean_log_likelihood_per_token"}) {
      QVERIFY(ha[key].toDouble() != hb[key].toDouble());
      ha.remove(key);
      hb.remove(key);
    }
    oa["private_holdout"] = ha;
    ob["private_holdout"] = hb;
    QCOMPARE(oa, ob);
    for (const char* key : kHeldOutStatistics) QVERIFY2(!QJsonDocument(oa).toJson().contains(key), key);
    auto withoutReleasedLine = [](QString s) {
      QStringList lines = s.split('\n');
      lines.removeIf([](const QString& l) { return l.contains("private evaluation (released)"); });
      return lines.join('\n');
    };
    QVERIFY(a.out != b.out);
    QCOMPARE(withoutReleasedLine(a.out), withoutReleasedLine(b.out));
  }

  void refusals_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("needle");
    QTest::newRow("write-split") << QStringList{"--release-only", "--write-split", m_dir.filePath("split")}
                                 << "--write-split writes the held-out and training documents";
    QTest::newRow("score-model") << QStringList{"--release-only", "--score-model", m_d + "/truth.json"}
                                 << "--score-model prints an exact statistic";
    QTest::newRow("clip-alone") << QStringList{"--holdout-clip", "3"} << "give --holdout-epsilon E with it";
    QTest::newRow("clip-range") << QStringList{"--holdout-epsilon", "1", "--holdout-clip", "-1"} << "--holdout-clip";
    QTest::newRow("epsilon-range") << QStringList{"--holdout-epsilon", "0"} << "--holdout-epsilon must be in";
  }
  void refusals() {
    QFETCH(QStringList, extra);
    QFETCH(QString, needle);
    const Outcome r = cli(run(m_d, "spectral") + extra);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(needle), qPrintable(r.err));
    QVERIFY(!QDir(m_dir.filePath("split")).exists());  // nothing written
  }

  void privateEvaluationNeedsAPrivateModel() {
    Outcome r = cli({"run", "--corpus", m_d, "--topics", "3", "--holdout", "0.1", "--holdout-epsilon", "1"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--holdout-epsilon releases a private held-out evaluation"), qPrintable(r.err));
    r = cli({"run", "--corpus", m_d, "--topics", "3", "--config", "1", "--holdout-epsilon", "1"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("need --holdout FRACTION"), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestCliHoldout)
#include "tst_cli_holdout.moc"
