#pragma once
// The right dock: explains the selected node or edge (what it computes, whether it is noisy,
// the sensitivity bound as mathematics with the session's numbers plugged in, its three forms
// for W, W⁺, T, TD, U, the value from the last run's ledger, preconditions and whether they
// hold, noise scale, ε/δ share, the whitened release's clipping) and shows a loaded lesson.
#include <QTextBrowser>
#include <memory>
#include <optional>

#include "core/graph/computation_graph.h"
#include "core/privacy/budget.h"
#include "core/privacy/sensitivity.h"
#include "ui/session/session.h"

namespace dplda {

struct RunOutcome;

class InspectorPanel : public QTextBrowser {
  Q_OBJECT

 public:
  explicit InspectorPanel(QWidget* parent = nullptr);

  void setSession(const SessionState& state);
  void setOutcome(std::shared_ptr<const RunOutcome> outcome);  // null: no current run
  void showEdge(int edge);
  void showNode(Node node);
  void showLesson();  // the session's lesson text (if any) above the selection

  QString plainText() const { return toPlainText(); }
  QSize sizeHint() const override;  // wide enough for a formula, narrow enough for 1280 px

 private:
  void render();
  QString edgeHtml(int edge) const;
  QString nodeHtml(Node node) const;
  // The session's public inputs with the last run's private lower bounds (NaN without a run).
  SensitivityInputs sensitivityInputs() const;
  // The bound of releasing `node` as mathematics with its numbers, and for W, W⁺, T, TD, U the
  // three forms side by side; `entry` (a run's ledger row) supplies the value used.
  QString boundHtml(Node node, const LedgerEntry* entry) const;

  SessionState m_state;
  std::shared_ptr<const RunOutcome> m_outcome;
  int m_edge = -1;
  std::optional<Node> m_node;
  bool m_lessonFirst = false;
};

}  // namespace dplda
