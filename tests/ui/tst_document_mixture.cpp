// A document's topic mixture in the app (issue 26 §1; ui/panels/document_mixture.h) and model
// files in the app (File ▸ Open model… / Save model…, ui/panels/model_files.h): the proportions are
// `dplda infer`'s E-step (inferTopics) to 1e-10, the training / held-out labels, the vocabulary
// check that refuses a model of another corpus without changing anything, and an exact round trip.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>

#include "core/corpus/document_ids.h"
#include "core/corpus/synthetic_generator.h"
#include "core/corpus/uci_io.h"
#include "core/model/model_file.h"
#include "core/model/topic_inference.h"
#include "small_session.h"
#include "ui/main_window.h"
#include "ui/panels/document_mixture.h"
#include "ui/panels/model_files.h"
#include "ui/panels/results_panel.h"
#include "ui/panels/topic_browser.h"
#include "ui/panels/topics_view.h"
#include "ui/plots/document_mixture_plot.h"
#include "ui/worker/run_worker.h"

using namespace dplda;
using Set = DocumentMixtureView::Set;

namespace {

// A window that ran `s` once; `outcome` is the run shown.
struct RanWindow {
  MainWindow w;
  std::shared_ptr<const RunOutcome> outcome;

  bool run(const SessionState& s) {
    w.setAutoRun(false);
    QObject::connect(w.runner(), &RunController::runReady, &w,
                     [this](std::shared_ptr<const RunOutcome> o) { outcome = std::move(o); });
    w.model()->reset(s);
    w.runNow();
    const quint64 id = w.runner()->currentId();
    return QTest::qWaitFor([&] { return w.shownRunId() == id; }, 60000) && outcome && outcome->status.isOk();
  }
  TopicsView* topics() { return w.results()->topicsView(); }
  DocumentMixtureView* mixture() { return topics()->mixture(); }
};

// The session of these tests: configuration 1 at an ε where the small corpus releases.
SessionState releasingSession() {
  SessionState s = test::smallSession(Preset::Config1);
  s.epsilon = 20;
  s.trials = 1;
  return s;
}

double maxDifference(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() ? (a - b).cwiseAbs().maxCoeff() : 1e300;
}

}  // namespace

class TestDocumentMixture : public QObject {
  Q_OBJECT

 private slots:
  void mixtureIsInfersEStep() {
    RanWindow r;
    QVERIFY(r.run(releasingSession()));
    const RunOutcome& o = *r.outcome;
    QVERIFY(o.train && o.test);
    QVERIFY(o.priv && o.priv->released && o.priv->statement.isPrivate());
    DocumentMixtureView* m = r.mixture();
    // The non-private spectral model, every training document against infer's output on all of them.
    QVERIFY(m->chooseModel("spectral"));
    const LdaModel exact{o.nonPrivate.alpha, o.nonPrivate.topics};
    const auto all = inferTopics(exact, *o.train);
    QVERIFY(all.ok());
    for (int n : {0, 7, o.train->docCount() - 1}) {
      QString error;
      QVERIFY2(m->showDocument(Set::Training, n, &error), qPrintable(error));
      const Eigen::VectorXd p = m->proportions();
      QCOMPARE(p.size(), 3);
      QVERIFY2(maxDifference(p, all.value().proportions.col(n)) < 1e-10, qPrintable(QString::number(n)));
      QVERIFY(std::abs(p.sum() - 1.0) < 1e-12);
      QVERIFY(p.minCoeff() > 0);
    }
    // A training document: NOT private, computed from the document itself.
    QVERIFY2(m->privacyText().startsWith("NOT private"), qPrintable(m->privacyText()));
    QVERIFY2(m->privacyText().contains("non-private diagnostic"), qPrintable(m->privacyText()));
    QVERIFY(m->plot()->footnote().contains("NOT private"));

    // The private release: a training document is still not private; a held-out one is post-processing.
    const QString privateKey = m->modelChoice()->itemData(0).toString();
    QVERIFY2(privateKey.startsWith("spectral-private"), qPrintable(privateKey));
    QVERIFY(m->chooseModel(privateKey));
    QVERIFY(m->showDocument(Set::Training, 3));
    QVERIFY2(m->privacyText().contains("NOT private: these are the model's training documents"),
             qPrintable(m->privacyText()));
    QVERIFY(m->privacyText().contains("computed from the document itself"));
    const LdaModel released{o.priv->output->alpha, o.priv->output->topics};
    const auto held = inferTopics(released, *o.test);
    QVERIFY(held.ok());
    QVERIFY(m->showDocument(Set::HeldOut, 2));
    QVERIFY(maxDifference(m->proportions(), held.value().proportions.col(2)) < 1e-10);
    QVERIFY2(m->privacyText().startsWith("post-processing of the model's private release"), qPrintable(m->privacyText()));
    QVERIFY(!m->privacyText().contains("NOT private"));
    // The document's words are its counts: its length is the corpus's.
    QVERIFY2(m->documentText().contains(QString("%1 tokens").arg(o.test->lengths[2])), qPrintable(m->documentText()));
    // Out of range: refused with a message, nothing shown changes.
    QString error;
    QVERIFY(!m->showDocument(Set::HeldOut, o.test->docCount(), &error));
    QVERIFY(error.contains("no held-out document"));

    // The results panel exports the mixture when it is the visible view; its CSV lists every topic.
    r.w.results()->setCurrentWidget(r.topics());
    r.topics()->showMixture();
    QCOMPARE(r.w.results()->currentPlot(), static_cast<PlotWidget*>(m->plot()));
    QTemporaryDir dir;
    const QString csv = dir.filePath("mixture.csv");
    QVERIFY2(r.w.exportCurrentPlot(csv, &error), qPrintable(error));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll().count('\n'), 4);  // header + k = 3 topics
    QVERIFY(QFile::exists(csv + ".json"));  // the run's parameters beside it, as every plot
  }

  void documentIdsComeFromTheCorpus() {
    // A UCI folder with the ids import-text writes (documents.txt): the view names each document.
    QTemporaryDir dir;
    SessionState s = releasingSession();
    auto generated = generateLdaCorpus(s.generator);
    QVERIFY(generated.ok());
    Corpus corpus = std::move(generated.value().corpus);
    std::vector<std::string> ids;
    for (int n = 0; n < corpus.docCount(); ++n) ids.push_back("letter-" + std::to_string(n) + ".txt");
    QVERIFY(writeUciCorpus(corpus, dir.path().toStdString()).isOk());
    QVERIFY(writeDocumentIds(ids, dir.path().toStdString()).isOk());
    s.source = SessionState::Source::Uci;
    s.corpusPath = dir.path();
    RanWindow r;
    QVERIFY(r.run(s));
    QVERIFY(r.outcome->documentIds);
    DocumentMixtureView* m = r.mixture();
    QVERIFY(m->showDocument(Set::HeldOut, 4));
    const int row = r.outcome->testRows.at(4);
    const QString id = QString("letter-%1.txt").arg(row);
    QVERIFY2(m->findChild<QLabel*>("mixtureDocumentId")->text().contains(id),
             qPrintable(m->findChild<QLabel*>("mixtureDocumentId")->text()));
    QVERIFY(m->plot()->title().contains(id));
    QVERIFY(m->documentText().contains(id));
  }

  void mismatchedVocabularyIsRefused() {
    RanWindow r;
    QVERIFY(r.run(releasingSession()));
    TopicsView* view = r.topics();
    auto file = runModelFile(*r.outcome);
    QVERIFY(file.ok());
    QTemporaryDir dir;
    // The same numbers over a vocabulary with one word changed.
    ModelFile other = file.value();
    other.vocabulary[4] = "zebra";
    const QString wrong = dir.filePath("other-corpus.json");
    QVERIFY(writeModelFile(other, wrong.toStdString()).isOk());
    // Another vocabulary size, a file that is not a model, a FIFO.
    ModelFile smaller = file.value();
    smaller.vocabulary.pop_back();
    smaller.lda.topics = smaller.lda.topics.topRows(static_cast<Eigen::Index>(smaller.vocabulary.size())).eval();
    const Eigen::RowVectorXd sums = smaller.lda.topics.colwise().sum();
    smaller.lda.topics.array().rowwise() /= sums.array();
    const QString small = dir.filePath("smaller.json");
    QVERIFY(writeModelFile(smaller, small.toStdString()).isOk());
    const QString garbage = dir.filePath("garbage.json");
    QFile g(garbage);
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write("{\"format\": \"dplda-model\", \"version\": 1, \"topics\": [[0.5");
    g.close();
    const QString fifo = dir.filePath("pipe.json");
    QCOMPARE(mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);

    const SessionState before = r.w.model()->state();
    const int undo = r.w.model()->undoStack()->count();
    const int models = view->browser()->secondModel()->count();
    const QString second = view->browser()->secondModel()->currentData().toString();
    const QString mixtureModel = r.mixture()->modelChoice()->currentData().toString();
    const Eigen::VectorXd shown = r.mixture()->proportions();
    struct Case {
      QString path, expected;
    };
    for (const Case& c : {Case{wrong, "zebra"}, Case{small, "29"}, Case{garbage, "garbage.json"},
                          Case{fifo, "FIFO"}}) {
      QString error;
      QVERIFY2(!view->openModelFile(c.path, &error), qPrintable(c.path));
      QVERIFY2(error.contains(c.expected), qPrintable(error));
      if (c.path == wrong) {
        QVERIFY2(error.contains("other-corpus.json") && error.contains("word 5"), qPrintable(error));
      }
      QVERIFY(r.w.model()->state() == before);
      QCOMPARE(r.w.model()->undoStack()->count(), undo);
      QCOMPARE(view->browser()->secondModel()->count(), models);
      QCOMPARE(view->browser()->secondModel()->currentData().toString(), second);
      QCOMPARE(r.mixture()->modelChoice()->currentData().toString(), mixtureModel);
      QVERIFY(maxDifference(r.mixture()->proportions(), shown) == 0);
    }
  }

  void saveThenOpenRoundTrips() {
    RanWindow r;
    QVERIFY(r.run(releasingSession()));
    const RunOutcome& o = *r.outcome;
    TopicsView* view = r.topics();
    QTemporaryDir dir;
    const QString path = dir.filePath("release.json");
    QString error;
    QVERIFY2(view->saveModelFile(path, {}, &error), qPrintable(error));
    const auto read = readModelFile(path.toStdString());
    QVERIFY(read.ok());
    // The run's release, exactly, with its statement.
    QVERIFY(read.value().lda.topics == o.priv->output->topics);
    QVERIFY(read.value().lda.alpha == o.priv->output->alpha);
    QVERIFY(read.value().isPrivate);
    QCOMPARE(read.value().claim, o.priv->statement.summary);
    QCOMPARE(read.value().model, std::string("spectral"));
    QCOMPARE(read.value().training.documents, o.train->docCount());
    QVERIFY(read.value().training.heldOutSplit);
    QVERIFY(read.value().training.fingerprint == corpusFingerprint(*o.train));
    QVERIFY(read.value().privacyJson.find("\"ledger\"") != std::string::npos);

    QVERIFY2(view->openModelFile(path, &error), qPrintable(error));
    const QString key = TopicsView::modelFileKey(path);
    TopicBrowser* b = view->browser();
    QCOMPARE(b->secondModel()->currentData().toString(), key);
    QVERIFY2(b->statement().contains("private release — " + QString::fromStdString(o.priv->statement.summary)),
             qPrintable(b->statement()));
    QVERIFY(b->problem().isEmpty());
    // The file's topics are the release's: matched to it topic by topic at ℓ₂ 0 in the browser.
    QVERIFY(b->firstModel()->findData(key) >= 0);
    b->firstModel()->setCurrentIndex(b->firstModel()->findData(key));
    const QString privateKey = r.mixture()->modelChoice()->itemData(1).toString();
    QVERIFY2(privateKey.startsWith("spectral-private"), qPrintable(privateKey));
    b->secondModel()->setCurrentIndex(b->secondModel()->findData(privateKey));
    for (int t = 0; t < 3; ++t) QCOMPARE(b->matchedTopic(t), t);

    // Its mixtures: the same as the session's release; its training documents recognised by the
    // fingerprint the file holds, the held-out ones post-processing.
    DocumentMixtureView* m = r.mixture();
    QCOMPARE(m->modelChoice()->currentData().toString(), key);
    QVERIFY(m->showDocument(Set::Training, 5));
    const Eigen::VectorXd fromFile = m->proportions();
    QVERIFY2(m->privacyText().contains("their fingerprint is the training corpus's"), qPrintable(m->privacyText()));
    QVERIFY(m->showDocument(Set::HeldOut, 1));
    QVERIFY2(m->privacyText().startsWith("post-processing"), qPrintable(m->privacyText()));
    QVERIFY(m->chooseModel(privateKey));
    QVERIFY(m->showDocument(Set::Training, 5));
    QVERIFY(maxDifference(m->proportions(), fromFile) == 0);

    // A model file whose claim does not hold: every mixture under it is NOT private, held out or not.
    ModelFile plain = read.value();
    plain.isPrivate = false;
    plain.claim = "no noise: not a private release";
    plain.training = {};
    const QString plainPath = dir.filePath("plain.json");
    QVERIFY(writeModelFile(plain, plainPath.toStdString()).isOk());
    QVERIFY2(view->openModelFile(plainPath, &error), qPrintable(error));
    QCOMPARE(m->modelChoice()->currentData().toString(), TopicsView::modelFileKey(plainPath));
    QVERIFY(m->showDocument(Set::HeldOut, 1));
    QVERIFY2(m->privacyText().startsWith("NOT private: the model itself is not a private release (no noise"),
             qPrintable(m->privacyText()));
    QVERIFY(b->statement().contains("NOT private — no noise: not a private release"));

    // Never over the session's own files.
    const QString session = dir.filePath("session.json");
    QVERIFY(r.w.saveSession(session));
    QVERIFY(!view->saveModelFile(session, {session}, &error));
    QVERIFY2(error.contains("session.json"), qPrintable(error));
    QVERIFY(loadSession(session).ok());
  }
};

QTEST_MAIN(TestDocumentMixture)
#include "tst_document_mixture.moc"
