#pragma once
// GraphCanvas: the interactive computation graph of SPEC §7, laid out left to right (D … OUT).
// Clicking an edge (or selecting it with Tab/arrow keys and pressing Space) toggles noise on
// it; after every change the canvas asks core what the set may claim (decidePrivacy and
// privacyStatement, from the edges and the public inputs set with setStatementInputs: bounds,
// ε, δ, N) and says so in a banner, highlighting a leaking path when it is not a cut; the
// statement's cautions (δ ≥ 1/N, a very large ε) show in a strip under the banner. Takes
// plain data: an EdgeSet, node states and caption strings; it computes nothing else.
#include <QGraphicsView>
#include <QString>
#include <array>
#include <optional>
#include <vector>

#include "core/graph/computation_graph.h"
#include "core/pipeline/privacy_statement.h"
#include "ui/graph/graph_items.h"
#include "ui/graph/node_state.h"

class QLabel;

namespace dplda {


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

  // The public inputs of the privacy statement besides the edges (bound set, shared releases,
  // ε, δ, noise multiplier, N; N = 0 when unknown). Its `edges` field is ignored: the canvas's
  // own set is used.
  void setStatementInputs(const StatementInputs& inputs);
  const StatementInputs& statementInputs() const { return m_inputs; }
  // The statement of a finished run of exactly these inputs, which may say more than the
  // inputs alone (e.g. "not private as drawn" once the noise is calibrated); shown until the
  // edges or the inputs change. nullopt goes back to the statement of the inputs.
  void setRunStatement(const std::optional<PrivacyStatement>& statement);
  // Whether {e2, e5, e6} is drawn as the whitened release (the statement inputs say so, or the
  // shown run's statement is the whitened release's): e2 and e5 one shared release, e6 its own.
  bool showsWhitenedRelease() const;

  // The privacy decision and statement for the current set (recomputed after every change),
  // the banner's headline and the cautions under it ("" when none).
  const PrivacyDecision& decision() const { return m_decision; }
  const PrivacyStatement& statement() const { return m_statement; }
  QString bannerText() const;
  QString cautionText() const;

  // When the session's model is not the spectral pipeline (VI, DP-VI), a line above the banner
  // says so and the graph is drawn dimmed; "" restores it.
  void setModelNotice(const QString& text);
  QString modelNotice() const;
  bool isDimmed() const { return !m_noticeText.isEmpty(); }
  // The edges drawn as the leaking path (empty when private).
  std::vector<int> highlightedEdges() const { return m_decision.isPrivate ? std::vector<int>{} : m_decision.leakEdges; }

  // Scene coordinates of an edge's label (its click target) and of a node's centre; use
  // mapFromScene to get viewport pixels.
  QPointF edgeMidpoint(int edge) const;
  QPointF nodeCenter(Node node) const;

  // No text of the graph (node names, edge pills, captions) is drawn smaller than this many
  // pixels on screen: when the view scales the scene down (a short window), the texts keep this
  // size and grow in the scene instead. Presentation mode raises it. Default 11.
  void setMinimumTextPixels(double px);
  double minimumTextPixels() const { return m_minTextPx; }
  // The on-screen pixel size of the graph's smallest text now (scene size × view scale), and the
  // view's scale of the scene.
  double smallestTextPixels() const;
  double viewScale() const;

  QSize sizeHint() const override { return QSize(960, 360); }
  // 160 px: with the Sweeps tab's plot at its readable least (kPlotDataHeight) and a pinned
  // sweep's row, the window fits 1280×720 under a window manager's title bar; the graph's text
  // stays >= 11 px (tests/ui/tst_window_fit).
  QSize minimumSizeHint() const override { return QSize(480, 160); }

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
  void fitScene();  // fits the scene, then the texts to their minimum on screen
  void setHoveredEdge(int edge);
  bool moveSelection(int step);  // false when it would leave the ends (focus moves on)

  QGraphicsScene* m_scene = nullptr;
  QLabel* m_banner = nullptr;
  QLabel* m_cautions = nullptr;
  QLabel* m_notice = nullptr;  // the model notice (hidden when empty)
  QString m_noticeText;
  std::array<GraphNodeItem*, kNodeCount> m_nodes{};
  std::array<GraphEdgeItem*, kEdgeCount> m_edges{};
  std::array<GraphEdgeLabelItem*, kEdgeCount> m_labels{};
  std::array<QString, kEdgeCount> m_captions;
  EdgeSet m_noisy = 0;
  PrivacyDecision m_decision;
  StatementInputs m_inputs;
  PrivacyStatement m_statement;
  std::optional<PrivacyStatement> m_runStatement;
  int m_selectedEdge = -1;
  int m_hoveredEdge = -1;
  int m_pressedEdge = -1;
  GraphNodeItem* m_pressedNode = nullptr;
  GraphNodeItem* m_chosenNode = nullptr;
  bool m_editable = true;
  double m_minTextPx = 11.0;
  GraphTextSizes m_textSizes;
};

}  // namespace dplda
