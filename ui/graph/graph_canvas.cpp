#include "ui/graph/graph_canvas.h"

#include <algorithm>

#include <QEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QStringList>

#include "ui/common/palette.h"
#include "ui/common/privacy_text.h"
#include "ui/graph/graph_items.h"

namespace dplda {

namespace {

constexpr double kColumn = 185;  // horizontal distance between graph columns (scene units)
constexpr EdgeSet kAllEdges = (1u << kEdgeCount) - 1u;
constexpr int kBannerPadX = 10, kBannerPadY = 8, kCautionPadY = 5;  // style sheet padding of the labels

// Left to right: D; M2, M3; W⁺, W; T; TD; U; OUT. The matrix track (M2 → W⁺ → U → OUT) runs
// along the top, the tensor track (M3 → T → TD) along the bottom and W between them, so no edge
// crosses a node and captions find free space.
QPointF nodePosition(Node n) {
  switch (n) {
    case Node::D: return {0, 170};
    case Node::M2: return {kColumn, 60};
    case Node::M3: return {kColumn, 280};
    case Node::Wplus: return {2 * kColumn, 60};
    case Node::W: return {2 * kColumn, 170};
    case Node::T: return {3 * kColumn, 280};
    case Node::TD: return {4 * kColumn, 280};
    case Node::U: return {5 * kColumn, 60};
    case Node::OUT: return {6 * kColumn, 60};
  }
  return {};
}

// Where each edge's caption goes: above or below its label, shifted sideways away from the
// edge's own line (diagonal edges) and clear of the nodes.
struct CaptionPlace {
  bool above;
  QPointF offset;
};
CaptionPlace captionPlace(int edge) {
  switch (edge) {
    case 0: return {true, {-44, 0}};   // D → M2 rises: above left (below right is e2's)
    case 1: return {false, {-44, 0}};  // D → M3 falls: below left
    case 2: return {false, {-44, 0}};  // M2 → W falls
    case 4: return {true, {44, 0}};    // W → T falls: above right
    case 5: return {true, {0, -12}};   // level, between boxes: above their tops (below runs e2)
    case 7: return {false, {44, 0}};   // TD → U rises
    case 8: return {false, {0, 0}};    // long level edge with room on both sides
    default: return {false, {0, 12}};  // level, between boxes: below their bottoms
  }
}

// The point where the segment from the centre of `box` towards `towards` leaves the box.
QPointF exitPoint(const QRectF& box, const QPointF& towards, double gap) {
  const QPointF c = box.center();
  const QPointF d = towards - c;
  double t = 1.0;
  if (d.x() != 0) t = std::min(t, (box.width() / 2 + gap) / std::abs(d.x()));
  if (d.y() != 0) t = std::min(t, (box.height() / 2 + gap) / std::abs(d.y()));
  return c + d * t;
}

constexpr Node kAllNodes[] = {Node::D,  Node::M2, Node::M3, Node::W,  Node::T,
                              Node::Wplus, Node::TD, Node::U, Node::OUT};

}  // namespace

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent) {
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setFrameShape(QFrame::NoFrame);
  setFocusPolicy(Qt::StrongFocus);
  setDragMode(QGraphicsView::NoDrag);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setAlignment(Qt::AlignCenter);
  setBackgroundBrush(Qt::white);
  viewport()->setMouseTracking(true);
  setAccessibleName(tr("Computation graph"));
  setAccessibleDescription(tr("Click an edge, or select it with Tab or the arrow keys and press Space, "
                              "to add or remove noise on it."));

  m_banner = new QLabel(this);
  m_banner->setWordWrap(true);
  m_banner->setTextFormat(Qt::PlainText);
  m_banner->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  QFont bannerFont = font();
  bannerFont.setBold(true);
  m_banner->setFont(bannerFont);
  m_cautions = new QLabel(this);
  m_cautions->setWordWrap(true);
  m_cautions->setTextFormat(Qt::PlainText);
  m_cautions->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  // A pale tint of the caution colour, set apart from a yellow banner above it by a rule.
  m_cautions->setStyleSheet(
      QStringLiteral("QLabel { background: %1; color: black; border-top: 1px solid %2; padding: %3px %4px; }")
          .arg(cautionTint().name(), cautionColor().darker(160).name())
          .arg(kCautionPadY)
          .arg(kBannerPadX));
  m_cautions->hide();
  m_notice = new QLabel(this);
  m_notice->setObjectName("modelNotice");
  m_notice->setWordWrap(true);
  m_notice->setTextFormat(Qt::PlainText);
  m_notice->setStyleSheet(QStringLiteral("QLabel { background: #37474f; color: white; padding: %1px %2px; }")
                              .arg(kCautionPadY)
                              .arg(kBannerPadX));
  m_notice->hide();

  buildScene();
  refresh();
}

GraphCanvas::~GraphCanvas() = default;

void GraphCanvas::buildScene() {
  m_scene = new QGraphicsScene(this);
  for (Node n : kAllNodes) {
    auto* item = new GraphNodeItem(n, nodeDisplayName(n));
    item->setPos(nodePosition(n));
    m_scene->addItem(item);
    m_nodes[static_cast<int>(n)] = item;
  }
  for (const EdgeInfo& info : edges()) {
    const QRectF from = m_nodes[static_cast<int>(info.from)]->boxInScene();
    const QRectF to = m_nodes[static_cast<int>(info.to)]->boxInScene();
    const QLineF line(exitPoint(from, to.center(), 3), exitPoint(to, from.center(), 3));
    auto* edgeItem = new GraphEdgeItem(info.id, line);
    m_scene->addItem(edgeItem);
    m_edges[info.id] = edgeItem;
    // The label sits midway between the node centres (not the clipped ends), so labels of
    // edges leaving one node stay apart.
    const QPointF anchor = (from.center() + to.center()) / 2;
    const CaptionPlace place = captionPlace(info.id);
    auto* label = new GraphEdgeLabelItem(info.id, anchor, place.above, place.offset);
    label->setToolTip(edgeItem->toolTip());
    m_scene->addItem(label);
    m_labels[info.id] = label;
  }
  // Room for captions of any edge, so adding one later does not rescale the view.
  QRectF rect = m_scene->itemsBoundingRect();
  rect.adjust(-14, -58, 14, 58);
  m_scene->setSceneRect(rect);
  setScene(m_scene);
}

void GraphCanvas::setNoisyEdges(EdgeSet edges) {
  edges &= kAllEdges;
  if (edges == m_noisy) return;
  m_noisy = edges;
  m_runStatement.reset();  // it was another set's
  refresh();
  emit noisyEdgesChanged(m_noisy);
}

void GraphCanvas::toggleEdge(int edge) {
  if (!m_editable || edge < 0 || edge >= kEdgeCount) return;
  setNoisyEdges(m_noisy ^ (1u << edge));
}

void GraphCanvas::setNodeState(Node node, NodeState state) { m_nodes[static_cast<int>(node)]->setState(state); }

NodeState GraphCanvas::nodeState(Node node) const { return m_nodes[static_cast<int>(node)]->state(); }

void GraphCanvas::setAllNodeStates(NodeState state) {
  for (GraphNodeItem* item : m_nodes) item->setState(state);
}

void GraphCanvas::setEdgeCaption(int edge, const QString& caption) {
  if (edge < 0 || edge >= kEdgeCount || m_captions[edge] == caption) return;
  m_captions[edge] = caption;
  updateLooks();
}

QString GraphCanvas::edgeCaption(int edge) const {
  return edge >= 0 && edge < kEdgeCount ? m_captions[edge] : QString();
}

void GraphCanvas::clearEdgeCaptions() {
  for (QString& c : m_captions) c.clear();
  updateLooks();
}

void GraphCanvas::setSelectedEdge(int edge) {
  if (edge < -1 || edge >= kEdgeCount) edge = -1;
  if (edge == m_selectedEdge) return;
  m_selectedEdge = edge;
  updateLooks();
  if (edge >= 0) emit edgeSelected(edge);
}

QPointF GraphCanvas::edgeMidpoint(int edge) const {
  if (edge < 0 || edge >= kEdgeCount) return {};
  return m_labels[edge]->pos();
}

QPointF GraphCanvas::nodeCenter(Node node) const { return m_nodes[static_cast<int>(node)]->pos(); }

QString GraphCanvas::bannerText() const { return m_banner->text(); }

QString GraphCanvas::modelNotice() const { return m_noticeText; }

void GraphCanvas::setModelNotice(const QString& text) {
  if (text == m_noticeText) return;
  m_noticeText = text;
  m_notice->setText(text);
  m_notice->setAccessibleName(text);
  m_notice->setVisible(!text.isEmpty());
  const qreal opacity = text.isEmpty() ? 1.0 : 0.35;  // dimmed: not the model being run
  for (QGraphicsItem* item : m_scene->items())
    if (!item->parentItem()) item->setOpacity(opacity);
  layoutBanner();
}
QString GraphCanvas::cautionText() const { return m_cautions->text(); }

void GraphCanvas::setStatementInputs(const StatementInputs& inputs) {
  StatementInputs in = inputs;
  in.edges = m_noisy;
  const bool same = in.shareReleases == m_inputs.shareReleases && in.bounds == m_inputs.bounds &&
                    in.epsilon == m_inputs.epsilon && in.delta == m_inputs.delta &&
                    in.noiseMultiplier == m_inputs.noiseMultiplier && in.docCount == m_inputs.docCount &&
                    in.whitenedRelease == m_inputs.whitenedRelease && in.momentClip == m_inputs.momentClip;
  m_inputs = in;
  if (!same) {
    m_runStatement.reset();
    refresh();
  }
}

bool GraphCanvas::showsWhitenedRelease() const {
  if (m_noisy != ((1u << 2) | (1u << 5) | (1u << 6))) return false;
  return m_inputs.whitenedRelease || (m_runStatement && isWhitenedStatement(*m_runStatement));
}

void GraphCanvas::setRunStatement(const std::optional<PrivacyStatement>& statement) {
  m_runStatement = statement;
  refresh();
}

void GraphCanvas::refresh() {
  m_decision = decidePrivacy(m_noisy);
  m_inputs.edges = m_noisy;
  m_statement = m_runStatement ? *m_runStatement : privacyStatement(m_inputs);
  const PrivacyClaim claim = m_statement.claim;
  const QString text = privacyHeadline(m_statement, m_decision, m_noisy, showsWhitenedRelease(), m_inputs.momentClip);
  m_banner->setText(text);
  QString tip = readablePrivacyText(m_statement.summary);
  if (m_statement.summary != m_statement.explanation) tip += "\n" + readablePrivacyText(m_statement.explanation);
  m_banner->setToolTip(tip);
  m_banner->setStyleSheet(QStringLiteral("QLabel { background: %1; color: %2; padding: %3px %4px; }")
                              .arg(privacyClaimColor(claim).name(), privacyClaimTextColor(claim).name())
                              .arg(kBannerPadY)
                              .arg(kBannerPadX));
  m_banner->setAccessibleName(text);
  const QStringList cautions = privacyCautions(m_statement);
  m_cautions->setText(cautions.join(QLatin1Char('\n')));
  m_cautions->setAccessibleName(m_cautions->text());
  m_cautions->setVisible(!cautions.isEmpty());

  updateLooks();
  layoutBanner();
}

void GraphCanvas::updateLooks() {
  std::array<bool, kEdgeCount> leak{};
  if (!m_decision.isCut)
    for (int e : m_decision.leakEdges)
      if (e >= 0 && e < kEdgeCount) leak[e] = true;
  const bool whitened = showsWhitenedRelease();
  for (int e = 0; e < kEdgeCount; ++e) {
    EdgeLook look;
    look.noisy = contains(m_noisy, e);
    look.leak = leak[e];
    look.hovered = e == m_hoveredEdge;
    look.selected = e == m_selectedEdge;
    look.caption = m_captions[e];
    // The whitened release (the banner names its mechanisms): e2 and e5 share one release of the
    // clipped M̂2, its budget and scale said once, on e2; e5 points there. Names beside the numbers
    // (and a second copy on e5) did not fit a 1280 x 720 window.
    if (whitened && e == 5) look.caption = tr("e2's release");
    m_edges[e]->setLook(look);
    m_labels[e]->setLook(look);
  }
}

void GraphCanvas::layoutBanner() {
  const int w = std::max(1, width());
  // The word-wrapped text's height at this width plus the style sheet's padding (a label's
  // sizeHint assumes a narrower width, its heightForWidth leaves the padding out).
  auto heightOf = [w](QLabel* label, int padX, int padY) {
    const QRect r = label->fontMetrics().boundingRect(QRect(0, 0, std::max(1, w - 2 * padX), 100000),
                                                      Qt::TextWordWrap, label->text());
    return r.height() + 2 * padY;
  };
  int h = 0;
  if (!m_notice->isHidden()) {
    h = heightOf(m_notice, kBannerPadX, kCautionPadY);
    m_notice->setGeometry(0, 0, w, h);
  }
  const int b = heightOf(m_banner, kBannerPadX, kBannerPadY);
  m_banner->setGeometry(0, h, w, b);
  h += b;
  if (!m_cautions->isHidden()) {
    const int c = heightOf(m_cautions, kBannerPadX, kCautionPadY) + 1;  // + the rule
    m_cautions->setGeometry(0, h, w, c);
    h += c;
  }
  setViewportMargins(0, h, 0, 0);
}

void GraphCanvas::fitScene() {
  if (!m_scene || viewport()->width() < 2 || viewport()->height() < 2) return;
  fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
  // Each text at its base size, or larger in the scene where the view would draw it below the
  // minimum on screen (the scene's room for captions absorbs the growth).
  const double s = viewScale(), floor = m_minTextPx / std::max(s, 1e-6);
  const GraphTextSizes base;
  GraphTextSizes sizes{std::max(base.node, floor), std::max(base.pill, floor), std::max(base.caption, floor)};
  if (sizes == m_textSizes) return;
  m_textSizes = sizes;
  for (GraphNodeItem* n : m_nodes) n->setTextSizes(sizes);
  for (GraphEdgeLabelItem* l : m_labels) l->setTextSizes(sizes);
}

void GraphCanvas::setMinimumTextPixels(double px) {
  if (!(px > 0) || px == m_minTextPx) return;
  m_minTextPx = px;
  fitScene();
}

double GraphCanvas::viewScale() const { return transform().m11(); }

double GraphCanvas::smallestTextPixels() const {
  return std::min({m_textSizes.node, m_textSizes.pill, m_textSizes.caption}) * viewScale();
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  layoutBanner();
  fitScene();
}

void GraphCanvas::showEvent(QShowEvent* event) {
  QGraphicsView::showEvent(event);
  layoutBanner();
  fitScene();
}

GraphCanvas::Hit GraphCanvas::hitAt(const QPoint& viewportPos) const {
  Hit hit;
  // items() lists the topmost first: labels (z 3), nodes (z 2), then edge lines (z 1).
  for (QGraphicsItem* item : items(viewportPos)) {
    if (auto* label = qgraphicsitem_cast<GraphEdgeLabelItem*>(item)) {
      hit.edge = label->edgeId();
      return hit;
    }
    if (auto* node = qgraphicsitem_cast<GraphNodeItem*>(item)) {
      hit.node = node;
      return hit;
    }
    if (auto* edgeItem = qgraphicsitem_cast<GraphEdgeItem*>(item)) {
      hit.edge = edgeItem->edgeId();
      return hit;
    }
  }
  return hit;
}

void GraphCanvas::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) {
    QGraphicsView::mousePressEvent(event);
    return;
  }
  const Hit hit = hitAt(event->position().toPoint());
  m_pressedEdge = hit.edge;
  m_pressedNode = hit.node;
  event->accept();
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
  // Two quick clicks are two toggles, not something else.
  mousePressEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) {
    QGraphicsView::mouseReleaseEvent(event);
    return;
  }
  const Hit hit = hitAt(event->position().toPoint());
  // Act only when press and release hit the same thing (a drag off an edge cancels).
  if (hit.edge >= 0 && hit.edge == m_pressedEdge) {
    if (hit.edge == m_selectedEdge)
      emit edgeSelected(hit.edge);  // a click always reports its edge (e.g. to show its help)
    else
      setSelectedEdge(hit.edge);
    toggleEdge(hit.edge);
  } else if (hit.node && hit.node == m_pressedNode) {
    if (m_chosenNode) m_chosenNode->setChosen(false);
    m_chosenNode = hit.node;
    m_chosenNode->setChosen(true);
    emit nodeSelected(hit.node->node());
  }
  m_pressedEdge = -1;
  m_pressedNode = nullptr;
  event->accept();
}

void GraphCanvas::mouseMoveEvent(QMouseEvent* event) {
  QGraphicsView::mouseMoveEvent(event);  // tooltips and item cursors
  setHoveredEdge(hitAt(event->position().toPoint()).edge);
}

void GraphCanvas::leaveEvent(QEvent* event) {
  setHoveredEdge(-1);
  QGraphicsView::leaveEvent(event);
}

void GraphCanvas::setHoveredEdge(int edge) {
  if (edge == m_hoveredEdge) return;
  m_hoveredEdge = edge;
  updateLooks();
}

bool GraphCanvas::moveSelection(int step) {
  if (m_selectedEdge < 0) {
    setSelectedEdge(step > 0 ? 0 : kEdgeCount - 1);
    return true;
  }
  const int next = m_selectedEdge + step;
  if (next < 0 || next >= kEdgeCount) return false;
  setSelectedEdge(next);
  return true;
}

bool GraphCanvas::event(QEvent* event) {
  if (event->type() == QEvent::FontChange) {  // presentation mode: the banner follows the window's text
    QFont bold = font();
    bold.setBold(true);
    m_banner->setFont(bold);
    layoutBanner();
  }
  if (event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    const bool plain = !(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier));
    const bool back = key->key() == Qt::Key_Backtab || (key->key() == Qt::Key_Tab && (key->modifiers() & Qt::ShiftModifier));
    if (plain && (key->key() == Qt::Key_Tab || key->key() == Qt::Key_Backtab)) {
      // Tab walks e0..e9; past the last edge focus moves on to the next widget.
      if (moveSelection(back ? -1 : 1)) {
        event->accept();
        return true;
      }
      setSelectedEdge(-1);
      return QGraphicsView::focusNextPrevChild(!back);
    }
  }
  return QGraphicsView::event(event);
}

void GraphCanvas::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_Down:
      if (!moveSelection(1)) setSelectedEdge(0);  // arrows wrap around
      break;
    case Qt::Key_Left:
    case Qt::Key_Up:
      if (!moveSelection(-1)) setSelectedEdge(kEdgeCount - 1);
      break;
    case Qt::Key_Home: setSelectedEdge(0); break;
    case Qt::Key_End: setSelectedEdge(kEdgeCount - 1); break;
    case Qt::Key_Space:
    case Qt::Key_Return:
    case Qt::Key_Enter:
      if (m_selectedEdge < 0)
        setSelectedEdge(0);
      else
        toggleEdge(m_selectedEdge);
      break;
    case Qt::Key_Escape: setSelectedEdge(-1); break;
    default: QGraphicsView::keyPressEvent(event); return;
  }
  event->accept();
}

}  // namespace dplda
