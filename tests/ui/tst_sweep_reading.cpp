// Issue 14, "make ε speak of accuracy": the session's ε sweep read at the session's ε (expected
// error beside the privacy indicator) and, for a run that released nothing, from which ε the
// sweep released.
#include <QtTest>

#include "tests/ui/small_session.h"
#include "ui/main_window.h"
#include "ui/panels/budget_bar.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/results_panel.h"
#include "ui/window/run_summary.h"
#include "ui/worker/run_worker.h"

using namespace dplda;

class TestSweepReading : public QObject {
  Q_OBJECT
 private slots:
  void expectedErrorFollowsTheSessionSweep() {
    MainWindow w;
    w.setAutoRun(false);
    SessionState s = test::smallSession(Preset::Config1);
    s.epsilon = 5.0;  // a grid point of 0.5:50:3
    w.model()->reset(s);
    w.runNow();
    const quint64 id = w.runner()->currentId();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == id, 25000);
    const SweepReading r = w.results()->experiments()->sessionReading(w.model()->state());
    QVERIFY(r.available);
    QVERIFY(std::isfinite(r.expectedErrorL2) && r.expectedErrorL2 > 0);
    QCOMPARE(r.releasesFrom, 0.5);
    QVERIFY2(w.budgetBar()->indicatorText().contains(QString("expected ℓ₂ error ≈ %1").arg(r.expectedErrorL2, 0, 'g', 2)),
             qPrintable(w.budgetBar()->indicatorText()));
    // Another configuration than the sweep's: nothing to read, nothing shown.
    SessionState other = w.model()->state();
    other.edges = presetEdges(Preset::Config2);
    QVERIFY(!w.results()->experiments()->sessionReading(other).available);
  }

  void refusedRunSaysFromWhichEpsilonItWouldRelease() {
    RunOutcome o;
    o.priv = PrivateRunResult{};
    o.priv->released = false;
    SweepReading from;
    from.available = true;
    from.releasesFrom = 2.154;
    QVERIFY(releaseHint(o, from).contains("releases from ε ≈ 2.15"));
    SweepReading never;
    never.available = true;
    QVERIFY(releaseHint(o, never).contains("released at no ε"));
    QVERIFY(releaseHint(o, SweepReading{}).isEmpty());  // no sweep: nothing to say
    o.priv->released = true;
    QVERIFY(releaseHint(o, from).isEmpty());
  }

  // Status lines, history rows and topic tables name the whitened release, not "custom {e2,e5,e6}".
  void whitenedReleaseIsNamed() {
    const SessionState w = withWhitenedRelease(test::smallSession(Preset::Config1));
    QCOMPARE(configurationLabel(w), QString("whitened release"));
    SessionState noise = w;
    noise.e6Release = SessionState::TensorRelease::Noise;
    QCOMPARE(configurationLabel(noise), QString("custom {e2,e5,e6}"));
    QCOMPARE(configurationLabel(test::smallSession(Preset::Config2)), QString("config 2"));
  }
};

QTEST_MAIN(TestSweepReading)
#include "tst_sweep_reading.moc"
