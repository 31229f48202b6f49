// The theory beside a run in the inspector (ui/panels/theory_text.h): the seeds' rate for the
// run's configuration, a prediction for more documents only past saturation and with a truth,
// "no rate" where no theorem covers the configuration; and the inspector shows it under OUT.
#include <QtTest>
#include <cmath>

#include "budget_bar_harness.h"
#include "core/graph/computation_graph.h"
#include "small_session.h"
#include "ui/panels/inspector_panel.h"
#include "ui/panels/theory_text.h"
#include "ui/worker/run_worker.h"

using namespace dplda;

namespace {

// A released configuration-1 run on N = 1000 documents with the given error and utility loss,
// against a truth of two topics over four words (a random guess's error is then 0.5).
RunOutcome handMade(double error, double loss) {
  RunOutcome o;
  o.session.edges = presetEdges(Preset::Config1);
  o.docCount = 1000;
  LdaModel t;
  t.alpha = Eigen::Vector2d(0.5, 0.5);
  t.topics = Eigen::MatrixXd::Zero(4, 2);
  t.topics(0, 0) = t.topics(1, 0) = 0.5;
  t.topics(2, 1) = t.topics(3, 1) = 0.5;
  o.truth = t;
  TopicErrors e;
  e.l2Mean = error;
  o.error = e;
  TopicErrors l;
  l.l2Mean = loss;
  o.utilityLoss = l;
  o.priv.emplace();
  o.priv->released = true;
  return o;
}

QString plain(const QString& html) {
  QTextDocument d;
  d.setHtml(html);
  return d.toPlainText();
}

}  // namespace

class TstTheoryText : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { qRegisterMetaType<std::shared_ptr<const RunOutcome>>(); }

  void predictsOnlyPastSaturation() {
    // The guess: uniform topics, l2 distance sqrt(2 * 0.25^2 + 2 * 0.25^2) = 0.5 per topic.
    const QString past = plain(theoryHtml(handMade(0.05, 0.02)));
    QVERIFY2(past.contains("Theorem 10") && past.contains("Rate only"), qPrintable(past));
    QVERIFY2(past.contains("predicts ≈ 0.01 at N = 2000 and ≈ 0.002 at N = 10000"), qPrintable(past));
    const QString saturated = plain(theoryHtml(handMade(0.3, 0.28)));
    QVERIFY2(saturated.contains("saturated (error 0.3 ≥ 0.25"), qPrintable(saturated));
    QVERIFY(!saturated.contains("predicts ≈"));
    RunOutcome noTruth = handMade(0.05, 0.02);
    noTruth.truth.reset();
    noTruth.error.reset();
    QVERIFY(plain(theoryHtml(noTruth)).contains("cannot be told"));
    QVERIFY(!plain(theoryHtml(noTruth)).contains("predicts ≈"));
  }

  void namesNoRateWithoutATheorem() {
    RunOutcome clipped = handMade(0.05, 0.02);
    clipped.session.clipDocuments = true;
    const QString text = plain(theoryHtml(clipped));
    QVERIFY2(text.contains("No rate to compare: no theorem in the seeds") && text.contains("clipping bias"),
             qPrintable(text));
    QVERIFY(!text.contains("predicts ≈"));
    RunOutcome four = handMade(0.05, 0.02);
    four.session.edges = presetEdges(Preset::Config4);
    QVERIFY(plain(theoryHtml(four)).contains("Theorem 16"));
    RunOutcome silent = handMade(0.05, 0.02);
    silent.priv->released = false;
    QVERIFY(theoryHtml(silent).isEmpty());
  }

  void inspectorShowsItUnderOut() {
    SessionState s = test::smallSession(Preset::Config1);
    s.epsilon = 1000;  // configuration 1 past saturation on 3000 documents
    const auto o = test::runAndWait(s);
    QVERIFY(o && o->status.isOk() && o->priv && o->priv->released);
    InspectorPanel inspector;
    inspector.setSession(s);
    inspector.setOutcome(o);
    inspector.showNode(Node::OUT);
    const QString text = inspector.plainText();
    QVERIFY2(text.contains("Theory beside the measurement") && text.contains("Theorem 10"), qPrintable(text));
    const int N = o->trainDocCount > 0 ? o->trainDocCount : o->docCount;
    QVERIFY2(text.contains(QString("at N = %1").arg(2 * N)), qPrintable(text));
    inspector.showNode(Node::M2);
    QVERIFY(!inspector.plainText().contains("Theory beside the measurement"));
  }
};

QTEST_MAIN(TstTheoryText)
#include "tst_theory_text.moc"
