#include "ui/graph/graph_items.h"

#include <algorithm>

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStringList>
#include <QtMath>

#include "ui/common/palette.h"

namespace dplda {

namespace {

constexpr double kArrowLength = 12;
constexpr double kArrowHalfWidth = 6.5;
constexpr double kHitWidth = 22;   // clickable band around an edge line
constexpr double kHaloWidth = 16;
const QColor kEdgeColor(0x4D, 0x4D, 0x4D);
// Text sizes in scene units: GraphTextSizes (the view scales the whole scene to fit).
const GraphTextSizes kBaseSizes;

QFont pixelFont(double px, bool bold = false) {
  QFont f;
  f.setPixelSize(qRound(px));  // pixel sizes: independent of the screen's logical dpi
  f.setBold(bold);
  return f;
}

QPen edgePen(const EdgeLook& look) {
  if (look.noisy) return QPen(noiseColor(), 5.0, Qt::SolidLine, Qt::FlatCap, Qt::RoundJoin);
  if (look.leak) {
    QPen pen(leakColor(), 3.0, Qt::CustomDashLine, Qt::FlatCap, Qt::RoundJoin);
    pen.setDashPattern({3.0, 2.0});
    return pen;
  }
  return QPen(kEdgeColor, 2.0, Qt::SolidLine, Qt::FlatCap, Qt::RoundJoin);
}

// A short sine wave: the "noise" glyph on noisy edges' labels (shape, not only colour).
QPainterPath noiseGlyph(const QPointF& left, double width, double amplitude) {
  QPainterPath path(left);
  const int steps = 24;
  for (int i = 1; i <= steps; ++i) {
    const double t = double(i) / steps;
    path.lineTo(left.x() + t * width, left.y() - amplitude * std::sin(t * 4 * M_PI));
  }
  return path;
}

// Breaks a caption into lines at its " · " separators (dropping the separator at a break),
// then at spaces, so that each line fits `width` where possible.
QString wrapCaption(const QString& caption, const QFontMetricsF& fm, double width) {
  const QString sep = QStringLiteral(" · ");
  QStringList parts = caption.split(sep);
  QStringList lines;
  QString current;
  for (const QString& part : parts) {
    const QString candidate = current.isEmpty() ? part : current + sep + part;
    if (current.isEmpty() || fm.horizontalAdvance(candidate) <= width) {
      current = candidate;
    } else {
      lines << current;
      current = part;
    }
  }
  if (!current.isEmpty()) lines << current;
  QStringList wrapped;  // parts wider than the width: fall back to word wrapping
  for (const QString& line : lines) {
    if (fm.horizontalAdvance(line) <= width) {
      wrapped << line;
      continue;
    }
    QString acc;
    for (const QString& word : line.split(QLatin1Char(' '))) {
      const QString candidate = acc.isEmpty() ? word : acc + QLatin1Char(' ') + word;
      if (acc.isEmpty() || fm.horizontalAdvance(candidate) <= width) {
        acc = candidate;
      } else {
        wrapped << acc;
        acc = word;
      }
    }
    if (!acc.isEmpty()) wrapped << acc;
  }
  return wrapped.join(QLatin1Char('\n'));
}

void drawBadge(QPainter* p, const QPointF& c, double r, NodeState state) {
  p->setPen(QPen(Qt::white, 1.5));
  p->setBrush(nodeStateColor(state));
  p->drawEllipse(c, r, r);
  QPen icon(Qt::white, 2.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
  p->setPen(icon);
  p->setBrush(Qt::NoBrush);
  const double s = r * 0.5;
  switch (state) {
    case NodeState::UpToDate: {  // check mark
      QPainterPath path(c + QPointF(-s, 0.05 * r));
      path.lineTo(c + QPointF(-0.25 * s, 0.75 * s));
      path.lineTo(c + QPointF(s, -0.65 * s));
      p->drawPath(path);
      break;
    }
    case NodeState::Stale: {  // clock: results are old
      p->drawEllipse(c, 0.72 * r, 0.72 * r);
      p->drawLine(c, c + QPointF(0, -0.5 * r));
      p->drawLine(c, c + QPointF(0.38 * r, 0));
      break;
    }
    case NodeState::Running: {  // three dots
      p->setBrush(Qt::white);
      p->setPen(Qt::NoPen);
      for (int i = -1; i <= 1; ++i) p->drawEllipse(c + QPointF(i * 0.5 * r, 0), 0.15 * r, 0.15 * r);
      break;
    }
    case NodeState::Failed: {  // cross
      p->drawLine(c + QPointF(-s, -s), c + QPointF(s, s));
      p->drawLine(c + QPointF(-s, s), c + QPointF(s, -s));
      break;
    }
    case NodeState::Idle: {  // dash
      p->drawLine(c + QPointF(-s, 0), c + QPointF(s, 0));
      break;
    }
  }
}

}  // namespace

QString nodeDisplayName(Node node) {
  if (node == Node::Wplus) return QStringLiteral("W⁺");
  return QString::fromLatin1(nodeName(node));
}

// ---- nodes -------------------------------------------------------------------------------------

GraphNodeItem::GraphNodeItem(Node node, const QString& label) : m_node(node), m_label(label) {
  setZValue(2);
  setAcceptHoverEvents(false);
  updateToolTip();
}

// The margin holds the border and a badge moved onto the top-left corner (paint).
QRectF GraphNodeItem::boundingRect() const { return box().adjusted(-3, -3, 3, 3); }

QPainterPath GraphNodeItem::shape() const {
  QPainterPath path;
  path.addRoundedRect(box(), 9, 9);
  return path;
}

void GraphNodeItem::setState(NodeState state) {
  if (state == m_state) return;
  m_state = state;
  updateToolTip();
  update();
}

void GraphNodeItem::setTextSizes(const GraphTextSizes& sizes) {
  if (sizes == m_sizes) return;
  m_sizes = sizes;
  update();
}

void GraphNodeItem::setChosen(bool chosen) {
  if (chosen == m_chosen) return;
  m_chosen = chosen;
  update();
}

void GraphNodeItem::updateToolTip() {
  setToolTip(QStringLiteral("<b>%1</b> — %2<br>%3")
                 .arg(m_label, nodeStateName(m_state), QString::fromUtf8(nodeInfo(m_node).description).toHtmlEscaped()));
}

void GraphNodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) {
  p->setRenderHint(QPainter::Antialiasing);
  const QRectF r = box();
  // D holds the sensitive data and OUT is the release: tinted so the ends of the graph stand out.
  QColor fill(0xF6, 0xF6, 0xF6);
  if (m_node == Node::D) fill = QColor(0xFD, 0xEE, 0xE4);
  if (m_node == Node::OUT) fill = QColor(0xE3, 0xF4, 0xEE);
  QPen border(QColor(0x33, 0x33, 0x33), m_chosen ? 3.0 : 1.6);
  if (m_state == NodeState::Stale) border.setStyle(Qt::DashLine);  // stale: dashed, not only a colour
  if (m_state == NodeState::Failed) border.setColor(leakColor());
  if (m_state == NodeState::Running) border.setColor(runningColor());
  if (m_chosen) border.setColor(runningColor().darker(120));
  p->setPen(border);
  p->setBrush(fill);
  p->drawRoundedRect(r, 9, 9);

  // The state badge sits inside the box, left of the name, where no edge can cover it. Names
  // raised by the text floor (a small view keeps >= 11 px on screen) may not fit beside it ("OUT"
  // ran under it): then every node's badge sits on its box's top-left corner and the name uses
  // the box (all nodes alike: the decision is the widest name's).
  const double badgeR = 8.5;
  const QFont font = pixelFont(m_sizes.node, true);
  const QFontMetricsF metrics(font);
  const QRectF beside = r.adjusted(6 + 2 * badgeR, 0, -4, 0);
  double widest = 0.0;
  for (int n = 0; n < kNodeCount; ++n) widest = std::max(widest, metrics.horizontalAdvance(nodeDisplayName(static_cast<Node>(n))));
  const bool fits = widest <= beside.width();
  drawBadge(p, fits ? QPointF(r.left() + 6 + badgeR, 0) : r.topLeft() + QPointF(badgeR - 3, badgeR - 3), badgeR, m_state);
  p->setPen(QColor(0x1A, 0x1A, 0x1A));
  p->setFont(font);
  p->drawText(fits ? beside : r.adjusted(3, 0, -3, 0), Qt::AlignCenter, m_label);
}

// ---- edges -------------------------------------------------------------------------------------

GraphEdgeItem::GraphEdgeItem(int id, const QLineF& line) : m_id(id), m_line(line) {
  setZValue(1);
  setCursor(Qt::PointingHandCursor);
  const EdgeInfo& info = edge(id);
  setToolTip(QStringLiteral("<b>e%1</b>: %2 → %3<br>%4<br><i>Click (or Space) to add or remove noise.</i>")
                 .arg(id)
                 .arg(nodeDisplayName(info.from), nodeDisplayName(info.to),
                      QString::fromUtf8(info.operation).toHtmlEscaped()));
}

QRectF GraphEdgeItem::boundingRect() const {
  const double m = kHitWidth;
  return QRectF(m_line.p1(), m_line.p2()).normalized().adjusted(-m, -m, m, m);
}

QPainterPath GraphEdgeItem::shape() const {
  QPainterPath path(m_line.p1());
  path.lineTo(m_line.p2());
  QPainterPathStroker stroker;
  stroker.setWidth(kHitWidth);
  stroker.setCapStyle(Qt::FlatCap);
  return stroker.createStroke(path);
}

void GraphEdgeItem::setLook(const EdgeLook& look) {
  m_look = look;
  update();
}

void GraphEdgeItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) {
  p->setRenderHint(QPainter::Antialiasing);
  const QLineF shaft(m_line.p1(), m_line.pointAt(std::max(0.0, 1.0 - (kArrowLength - 1) / m_line.length())));
  if (m_look.selected || m_look.hovered) {
    QColor halo = m_look.selected ? runningColor() : QColor(0, 0, 0);
    halo.setAlpha(m_look.selected ? 70 : 28);
    p->setPen(QPen(halo, kHaloWidth, Qt::SolidLine, Qt::RoundCap));
    p->drawLine(m_line);
  }
  const QPen pen = edgePen(m_look);
  p->setPen(pen);
  p->drawLine(shaft);

  // Arrow head at the target's border.
  const QPointF tip = m_line.p2();
  const QPointF dir = (m_line.p2() - m_line.p1()) / m_line.length();
  const QPointF normal(-dir.y(), dir.x());
  const double half = m_look.noisy ? kArrowHalfWidth + 1.5 : kArrowHalfWidth;
  const double len = m_look.noisy ? kArrowLength + 2 : kArrowLength;
  QPolygonF head;
  head << tip << tip - dir * len + normal * half << tip - dir * len - normal * half;
  p->setPen(Qt::NoPen);
  p->setBrush(pen.color());
  p->drawPolygon(head);
}

// ---- edge labels -------------------------------------------------------------------------------

GraphEdgeLabelItem::GraphEdgeLabelItem(int id, const QPointF& anchor, bool captionAbove, const QPointF& captionOffset)
    : m_id(id), m_captionAbove(captionAbove), m_captionOffset(captionOffset) {
  setPos(anchor);
  setZValue(3);
  setCursor(Qt::PointingHandCursor);
}

// How much the pill's padding and noise glyph grow with a raised text size: a little, so that a
// pill between two close boxes (e5, e2) stays clear of them.
namespace {
double pillGrowth(const GraphTextSizes& sizes) { return std::min(sizes.pill / kBaseSizes.pill, 1.25); }
}  // namespace

QRectF GraphEdgeLabelItem::pillRect() const {
  const double g = pillGrowth(m_sizes);
  const QFontMetricsF fm(pixelFont(m_sizes.pill, true));
  double w = fm.horizontalAdvance(QStringLiteral("e%1").arg(m_id)) + 12 * g;
  if (m_look.noisy) w += 22 * g;  // room for the noise glyph
  const double h = std::max(25.0, 1.4 * m_sizes.pill);
  return QRectF(-w / 2, -h / 2, w, h);
}

double GraphEdgeLabelItem::captionWidth() const { return kCaptionWidth * m_sizes.caption / kBaseSizes.caption; }

QRectF GraphEdgeLabelItem::captionRect() const {
  if (m_look.caption.isEmpty()) return {};
  const QFontMetricsF fm(pixelFont(m_sizes.caption));
  const QStringList lines = wrapCaption(m_look.caption, fm, captionWidth()).split(QLatin1Char('\n'));
  double textWidth = 0;
  for (const QString& line : lines) textWidth = std::max(textWidth, fm.horizontalAdvance(line));
  const double w = textWidth + 10, h = lines.size() * fm.lineSpacing() + 4;
  const QRectF pill = pillRect();
  const double y = m_captionAbove ? pill.top() - 2 - h : pill.bottom() + 2;
  // Beside its line, a caption grows away from it as its text grows (centred, e2's ran over W at
  // 1280 x 720): its inner edge stays where a full-width caption's is at the base size.
  const double inner = kCaptionWidth / 2 + 5;
  const double x = m_captionOffset.x() < 0 ? inner - w : m_captionOffset.x() > 0 ? -inner : -w / 2;
  return QRectF(x, y, w, h).translated(m_captionOffset);
}

QRectF GraphEdgeLabelItem::boundingRect() const {
  QRectF r = pillRect().adjusted(-5, -5, 5, 5);
  if (!m_look.caption.isEmpty()) r = r.united(captionRect().adjusted(-1, -1, 1, 1));
  return r;
}

QPainterPath GraphEdgeLabelItem::shape() const {
  QPainterPath path;
  path.addRoundedRect(pillRect().adjusted(-3, -3, 3, 3), 8, 8);
  return path;  // the caption is informational: clicks through it reach what lies below
}

void GraphEdgeLabelItem::setTextSizes(const GraphTextSizes& sizes) {
  if (sizes == m_sizes) return;
  prepareGeometryChange();
  m_sizes = sizes;
  update();
}

void GraphEdgeLabelItem::setLook(const EdgeLook& look) {
  prepareGeometryChange();
  m_look = look;
  update();
}

void GraphEdgeLabelItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) {
  p->setRenderHint(QPainter::Antialiasing);
  const QRectF pill = pillRect();
  if (m_look.selected) {  // keyboard focus ring, drawn outside the pill
    p->setPen(QPen(runningColor(), 2.5));
    p->setBrush(Qt::NoBrush);
    p->drawRoundedRect(pill.adjusted(-4, -4, 4, 4), 13, 13);
  }
  QPen border(kEdgeColor, 1.4);
  QColor fill = Qt::white;
  QColor text(0x1A, 0x1A, 0x1A);
  if (m_look.noisy) {
    border = QPen(noiseColor().darker(140), 1.6);
    fill = noiseColor();
  } else if (m_look.leak) {
    border = QPen(leakColor(), 1.8, Qt::DashLine);
    text = leakColor().darker(130);
  }
  if (m_look.hovered && !m_look.noisy) fill = QColor(0xEE, 0xEE, 0xEE);
  p->setPen(border);
  p->setBrush(fill);
  p->drawRoundedRect(pill, pill.height() / 2, pill.height() / 2);

  const double r = pillGrowth(m_sizes);
  p->setFont(pixelFont(m_sizes.pill, true));
  p->setPen(text);
  QRectF textRect = pill;
  if (m_look.noisy) textRect.setRight(pill.right() - 22 * r);
  p->drawText(textRect, Qt::AlignCenter, QStringLiteral("e%1").arg(m_id));
  if (m_look.noisy) {
    p->setPen(QPen(QColor(0x1A, 0x1A, 0x1A), 1.6 * r, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p->setBrush(Qt::NoBrush);
    p->drawPath(noiseGlyph(QPointF(pill.right() - 24 * r, pill.center().y()), 16 * r, 4.5 * r));
  }

  if (!m_look.caption.isEmpty()) {
    const QRectF cap = captionRect();
    p->setPen(QPen(QColor(0, 0, 0, 50), 1));
    p->setBrush(QColor(255, 255, 255, 235));
    p->drawRoundedRect(cap, 4, 4);
    p->setFont(pixelFont(m_sizes.caption));
    p->setPen(QColor(0x26, 0x26, 0x26));
    p->drawText(cap.adjusted(5, 2, -5, -2), Qt::AlignHCenter | Qt::AlignTop,
                wrapCaption(m_look.caption, QFontMetricsF(pixelFont(m_sizes.caption)), captionWidth()));
  }
}

}  // namespace dplda
