// Issue 26 §1-2 on the command line: run --save-model writes the model file, infer reads it
// (agreeing with the E-step to 1e-10), refuses a corpus of another vocabulary, labels the
// training documents NOT private (and --release-only refuses them), --score-model reads the model
// file, and run reports coherence with the label of the data it was computed on.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"
#include "core/corpus/uci_io.h"
#include "core/model/model_file.h"
#include "core/model/topic_inference.h"

using namespace dplda;
using cli_test::Outcome;
using cli_test::readJson;

namespace {

Outcome cli(const QStringList& args) { return cli_test::dplda(args); }

QStringList lines(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
}

}  // namespace

class TestCliModel : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;
  QString m_d, m_copy, m_other, m_private, m_releaseOnly, m_vi;

  QString path(const QString& name) const { return m_dir.filePath(name); }

 private slots:
  void initTestCase() {
    QVERIFY(!qEnvironmentVariable("DPLDA_CLI").isEmpty());
    m_d = path("d");
    const Outcome g = cli({"generate", "--vocab", "30", "--topics", "3", "--docs", "1500", "--prior", "symmetric",
                           "--seed", "5", "--out", m_d});
    QVERIFY2(g.code == 0, qPrintable(g.err));
    // The same documents in another folder, and a corpus whose word 5 has another name.
    Corpus c = readUciCorpus(m_d.toStdString()).value();
    m_copy = path("copy");
    QVERIFY(writeUciCorpus(c, m_copy.toStdString()).isOk());
    c.vocab[4] = "zebra";
    m_other = path("other");
    QVERIFY(writeUciCorpus(c, m_other.toStdString()).isOk());
    m_private = path("private.json");
    const QStringList privateRun{"run", "--corpus", m_d, "--topics", "3", "--config", "whitened", "--accountant",
                                 "gdp", "--epsilon", "4", "--noise-seed", "7"};
    Outcome r = cli(privateRun + QStringList{"--save-model", m_private, "--json", path("run.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
    m_releaseOnly = path("release-only.json");
    r = cli(privateRun + QStringList{"--release-only", "--save-model", m_releaseOnly});
    QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
    m_vi = path("vi.json");
    r = cli({"run", "--corpus", m_d, "--topics", "3", "--model", "vi", "--vi", "batch", "--iterations", "5",
             "--save-model", m_vi});
    QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
  }

  void modelFileHoldsTheRun() {
    const auto m = readModelFile(m_private.toStdString());
    QVERIFY2(m.ok(), m.status().message().c_str());
    const QJsonObject run = readJson(path("run.json"));
    QCOMPARE(m->model, std::string("spectral"));
    QCOMPARE(m->isPrivate, run["privacy"].toObject()["private"].toBool());
    QVERIFY(m->isPrivate);
    QCOMPARE(static_cast<int>(m->vocabulary.size()), 30);
    QCOMPARE(m->vocabulary[4], std::string("w4"));
    const QJsonArray topics = run["topics"].toArray();
    QCOMPARE(topics.size(), 3);
    for (int i = 0; i < 3; ++i)
      for (int w = 0; w < 30; ++w) QCOMPARE(m->lda.topics(w, i), topics[i].toArray()[w].toDouble());
    QVERIFY(m->privacyJson.find("\"ledger\"") != std::string::npos);
    QVERIFY(m->training.fingerprint.has_value());
    QCOMPARE(m->training.documents, 1500);
    // --release-only: no fingerprint of the data in the file.
    const auto ro = readModelFile(m_releaseOnly.toStdString());
    QVERIFY(ro.ok());
    QVERIFY(!ro->training.fingerprint);
    QFile f(m_releaseOnly);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(!f.readAll().contains("fingerprint"));
  }

  void inferAgreesWithTheEStep() {
    const Outcome r = cli({"infer", "--model", m_private, "--corpus", m_copy, "--csv", path("t.csv"), "--json",
                           path("t.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const ModelFile m = readModelFile(m_private.toStdString()).value();
    const Corpus c = readUciCorpus(m_copy.toStdString()).value();
    const DocumentTopics expected = inferTopics(m.lda, c).value();
    const QJsonArray docs = readJson(path("t.json"))["documents"].toArray();
    QCOMPARE(docs.size(), c.docCount());
    double worst = 0.0;
    for (int n = 0; n < c.docCount(); ++n) {
      const QJsonArray p = docs[n].toObject()["proportions"].toArray();
      QCOMPARE(docs[n].toObject()["id"].toString(), QString::number(n));
      for (int i = 0; i < 3; ++i) worst = std::max(worst, std::abs(p[i].toDouble() - expected.proportions(i, n)));
    }
    QVERIFY2(worst <= 1e-10, qPrintable(QString::number(worst)));
    const QStringList csv = lines(path("t.csv"));
    QCOMPARE(csv.size(), c.docCount() + 1);
    QCOMPARE(csv[0], QString("document,tokens,topic_1,topic_2,topic_3,privacy"));
  }

  void trainingDocumentsAreLabelledNotPrivate() {
    // The training folder (by its path) and a copy (by the fingerprint) are both recognised.
    for (const QString& corpus : {m_d, m_copy}) {
      const Outcome r = cli({"infer", "--model", m_private, "--corpus", corpus, "--csv", path("train.csv")});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      QVERIFY2(r.out.contains("NOT private: these are the model's training documents"), qPrintable(r.out));
      QVERIFY(lines(path("train.csv"))[1].endsWith(",NOT private (training document)"));
      const Outcome refused =
          cli({"infer", "--model", m_private, "--corpus", corpus, "--csv", path("x.csv"), "--release-only"});
      QCOMPARE(refused.code, 3);
      QVERIFY2(refused.err.contains("--release-only refuses this output"), qPrintable(refused.err));
    }
    // Without the fingerprint (a --release-only model) the copy is not recognised; the folder still is.
    Outcome r = cli({"infer", "--model", m_releaseOnly, "--corpus", m_copy, "--csv", path("c.csv"), "--release-only"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("post-processing of the model's private release"));
    QVERIFY(lines(path("c.csv"))[1].endsWith(",post-processing"));
    r = cli({"infer", "--model", m_releaseOnly, "--corpus", m_d, "--csv", path("c.csv"), "--release-only"});
    QCOMPARE(r.code, 3);
    // A non-private model: nothing derived from it is private.
    r = cli({"infer", "--model", m_vi, "--corpus", m_copy, "--json", path("vi-out.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("NOT private: the model itself is not a private release"));
    QCOMPARE(readJson(path("vi-out.json"))["privacy"].toObject()["private"].toBool(), false);
  }

  void mismatchedVocabularyIsRefused() {
    const Outcome r = cli({"infer", "--model", m_private, "--corpus", m_other, "--csv", path("o.csv")});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("word 5 is 'zebra' there but 'w4' in the model"), qPrintable(r.err));
    QVERIFY(!QFile::exists(path("o.csv")));
  }

  void badInferInputIsNamed() {
    const QString csv = path("bad.csv");
    Outcome r = cli({"infer", "--model", m_private, "--csv", csv});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("give either --corpus DIR or --input"));
    r = cli({"infer", "--model", m_private, "--corpus", m_d, "--numbers", "--csv", csv});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("--numbers tokenizes text"));
    r = cli({"infer", "--model", m_private, "--corpus", m_d});
    QCOMPARE(r.code, 2);
    r = cli({"infer", "--model", m_d + "/truth.json", "--corpus", m_d, "--csv", csv});  // a truth file is no model
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("not a dplda model file"), qPrintable(r.err));
    QFile bin(path("binary.txt"));
    QVERIFY(bin.open(QIODevice::WriteOnly));
    bin.write(QByteArray("w1 w2\nw3 \xff\xfe w4\n", 15));
    bin.close();
    r = cli({"infer", "--model", m_private, "--input", path("binary.txt"), "--csv", csv});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("binary.txt line 2: invalid UTF-8"), qPrintable(r.err));
    // The output is never written over an input: the model stays as it was.
    const QByteArray before = [&] { QFile f(m_private); return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray(); }();
    r = cli({"infer", "--model", m_private, "--corpus", m_d, "--csv", m_private});
    QCOMPARE(r.code, 3);
    QFile after(m_private);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), before);
    QVERIFY(!QFile::exists(csv));
  }

  void textInputUsesTheModelsVocabulary() {
    const QString text = path("docs.txt");
    QFile f(text);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("w1 w2 w1 zebra\n\nw7 w8 w9 w7 w7\nonly unknown words\n");
    f.close();
    const Outcome r =
        cli({"infer", "--model", m_private, "--input", text, "--numbers", "--csv", path("x.csv"), "--json", path("x.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject j = readJson(path("x.json"));
    const QJsonArray docs = j["documents"].toArray();
    QCOMPARE(docs.size(), 3);
    QCOMPARE(docs[0].toObject()["id"].toString(), QString("1"));
    QCOMPARE(docs[1].toObject()["id"].toString(), QString("3"));
    QCOMPARE(docs[1].toObject()["tokens"].toDouble(), 5.0);
    QCOMPARE(docs[2].toObject()["tokens"].toDouble(), 0.0);
    QCOMPARE(j["tokens_out_of_vocabulary"].toDouble(), 3.0);  // zebra, unknown, words ("only" is a stop word)
    QVERIFY(r.out.contains("post-processing"));
  }

  // A corpus imported from a CSV keeps its id column (documents.txt): infer --corpus prints those
  // ids, not row numbers.
  void inferOnAnImportedCorpusKeepsItsIds() {
    const QString csv = path("ids.csv");
    QFile f(csv);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("name,text\n");
    for (int i = 0; i < 40; ++i) f.write(QString("doc-%1,w1 w2 w3 w%2 w%3 w1\n").arg(i).arg(4 + i % 5).arg(10 + i % 7).toUtf8());
    f.close();
    QFile vocab(path("ids-vocab.txt"));
    QVERIFY(vocab.open(QIODevice::WriteOnly));
    for (int w = 0; w < 30; ++w) vocab.write(QString("w%1\n").arg(w).toUtf8());  // the model's words, in order
    vocab.close();
    const QString corpus = path("ids-corpus");
    Outcome r = cli({"import-text", "--input", csv, "--column", "text", "--id-column", "name", "--vocabulary",
                     path("ids-vocab.txt"), "--numbers", "--out", corpus});
    QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
    r = cli({"infer", "--model", m_private, "--corpus", corpus, "--json", path("ids.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
    const QJsonArray docs = readJson(path("ids.json"))["documents"].toArray();
    QCOMPARE(docs.size(), 40);
    QCOMPARE(docs[0].toObject()["id"].toString(), QString("doc-0"));
    QCOMPARE(docs[39].toObject()["id"].toString(), QString("doc-39"));
  }

  void scoreModelReadsTheModelFile() {
    const QStringList run{"run", "--corpus", m_d, "--topics", "3", "--holdout", "0.2", "--json", path("s.json")};
    Outcome r = cli(run + QStringList{"--score-model", m_vi});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const double p = readJson(path("s.json"))["score_model_perplexity"].toObject()["perplexity"].toDouble();
    QVERIFY2(p > 1.0 && p < 30.0, qPrintable(QString::number(p)));
    r = cli({"run", "--corpus", m_other, "--topics", "3", "--holdout", "0.2", "--score-model", m_vi});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("'zebra'"), qPrintable(r.err));
    // infer --perplexity scores the saved model on given documents.
    r = cli({"infer", "--model", m_vi, "--corpus", m_copy, "--json", path("p.json"), "--perplexity"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const double q = readJson(path("p.json"))["perplexity"].toObject()["perplexity"].toDouble();
    QVERIFY2(q > 1.0 && q < 30.0, qPrintable(QString::number(q)));
  }

  void coherenceIsLabelledByItsData() {
    const QJsonObject run = readJson(path("run.json"));
    const QJsonObject c = run["coherence"].toObject();
    QCOMPARE(c["top_words"].toInt(), 10);
    QCOMPARE(c["private_data"].toBool(), true);
    QVERIFY(c["label"].toString().contains("non-private diagnostic"));
    QCOMPARE(c["topics"].toArray().size(), 3);
    const double npmi = c["mean_npmi"].toDouble();
    QVERIFY(npmi >= -1.0 && npmi <= 1.0);
    // --release-only: not on the training documents; on a reference corpus it is post-processing.
    Outcome r = cli({"run", "--corpus", m_d, "--topics", "3", "--config", "whitened", "--accountant", "gdp",
                     "--epsilon", "4", "--noise-seed", "7", "--release-only", "--json", path("ro.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(!readJson(path("ro.json")).contains("coherence"));
    QVERIFY(r.out.contains("coherence: withheld"));
    r = cli({"run", "--corpus", m_d, "--topics", "3", "--config", "whitened", "--accountant", "gdp", "--epsilon", "4",
             "--noise-seed", "7", "--release-only", "--coherence-reference", m_copy, "--coherence-top-words", "5",
             "--json", path("ref.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject ref = readJson(path("ref.json"))["coherence"].toObject();
    QCOMPARE(ref["private_data"].toBool(), false);
    QCOMPARE(ref["top_words"].toInt(), 5);
    QVERIFY(ref["label"].toString().contains("post-processing"));
    r = cli({"run", "--corpus", m_d, "--topics", "3", "--coherence-reference", m_other});
    QCOMPARE(r.code, 3);
    QVERIFY(r.err.contains("'zebra'"));
  }
};

QTEST_GUILESS_MAIN(TestCliModel)
#include "tst_cli_model.moc"
