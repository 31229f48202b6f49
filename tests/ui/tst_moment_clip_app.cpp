// Clipped documents in configurations 1–4 in the app (docs/PRIVACY.md §12): the budget bar's
// "clip documents" with C1, C2, C3 (core's defaults, one C1/C2 pair with the whitened release),
// refused bounds and combinations with core's messages, undo; sessions round-trip the bounds and
// old files load with clipping off; a clipped run of configuration 1 names the bounds in its
// statement, ledger, banner and summary, has Lemma C4's smaller sensitivity, and the inspector
// shows the clipped fractions as non-private diagnostics.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>
#include <cmath>

#include "core/moments/clipped_moments.h"
#include "core/pipeline/private_run.h"
#include "small_session.h"
#include "ui/common/privacy_text.h"
#include "ui/graph/graph_canvas.h"
#include "ui/main_window.h"
#include "budget_bar_harness.h"
#include "ui/panels/budget_bar.h"
#include "ui/panels/inspector_panel.h"
#include "ui/session/session_model.h"
#include "ui/session/session_privacy.h"
#include "ui/window/run_summary.h"
#include "ui/worker/run_worker.h"

using namespace dplda;

using test::Bar;
using test::runAndWait;

namespace {

const LedgerEntry* entryOf(const PrivateRunResult& r, const std::string& node) {
  for (const LedgerEntry& e : r.ledger)
    if (e.node == node) return &e;
  return nullptr;
}

}  // namespace

class TestMomentClipApp : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qRegisterMetaType<std::shared_ptr<const RunOutcome>>();
    qRegisterMetaType<std::shared_ptr<const ExperimentUpdate>>();
  }

  void budgetBarOffersClippingWithCoresDefaults() {
    Bar b(test::smallSession(Preset::Config1));
    QVERIFY(b.bar.isClipBoxVisible());
    QVERIFY(!b.bar.isE6RowVisible());  // configuration 1 has no e6
    QVERIFY(b.bar.clipDocumentsCheck()->isVisibleTo(&b.bar));
    QVERIFY(b.bar.clipM3Edit()->isVisibleTo(&b.bar));
    QVERIFY(!b.bar.clipWhitenedEdit()->isVisibleTo(&b.bar));
    QVERIFY(!b.bar.clipM3Edit()->isEnabled());  // off by default: the bounds bound nothing
    QVERIFY(!momentClipOf(b.state).enabled);
    b.bar.clipDocumentsCheck()->setChecked(true);
    QVERIFY(b.state.clipDocuments);
    QVERIFY(b.bar.clipM3Edit()->isEnabled());
    QCOMPARE(momentClipOf(b.state), (MomentClip{true, kDefaultClipM1, kDefaultClipM2, kDefaultClipM3}));
    QCOMPARE(b.bar.clipM3Edit()->text(), QString::number(kDefaultClipM3));
    QVERIFY2(b.bar.indicatorToolTip().contains("C3 = 0.15"), qPrintable(b.bar.indicatorToolTip()));

    // Bad bounds are refused with core's message naming the field; the session keeps its bounds.
    const SessionState before = b.state;
    b.type(b.bar.clipM3Edit(), "-1");
    QCOMPARE(b.state, before);
    QVERIFY2(b.bar.errorText().contains("C3"), qPrintable(b.bar.errorText()));
    QVERIFY(b.bar.clipM3Edit()->styleSheet().contains("border"));
    b.type(b.bar.clipM3Edit(), "abc");
    QVERIFY(b.bar.errorText().contains("C3"));
    b.type(b.bar.clipM3Edit(), "0.2");
    QVERIFY(b.bar.errorText().isEmpty());
    QCOMPARE(b.state.clipM3, 0.2);
    b.type(b.bar.clipM1Edit(), "0");
    QVERIFY2(b.bar.errorText().contains("C1"), qPrintable(b.bar.errorText()));
    QCOMPARE(b.state.clipM1, kDefaultClipM1);
    b.type(b.bar.clipM1Edit(), "0.5");

    // Combinations core refuses are refused at the edit, saying why.
    b.choose(b.bar.mechanismCombo(), static_cast<int>(Mechanism::Laplace));
    QCOMPARE(b.state.mechanism, Mechanism::AnalyticGaussian);
    QVERIFY2(b.bar.errorText().contains("clip documents") && b.bar.errorText().contains("Gaussian"),
             qPrintable(b.bar.errorText()));
    b.choose(b.bar.presetCombo(), static_cast<int>(Preset::Input));
    QCOMPARE(b.state.edges, presetEdges(Preset::Config1));
    QVERIFY2(b.bar.errorText().contains("input perturbation"), qPrintable(b.bar.errorText()));
    SessionState printed = b.state;  // e.g. a file: the run is blocked with the reason
    printed.bounds = BoundSet::Printed;
    QVERIFY2(validateSession(printed).value("clip_documents").contains("sound bound set"),
             qPrintable(validateSession(printed).value("clip_documents")));
    b.bar.setState(printed);
    QVERIFY(b.bar.e6ProblemText().contains("sound bound set"));
    b.bar.setState(b.state);
    // Clipping off: Laplace is fine again.
    b.bar.clipDocumentsCheck()->setChecked(false);
    b.choose(b.bar.mechanismCombo(), static_cast<int>(Mechanism::Laplace));
    QCOMPARE(b.state.mechanism, Mechanism::Laplace);

    // The whitened release uses the same C1, C2 and its own C; C3 and the check box hide.
    b.choose(b.bar.mechanismCombo(), static_cast<int>(Mechanism::AnalyticGaussian));
    b.bar.clipDocumentsCheck()->setChecked(true);
    b.choose(b.bar.presetCombo(), -2);
    QVERIFY(b.state.whitenedRelease());
    QVERIFY(!b.bar.clipM3Edit()->isVisibleTo(&b.bar));
    QVERIFY(!b.bar.clipDocumentsCheck()->isVisibleTo(&b.bar));
    QVERIFY(b.bar.clipWhitenedEdit()->isVisibleTo(&b.bar));
    QVERIFY(!momentClipOf(b.state).enabled);  // the whitened release clips its own terms
    QVERIFY(validateSession(b.state).isEmpty());
    // No noise: nothing to clip for, the bounds hide.
    b.choose(b.bar.presetCombo(), static_cast<int>(Preset::None));
    QVERIFY(!b.bar.isClipBoxVisible());
    QVERIFY(!momentClipOf(b.state).enabled);
  }

  void undoAndRedoTheClipping() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = test::smallSession(Preset::Config1);
    w.model()->reset(s);
    BudgetBar* bar = w.budgetBar();
    bar->clipDocumentsCheck()->setChecked(true);
    bar->clipM3Edit()->setText("0.25");
    emit bar->clipM3Edit()->editingFinished();
    QVERIFY(w.model()->state().clipDocuments);
    QCOMPARE(w.model()->state().clipM3, 0.25);
    w.model()->undoStack()->undo();
    QCOMPARE(w.model()->state().clipM3, kDefaultClipM3);
    QCOMPARE(bar->clipM3Edit()->text(), QString::number(kDefaultClipM3));
    w.model()->undoStack()->undo();
    QVERIFY(!w.model()->state().clipDocuments);
    QVERIFY(!bar->clipDocumentsCheck()->isChecked());
    w.model()->undoStack()->redo();
    QVERIFY(w.model()->state().clipDocuments);
  }

  void sessionRoundTripAndOldFiles() {
    SessionState s = test::smallSession(Preset::Config2);
    s.clipDocuments = true;
    s.clipM1 = 0.6;
    s.clipM2 = 0.35;
    s.clipM3 = 0.12;
    auto back = sessionFromJson(sessionToJson(s));
    QVERIFY(back.ok());
    QCOMPARE(back.value(), s);
    QCOMPARE(momentClipOf(back.value()), (MomentClip{true, 0.6, 0.35, 0.12}));
    SessionState other = s;
    other.clipM3 = 0.13;
    QVERIFY(other != s);  // C3 is part of the session's equality (a change re-runs)

    // A file written before the section loads with clipping off.
    QJsonObject old = sessionToJson(s);
    QJsonObject priv = old.value("privacy").toObject();
    QVERIFY(priv.contains("moment_clip"));
    priv.remove("moment_clip");
    old.insert("privacy", priv);
    auto o = sessionFromJson(old);
    QVERIFY(o.ok());
    QVERIFY(!o.value().clipDocuments);
    QCOMPARE(o.value().clipM3, kDefaultClipM3);
    QVERIFY(!momentClipOf(o.value()).enabled);
    // Bad values are refused, naming the key.
    priv.insert("moment_clip", QJsonObject{{"enabled", true}, {"clip_m3", -1}});
    old.insert("privacy", priv);
    QVERIFY(sessionFromJson(old).status().message().find("privacy.moment_clip.clip_m3") != std::string::npos);
    priv.insert("moment_clip", QJsonObject{{"enabled", "yes"}});
    old.insert("privacy", priv);
    QVERIFY(sessionFromJson(old).status().message().find("privacy.moment_clip.enabled") != std::string::npos);
  }

  void clippedRunNamesItsBoundsAndHasLemmaC4sSensitivity() {
    SessionState plain = test::smallSession(Preset::Config1);
    plain.epsilon = 5;
    SessionState clipped = plain;
    clipped.clipDocuments = true;
    QVERIFY(validateSession(clipped).isEmpty());
    auto a = runAndWait(plain);
    auto c = runAndWait(clipped);
    QVERIFY(a && c);
    QVERIFY2(c->status.isOk(), c->status.message().c_str());
    QVERIFY(a->priv && c->priv);
    const std::string bounds = momentClipText(momentClipOf(clipped));
    QCOMPARE(bounds, std::string("C1 = 0.5, C2 = 0.3, C3 = 0.15"));
    // The statement and the ledger name the clipping and its bounds; the unclipped run's do not.
    QVERIFY2(c->priv->statement.summary.find(bounds) != std::string::npos, c->priv->statement.summary.c_str());
    QVERIFY(a->priv->statement.summary.find("clipped") == std::string::npos);
    const LedgerEntry* m2c = entryOf(*c->priv, "M2");
    const LedgerEntry* m2a = entryOf(*a->priv, "M2");
    QVERIFY(m2c && m2a);
    QVERIFY2(m2c->sensitivityFormula.find(bounds) != std::string::npos, m2c->sensitivityFormula.c_str());
    // Lemma C4's Δ2 = (2 C2 + 4a C1²)/N, below SPEC §9's (2 + 4a)/N.
    const double N = c->trainDocCount > 0 ? c->trainDocCount : c->docCount, alpha = clipped.alpha0() / (clipped.alpha0() + 1.0);
    QVERIFY(std::abs(m2c->sensitivity - (2 * 0.3 + 4 * alpha * 0.25) / N) < 1e-12);
    QVERIFY(std::abs(m2a->sensitivity - (2 + 4 * alpha) / N) < 1e-12);
    QVERIFY(m2c->sensitivity < m2a->sensitivity);
    // Every output of the app says so: summary, banner.
    QVERIFY2(runSummaryText(*c).contains(QString::fromStdString(bounds)), qPrintable(runSummaryText(*c)));
    QVERIFY(!runSummaryText(*a).contains("clipped"));
    GraphCanvas canvas;
    canvas.setNoisyEdges(clipped.edges);
    canvas.setStatementInputs(sessionStatementInputs(clipped, c->docCount));
    canvas.setRunStatement(c->priv->statement);
    QVERIFY2(canvas.bannerText().contains("documents clipped") && canvas.bannerText().contains("C3 = 0.15"),
             qPrintable(canvas.bannerText()));
    canvas.setStatementInputs(sessionStatementInputs(plain, a->docCount));
    QVERIFY(!canvas.bannerText().contains("clipped"));
    // The clipped fractions: non-private diagnostics, labelled, in the inspector.
    const auto& frac = c->priv->diagnostics.nonPrivate.clipped;
    QVERIFY(std::isfinite(frac.m3) && !std::isfinite(frac.whitenedBound));
    QVERIFY(!std::isfinite(a->priv->diagnostics.nonPrivate.clipped.m3));
    InspectorPanel inspector;
    inspector.setSession(clipped);
    inspector.setOutcome(c);
    inspector.showEdge(2);
    QString text = inspector.plainText();
    QVERIFY2(text.contains("documents clipped (C1 = 0.5, C2 = 0.3, C3 = 0.15)"), qPrintable(text));
    QVERIFY(text.contains("Non-private (teaching)"));
    QVERIFY(text.contains(QString::number(100.0 * frac.m3, 'g', 3) + "%"));
    inspector.showNode(Node::M3);  // Lemma C4's Δ3 with the bounds plugged in
    text = inspector.plainText();
    QVERIFY2(text.contains("Lemma C4") && text.contains("C3′"), qPrintable(text));
  }
};

QTEST_MAIN(TestMomentClipApp)
#include "tst_moment_clip_app.moc"
