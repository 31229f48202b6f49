#pragma once
// GraphCanvas: the interactive computation graph of SPEC §7, laid out left to right (D … OUT).
// Clicking an edge (or selecting it with Tab/arrow keys and pressing Space) toggles noise on
// it; after every change the canvas asks core (decidePrivacy) whether the set is private and
// says so in a banner, highlighting a leaking path when it is not. Takes plain data: an
// EdgeSet, node states and caption strings; it computes nothing else.
#include <QGraphicsView>
#include <QString>
#include <array>
#include <vector>

#include "core/graph/computation_graph.h"
#include "ui/graph/node_state.h"

class QLabel;

namespace dplda {

class GraphNodeItem;
class GraphEdgeItem;
class GraphEdgeLabelItem;

class GraphCanvas : public QGraphicsView {
  Q_OBJECT

 public:
  explicit GraphCanvas(QWidget* parent = nullptr);
  ~GraphCanvas() override;

  // The noisy edges. setNoisyEdges emits noisyEdgesChanged only when the set changes; bits
  // above e9 are ignored.
  EdgeSet noisyEdges() const { return m_noisy; }
  void setNoisyEdges(EdgeSet edges);
  void toggleEdge(int edge);  // as a click does; ignored when not editable or edge not in 0..9

  // When false (e.g. a locked lesson), clicks and Space select but do not change noise.
  void setEditable(bool editable) { m_editable = editable; }
  bool isEditable() const { return m_editable; }

  void setNodeState(Node node, NodeState state);
  NodeState nodeState(Node node) const;
  void setAllNodeStates(NodeState state);

  // A short text under an edge's label, e.g. "ε 0.33 · σ 2.1e-3 · analytic"; empty removes it.
  void setEdgeCaption(int edge, const QString& caption);
  QString edgeCaption(int edge) const;
  void clearEdgeCaptions();

  // Keyboard/mouse selection; -1 for none. setSelectedEdge emits edgeSelected when it changes.
  int selectedEdge() const { return m_selectedEdge; }
  void setSelectedEdge(int edge);

  // The privacy decision for the current set (recomputed after every change) and the banner.
  const PrivacyDecision& decision() const { return m_decision; }
  QString bannerText() const;
  // The edges drawn as the leaking path (empty when private).
  std::vector<int> highlightedEdges() const { return m_decision.isPrivate ? std::vector<int>{} : m_decision.leakEdges; }

  // Scene coordinates of an edge's label (its click target) and of a node's centre; use
  // mapFromScene to get viewport pixels.
  QPointF edgeMidpoint(int edge) const;
  QPointF nodeCenter(Node node) const;

  QSize sizeHint() const override { return QSize(960, 360); }
  QSize minimumSizeHint() const override { return QSize(480, 200); }

 signals:
  void noisyEdgesChanged(dplda::EdgeSet edges);
  void edgeSelected(int edge);
  void nodeSelected(dplda::Node node);

 protected:
  bool event(QEvent* event) override;  // Tab/Backtab move the edge selection
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  struct Hit {
    int edge = -1;
    GraphNodeItem* node = nullptr;
  };
  Hit hitAt(const QPoint& viewportPos) const;
  void buildScene();
  void refresh();      // decision, banner, edge looks
  void updateLooks();  // edge looks only (hover, selection, captions)
  void layoutBanner();
  void fitScene();
  void setHoveredEdge(int edge);
  bool moveSelection(int step);  // false when it would leave the ends (focus moves on)

  QGraphicsScene* m_scene = nullptr;
  QLabel* m_banner = nullptr;
  std::array<GraphNodeItem*, kNodeCount> m_nodes{};
  std::array<GraphEdgeItem*, kEdgeCount> m_edges{};
  std::array<GraphEdgeLabelItem*, kEdgeCount> m_labels{};
  std::array<QString, kEdgeCount> m_captions;
  EdgeSet m_noisy = 0;
  PrivacyDecision m_decision;
  int m_selectedEdge = -1;
  int m_hoveredEdge = -1;
  int m_pressedEdge = -1;
  GraphNodeItem* m_pressedNode = nullptr;
  GraphNodeItem* m_chosenNode = nullptr;
  bool m_editable = true;
};

}  // namespace dplda
