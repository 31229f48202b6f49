// Every lesson shows its point at its own settings: each test loads the lesson exactly as the app
// does (lessonSession, the function MainWindow::loadLesson uses), runs it through the app's worker
// (RunController: the same private run and session sweep the app shows), and asserts what the
// lesson text promises. Also: Reset lesson, leaving a lesson, and the select-without-toggling
// gesture the texts teach.
#include <QAction>
#include <QSignalSpy>
#include <QtTest>
#include <cmath>
#include <memory>

#include "core/experiments/sweep.h"
#include "core/graph/computation_graph.h"
#include "core/pipeline/privacy_statement.h"
#include "ui/graph/graph_canvas.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/main_window.h"
#include "ui/panels/experiment_view.h"
#include "ui/panels/inspector_panel.h"
#include "ui/panels/results_panel.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/session/session_privacy.h"
#include "ui/worker/run_worker.h"

using namespace dplda;

namespace {

struct Ran {
  std::shared_ptr<const RunOutcome> run;
  std::shared_ptr<const ExperimentUpdate> sweep;  // the finished session sweep (when asked for)
};

// One run of `s` through the app's worker, and its ε sweep when `sweep`.
Ran runSession(const SessionState& s, bool sweep) {
  RunController rc;
  Ran out;
  QObject::connect(&rc, &RunController::runReady, [&](std::shared_ptr<const RunOutcome> o) { out.run = o; });
  QObject::connect(&rc, &RunController::experimentReady, [&](std::shared_ptr<const ExperimentUpdate> u) {
    if (!u->status.isOk() || (u->run && u->run->finished)) out.sweep = u;
  });
  rc.start(s, sweep);
  if (!QTest::qWaitFor([&] { return out.run && (!sweep || out.sweep || !out.run->status.isOk()); }, 60000))
    qWarning("the lesson's run did not finish within 60 s");  // the caller's checks then fail on the empty result
  return out;
}

SessionState lesson(const QString& name) {
  auto r = lessonSession(name);
  if (!r.ok()) qFatal("lesson %s: %s", qPrintable(name), r.status().message().c_str());
  return r.value();
}

const LedgerEntry* entry(const PrivateRunResult& p, const std::string& node) {
  for (const LedgerEntry& e : p.ledger)
    if (e.node == node) return &e;
  return nullptr;
}

bool failed(const std::vector<Precondition>& ps, const std::string& nameStart) {
  for (const Precondition& p : ps)
    if (p.name.rfind(nameStart, 0) == 0 && !p.holds) return true;
  return false;
}

// Median ℓ2 error of configuration `config` (index in the sweep) at ε index `e`.
double sweepError(const ExperimentUpdate& u, int config, int e) {
  return u.run->sweep->summaryRow(0, config, e).errorL2.median;
}
double sweepRate(const ExperimentUpdate& u, int config, int e) {
  return u.run->sweep->summaryRow(0, config, e).releaseRate;
}

}  // namespace

class TestLessons : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { initExplorerResources(); }

  // The app loads every lesson through lessonSession; each is valid and has a title and text.
  void appLoadsLessonsAsTested() {
    MainWindow w;
    w.setAutoRun(false);
    const QStringList names = MainWindow::lessonNames();
    QVERIFY(names.size() >= 10);
    for (const QString& n : names) {
      QString err;
      QVERIFY2(w.loadLesson(n, &err), qPrintable(n + ": " + err));
      const SessionState s = lesson(n);
      QVERIFY2(w.model()->state() == s, qPrintable(n));
      QVERIFY2(validateSession(s).isEmpty(), qPrintable(n + ": " + validateSession(s).values().join("; ")));
      QVERIFY(!s.lessonTitle.isEmpty() && !s.lessonText.isEmpty());
      QCOMPARE(w.lessons()->currentLesson(), n);
    }
  }

  // Lesson 1 names the leaking path the banner shows for the empty set.
  void lesson01NamesTheBannersPath() {
    const SessionState s = lesson("01_no_noise");
    QCOMPARE(s.edges, EdgeSet(0));
    const PrivacyDecision d = decidePrivacy(0);
    QString path = nodeName(d.leakPath[0]);
    for (std::size_t i = 1; i < d.leakPath.size(); ++i) path += QString(" → ") + nodeName(d.leakPath[i]);
    path.replace("W+", "W⁺");
    QVERIFY2(s.lessonText.contains(path), qPrintable(path));
    QVERIFY(decidePrivacy(EdgeSet(1u << 9)).isCut);   // "Noise on e9 alone cuts every path"
    QVERIFY(!decidePrivacy(EdgeSet(1u << 5)).isCut);  // "noise on e5 alone does not"
    const Ran r = runSession(s, false);
    QVERIFY(r.run && r.run->status.isOk() && r.run->error);
    QVERIFY2(r.run->error->l2Mean < 0.1, qPrintable(QString::number(r.run->error->l2Mean)));  // "accurate"
  }

  // Lesson 2: configuration 1 releases (proven); sharing the M2 release gives fewer releases,
  // so each gets more budget and less noise.
  void lesson02ReleasesAndSharingSaves() {
    SessionState s = lesson("02_config1");
    const Ran r = runSession(s, false);
    QVERIFY(r.run && r.run->status.isOk() && r.run->priv);
    QVERIFY(r.run->priv->released);
    QCOMPARE(r.run->priv->statement.claim, PrivacyClaim::Proven);
    s.shareReleases = true;
    const Ran shared = runSession(s, false);
    QVERIFY(shared.run && shared.run->priv && shared.run->priv->released);
    QVERIFY(shared.run->priv->ledger.size() < r.run->priv->ledger.size());
    QVERIFY(entry(*shared.run->priv, "M2")->sigma < entry(*r.run->priv, "M2")->sigma);
  }

  // Lesson 3: configuration 2 releases with proven bounds at the lesson's ε, after σ̃_k; the
  // noise on T dwarfs T's eigenvalues, as the text says.
  void lesson03Config2Releases() {
    const SessionState s = lesson("03_config2");
    QCOMPARE(s.edges, presetEdges(Preset::Config2));
    const Ran r = runSession(s, true);
    QVERIFY(r.run && r.run->priv);
    const PrivateRunResult& p = *r.run->priv;
    QVERIFY2(p.released, p.status.message().c_str());
    QCOMPARE(p.statement.claim, PrivacyClaim::Proven);
    QVERIFY(p.diagnostics.sigmaKTilde && *p.diagnostics.sigmaKTilde > 0);
    const LedgerEntry* t = entry(p, "T");
    QVERIFY(t && t->spent);
    QVERIFY(r.run->decomposition.lambda.size() > 0);
    QVERIFY2(t->sigma > 10 * r.run->decomposition.lambda.maxCoeff(), qPrintable(QString::number(t->sigma)));
    // "no better than a guess … against configuration 1 at the same ε"
    SessionState one = s;
    one.edges = presetEdges(Preset::Config1);
    const Ran c1 = runSession(one, false);
    QVERIFY(r.run->error && c1.run && c1.run->error);
    qInfo("lesson 3: sigma_T %g, lambda_max %g, l2 %g; config 1 l2 %g", t->sigma, r.run->decomposition.lambda.maxCoeff(),
          r.run->error->l2Mean, c1.run->error->l2Mean);
    QVERIFY(r.run->error->l2Mean > 0.5 && c1.run->error->l2Mean < 0.3);
    // "Drag ε down to 1: … nothing is released"
    one = s;
    one.epsilon = 1;
    const Ran low = runSession(one, false);
    QVERIFY(low.run && low.run->priv && !low.run->priv->released);
    // The Sweeps tab shows a curve: every ε of the lesson's grid from the lesson's ε up releases.
    QVERIFY(r.sweep && r.sweep->status.isOk());
    const auto& eps = r.sweep->run->sweep->spec.epsilons;
    for (std::size_t e = 0; e < eps.size(); ++e)
      if (eps[e] >= s.epsilon) QCOMPARE(sweepRate(*r.sweep, 0, static_cast<int>(e)), 1.0);
  }

  // Lesson 4: σ̃_k passes but γ̃_s comes out as 0: nothing is released, Procedure 1's budget is
  // spent. With the printed bounds (which the text names as not proven) it releases.
  void lesson04GammaRefuses() {
    SessionState s = lesson("04_config3");
    QCOMPARE(s.bounds, BoundSet::Sound);
    const Ran r = runSession(s, false);
    QVERIFY(r.run && r.run->priv);
    const PrivateRunResult& p = *r.run->priv;
    QVERIFY(!p.released);
    const LedgerEntry* sk = entry(p, "sigma_k");
    QVERIFY(sk && sk->spent && p.diagnostics.sigmaKTilde);
    QVERIFY2(*p.diagnostics.sigmaKTilde > sk->sensitivity, "σ̃_k must pass (σ̃_k > Δ2)");
    QVERIFY(!failed(p.diagnostics.preconditions, "sigma_k_tilde"));
    QVERIFY(p.diagnostics.gammaSTilde && *p.diagnostics.gammaSTilde == 0.0);
    qInfo("lesson 4: sigma_k~ %g > Delta2 %g, gamma_s~ %g, epsilon spent %g", *p.diagnostics.sigmaKTilde,
          sk->sensitivity, *p.diagnostics.gammaSTilde, p.epsilonSpent);
    const LedgerEntry* gs = entry(p, "gamma_s");
    QVERIFY(gs && gs->spent);
    QVERIFY(p.epsilonSpent > 0);
    QVERIFY(s.lessonText.contains("heuristic"));
    s.bounds = BoundSet::Printed;
    const Ran printed = runSession(s, false);
    QVERIFY(printed.run && printed.run->priv && printed.run->priv->released);
    QVERIFY(printed.run->priv->statement.claim != PrivacyClaim::Proven);
    QVERIFY(printed.run->error);
    qInfo("lesson 4 printed: claim %s, l2 %g", privacyClaimName(printed.run->priv->statement.claim),
          printed.run->error->l2Mean);
  }

  // Lesson 5: configuration 4 releases at this ε with the printed bounds (labelled, not proven),
  // not with the sound ones; Ctrl+K's comparison draws all four configurations.
  void lesson05Config4ReleasesPrinted() {
    SessionState s = lesson("05_config4");
    QCOMPARE(s.edges, presetEdges(Preset::Config4));
    QCOMPARE(s.bounds, BoundSet::Printed);
    QVERIFY(s.comparePresets);
    QVERIFY(s.lessonText.contains("heuristic") && s.lessonText.contains("not a proven guarantee"));
    const Ran r = runSession(s, true);
    QVERIFY(r.run && r.run->priv);
    QVERIFY2(r.run->priv->released, r.run->priv->status.message().c_str());
    QCOMPARE(r.run->priv->statement.claim, PrivacyClaim::PrintedBounds);
    QVERIFY(r.sweep && r.sweep->status.isOk());
    QCOMPARE(r.sweep->run->sweep->spec.configurations.size(), std::size_t(4));
    const auto& eps = r.sweep->run->sweep->spec.epsilons;
    for (int c = 0; c < 4; ++c)
      for (std::size_t e = 0; e < eps.size(); ++e)
        if (eps[e] >= s.epsilon) QVERIFY2(sweepRate(*r.sweep, c, int(e)) > 0, qPrintable(QString("config %1").arg(c + 1)));
    // Configuration 4's curve lies above configuration 1's at the lesson's ε.
    const int e = int(std::find(eps.begin(), eps.end(), s.epsilon) - eps.begin());
    QVERIFY(e < int(eps.size()));
    QVERIFY(sweepError(*r.sweep, 3, e) > sweepError(*r.sweep, 0, e));
    qInfo("lesson 5 (printed) l2 at eps %g: config 1 %g, 2 %g, 3 %g, 4 %g", s.epsilon, sweepError(*r.sweep, 0, e),
          sweepError(*r.sweep, 1, e), sweepError(*r.sweep, 2, e), sweepError(*r.sweep, 3, e));
    s.bounds = BoundSet::Sound;
    const Ran sound = runSession(s, false);
    QVERIFY(sound.run && sound.run->priv && !sound.run->priv->released);
  }

  // Lesson 6: input perturbation releases but is far less accurate than configuration 1 at the
  // same ε, and its sensitivity √2·L_max does not depend on N.
  void lesson06InputWorseThanConfig1() {
    SessionState s = lesson("06_input_perturbation");
    QCOMPARE(s.edges, presetEdges(Preset::Input));
    const Ran input = runSession(s, false);
    QVERIFY(input.run && input.run->priv && input.run->priv->released && input.run->error);
    QCOMPARE(input.run->priv->statement.claim, PrivacyClaim::Proven);  // "the run is private"
    const double inputSens = input.run->priv->ledger.front().sensitivity;
    QVERIFY(std::abs(inputSens - std::sqrt(2.0) * s.maxLength) < 1e-9 * inputSens);
    s.edges = presetEdges(Preset::Config1);
    const Ran c1 = runSession(s, false);
    QVERIFY(c1.run && c1.run->priv && c1.run->priv->released && c1.run->error);
    qInfo("lesson 6: input l2 %g, config 1 l2 %g", input.run->error->l2Mean, c1.run->error->l2Mean);
    QVERIFY2(input.run->error->l2Mean > 1.5 * c1.run->error->l2Mean,
             qPrintable(QString("%1 vs %2").arg(input.run->error->l2Mean).arg(c1.run->error->l2Mean)));
  }

  // Lesson 7: at lesson 3's N and ε (where configuration 2 releases) the overlapping topics
  // leave σ̃_k ≤ Δ2: nothing is released and the diagnostics name that precondition.
  void lesson07SmallGapRefusesWhereLesson3Releases() {
    const SessionState s = lesson("07_small_eigengap");
    const SessionState three = lesson("03_config2");
    QCOMPARE(s.edges, three.edges);
    QCOMPARE(s.epsilon, three.epsilon);
    QCOMPARE(s.generator.docCount, three.generator.docCount);
    const Ran r = runSession(s, false);
    QVERIFY(r.run && r.run->priv);
    QVERIFY(!r.run->priv->released);
    QVERIFY(failed(r.run->priv->diagnostics.preconditions, "sigma_k_tilde > Delta2"));
    qInfo("lesson 7: sigma_k %g, sigma_k~ %g", r.run->eigenvalues[s.topicCount() - 1],
          r.run->priv->diagnostics.sigmaKTilde.value_or(-1));
    QVERIFY(r.run->eigenvalues.size() >= s.topicCount());
  }

  // Lesson 8: the curve is drawn (configuration 1 releases at every ε of the grid), falls with
  // ε, and moves down when N is raised to the value the text suggests.
  void lesson08CurveMovesDownWithN() {
    SessionState s = lesson("08_few_documents");
    QVERIFY(s.lessonText.contains("20 000"));
    const Ran few = runSession(s, true);
    QVERIFY(few.sweep && few.sweep->status.isOk());
    const int n = int(few.sweep->run->sweep->spec.epsilons.size());
    for (int e = 0; e < n; ++e) QCOMPARE(sweepRate(*few.sweep, 0, e), 1.0);
    QVERIFY(sweepError(*few.sweep, 0, n - 1) < sweepError(*few.sweep, 0, 0));
    s.generator.docCount = 20000;
    const Ran many = runSession(s, true);
    QVERIFY(many.sweep && many.sweep->status.isOk());
    int lower = 0;
    for (int e = 0; e < n; ++e) lower += sweepError(*many.sweep, 0, e) < sweepError(*few.sweep, 0, e);
    QVERIFY2(lower == n, qPrintable(QString("%1 of %2 points lower").arg(lower).arg(n)));
    qInfo("lesson 8: l2 at eps %g: N=1000 %g, N=20000 %g", few.sweep->run->sweep->spec.epsilons[0],
          sweepError(*few.sweep, 0, 0), sweepError(*many.sweep, 0, 0));
    // "the data seed keeps the same topics"
    QVERIFY(few.run->truth && many.run->truth);
    QVERIFY(few.run->truth->topics.isApprox(many.run->truth->topics));
    // "Configuration 2 releases nothing at N = 1 000"
    s.generator.docCount = 1000;
    s.edges = presetEdges(Preset::Config2);
    const Ran two = runSession(s, false);
    QVERIFY(two.run && two.run->priv && !two.run->priv->released);
  }

  // Issue 24: every lesson starts on its own view, the session's ε sweep on the Sweeps tab (it
  // used to leave whatever preset and tab were shown, with Pin disabled), and Pin pins it.
  void lessonsSetUpTheirOwnSweepView() {
    MainWindow w;
    w.setAutoRun(false);
    ExperimentView* view = w.results()->experiments();
    for (const char* name : {"03_config2", "05_config4", "08_few_documents", "09_compare_sweeps"}) {
      QVERIFY(view->setSource("figure2"));           // a preset shown…
      w.results()->setCurrentIndex(w.results()->count() - 1);  // …on another tab
      QString err;
      QVERIFY2(w.loadLesson(name, &err), qPrintable(err));
      w.setAutoRun(false);
      QCOMPARE(w.results()->currentWidget(), static_cast<QWidget*>(view));
      QCOMPARE(view->source(), QString("session"));
      QCOMPARE(view->currentPlot(), static_cast<PlotWidget*>(view->errorPlot()));
    }
    QVERIFY(w.loadLesson("03_config2"));
    w.setAutoRun(false);
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == w.runner()->currentId(), 60000);
    QString err;
    QVERIFY2(view->pinShown(&err), qPrintable(err));
    QCOMPARE(w.model()->state().pinnedSweeps.size(), 1);
  }

  // Issue 24: lesson 8 pins its first sweep (N = 1 000) by itself, so "watch it move down" is
  // visible without pinning first: with N = 20 000 the new curve lies below the pinned one at
  // every ε of the grid. The pin is part of the lesson (no unsaved change) and is made once.
  void lesson08PinsItsStartingCurve() {
    MainWindow w;
    w.setAutoRun(false);
    QString err;
    QVERIFY2(w.loadLesson("08_few_documents", &err), qPrintable(err));
    w.setAutoRun(false);
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.model()->state().pinnedSweeps.size() == 1, 60000);
    QVERIFY(!w.isWindowModified());
    const QString label = w.model()->state().pinnedSweeps[0].toObject().value("label").toString();
    QVERIFY2(label.contains("N = 1") && label.contains("lesson start"), qPrintable(label));
    SessionState s = w.model()->state();
    s.generator.docCount = 20000;
    w.model()->edit(s, "raise N");
    w.runNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.shownSweepId() == w.runner()->currentId(), 60000);
    QCOMPARE(w.model()->state().pinnedSweeps.size(), 1);
    ErrorVsEpsilonPlot* plot = w.results()->experiments()->errorPlot();
    ErrorVsEpsilonPlot::CurveData pinned, now;
    QVERIFY2(plot->curveData("pin-0-0", &pinned), qPrintable(plot->curveKeys().join(",")));
    QVERIFY2(plot->curveData("1", &now), qPrintable(plot->curveKeys().join(",")));
    QCOMPARE(now.eps, pinned.eps);
    for (int i = 0; i < now.eps.size(); ++i)
      QVERIFY2(now.median[i] < pinned.median[i],
               qPrintable(QString("eps %1: N=20000 %2, pinned N=1000 %3").arg(now.eps[i]).arg(now.median[i]).arg(pinned.median[i])));
  }

  // Lessons that tell the user to look at one edge say how to select it without toggling it:
  // the gesture (click the graph's background, then Tab to the edge) selects and keeps the noise.
  // Lesson 9's text against the sweep the app draws for it (the same worker, grid, trials and
  // noise seed; issue 24: the text said "only from ε ≈ 5" where its plot released from 2.15): no
  // "δ ≥ 1/N" caution at its settings; configuration 1 releases at every ε; configuration 2 at no
  // ε up to 1, at some larger ε, and there with a median error above the random-guess line;
  // configurations 3 and 4 at none.
  void lesson09TextAgreesWithItsSweep() {
    const SessionState s = lesson("09_compare_sweeps");
    QVERIFY(s.lessonText.contains("releases nothing up to ε = 1"));
    QVERIFY(s.lessonText.contains("above the random-guess line"));
    QVERIFY(privacyStatement(sessionStatementInputs(s, s.generator.docCount)).cautions.empty());
    const Ran r = runSession(s, true);
    QVERIFY(r.sweep && r.sweep->status.isOk());
    const SweepResult& sweep = *r.sweep->run->sweep;
    QCOMPARE(int(sweep.spec.configurations.size()), 4);
    const double guess = sweep.cases[0].guessErrorL2;
    bool config2Released = false;
    QStringList seen;
    for (int e = 0; e < int(sweep.spec.epsilons.size()); ++e) {
      const double eps = sweep.spec.epsilons[e];
      const SweepSummaryRow& two = sweep.summaryRow(0, 1, e);
      seen << QString("eps %1: config 2 released %2/%3, median l2 %4").arg(eps).arg(two.released).arg(two.trials).arg(two.errorL2.median);
      QCOMPARE(sweepRate(*r.sweep, 0, e), 1.0);
      if (eps <= 1.0 + 1e-9) QVERIFY2(two.released == 0, qPrintable(seen.join("; ")));
      if (two.released > 0) {
        config2Released = true;
        QVERIFY2(two.errorL2.median > guess, qPrintable(seen.join("; ") + QString(" (guess %1)").arg(guess)));
      }
      QCOMPARE(sweepRate(*r.sweep, 2, e), 0.0);
      QCOMPARE(sweepRate(*r.sweep, 3, e), 0.0);
    }
    QVERIFY2(config2Released, qPrintable(seen.join("; ")));
    qInfo("lesson 9 (guess line %.3f): %s", guess, qPrintable(seen.join("; ")));
  }

  // Lesson 10: clipped documents give configuration 1 smaller sensitivities and noise (same noise
  // seed) and a smaller error; the statement names the bounds; unticking restores the SPEC's Δ2.
  void lesson10ClippingShrinksTheNoise() {
    SessionState s = lesson("10_clipped_documents");
    QVERIFY(s.clipDocuments && s.accountant == Accountant::GaussianDp && s.shareReleases);
    const Ran clipped = runSession(s, false);
    QVERIFY(clipped.run && clipped.run->priv && clipped.run->priv->released && clipped.run->error);
    QCOMPARE(clipped.run->priv->statement.claim, PrivacyClaim::Proven);
    QVERIFY(clipped.run->priv->statement.summary.find("C3 = 0.15") != std::string::npos);
    s.clipDocuments = false;
    const Ran plain = runSession(s, false);
    QVERIFY(plain.run && plain.run->priv && plain.run->priv->released && plain.run->error);
    const double n = s.generator.docCount, a = s.alpha0() / (s.alpha0() + 1.0);
    QVERIFY(std::abs(entry(*clipped.run->priv, "M2")->sensitivity - (2 * 0.3 + 4 * a * 0.25) / n) < 1e-15);
    QVERIFY(std::abs(entry(*plain.run->priv, "M2")->sensitivity - (2 + 4 * a) / n) < 1e-15);
    QVERIFY(entry(*clipped.run->priv, "M2")->sigma < 0.5 * entry(*plain.run->priv, "M2")->sigma);
    QVERIFY2(clipped.run->error->l2Mean < plain.run->error->l2Mean,
             qPrintable(QString("clipped %1, plain %2").arg(clipped.run->error->l2Mean).arg(plain.run->error->l2Mean)));
  }

  void selectingDoesNotToggle() {
    const SessionState s = lesson("03_config2");
    QVERIFY(s.lessonText.contains("Tab"));
    MainWindow w;
    w.setAutoRun(false);
    QVERIFY(w.loadLesson("03_config2"));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    GraphCanvas* c = w.canvas();
    c->setFocus();
    for (int i = 0; i < 7; ++i) QTest::keyClick(c, Qt::Key_Tab);  // e0 .. e6
    QCOMPARE(c->selectedEdge(), 6);
    QCOMPARE(w.model()->state().edges, presetEdges(Preset::Config2));
    QVERIFY(w.inspector()->toPlainText().contains("e6"));
  }

  // Reset lesson restores the settings (undoably); loading other data leaves the lesson;
  // loading another lesson replaces the text.
  void resetAndLeave() {
    MainWindow w;
    w.setAutoRun(false);
    QVERIFY(w.loadLesson("04_config3"));
    LessonController* lc = w.lessons();
    QVERIFY(lc->resetAction()->isEnabled());
    QCOMPARE(lc->resetAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    SessionState s = w.model()->state();
    s.epsilon = 7;
    s.edges = presetEdges(Preset::Config1);
    w.model()->edit(s, "test edits");
    QCOMPARE(w.model()->state().lessonTitle, lesson("04_config3").lessonTitle);  // an invited edit keeps it
    lc->resetAction()->trigger();
    QVERIFY(w.model()->state() == lesson("04_config3"));
    w.model()->undoStack()->undo();
    QCOMPARE(w.model()->state().epsilon, 7.0);
    // Other data: the lesson text goes (one more undo step), the settings stay.
    s = w.model()->state();
    s.source = SessionState::Source::Uci;
    s.corpusPath = "/tmp/some-corpus";
    w.model()->edit(s, "load corpus");
    QTRY_VERIFY(w.model()->state().lessonText.isEmpty());
    QVERIFY(w.model()->state().lessonTitle.isEmpty());
    QCOMPARE(w.model()->state().corpusPath, QString("/tmp/some-corpus"));
    QVERIFY(!w.inspector()->toPlainText().contains("γ̃_s"));
    QVERIFY(!lc->resetAction()->isEnabled());
    QCOMPARE(lc->currentLesson(), QString());
    // Undoing the leave and then the corpus load goes back to the lesson, and stays there.
    w.model()->undoStack()->undo();
    w.model()->undoStack()->undo();
    QTest::qWait(20);
    QCOMPARE(w.model()->state().source, SessionState::Source::Synthetic);
    QCOMPARE(lc->currentLesson(), QString("04_config3"));
    QVERIFY(w.model()->undoStack()->canRedo());
    // Another lesson replaces the text; Leave lesson removes it.
    QVERIFY(w.loadLesson("05_config4"));
    QCOMPARE(lc->currentLesson(), QString("05_config4"));
    lc->leaveAction()->trigger();
    QVERIFY(w.model()->state().lessonText.isEmpty());
    QCOMPARE(w.model()->state().edges, presetEdges(Preset::Config4));
  }
};

QTEST_MAIN(TestLessons)
#include "tst_lessons.moc"
