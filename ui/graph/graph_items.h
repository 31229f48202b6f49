#pragma once
// Scene items of the GraphCanvas: nodes (rounded boxes with a state badge), edges (arrows) and
// edge labels (the "e5" pill and the caption), kept above every line so they stay readable.
// Internal to ui/graph; the canvas owns and updates them.
#include <QGraphicsItem>
#include <QLineF>
#include <QString>

#include "core/graph/computation_graph.h"
#include "ui/graph/node_state.h"

namespace dplda {

// How an edge is drawn; the canvas recomputes it after every change.
struct EdgeLook {
  bool noisy = false;
  bool leak = false;      // on the leaking path shown in the banner
  bool hovered = false;
  bool selected = false;  // keyboard/mouse selection (focus halo)
  QString caption;        // e.g. "ε 0.33 · σ 2.1e-3 · analytic"
};

// The scene font sizes of the graph's texts (node names, edge pills, captions). The canvas raises
// them above these base sizes when the view is scaled down, so that no text of the graph is
// drawn smaller than its minimum on screen (a 1280×720 window, presentation mode).
struct GraphTextSizes {
  double node = 20, pill = 15, caption = 13;
  bool operator==(const GraphTextSizes&) const = default;
};

class GraphNodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 1 };
  static constexpr double kWidth = 80;
  static constexpr double kHeight = 48;

  GraphNodeItem(Node node, const QString& label);
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  Node node() const { return m_node; }
  QRectF boxInScene() const { return mapRectToScene(box()); }
  void setState(NodeState state);
  NodeState state() const { return m_state; }
  void setChosen(bool chosen);  // the node last clicked
  void setTextSizes(const GraphTextSizes& sizes);

 private:
  static QRectF box() { return QRectF(-kWidth / 2, -kHeight / 2, kWidth, kHeight); }
  void updateToolTip();

  Node m_node;
  QString m_label;
  GraphTextSizes m_sizes;
  NodeState m_state = NodeState::Idle;
  bool m_chosen = false;
};

class GraphEdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 2 };
  // line: from the source box's border to the target box's border, in scene coordinates.
  GraphEdgeItem(int id, const QLineF& line);
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;  // a generous hit area around the line
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  int edgeId() const { return m_id; }
  QLineF line() const { return m_line; }
  void setLook(const EdgeLook& look);

 private:
  int m_id;
  QLineF m_line;
  EdgeLook m_look;
};

class GraphEdgeLabelItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };
  // anchor: the point on the line where the pill sits; the caption goes above or below the
  // pill, shifted by captionOffset (so it clears the edge's own diagonal line and the nodes).
  GraphEdgeLabelItem(int id, const QPointF& anchor, bool captionAbove, const QPointF& captionOffset);
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  int edgeId() const { return m_id; }
  void setLook(const EdgeLook& look);
  void setTextSizes(const GraphTextSizes& sizes);
  static constexpr double kCaptionWidth = 116;  // at the base caption size; scales with the text
  QRectF captionRect() const;                   // in item coordinates; empty without a caption

 private:
  QRectF pillRect() const;
  double captionWidth() const;  // the wrapping width of the caption at its text size

  int m_id;
  bool m_captionAbove;
  QPointF m_captionOffset;
  EdgeLook m_look;
  GraphTextSizes m_sizes;
};

// The label of a node on screen: "W⁺" for W+, otherwise the SPEC name.
QString nodeDisplayName(Node node);

}  // namespace dplda
