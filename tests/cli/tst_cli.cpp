// The dplda command line as a user runs it: generate -> run round trip, the JSON contract,
// privacy options, and exit statuses with one clear line on stderr for every bad input.
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"

namespace {

using cli_test::Outcome;
using cli_test::readJson;

Outcome dplda(const QStringList& args) { return cli_test::dplda(args, 120000); }

void writeFile(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(text);
}

}  // namespace

class TestCli : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;
  QString m_corpus;

 private slots:
  void initTestCase() {
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    m_corpus = m_dir.filePath("c");
    const Outcome g = dplda({"generate", "--vocab", "30", "--topics", "3", "--docs", "3000", "--prior", "symmetric", "--seed", "4", "--out",
                             m_corpus});
    QVERIFY2(g.code == 0, qPrintable(g.err));
    for (const char* f : {"docword.txt", "vocab.txt", "truth.json"}) QVERIFY(QFile::exists(m_corpus + "/" + f));
    const QJsonObject truth = readJson(m_corpus + "/truth.json");
    QCOMPARE(truth["alpha"].toArray().size(), 3);
    QCOMPARE(truth["topics"].toArray().size(), 3);
    QCOMPARE(truth["topics"].toArray()[0].toArray().size(), 30);
  }

  void runWritesTheJsonContract() {
    const QString json = m_dir.filePath("run.json");
    const Outcome r = dplda({"run", "--corpus", m_corpus, "--topics", "3", "--truth", m_corpus + "/truth.json",
                             "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("top words"));
    const QJsonObject o = readJson(json);
    QCOMPARE(o["corpus"].toObject()["docs"].toInt(), 3000);
    QCOMPARE(o["corpus"].toObject()["vocab"].toInt(), 30);
    QCOMPARE(o["corpus"].toObject()["dropped_docs"].toInt(), 0);
    QCOMPARE(o["alpha"].toArray().size(), 3);
    QCOMPARE(o["topics"].toArray().size(), 3);
    QCOMPARE(o["topics"].toArray()[0].toArray().size(), 30);
    QCOMPARE(o["top_words"].toArray().size(), 3);
    const QJsonObject exact = o["non_private_diagnostics"].toObject();
    QVERIFY(exact.contains("nnz") && exact.contains("max_length"));
    QCOMPARE(exact["eigenvalues"].toArray().size(), 4);  // σ_1..σ_{k+1}
    QCOMPARE(exact["tensor_eigenvalues"].toArray().size(), 3);
    QVERIFY(exact["gamma_s"].toDouble() > 0);
    QVERIFY(exact["timings_ms"].toObject().contains("tensor"));
    // The decomposer's convergence: a count and the worst residual, not only a flag.
    QVERIFY(exact["decomposer_converged"].toBool());
    QCOMPARE(exact["decomposer_unconverged_components"].toInt(-1), 0);
    QVERIFY(exact["decomposer_max_residual"].toDouble(1.0) <= 1e-10);
    QVERIFY(r.out.contains("largest residual"));
    QVERIFY(o["error"].toObject()["l1_mean"].toDouble() < 0.5);
    QCOMPARE(o["status"].toString(), QString("ok"));
    QCOMPARE(o["privacy"].toObject()["private"].toBool(), false);
    QCOMPARE(o["privacy"].toObject()["privacy_claim"].toString(), QString("not-private"));
  }

  void privateRunHasLedger() {
    const QString json = m_dir.filePath("private.json");
    const Outcome r = dplda({"run", "--corpus", m_corpus, "--topics", "3", "--config", "1", "--epsilon", "2",
                             "--delta", "1e-5", "--noise-seed", "9", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.err.contains("seeded"));  // reproducible noise is announced
    const QJsonObject o = readJson(json);
    const QJsonObject p = o["privacy"].toObject();
    QCOMPARE(p["private"].toBool(), true);
    QCOMPARE(p["edges"].toArray().size(), 3);
    QCOMPARE(p["epsilon_total"].toDouble(), 2.0);
    const QJsonArray ledger = p["ledger"].toArray();
    QCOMPARE(p["privacy_claim"].toString(), QString("proven"));
    QCOMPARE(ledger.size(), 2);  // M2 once for e2 and e5 (shared by default), M3 for e3
    QCOMPARE(ledger[0].toObject()["edges"].toArray().size(), 2);
    for (const auto& e : ledger) {
      const QJsonObject x = e.toObject();
      for (const char* key : {"release", "node", "mechanism", "sensitivity", "epsilon", "delta", "sigma", "bounds",
                              "preconditions"})
        QVERIFY2(x.contains(key), key);
      QVERIFY(x["sigma"].toDouble() > 0);
    }
    QVERIFY(o.contains("released_diagnostics"));
    // The exact statistics live only in the labelled teaching section, never beside the release.
    for (const char* key : {"eigenvalues", "tensor_eigenvalues", "gamma_s", "utility_loss", "timings_ms",
                            "decomposer_iterations", "diagnostics"})
      QVERIFY2(!o.contains(key), key);
    QVERIFY(!o["corpus"].toObject().contains("nnz") && !o["corpus"].toObject().contains("max_length"));
    const QJsonObject exact = o["non_private_diagnostics"].toObject();
    QVERIFY(exact["note"].toString().contains("NOT part of any private release"));
    QVERIFY(exact.contains("utility_loss") && exact.contains("eigenvalues"));
    QVERIFY(r.out.contains("non-private diagnostics"));
    QCOMPARE(o["released"].toBool(), true);
  }

  // --release-only: nothing exact about the corpus reaches stdout or the JSON.
  void releaseOnlyLeavesOutTheExactStatistics() {
    const QString json = m_dir.filePath("release-only.json");
    const Outcome r = dplda({"run", "--corpus", m_corpus, "--topics", "3", "--config", "1", "--epsilon", "2",
                             "--noise-seed", "9", "--release-only", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject o = readJson(json);
    QVERIFY(!o.contains("non_private_diagnostics"));
    QVERIFY(o.contains("topics") && o.contains("alpha") && o.contains("released_diagnostics"));
    QVERIFY(!r.out.contains("M2 eigenvalues") && !r.out.contains("gamma_s =") && !r.out.contains("utility loss") &&
            !r.out.contains("time (ms)"));
    // The exact σ_k of this corpus, from a teaching run, appears nowhere in the release-only output.
    const Outcome full = dplda({"run", "--corpus", m_corpus, "--topics", "3", "--json", m_dir.filePath("np.json")});
    const QJsonArray sigma = readJson(m_dir.filePath("np.json"))["non_private_diagnostics"].toObject()["eigenvalues"].toArray();
    const QString sigmaK = QString::number(sigma[2].toDouble(), 'g', 4);
    QVERIFY2(!r.out.contains(sigmaK) && !QString(QJsonDocument(o).toJson()).contains(sigmaK), qPrintable(sigmaK));
    // A non-private run has nothing to keep apart.
    QCOMPARE(dplda({"run", "--corpus", m_corpus, "--topics", "3", "--release-only"}).code, 2);
  }

  // The whitened release (docs/PRIVACY.md §11): proven, two ledger rows, the clipped fractions
  // only among the non-private diagnostics.
  void whitenedReleaseIsLabelledAndKeepsItsDiagnosticsApart() {
    const QString json = m_dir.filePath("whitened.json");
    const Outcome r = dplda({"run", "--corpus", m_corpus, "--topics", "3", "--config", "whitened", "--epsilon", "2",
                             "--accountant", "gdp", "--clip-m2", "0.4", "--noise-seed", "9", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject o = readJson(json);
    const QJsonObject privacy = o["privacy"].toObject();
    QCOMPARE(privacy["privacy_claim"].toString(), QString("proven"));
    // The explanation beside the claim agrees with it (issue 23 §3: it said "not covered").
    const QString explanation = privacy["explanation"].toString();
    QVERIFY2(!explanation.contains("not covered"), qPrintable(explanation));
    QVERIFY2(explanation.contains("covered by proven bounds"), qPrintable(explanation));
    const QJsonArray ledger = privacy["ledger"].toArray();
    QCOMPARE(ledger.size(), 2);
    QVERIFY(ledger[0].toObject()["sensitivity_formula"].toString().contains("C2 = 0.4"));
    QVERIFY(o["non_private_diagnostics"].toObject().contains("clipped_fractions"));
    QVERIFY(r.out.contains("documents clipped (whitened release)"));
    const Outcome quiet = dplda({"run", "--corpus", m_corpus, "--topics", "3", "--config", "whitened", "--epsilon",
                                 "2", "--noise-seed", "9", "--release-only", "--json", json});
    QVERIFY2(quiet.code == 0, qPrintable(quiet.err));
    QVERIFY(!readJson(json).contains("non_private_diagnostics"));
    QVERIFY(!quiet.out.contains("documents clipped"));
    // Each release clips its own terms: M3's bound belongs to configurations 1-4, C to the whitened release.
    QCOMPARE(dplda({"run", "--corpus", m_corpus, "--topics", "3", "--config", "whitened", "--clip-m3", "0.2"}).code, 2);
    QCOMPARE(dplda({"run", "--corpus", m_corpus, "--topics", "3", "--config", "1", "--clip-whitened", "2"}).code, 2);
  }

  // Issue 23 §3: a clip bound that makes the whitened release degenerate (C³ underflows to 0) is
  // refused under both accountants with the bound named; gdp drew σ = 0 under "proven".
  void degenerateClipsAreRefused() {
    for (const char* accountant : {"basic", "gdp"}) {
      const Outcome r = dplda({"run", "--corpus", m_corpus, "--topics", "3", "--config", "whitened", "--accountant",
                               accountant, "--clip-whitened", "1e-108", "--noise-seed", "1"});
      QVERIFY2(r.code != 0, qPrintable(r.out));
      QVERIFY2(r.err.contains("C = 1e-108"), qPrintable(r.err));
      QCOMPARE(r.err.trimmed().count('\n'), 0);
    }
  }

  void clippedConfigurationNamesItsBounds() {
    // Configuration 1 on clipped documents (PRIVACY.md §12): the bounds in the JSON, in every ledger
    // row's formula, a smaller M2 sensitivity than the unclipped run, the fractions apart.
    const QString json = m_dir.filePath("clip1.json"), plain = m_dir.filePath("plain1.json");
    const QStringList run = {"run", "--corpus", m_corpus, "--topics", "3", "--config", "1", "--epsilon", "5",
                             "--noise-seed", "3", "--json"};
    const Outcome r = dplda(run + QStringList{json, "--clip-m1", "0.5", "--clip-m2", "0.3", "--clip-m3", "0.15"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(dplda(run + QStringList{plain}).code == 0, "the unclipped run failed");
    const QJsonObject o = readJson(json), p = readJson(plain);
    const QJsonObject clip = o["privacy"].toObject()["moment_clip"].toObject();
    QCOMPARE(clip["c3"].toDouble(), 0.15);
    QVERIFY(!p["privacy"].toObject().contains("moment_clip"));
    const QJsonArray ledger = o["privacy"].toObject()["ledger"].toArray(), plainLedger = p["privacy"].toObject()["ledger"].toArray();
    QVERIFY(!ledger.isEmpty() && ledger.size() == plainLedger.size());
    QVERIFY(ledger[0].toObject()["sensitivity"].toDouble() < plainLedger[0].toObject()["sensitivity"].toDouble());
    QVERIFY(o["non_private_diagnostics"].toObject().contains("clipped_fractions"));
    QVERIFY(r.out.contains("documents clipped"));
  }

  void nonPrivateSetWarns() {
    const Outcome r = dplda({"run", "--corpus", m_corpus, "--topics", "3", "--edges", "e6", "--bounds", "printed",
                             "--epsilon", "50", "--noise-seed", "1"});
    QVERIFY(r.err.contains("Not private"));
  }

  void exitStatuses_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("no command") << QStringList{} << 2 << "";
    QTest::newRow("unknown command") << QStringList{"fly"} << 2 << "unknown command";
    QTest::newRow("unknown option") << QStringList{"run", "--corpus", "x", "--topics", "3", "--colour", "red"} << 2
                                    << "--colour";
    QTest::newRow("text in a number") << QStringList{"run", "--corpus", "x", "--topics", "three"} << 2 << "three";
    QTest::newRow("missing value") << QStringList{"run", "--corpus"} << 2 << "needs a value";
    QTest::newRow("missing corpus") << QStringList{"run", "--corpus", "/nonexistent/dir", "--topics", "3"} << 3
                                    << "/nonexistent";
    QTest::newRow("bad epsilon") << QStringList{"run", "--corpus", "C", "--topics", "3", "--config", "2",
                                                "--epsilon", "0"}
                                 << 3 << "epsilon";
    QTest::newRow("nan epsilon") << QStringList{"run", "--corpus", "C", "--topics", "3", "--config", "2",
                                                "--epsilon", "nan"}
                                 << 2 << "finite";
    QTest::newRow("unknown edge") << QStringList{"run", "--corpus", "C", "--topics", "3", "--edges", "e11"} << 2
                                  << "e11";
    QTest::newRow("k > d") << QStringList{"run", "--corpus", "C", "--topics", "31"} << 3 << "vocabulary";
    QTest::newRow("bad generator") << QStringList{"generate", "--vocab", "5", "--topics", "6", "--docs", "10",
                                                  "--out", "OUT"}
                                   << 3 << "";
    // Issue 15: values validation let through (each now one line, exit 2 or 3).
    QTest::newRow("alpha0 1e300") << QStringList{"run", "--corpus", "C", "--topics", "3", "--alpha0", "1e300"} << 3
                                  << "alpha0 must be a number in (0, 1000000]";
    QTest::newRow("config with a blank") << QStringList{"run", "--corpus", "C", "--topics", "3", "--config", "1 "}
                                         << 2 << "blanks";
    QTest::newRow("epsilon 1e308") << QStringList{"run", "--corpus", "C", "--topics", "3", "--config", "2",
                                                  "--epsilon", "1e308"}
                                   << 3 << "epsilon must be at most 1e+15";
    QTest::newRow("empty json path") << QStringList{"run", "--corpus", "C", "--topics", "3", "--json", ""} << 2
                                     << "--json needs a value, got an empty string";
    QTest::newRow("threads -0") << QStringList{"sweep", "--corpus", "C", "--topics", "3", "--threads", "-0", "--out",
                                               "OUT"}
                                << 2 << "--threads needs a whole number in 0..1024, got '-0'";
    QTest::newRow("sweep max-length 1e300") << QStringList{"sweep", "--corpus", "C", "--topics", "3", "--max-length",
                                                           "1e300", "--formats", "none", "--out", "OUT"}
                                            << 3 << "L_max";
    QTest::newRow("sweep alpha0 1e300") << QStringList{"sweep", "--corpus", "C", "--topics", "3", "--alpha0", "1,1e300",
                                                       "--out", "OUT"}
                                        << 2 << "--alpha0 takes numbers in (0, ";
    QTest::newRow("generate alpha0 1e308") << QStringList{"generate", "--vocab", "5", "--topics", "2", "--docs", "10",
                                                          "--alpha0", "1e308", "--out", "OUT"}
                                           << 3 << "alpha0 must be a number in (0, 1000000]";
    QTest::newRow("import vocab 2^31-1") << QStringList{"import-text", "--input", "C/vocab.txt", "--vocab",
                                                        "2147483647", "--out", "OUT"}
                                         << 2 << "--vocab needs a whole number in 1..1000000";
    QTest::newRow("hex number") << QStringList{"run", "--corpus", "C", "--topics", "3", "--alpha0", "0x10"} << 2
                                << "needs a number, got '0x10'";
    QTest::newRow("blank before an integer") << QStringList{"run", "--corpus", "C", "--topics", " 3"} << 2
                                             << "needs an integer";
    QTest::newRow("option twice") << QStringList{"run", "--corpus", "C", "--topics", "3", "--topics", "4"} << 2
                                  << "--topics is given more than once";
    QTest::newRow("control bytes escaped") << QStringList{"run", "--corpus", "C\x1b[31m", "--topics", "3"} << 3
                                           << "\\x1b[31m";
  }
  void exitStatuses() {
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, message);
    for (QString& a : args) {
      if (a.startsWith("C") && (a.size() == 1 || a[1] == '/' || a[1] == '\x1b')) a = m_corpus + a.mid(1);
      if (a == "OUT") a = m_dir.filePath("never");
    }
    const Outcome r = dplda(args);
    QCOMPARE(r.code, code);
    if (code != 0 && !args.isEmpty()) {
      QVERIFY2(r.err.trimmed().count('\n') == 0, qPrintable(r.err));  // one line
      QVERIFY2(r.err.contains(message), qPrintable(r.err));
      for (QChar c : r.err.trimmed()) QVERIFY2(c.unicode() >= 0x20, qPrintable(r.err));  // no control bytes
    }
  }

  // Issue 15: a 100-byte docword.txt declaring W = 2^31 - 1 aborted in an allocation, and
  // W = 20 000 000 ran for minutes in gigabytes. Refused from the header, at once.
  void hugeDeclaredVocabularyIsRefusedAtOnce() {
    for (const char* w : {"2147483647", "20000000"}) {
      const QString dir = m_dir.filePath(QString("hugew-%1").arg(w));
      QDir().mkpath(dir);
      writeFile(dir + "/docword.txt", QByteArray("3\n") + w + "\n3\n1 1 3\n2 2 3\n3 3 3\n");
      QElapsedTimer t;
      t.start();
      const Outcome r = dplda({"run", "--corpus", dir, "--topics", "2"});
      QCOMPARE(r.code, 3);
      QVERIFY2(t.elapsed() < 10000, qPrintable(QString("%1 ms").arg(t.elapsed())));
      QVERIFY2(r.err.contains("line 2") && r.err.contains(w) && r.err.contains("limit of 1000000"), qPrintable(r.err));
      QCOMPARE(r.err.trimmed().count('\n'), 0);
    }
  }

  // A truth with more topics than --topics printed "error vs truth: l2 nan".
  void truthWithMoreTopicsThanFitted() {
    const Outcome r = dplda({"run", "--corpus", m_corpus, "--topics", "2", "--truth", m_corpus + "/truth.json"});
    QCOMPARE(r.code, 3);
    // Refused as the truth is read (issue 28: its memory stays within d x k numbers).
    QVERIFY2(r.err.contains("truth.json line") && r.err.contains("more than 2 topics, the number of topics fitted"),
             qPrintable(r.err));
    QVERIFY(!r.out.contains("nan"));
  }

  void malformedCorpusNamesTheLine() {
    const QString bad = m_dir.filePath("bad");
    QDir().mkpath(bad);
    writeFile(bad + "/docword.txt", "3\n4\n3\n1 1 2\n1 2 x\n2 3 1\n");
    const Outcome r = dplda({"run", "--corpus", bad, "--topics", "2"});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("line 5"), qPrintable(r.err));
  }

  // Real text, the three vocabulary rules (docs/PRIVACY.md §13): the private selection by default
  // (at most d words, a ledger row in every private run, totals that include it), a public list
  // (its order), and the corpus's own counts (a private run on it is not private).
  void importTextOnRealText() {
    const QString fortunes = "/usr/share/games/fortunes";  // every file: 15 000 fortunes
    if (!QFile::exists(fortunes + "/fortunes")) QSKIP("the fortunes package is not installed");
    const QString out = m_dir.filePath("fortunes");
    const Outcome imp = dplda({"import-text", "--input", fortunes, "--separator", "%", "--vocab", "500", "--out", out,
                               "--vocab-noise-seed", "4"});
    QVERIFY2(imp.code == 0, qPrintable(imp.err));
    QVERIFY2(imp.out.contains("private partition selection"), qPrintable(imp.out));
    const Outcome r = dplda({"run", "--corpus", out, "--topics", "4", "--config", "whitened", "--accountant", "gdp",
                             "--epsilon", "1", "--noise-seed", "1", "--json", out + "/run.json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject o = readJson(out + "/run.json");
    const QJsonObject corpus = o["corpus"].toObject();
    QVERIFY(corpus["docs"].toInt() > 100);
    QVERIFY(corpus["vocab"].toInt() > 20 && corpus["vocab"].toInt() <= 500);
    QCOMPARE(corpus["vocabulary"].toObject()["origin"].toString(), QString("private-selection"));
    const QJsonObject privacy = o["privacy"].toObject();
    QCOMPARE(privacy["privacy_claim"].toString(), QString("proven"));
    QCOMPARE(privacy["ledger"].toArray()[0].toObject()["node"].toString(), QString("vocabulary"));
    // Real words, not ids.
    QVERIFY(!o["top_words"].toArray()[0].toArray()[0].toString().startsWith("w"));

    const QString counts = m_dir.filePath("fortunes-counts");
    QCOMPARE(dplda({"import-text", "--input", fortunes, "--separator", "%", "--vocab", "500", "--out", counts,
                    "--vocab-from-counts"}).code, 0);
    const Outcome rc = dplda({"run", "--corpus", counts, "--topics", "4", "--config", "whitened", "--accountant", "gdp",
                              "--epsilon", "1", "--noise-seed", "1", "--release-only", "--json", counts + "/run.json"});
    QVERIFY2(rc.code == 0, qPrintable(rc.err));
    const QJsonObject oc = readJson(counts + "/run.json");
    QCOMPARE(oc["corpus"].toObject()["vocab"].toInt(), 500);
    QCOMPARE(oc["privacy"].toObject()["privacy_claim"].toString(), QString("not-private"));

    const QString list = m_dir.filePath("list.txt");
    QFile f(list);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("zebra\nlove\nman\nwoman\nlife\ntime\n");
    f.close();
    const QString pub = m_dir.filePath("fortunes-public");
    QCOMPARE(dplda({"import-text", "--input", fortunes, "--separator", "%", "--vocabulary", list, "--out", pub}).code, 0);
    QFile v(pub + "/vocab.txt");
    QVERIFY(v.open(QIODevice::ReadOnly));
    QCOMPARE(QString(v.readAll()), QString("zebra\nlove\nman\nwoman\nlife\ntime\n"));
    // Conflicting rules are a usage error.
    QCOMPARE(dplda({"import-text", "--input", fortunes, "--vocabulary", list, "--vocab-from-counts", "--out",
                    m_dir.filePath("x")}).code, 2);
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
