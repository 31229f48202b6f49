#pragma once
// The right dock: explains the selected node or edge (what it computes, whether it is noisy,
// the sensitivity formula and its value from the last run's ledger, preconditions and whether
// they hold, noise scale, ε/δ share) and shows the text of a loaded lesson.
#include <QTextBrowser>
#include <memory>
#include <optional>

#include "core/graph/computation_graph.h"
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

 private:
  void render();
  QString edgeHtml(int edge) const;
  QString nodeHtml(Node node) const;

  SessionState m_state;
  std::shared_ptr<const RunOutcome> m_outcome;
  int m_edge = -1;
  std::optional<Node> m_node;
  bool m_lessonFirst = false;
};

}  // namespace dplda
