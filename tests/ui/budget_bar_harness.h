#pragma once
// Shared by the app tests of the budget bar's releases (whitened, clipped documents): a run through
// the worker, and a budget bar whose edits land in a session state as the main window's do.
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <memory>

#include "ui/panels/budget_bar.h"
#include "ui/session/session.h"
#include "ui/worker/run_worker.h"

namespace dplda::test {

// Runs `s` through the worker (no sweep) and waits for its outcome; null when none came.
inline std::shared_ptr<const RunOutcome> runAndWait(const SessionState& s) {
  RunController runner;
  QSignalSpy ready(&runner, &RunController::runReady);
  runner.start(s, false);
  if (!ready.wait(60000) || ready.isEmpty()) return nullptr;
  return ready.last().at(0).value<std::shared_ptr<const RunOutcome>>();
}

// The budget bar's edits land in `state`, as the main window's session model does.
struct Bar {
  BudgetBar bar;
  SessionState state;
  explicit Bar(const SessionState& s) : state(s) {
    bar.setState(s);
    QObject::connect(&bar, &BudgetBar::edited, &bar, [this](const SessionState& next, const QString&, int) {
      state = next;
      bar.setState(next);
    });
  }
  // Picks the entry whose data is `data`, as a user's click does (activated is what the bar hears).
  void choose(QComboBox* c, int data) {
    const int i = c->findData(data);
    QVERIFY(i >= 0);
    c->setCurrentIndex(i);
    emit c->activated(i);
  }
  void type(QLineEdit* e, const QString& text) {
    e->setText(text);
    emit e->editingFinished();
  }
};

}  // namespace dplda::test
