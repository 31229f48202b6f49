// The whitened release and the Gaussian-DP accountant in the app (issues 13 and 14): the
// budget bar's whitened preset runs through the worker to a released model with a 2-row ledger
// and the claim proven; invalid clipping bounds are marked with core's messages and block the
// run; the accountant changes the ledger's mechanism; sessions round-trip both (old files
// load with the defaults); the graph draws e2/e5 as one release and e6 as the whitened release;
// the inspector writes the bounds as mathematics and shows the three forms of T's bound.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>
#include <cmath>

#include "core/pipeline/private_run.h"
#include "small_session.h"
#include "ui/graph/graph_canvas.h"
#include "budget_bar_harness.h"
#include "ui/panels/budget_bar.h"
#include "ui/panels/inspector_panel.h"
#include "ui/session/session_privacy.h"
#include "ui/worker/run_worker.h"

using namespace dplda;

using test::Bar;
using test::runAndWait;

namespace {

QString texts(const std::vector<LedgerEntry>& ledger) {
  QStringList out;
  for (const LedgerEntry& e : ledger) out << QString::fromStdString(e.mechanism);
  return out.join(" | ");
}

}  // namespace

class TestWhitenedApp : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qRegisterMetaType<std::shared_ptr<const RunOutcome>>();
    qRegisterMetaType<std::shared_ptr<const ExperimentUpdate>>();
  }

  void presetRunsTheWhitenedRelease() {
    Bar b(test::smallSession(Preset::Config2));
    b.state.mechanism = Mechanism::Laplace;  // the preset must switch to a Gaussian mechanism
    b.bar.setState(b.state);
    QVERIFY(!b.bar.isE6RowVisible() || contains(b.state.edges, 6));
    b.choose(b.bar.presetCombo(), -2);
    QVERIFY(b.state.whitenedRelease());
    QCOMPARE(b.state.edges, whitenedEdges());
    QCOMPARE(b.state.mechanism, Mechanism::AnalyticGaussian);
    QVERIFY(b.bar.presetText().contains("whitened"));
    QVERIFY(b.bar.isE6RowVisible());
    QCOMPARE(b.bar.e6Combo()->currentData().toInt(), static_cast<int>(SessionState::TensorRelease::Whitened));
    QVERIFY(b.bar.clipM1Edit()->isVisibleTo(&b.bar));
    QVERIFY2(b.bar.indicatorText().contains("private"), qPrintable(b.bar.indicatorText()));
    QVERIFY(validateSession(b.state).isEmpty());

    auto o = runAndWait(b.state);
    QVERIFY(o);
    QVERIFY2(o->status.isOk(), o->status.message().c_str());
    QVERIFY(o->priv);
    QVERIFY2(o->priv->released, o->priv->status.message().c_str());
    QVERIFY(o->priv->output);
    QCOMPARE(static_cast<int>(o->priv->ledger.size()), 2);
    QCOMPARE(o->priv->ledger[0].edges, (std::vector<int>{2, 5}));
    QCOMPARE(o->priv->ledger[1].edges, (std::vector<int>{6}));
    QCOMPARE(o->priv->statement.claim, PrivacyClaim::Proven);
    QVERIFY(o->priv->statement.summary.find("whitened release") != std::string::npos);
    // The clipped fractions are among the non-private diagnostics, and the inspector shows them labelled.
    QVERIFY(std::isfinite(o->priv->diagnostics.nonPrivate.clipped.m1));
    InspectorPanel inspector;
    inspector.setSession(b.state);
    inspector.setOutcome(o);
    inspector.showEdge(6);
    const QString text = inspector.plainText();
    QVERIFY2(text.contains("documents clipped by the whitened release"), qPrintable(text));
    QVERIFY(text.contains("Non-private (teaching)"));
    QVERIFY(text.contains("whitened release"));
    QVERIFY2(text.contains("Δ") && text.contains("C3/N"), qPrintable(text));

    // The graph: e2 and e5 one shared release, e6 the whitened release, the banner proven with §11.
    GraphCanvas canvas;
    canvas.setNoisyEdges(b.state.edges);
    canvas.setStatementInputs(sessionStatementInputs(b.state, b.state.generator.docCount));
    QVERIFY(canvas.showsWhitenedRelease());
    QVERIFY(canvas.edgeCaption(5).isEmpty());  // e5 draws "e2's release"; the captions the window sets are kept
    QVERIFY2(canvas.bannerText().contains("§11"), qPrintable(canvas.bannerText()));
    QCOMPARE(canvas.statement().claim, PrivacyClaim::Proven);
    GraphCanvas afterRun;  // inputs without the flag: the run's statement says it
    afterRun.setNoisyEdges(b.state.edges);
    QVERIFY(!afterRun.showsWhitenedRelease());
    afterRun.setRunStatement(o->priv->statement);
    QVERIFY(afterRun.showsWhitenedRelease());
    QVERIFY(afterRun.bannerText().contains("whitened release"));

    // Another preset leaves the whitened release.
    b.choose(b.bar.presetCombo(), static_cast<int>(Preset::Config1));
    QVERIFY(!b.state.whitenedRelease());
    QVERIFY(!b.bar.isE6RowVisible());
  }

  void invalidClipBoundsAreMarkedAndBlockTheRun() {
    Bar b(withWhitenedRelease(test::smallSession(Preset::Config2)));
    const SessionState before = b.state;
    QSignalSpy problems(&b.bar, &BudgetBar::inputProblem);
    b.type(b.bar.clipM1Edit(), "-1");
    QCOMPARE(b.state, before);  // refused: the session keeps its valid bounds
    QVERIFY2(b.bar.errorText().contains("C1"), qPrintable(b.bar.errorText()));
    QVERIFY(b.bar.clipM1Edit()->styleSheet().contains("border"));
    QVERIFY(!problems.isEmpty());
    QVERIFY(!problems.last().at(0).toString().isEmpty());  // the window blocks the run meanwhile
    b.type(b.bar.clipM1Edit(), "abc");
    QVERIFY(b.bar.errorText().contains("C1"));
    b.type(b.bar.clipM1Edit(), "0.5");
    QVERIFY(b.bar.errorText().isEmpty());
    b.type(b.bar.clipM2Edit(), "0.2");
    QCOMPARE(b.state.clipM2, 0.2);
    QVERIFY(b.bar.clipM2Edit()->styleSheet().isEmpty());

    // A session holding bad bounds (e.g. from a file) fails validation with core's messages.
    SessionState bad = b.state;
    bad.clipM2 = 0;
    bad.clipWhitened = -3;
    const QMap<QString, QString> e = validateSession(bad);
    QVERIFY2(e.value("clip_m2").contains("C2"), qPrintable(e.value("clip_m2")));
    QVERIFY(e.value("clip_whitened").contains("whitened clipping bound C"));
    QVERIFY(!e.contains("clip_m1"));
    // The whitened release after a click changed its edges: the e6 row says why it cannot run.
    SessionState clicked = b.state;
    clicked.edges |= 1u << 3;
    QVERIFY(validateSession(clicked).value("e6").contains("{e2, e5, e6}"));
    b.bar.setState(clicked);
    QVERIFY(b.bar.e6ProblemText().contains("{e2, e5, e6}"));
    auto o = runAndWait(clicked);  // the worker refuses it too, with the same reason
    QVERIFY(o);
    QVERIFY(!o->status.isOk());
  }

  void accountantChangesTheLedger() {
    Bar b(test::smallSession(Preset::Config1));
    b.state.epsilon = 5;
    b.bar.setState(b.state);
    QVERIFY(b.bar.accountantCombo()->toolTip().contains("Gaussian-DP"));
    QVERIFY(b.bar.accountantCombo()->toolTip().contains("basic"));
    auto basic = runAndWait(b.state);
    QVERIFY(basic && basic->status.isOk() && basic->priv);
    QVERIFY(!texts(basic->priv->ledger).contains("gaussian-dp"));
    QComboBox* c = b.bar.accountantCombo();
    c->setCurrentIndex(c->findData(static_cast<int>(Accountant::GaussianDp)));
    emit c->activated(c->currentIndex());
    QCOMPARE(b.state.accountant, Accountant::GaussianDp);
    auto gdp = runAndWait(b.state);
    QVERIFY(gdp && gdp->status.isOk() && gdp->priv);
    QVERIFY2(texts(gdp->priv->ledger).contains("gaussian-dp accountant"), qPrintable(texts(gdp->priv->ledger)));
    // Refused with another mechanism, with core's message.
    SessionState other = b.state;
    other.mechanism = Mechanism::ClosedFormGaussian;
    QVERIFY(validateSession(other).value("accountant").contains("analytic Gaussian"));
  }

  void sessionRoundTrip() {
    SessionState s = withWhitenedRelease(test::smallSession(Preset::Config2));
    s.clipM1 = 0.7;
    s.clipM2 = 0.25;
    s.clipWhitened = 3.5;
    s.clipToRowBound = true;
    s.accountant = Accountant::GaussianDp;
    auto back = sessionFromJson(sessionToJson(s));
    QVERIFY(back.ok());
    QCOMPARE(back.value(), s);
    QCOMPARE(back.value().e6Release, SessionState::TensorRelease::Whitened);
    QCOMPARE(back.value().clipWhitened, 3.5);
    s.clipM1 = 0.6;
    QVERIFY(back.value() != s);  // the bounds are part of the session's equality (a change re-runs)

    // An old file (no accountant, no e6, no whitened section) loads with the defaults.
    QJsonObject old = sessionToJson(test::smallSession(Preset::Config2));
    QJsonObject priv = old.value("privacy").toObject();
    for (const char* key : {"accountant", "e6", "whitened"}) priv.remove(key);
    old.insert("privacy", priv);
    auto o = sessionFromJson(old);
    QVERIFY(o.ok());
    QCOMPARE(o.value().accountant, Accountant::Basic);
    QCOMPARE(o.value().e6Release, SessionState::TensorRelease::Noise);
    QCOMPARE(o.value().clipM1, kDefaultClipM1);
    // Bad values are refused, naming the key.
    priv.insert("e6", "magic");
    old.insert("privacy", priv);
    QVERIFY(!sessionFromJson(old).ok());
    QVERIFY(sessionFromJson(old).status().message().find("privacy.e6") != std::string::npos);
    priv.insert("e6", "whitened");
    priv.insert("whitened", QJsonObject{{"clip_m1", -1}});
    old.insert("privacy", priv);
    QVERIFY(sessionFromJson(old).status().message().find("clip_m1") != std::string::npos);
    priv.remove("whitened");
    priv.insert("accountant", "fancy");
    old.insert("privacy", priv);
    QVERIFY(sessionFromJson(old).status().message().find("privacy.accountant") != std::string::npos);
  }

  void inspectorShowsThreeFormsOfT() {
    SessionState s = test::smallSession(Preset::Config2);
    auto outcome = std::make_shared<RunOutcome>();
    outcome->session = s;
    outcome->docCount = s.generator.docCount;
    PrivateRunResult priv;
    priv.diagnostics.sigmaKTilde = 0.05;  // private lower bounds as a run releases them
    priv.diagnostics.gapTilde = 0.03;
    priv.diagnostics.gammaSTilde = 0.2;
    outcome->priv = priv;
    InspectorPanel inspector;
    inspector.setSession(s);
    inspector.setOutcome(outcome);
    inspector.showNode(Node::T);
    const QString text = inspector.plainText();
    SensitivityInputs in;
    in.docCount = s.generator.docCount;
    in.topicCount = s.topicCount();
    in.alpha0 = s.alpha0();
    in.maxLength = s.maxLength;
    in.sigmaKTilde = 0.05;
    in.gapTilde = 0.03;
    in.gammaSTilde = 0.2;
    const std::vector<BoundComparison> forms = boundComparisons(Node::T, in);
    QCOMPARE(static_cast<int>(forms.size()), 3);
    for (const BoundComparison& f : forms) {
      QVERIFY(std::isfinite(f.value));
      QVERIFY2(text.contains(QString::number(f.value, 'g', 4)), qPrintable(QString::number(f.value, 'g', 4) + "\n" + text));
    }
    QVERIFY(text.contains("printed") && text.contains("per column") && text.contains("shared Frobenius"));
    // Mathematics, not ASCII: Greek letters with the numbers plugged in, the reference apart.
    QVERIFY(text.contains("σ̃") && text.contains("Δ"));
    QVERIFY(!text.contains("sigma_k~"));
    QVERIFY(text.contains("0.05"));  // σ̃_k plugged in
    QVERIFY(text.contains("Theorem T"));
    // Without a run the local bound says what it needs.
    InspectorPanel fresh;
    fresh.setSession(s);
    fresh.showNode(Node::W);
    QVERIFY2(fresh.plainText().contains("needs"), qPrintable(fresh.plainText()));
  }
};

QTEST_MAIN(TestWhitenedApp)
#include "tst_whitened_app.moc"
