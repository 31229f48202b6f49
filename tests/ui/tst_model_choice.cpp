// The app's model choice (issue 10): spectral, VI or DP-VI in the run controls. DP-VI runs through
// the worker and shows its zCDP ledger and a held-out perplexity; invalid VI parameters are marked
// with the command line's messages and block the run; the session round-trips the choice (old
// files still load); the Topics tab titles runs correctly, also for a corpus without truth, and
// compares two models in a table of all k topics.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "../cli/cli_runner.h"
#include "core/eval/perplexity.h"
#include "core/vi/vi_parameters.h"
#include "small_session.h"
#include "ui/graph/graph_canvas.h"
#include "ui/main_window.h"
#include "ui/panels/generator_panel.h"
#include "ui/panels/results_panel.h"
#include "ui/panels/table_export.h"
#include "ui/panels/topics_view.h"
#include "ui/plots/topics_plot.h"
#include "ui/worker/run_worker.h"

using namespace dplda;

namespace {

// A small synthetic session fitted by DP-VI (batch VB, a few passes): a run takes well under a second.
SessionState dpViSession() {
  SessionState s = test::smallSession(Preset::Config1);
  s.generator.docCount = 600;
  s.model = SessionState::Model::DpVi;
  s.vi.method = ViMethod::Batch;
  s.vi.iterations = 4;
  s.vi.clip = 5;
  s.epsilon = 2;
  return s;
}

std::shared_ptr<const RunOutcome> runAndWait(MainWindow& w) {
  QSignalSpy ready(w.runner(), &RunController::runReady);
  w.runNow();
  const quint64 id = w.runner()->currentId();
  if (!QTest::qWaitFor([&] { return w.shownRunId() == id; }, 30000)) return nullptr;
  return ready.isEmpty() ? nullptr : ready.last().at(0).value<std::shared_ptr<const RunOutcome>>();
}

int rowNamed(QTableWidget* t, const QString& name) {
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->item(r, 0) && t->item(r, 0)->text() == name) return r;
  return -1;
}

// Two word groups, one document per line: a plain-text corpus without truth (d = 30).
QString writeTextCorpus(const QTemporaryDir& dir, int lines) {
  const QStringList groups[2] = {{"apple", "banana", "cherry", "grape", "lemon", "mango", "melon", "peach", "pear",
                                  "plum", "berry", "fig", "kiwi", "lime", "date"},
                                 {"engine", "wheel", "brake", "motor", "gear", "piston", "clutch", "valve", "axle",
                                  "pedal", "tyre", "bolt", "chassis", "pump", "spark"}};
  QFile f(dir.filePath("docs.txt"));
  if (!f.open(QIODevice::WriteOnly)) return {};
  std::uint64_t x = 777;
  auto next = [&x](int n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((x >> 33) % static_cast<std::uint64_t>(n));
  };
  for (int d = 0; d < lines; ++d) {
    QStringList words;
    for (int j = 0; j < 12; ++j) words << groups[next(10) < 8 ? d % 2 : 1 - d % 2][next(15)];
    f.write((words.join(' ') + "\n").toUtf8());
  }
  return f.fileName();
}

}  // namespace

class TstModelChoice : public QObject {
  Q_OBJECT

 private slots:
  // Issue 28: the app checked no memory before a fit. k = 1500 topics need a 1500³ whitened tensor
  // (27 GB): refused before any stage allocates, with what it needs, like `dplda run`.
  void aTensorBeyondMemoryIsRefusedBeforeTheFit() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = test::smallSession(Preset::None);
    s.generator.vocabSize = 2000;
    s.generator.topicCount = 1500;
    s.generator.docCount = 2000;
    s.generator.meanLength = 5;
    w.model()->reset(s);
    QSignalSpy ready(w.runner(), &RunController::runReady);
    QElapsedTimer clock;
    clock.start();
    w.runNow();
    QVERIFY(QTest::qWaitFor([&] { return !ready.isEmpty(); }, 60000));
    qInfo("refused after %lld ms", static_cast<long long>(clock.elapsed()));
    const auto o = ready.last().at(0).value<std::shared_ptr<const RunOutcome>>();
    QVERIFY(o);
    QVERIFY(!o->status.isOk());
    QCOMPARE(o->failedStage, QString("model"));
    QVERIFY2(o->status.message().find("needs about") != std::string::npos, o->status.message().c_str());
    // In the app's words: its control is "Topics k", there is no --topics to lower.
    QVERIFY2(o->status.message().find("Topics k 1500") != std::string::npos &&
                 o->status.message().find("--topics") == std::string::npos,
             o->status.message().c_str());
    QVERIFY(!o->hasNonPrivate);
  }

  void dpViRunShowsItsLedgerAndAPerplexity() {
    MainWindow w;
    w.setAutoRun(false);
    const SessionState s = dpViSession();
    w.model()->reset(s);
    // The graph says it is not the model being run, and is dimmed.
    QVERIFY(w.canvas()->isDimmed());
    QVERIFY2(w.canvas()->modelNotice().contains("DP-VI") && w.canvas()->modelNotice().contains("not being run"),
             qPrintable(w.canvas()->modelNotice()));
    // The VI rows show; the spectral-only ones do not.
    GeneratorPanel* g = w.generatorPanel();
    QVERIFY(g->field("vi_clip")->isVisibleTo(g) && g->field("vi_iterations")->isVisibleTo(g));
    QVERIFY(!g->field("decomposer")->isVisibleTo(g));
    QVERIFY(!g->field("vi_kappa")->isVisibleTo(g));  // batch VB has no learning rate

    auto o = runAndWait(w);
    QVERIFY(o);
    QVERIFY2(o->status.isOk(), o->status.message().c_str());
    QVERIFY(o->variational && o->variational->ledger && !o->priv);
    QCOMPARE(o->trainDocCount, 540);  // fitted on the training part only
    QCOMPARE(o->testDocCount, 60);
    const DpViLedger& L = *o->variational->ledger;
    QCOMPARE(L.clip, 5.0);
    QCOMPARE(L.releases, 4LL);
    QCOMPARE(QString::fromStdString(L.claim), QString("proven"));

    // The ledger tab: one release naming the zCDP accountant and C; its note spells them out.
    ResultsPanel* r = w.results();
    QCOMPARE(r->ledgerTable()->rowCount(), 1);
    QVERIFY2(r->ledgerTable()->item(0, 2)->text().contains("zcdp"), qPrintable(r->ledgerTable()->item(0, 2)->text()));
    QCOMPARE(r->ledgerTable()->item(0, 3)->text(), QString("10"));  // sensitivity 2C
    QVERIFY(r->ledgerTable()->item(0, 8)->text().contains("C = 5"));
    const QString note = r->ledgerNote();
    for (const QString& needle : {QString("zCDP"), QString("clip C = 5"), QString("proven"), QString("T = 4")})
      QVERIFY2(note.contains(needle), qPrintable(note));
    QVERIFY(note.contains(QString("Spent ε %1").arg(L.epsilon, 0, 'g', 4)));
    // The same releases under Gaussian-DP and PLD (docs/PRIVACY.md §16), both below zCDP's ε.
    const AccountantComparison& acc = o->variational->accounts;
    QVERIFY(acc.computed && acc.pld < L.epsilon && acc.gaussianDp < L.epsilon);
    QVERIFY2(note.contains(QString("PLD ε %1").arg(acc.pld, 0, 'g', 4)), qPrintable(note));

    // A finite held-out perplexity, prominent and in Diagnostics with the command line's labels.
    QVERIFY(o->perplexity && o->perplexity->has());
    const double p = o->perplexity->result->perplexity;
    QVERIFY2(std::isfinite(p) && p > 1 && p < 30, qPrintable(QString::number(p)));  // d = 30: uniform is 30
    QVERIFY2(r->headlineText().startsWith("Held-out perplexity"), qPrintable(r->headlineText()));
    QVERIFY(o->truthPerplexity && o->truthPerplexity->has());
    QTableWidget* diag = r->diagnosticsTable();
    const int est = rowNamed(diag, "estimator");
    QVERIFY(est >= 0);
    QCOMPARE(diag->item(est, 2)->text(), QString::fromStdString(perplexityEstimatorText()));
    const int sm = rowNamed(diag, "smoothing");
    QVERIFY(sm >= 0);
    QCOMPARE(diag->item(sm, 2)->text(), QString::fromStdString(perplexitySmoothingText(kDefaultPerplexitySmoothing)));
    QVERIFY(rowNamed(diag, "evaluation") >= 0 && diag->item(rowNamed(diag, "evaluation"), 1)->text() == "post-processing");
    QVERIFY(rowNamed(diag, "perplexity (DP-VI)") >= 0);
    // No ε sweep of the spectral model follows a DP-VI run, and the status says what ran.
    QVERIFY(!w.isBusy());
    QVERIFY(w.shownSweepId() != w.shownRunId());
    QVERIFY2(w.statusText().contains("DP-VI") && w.statusText().contains("perplexity"), qPrintable(w.statusText()));
    QCOMPARE(w.results()->topicsPlot()->title(), QString("True vs DP-VI (private) topic"));

    // Back to spectral: the graph is the model again.
    SessionState back = s;
    back.model = SessionState::Model::Spectral;
    w.model()->edit(back, "spectral");
    QVERIFY(!w.canvas()->isDimmed() && w.canvas()->modelNotice().isEmpty());
  }

  void viRunIsCancellable() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = dpViSession();
    s.model = SessionState::Model::Vi;
    s.vi.method = ViMethod::Online;
    s.vi.iterations = 2000;  // minutes if it ran to the end
    s.generator.docCount = 3000;
    w.model()->reset(s);
    QSignalSpy progress(w.runner(), &RunController::progressChanged);
    QSignalSpy cancelled(w.runner(), &RunController::cancelled);
    w.runNow();
    auto inFit = [&] {
      for (const auto& args : progress)
        if (args.at(2).toString().startsWith("variational LDA")) return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(inFit(), 20000);
    QVERIFY(w.isBusy());
    w.cancelRun();
    QCOMPARE(cancelled.count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(!w.runner()->isBusy(), 3000);
    QCOMPARE(w.shownRunId(), quint64(0));
    // The worker is free at once: the next run finishes.
    s.vi.iterations = 2;
    w.model()->edit(s, "fewer passes");
    auto o = runAndWait(w);
    QVERIFY(o && o->status.isOk() && o->variational && !o->variational->ledger);
  }

  void invalidParametersAreMarkedAndBlockTheRun() {
    MainWindow w;
    w.setAutoRun(false);
    w.model()->reset(dpViSession());
    GeneratorPanel* g = w.generatorPanel();
    auto* method = qobject_cast<QComboBox*>(g->field("vi_method"));
    method->setCurrentIndex(method->findData("online"));
    QCOMPARE(w.model()->state().vi.method, ViMethod::Online);
    struct Case {
      const char* key;
      double value;
      QString message;  // the command line's, from the shared check
    };
    const Case cases[] = {{"vi_clip", 0, "--clip must be in (0, 1e12], got 0"},
                          {"vi_batch_size", 0, "--batch-size must be a whole number in 1..100000000, got 0"},
                          {"vi_kappa", 0.5, "--kappa must be in (0.5, 1], got 0.5"},
                          {"vi_kappa", 1.25, "--kappa must be in (0.5, 1], got 1.25"},
                          {"vi_iterations", 0, "--iterations must be a whole number in 1..100000, got 0"},
                          {"vi_tau0", 0.5, "--tau0 must be in [1, 1e12], got 0.5"}};
    const SessionState valid = w.model()->state();
    for (const Case& c : cases) {
      QWidget* field = g->field(c.key);
      if (auto* d = qobject_cast<QDoubleSpinBox*>(field)) d->setValue(c.value);
      else qobject_cast<QSpinBox*>(field)->setValue(static_cast<int>(c.value));
      QCOMPARE(g->fieldError(c.key), c.message);
      QVERIFY(field->styleSheet().contains("border"));  // marked at the field
      QVERIFY2(w.statusText().contains(c.message.toHtmlEscaped()), qPrintable(w.statusText()));
      QVERIFY(w.model()->state() == valid);  // never reaches the session
      const quint64 before = w.runner()->currentId();
      w.runNow();
      QCOMPARE(w.runner()->currentId(), before);  // blocked
      QVERIFY(!w.runner()->isBusy());
      QVERIFY2(w.statusText().startsWith("<span") && w.statusText().contains("Cannot run"), qPrintable(w.statusText()));
      // Valid again: the mark goes.
      g->setState(valid);
      QVERIFY(g->fieldError(c.key).isEmpty());
    }
    // The same messages as `dplda run` gives for these values (one shared check in core).
    for (const auto& [flag, value] : {std::pair<QString, QString>{"--clip", "0"}, {"--kappa", "0.5"}, {"--batch-size", "0"}}) {
      const auto r = cli_test::dplda({"run", "--corpus", "/nonexistent", "--topics", "3", "--model", "dp-vi", flag, value});
      QVERIFY2(r.code == 2, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
      const auto problems = checkViRunParameters(
          [&] {
            ViRunParameters p;
            if (flag == "--clip") p.clip = 0;
            if (flag == "--kappa") p.kappa = 0.5;
            if (flag == "--batch-size") p.batchSize = 0;
            return p;
          }(),
          true);
      QCOMPARE(problems.size(), std::size_t(1));
      QVERIFY2(r.err.contains(QString::fromStdString(problems[0].message)), qPrintable(r.err));
    }
  }

  // The app's "VI α" choice reaches the fit: learned α differs across topics and sums to α₀, the
  // symmetric one is α₀/k each, and the Model tab says which.
  void learnedAlphaIsChosenInTheAppAndReachesTheFit() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = dpViSession();
    s.model = SessionState::Model::Vi;
    s.generator.prior = GeneratorParams::Prior::Random;  // unequal topic shares
    w.model()->reset(s);
    auto* shape = qobject_cast<QComboBox*>(w.generatorPanel()->field("vi_alpha"));
    QVERIFY(shape && shape->isVisibleTo(w.generatorPanel()));
    QCOMPARE(shape->currentData().toString(), QString("symmetric"));
    auto symmetric = runAndWait(w);
    QVERIFY(symmetric && symmetric->variational);
    const Eigen::VectorXd a0 = symmetric->variational->fit.model.alpha;
    QCOMPARE(a0.maxCoeff(), a0.minCoeff());
    shape->setCurrentIndex(shape->findData("learned"));
    QVERIFY(w.model()->state().vi.learnAlpha);
    auto learned = runAndWait(w);
    QVERIFY(learned && learned->variational);
    const Eigen::VectorXd a = learned->variational->fit.model.alpha;
    QVERIFY2(a.maxCoeff() > 1.01 * a.minCoeff(), "a learned α is not symmetric on a random-prior corpus");
    // Total α₀, up to the floor of α₀·1e-6 that a topic with no tokens keeps (alphaFromTopicShares).
    QVERIFY2(std::abs(a.sum() - s.alpha0()) <= a.size() * 1e-6 * s.alpha0(),
             qPrintable(QString("sum %1, alpha0 %2, min %3").arg(a.sum()).arg(s.alpha0()).arg(a.minCoeff())));
    QVERIFY(w.model()->undoStack()->canUndo());  // an edit of the session, undoable like the others
  }

  void sessionRoundTripsTheModelChoice() {
    SessionState s = dpViSession();
    s.vi = {ViMethod::Online, 7, 33, 64, 0.85, 2.5, true};
    s.holdout = 0.25;
    s.holdoutSeed = 18446744073709551615ull;
    QTemporaryDir dir;
    const QString path = dir.filePath("vi.json");
    QVERIFY(saveSession(s, path).isOk());
    auto r = loadSession(path);
    QVERIFY2(r.ok(), r.status().message().c_str());
    QVERIFY(r.value() == s);
    QCOMPARE(r.value().model, SessionState::Model::DpVi);
    QCOMPARE(r.value().vi.kappa, 0.85);
    QCOMPARE(r.value().holdoutSeed, 18446744073709551615ull);
    SessionState other = s;
    other.vi.clip = 3;
    QVERIFY(other != s);  // equality sees the VI parameters
    other = s;
    other.holdout = 0;
    QVERIFY(other != s);
    other = s;
    other.vi.learnAlpha = false;
    QVERIFY(other != s);
    QCOMPARE(sessionToJson(s).value("model").toObject().value("vi").toObject().value("alpha").toString(),
             QString("learned"));  // the command line's --vi-alpha word

    // The window shows a loaded session's choice.
    MainWindow w;
    w.setAutoRun(false);
    QVERIFY(w.openSession(path));
    QCOMPARE(qobject_cast<QComboBox*>(w.generatorPanel()->field("model"))->currentData().toString(), QString("dp-vi"));
    QCOMPARE(qobject_cast<QDoubleSpinBox*>(w.generatorPanel()->field("vi_clip"))->value(), 2.5);
    QCOMPARE(qobject_cast<QSpinBox*>(w.generatorPanel()->field("vi_batch_size"))->value(), 33);
    QCOMPARE(qobject_cast<QDoubleSpinBox*>(w.generatorPanel()->field("holdout"))->value(), 0.25);
    QCOMPARE(qobject_cast<QComboBox*>(w.generatorPanel()->field("vi_alpha"))->currentData().toString(), QString("learned"));

    // An old file (no model kind, no evaluation section) loads as the spectral model on the whole corpus.
    QJsonObject old = sessionToJson(s);
    QJsonObject model = old.value("model").toObject();
    model.remove("kind");
    model.remove("vi");
    old.insert("model", model);
    old.remove("evaluation");
    auto o = sessionFromJson(old);
    QVERIFY2(o.ok(), o.status().message().c_str());
    QCOMPARE(o.value().model, SessionState::Model::Spectral);
    QCOMPARE(o.value().holdout, 0.0);
    QVERIFY(o.value().vi == ViRunParameters{});
    // Bad values are refused with the key named.
    model.insert("kind", "gibbs");
    old.insert("model", model);
    auto bad = sessionFromJson(old);
    QVERIFY(!bad.ok() && QString::fromStdString(bad.status().message()).contains("model.kind"));
    model.insert("kind", "vi");
    model.insert("vi", QJsonObject{{"kappa", 0.2}});
    old.insert("model", model);
    bad = sessionFromJson(old);
    QVERIFY(!bad.ok() && QString::fromStdString(bad.status().message()).contains("model.vi.kappa"));
    model.insert("vi", QJsonObject{{"alpha", "auto"}});
    old.insert("model", model);
    bad = sessionFromJson(old);
    QVERIFY(!bad.ok() && QString::fromStdString(bad.status().message()).contains("model.vi.alpha"));
    old.insert("evaluation", QJsonObject{{"holdout", 1.0}});
    model.remove("vi");
    old.insert("model", model);
    bad = sessionFromJson(old);
    QVERIFY(!bad.ok() && QString::fromStdString(bad.status().message()).contains("evaluation.holdout"));
  }

  void topicsTitlesAndComparisonWithoutTruth() {
    QTemporaryDir dir;
    const QString path = writeTextCorpus(dir, 200);
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = test::smallSession(Preset::None);
    s.source = SessionState::Source::Text;
    s.corpusPath = path;
    s.vocabularyFile = test::writeWordList(path, dir.filePath("vocab-list.txt"));
    QVERIFY(!s.vocabularyFile.isEmpty());
    s.generator.vocabSize = 30;
    s.generator.topicCount = 2;
    s.trials = 1;
    w.model()->reset(s);
    auto spectral = runAndWait(w);
    QVERIFY(spectral && spectral->status.isOk() && !spectral->truth);
    QCOMPARE(spectral->trainDocCount, 180);
    QCOMPARE(w.canvas()->statementInputs().docCount, 180);  // N public: the training part
    ResultsPanel* r = w.results();
    QCOMPARE(r->topicsPlot()->title(), QString("non-private spectral topic — no truth for this corpus"));
    QVERIFY2(r->headlineText().startsWith("Held-out perplexity"), qPrintable(r->headlineText()));
    QVERIFY(spectral->perplexity && spectral->perplexity->has());

    s.model = SessionState::Model::Vi;
    s.vi.iterations = 3;
    w.model()->edit(s, "VI");
    auto vi = runAndWait(w);
    QVERIFY(vi && vi->status.isOk());
    QCOMPARE(r->topicsPlot()->title(), QString("VI (non-private) topic — no truth for this corpus"));
    QVERIFY(r->topicsPlot()->hasData());
    // The comparison: the VI run beside the spectral one, every topic a row, top words by name.
    TopicsView* view = r->topicsView();
    QCOMPARE(view->firstModel()->currentData().toString(), QString("vi"));
    QCOMPARE(view->secondModel()->currentData().toString(), QString("spectral"));
    QTableWidget* t = view->table();
    QCOMPARE(t->rowCount(), 2);
    QCOMPARE(t->horizontalHeaderItem(4)->text(), QString("ℓ₂ between"));
    // Each model's coherence on the training documents, labelled a non-private diagnostic.
    QCOMPARE(t->columnCount(), 7);
    QVERIFY(t->horizontalHeaderItem(5)->text().startsWith("NPMI: VI"));
    QVERIFY(t->horizontalHeaderItem(6)->text().startsWith("NPMI: spectral non-private"));
    QVERIFY(t->horizontalHeaderItem(5)->toolTip().contains("non-private diagnostic"));
    QVERIFY(vi->coherence && spectral->baselineCoherence);
    QCOMPARE(t->item(0, 5)->text(), QString::number(vi->coherence->topics[0].npmi, 'g', 3));
    const QString words = t->item(0, 2)->text() + " " + t->item(1, 2)->text();
    QVERIFY2(words.contains("apple") || words.contains("engine"), qPrintable(words));
    QVERIFY(t->item(0, 3)->text().startsWith("#"));  // the spectral topic matched to it
    const QString csv = dir.filePath("topics.csv");
    QString err;
    QVERIFY2(exportTableCsv(t, csv, &err), qPrintable(err));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()).trimmed().split('\n').size(), 3);  // header + k rows
  }

  void topicsTitlesWithTruth() {
    // Titles only depend on the outcome's model and truth: no run needed.
    RunOutcome o;
    o.truth = LdaModel{};
    o.session.edges = 0;
    QCOMPARE(TopicsView::titleFor(o), QString("True vs non-private spectral topic"));
    o.session.edges = presetEdges(Preset::Config1);
    PrivateRunResult priv;
    priv.released = true;
    priv.output = UnwhitenedTopics{};
    o.priv = priv;
    QCOMPARE(TopicsView::titleFor(o), QString("True vs private spectral topic"));
    o.priv->released = false;
    QCOMPARE(TopicsView::titleFor(o), QString("True vs non-private spectral (nothing released) topic"));
    o.truth.reset();
    o.priv.reset();
    o.variational = VariationalOutcome{};
    QCOMPARE(TopicsView::titleFor(o), QString("VI (non-private) topic — no truth for this corpus"));
  }
};

QTEST_MAIN(TstModelChoice)
#include "tst_model_choice.moc"
