// GraphCanvas: clicking and keyboard toggling of noisy edges, the privacy banner, the leaking
// path, node states and captions. Runs offscreen with real mouse and key events.
#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QVBoxLayout>
#include <QtTest>
#include <bitset>
#include <cmath>

#include "core/graph/computation_graph.h"
#include "core/pipeline/privacy_statement.h"
#include "ui/common/palette.h"
#include "ui/common/privacy_text.h"
#include "ui/graph/graph_canvas.h"
#include "ui/graph/graph_items.h"

using namespace dplda;

namespace {

QPoint viewportPoint(const GraphCanvas& canvas, const QPointF& scenePoint) { return canvas.mapFromScene(scenePoint); }

void clickEdge(GraphCanvas& canvas, int edge) {
  QTest::mouseClick(canvas.viewport(), Qt::LeftButton, {}, viewportPoint(canvas, canvas.edgeMidpoint(edge)));
}

}  // namespace

class TstGraphCanvas : public QObject {
  Q_OBJECT

 private slots:
  void init() {
    m_canvas = std::make_unique<GraphCanvas>();
    m_canvas->resize(1000, 380);
    m_canvas->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_canvas.get()));
  }
  void cleanup() { m_canvas.reset(); }

  void startsWithoutNoiseAndNotPrivate() {
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(0));
    QVERIFY(m_canvas->bannerText().contains("Not private"));
    QVERIFY(m_canvas->bannerText().contains("leaking path: D → "));
    QVERIFY(!m_canvas->highlightedEdges().empty());
    QCOMPARE(m_canvas->selectedEdge(), -1);
  }

  void everyEdgeLabelIsAClickTargetInsideTheView() {
    const QRect view = m_canvas->viewport()->rect();
    QSet<QPoint> seen;
    for (int e = 0; e < kEdgeCount; ++e) {
      const QPoint p = viewportPoint(*m_canvas, m_canvas->edgeMidpoint(e));
      QVERIFY2(view.contains(p), qPrintable(QString("e%1 label outside the view").arg(e)));
      seen.insert(p);
    }
    QCOMPARE(seen.size(), kEdgeCount);
  }

  void clickingE9MakesItPrivate() {
    QSignalSpy changed(m_canvas.get(), &GraphCanvas::noisyEdgesChanged);
    QSignalSpy selected(m_canvas.get(), &GraphCanvas::edgeSelected);
    clickEdge(*m_canvas, 9);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().first().value<EdgeSet>(), EdgeSet(1u << 9));
    QCOMPARE(m_canvas->noisyEdges(), presetEdges(Preset::Config4));
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.first().first().toInt(), 9);
    // A cut, but U's release rests on the heuristic γ_s bound: not called private.
    QVERIFY2(m_canvas->bannerText().startsWith("⚠ Cut, heuristic bounds (U)"), qPrintable(m_canvas->bannerText()));
    QVERIFY(!m_canvas->bannerText().contains("✓"));
    QCOMPARE(m_canvas->statement().claim, PrivacyClaim::Heuristic);
    QVERIFY(m_canvas->highlightedEdges().empty());
    // A second click removes the noise again.
    clickEdge(*m_canvas, 9);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(0));
    QVERIFY(m_canvas->bannerText().contains("Not private"));
  }

  void everyEdgeTogglesByClick() {
    for (int e = 0; e < kEdgeCount; ++e) {
      clickEdge(*m_canvas, e);
      QVERIFY2(contains(m_canvas->noisyEdges(), e), qPrintable(QString("e%1 did not toggle").arg(e)));
    }
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet((1u << kEdgeCount) - 1));
  }

  void lineHasAGenerousHitArea() {
    // A point on e4 (W → T), outside both boxes and 7 scene units off the line.
    const QPointF a = m_canvas->nodeCenter(Node::W), b = m_canvas->nodeCenter(Node::T);
    const QPointF dir = (b - a) / std::hypot(b.x() - a.x(), b.y() - a.y());
    const QPointF off = a + 0.3 * (b - a) + QPointF(-dir.y(), dir.x()) * 7.0;
    QTest::mouseClick(m_canvas->viewport(), Qt::LeftButton, {}, viewportPoint(*m_canvas, off));
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(1u << 4));
    // Empty space toggles nothing.
    QTest::mouseClick(m_canvas->viewport(), Qt::LeftButton, {}, QPoint(3, m_canvas->viewport()->height() - 3));
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(1u << 4));
  }

  void leakingPathForE5() {
    m_canvas->setNoisyEdges(1u << 5);
    const std::vector<int> path = m_canvas->highlightedEdges();
    QVERIFY(!path.empty());
    // A real D → OUT path that avoids the noisy e5.
    QCOMPARE(edge(path.front()).from, Node::D);
    QCOMPARE(edge(path.back()).to, Node::OUT);
    for (std::size_t i = 0; i < path.size(); ++i) {
      QVERIFY(path[i] != 5);
      if (i > 0) QCOMPARE(edge(path[i - 1]).to, edge(path[i]).from);
    }
    QCOMPARE(path, m_canvas->decision().leakEdges);
    QVERIFY(m_canvas->bannerText().startsWith("✗ Not private — leaking path: D → "));
    QVERIFY(m_canvas->bannerText().endsWith("→ OUT"));
  }

  void presetsShowTheirClaims() {
    // With the sound bounds, configurations 1, 2 and input perturbation are proven; 3 and 4
    // release TD or U on the heuristic γ_s bound.
    QSignalSpy changed(m_canvas.get(), &GraphCanvas::noisyEdgesChanged);
    for (Preset p : {Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4, Preset::Input}) {
      m_canvas->setNoisyEdges(presetEdges(p));
      QCOMPARE(m_canvas->noisyEdges(), presetEdges(p));
      const bool heuristic = p == Preset::Config3 || p == Preset::Config4;
      QVERIFY2(m_canvas->bannerText().startsWith(heuristic ? "⚠ Cut, heuristic bounds" : "✓ Private"),
               qPrintable(m_canvas->bannerText()));
      QCOMPARE(m_canvas->statement().claim, heuristic ? PrivacyClaim::Heuristic : PrivacyClaim::Proven);
      QCOMPARE(bannerColor(), (heuristic ? cautionColor() : privacyClaimColor(PrivacyClaim::Proven)).rgb());
      QVERIFY(m_canvas->cautionText().isEmpty());
    }
    QCOMPARE(changed.count(), 5);
    m_canvas->setNoisyEdges(presetEdges(Preset::Input));  // unchanged: no signal
    QCOMPARE(changed.count(), 5);
    m_canvas->setNoisyEdges(presetEdges(Preset::Config1));
    QVERIFY(m_canvas->bannerText().contains("e2, e3, e5"));
    m_canvas->setNoisyEdges(0xFFFFFFFFu);  // bits above e9 are dropped
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet((1u << kEdgeCount) - 1));
  }

  void printedBoundsAreNotCalledPrivate() {
    // The papers' printed bounds reproduce their figures; the banner never says "✓ Private"
    // for them and is not green.
    StatementInputs in;
    in.bounds = BoundSet::Printed;
    m_canvas->setStatementInputs(in);
    for (Preset p : {Preset::Config1, Preset::Config2, Preset::Input}) {
      m_canvas->setNoisyEdges(presetEdges(p));
      QCOMPARE(m_canvas->statement().claim, PrivacyClaim::PrintedBounds);
      QVERIFY2(m_canvas->bannerText().startsWith("⚠ Cut, printed bounds — reproduces the papers; not a guarantee"),
               qPrintable(m_canvas->bannerText()));
      QVERIFY(!m_canvas->bannerText().contains("Private"));
      QCOMPARE(bannerColor(), cautionColor().rgb());
      QVERIFY(bannerColor() != privacyClaimColor(PrivacyClaim::Proven).rgb());
    }
    // Back to the sound bounds: proven again, in green.
    in.bounds = BoundSet::Sound;
    m_canvas->setStatementInputs(in);
    QVERIFY(m_canvas->bannerText().startsWith("✓ Private"));
    QCOMPARE(bannerColor(), privacyClaimColor(PrivacyClaim::Proven).rgb());
  }

  void mixedReleasesAreNotCovered() {
    // {e0, e6}: T is released from M3 (clean) and W, whose M2 came from the noisy D: a cut, but
    // no proven bound covers T's release.
    m_canvas->setNoisyEdges((1u << 0) | (1u << 6));
    QVERIFY(m_canvas->decision().isCut);
    QCOMPARE(m_canvas->statement().claim, PrivacyClaim::NotCovered);
    QVERIFY2(m_canvas->bannerText().startsWith("⚠ Cut, not covered by a proven bound: T"),
             qPrintable(m_canvas->bannerText()));
    QVERIFY(!m_canvas->bannerText().contains("Private"));
    QCOMPARE(bannerColor(), cautionColor().rgb());
  }

  void cautionsShowUnderTheBanner() {
    m_canvas->setNoisyEdges(presetEdges(Preset::Config1));
    QVERIFY(m_canvas->cautionText().isEmpty());
    StatementInputs in;
    in.docCount = 1000;
    in.delta = 0.5;  // ≥ 1/N: the definition allows publishing a whole document
    m_canvas->setStatementInputs(in);
    QVERIFY2(m_canvas->cautionText().contains("δ = 0.5 ≥ 1/N = 0.001"), qPrintable(m_canvas->cautionText()));
    QVERIFY(m_canvas->bannerText().startsWith("✓ Private"));  // the claim itself is unchanged
    auto* strip = captionStrip();
    QVERIFY(strip && strip->isVisible());
    // Under the banner and above the graph.
    auto* banner = bannerLabel();
    QVERIFY(strip->geometry().top() >= banner->geometry().bottom());
    QVERIFY(m_canvas->viewport()->geometry().top() >= strip->geometry().bottom());
    in.epsilon = 1e9;  // a nominal guarantee
    m_canvas->setStatementInputs(in);
    QVERIFY(m_canvas->cautionText().contains("1/N"));
    QVERIFY2(m_canvas->cautionText().contains(QString::fromUtf8("ε = 1×10⁹")), qPrintable(m_canvas->cautionText()));
    QCOMPARE(m_canvas->cautionText().count("⚠"), 2);
    // N unknown and a sane budget: no caution, the strip goes away.
    m_canvas->setStatementInputs(StatementInputs{});
    QVERIFY(m_canvas->cautionText().isEmpty());
    QVERIFY(!strip->isVisible());
    // No noise: nothing to caution about.
    in.edges = 0;
    m_canvas->setStatementInputs(in);
    m_canvas->setNoisyEdges(0);
    QVERIFY(m_canvas->cautionText().isEmpty());
  }

  void runStatementShowsUntilTheSetChanges() {
    // A finished run can say more than its inputs (e.g. not private as drawn at a huge ε): the
    // canvas shows the run's statement until the edges or the inputs change.
    m_canvas->setNoisyEdges(presetEdges(Preset::Config1));
    PrivacyStatement run;
    run.claim = PrivacyClaim::NotPrivate;
    run.summary = "Not private as drawn: the epsilon shares are too large";
    run.cautions = {"delta = 0.5 >= 1/N = 0.001: whatever"};
    m_canvas->setRunStatement(run);
    QVERIFY2(m_canvas->bannerText().startsWith("✗ Not private — Not private as drawn: the ε shares"),
             qPrintable(m_canvas->bannerText()));
    QCOMPARE(bannerColor(), privacyClaimColor(PrivacyClaim::NotPrivate).rgb());
    QVERIFY(m_canvas->cautionText().contains("δ = 0.5 ≥ 1/N"));
    m_canvas->setNoisyEdges(presetEdges(Preset::Config2));
    QVERIFY(m_canvas->bannerText().startsWith("✓ Private"));
    QVERIFY(m_canvas->cautionText().isEmpty());
    m_canvas->setRunStatement(run);
    StatementInputs in;
    in.epsilon = 2;
    m_canvas->setStatementInputs(in);
    QVERIFY(m_canvas->bannerText().startsWith("✓ Private"));
  }

  void keyboardSelectsAndSpaceToggles() {
    m_canvas->setFocus();
    m_canvas->activateWindow();
    QSignalSpy changed(m_canvas.get(), &GraphCanvas::noisyEdgesChanged);
    QSignalSpy selected(m_canvas.get(), &GraphCanvas::edgeSelected);
    QTest::keyClick(m_canvas.get(), Qt::Key_Tab);
    QCOMPARE(m_canvas->selectedEdge(), 0);
    for (int i = 0; i < 5; ++i) QTest::keyClick(m_canvas.get(), Qt::Key_Right);
    QCOMPARE(m_canvas->selectedEdge(), 5);
    QCOMPARE(selected.count(), 6);
    QTest::keyClick(m_canvas.get(), Qt::Key_Space);
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(1u << 5));
    QCOMPARE(changed.count(), 1);
    QTest::keyClick(m_canvas.get(), Qt::Key_Right);  // e6
    QTest::keyClick(m_canvas.get(), Qt::Key_Space);
    QCOMPARE(m_canvas->noisyEdges(), presetEdges(Preset::Config2));
    QVERIFY(m_canvas->bannerText().startsWith("✓ Private"));
    QTest::keyClick(m_canvas.get(), Qt::Key_Left);
    QTest::keyClick(m_canvas.get(), Qt::Key_Tab, Qt::ShiftModifier);  // back to e4
    QCOMPARE(m_canvas->selectedEdge(), 4);
    QTest::keyClick(m_canvas.get(), Qt::Key_Left);
    QTest::keyClick(m_canvas.get(), Qt::Key_Left);
    QTest::keyClick(m_canvas.get(), Qt::Key_Left);
    QTest::keyClick(m_canvas.get(), Qt::Key_Left);
    QTest::keyClick(m_canvas.get(), Qt::Key_Left);  // wraps from e0 to e9
    QCOMPARE(m_canvas->selectedEdge(), 9);
    QTest::keyClick(m_canvas.get(), Qt::Key_Escape);
    QCOMPARE(m_canvas->selectedEdge(), -1);
    QCOMPARE(m_canvas->noisyEdges(), presetEdges(Preset::Config2));
  }

  void tabPastTheLastEdgeMovesFocusOn() {
    // Tab must not trap keyboard users in the canvas.
    QWidget window;
    auto* layout = new QVBoxLayout(&window);
    auto* canvas = new GraphCanvas;
    auto* next = new QLineEdit;
    layout->addWidget(canvas);
    layout->addWidget(next);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    canvas->setFocus();
    QVERIFY(canvas->hasFocus());
    canvas->setSelectedEdge(8);
    QTest::keyClick(canvas, Qt::Key_Tab);
    QCOMPARE(canvas->selectedEdge(), 9);
    QVERIFY(canvas->hasFocus());
    QTest::keyClick(canvas, Qt::Key_Tab);
    QCOMPARE(canvas->selectedEdge(), -1);
    QVERIFY(next->hasFocus());
  }

  void clickingANodeSelectsItWithoutToggling() {
    QSignalSpy nodes(m_canvas.get(), &GraphCanvas::nodeSelected);
    QTest::mouseClick(m_canvas->viewport(), Qt::LeftButton, {}, viewportPoint(*m_canvas, m_canvas->nodeCenter(Node::T)));
    QCOMPARE(nodes.count(), 1);
    QCOMPARE(nodes.first().first().value<Node>(), Node::T);
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(0));
  }

  void lockedCanvasDoesNotToggle() {
    m_canvas->setEditable(false);
    clickEdge(*m_canvas, 9);
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(0));
    QCOMPARE(m_canvas->selectedEdge(), 9);  // it still selects, e.g. to show the edge's help
    m_canvas->setEditable(true);
    m_canvas->toggleEdge(9);
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(1u << 9));
    m_canvas->toggleEdge(42);  // out of range: ignored
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(1u << 9));
  }

  void nodeStatesAndCaptions() {
    QCOMPARE(m_canvas->nodeState(Node::M2), NodeState::Idle);
    m_canvas->setNodeState(Node::M2, NodeState::Running);
    m_canvas->setNodeState(Node::T, NodeState::Failed);
    QCOMPARE(m_canvas->nodeState(Node::M2), NodeState::Running);
    QCOMPARE(m_canvas->nodeState(Node::T), NodeState::Failed);
    QCOMPARE(m_canvas->nodeState(Node::D), NodeState::Idle);
    m_canvas->setAllNodeStates(NodeState::Stale);
    QCOMPARE(m_canvas->nodeState(Node::OUT), NodeState::Stale);
    QCOMPARE(nodeStateName(NodeState::UpToDate), QString("up to date"));

    const QImage before = m_canvas->grab().toImage();
    m_canvas->setEdgeCaption(6, "ε 0.33 · σ 2.1e-3 · analytic");
    QCOMPARE(m_canvas->edgeCaption(6), QString("ε 0.33 · σ 2.1e-3 · analytic"));
    QCOMPARE(m_canvas->edgeCaption(-1), QString());
    const QImage after = m_canvas->grab().toImage();
    QVERIFY(before != after);  // the caption is drawn
    // A caption does not steal clicks from its own or neighbouring labels.
    clickEdge(*m_canvas, 6);
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(1u << 6));
    m_canvas->clearEdgeCaptions();
    QVERIFY(m_canvas->edgeCaption(6).isEmpty());
  }

  // Every preset and the whitened release at the canvas size of a 1280 x 720 window (1 000 x 230
  // with the banner): every caption is inside the view and clear of every node box and edge label
  // (at 720 the whitened release's shared caption ran over W and e5's was cut off at the top).
  void captionsFitAClassroomScreen_data() {
    QTest::addColumn<int>("edges");
    QTest::addColumn<bool>("whitened");
    for (Preset p : {Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4, Preset::Input})
      QTest::newRow(presetName(p)) << int(presetEdges(p)) << false;
    QTest::newRow("whitened") << int((1u << 2) | (1u << 5) | (1u << 6)) << true;
  }
  void captionsFitAClassroomScreen() {
    QFETCH(int, edges);
    QFETCH(bool, whitened);
    m_canvas->resize(1000, 230);
    StatementInputs in = m_canvas->statementInputs();
    in.whitenedRelease = whitened;
    m_canvas->setStatementInputs(in);
    m_canvas->setNoisyEdges(EdgeSet(edges));
    for (int e = 0; e < kEdgeCount; ++e)
      if (contains(EdgeSet(edges), e)) m_canvas->setEdgeCaption(e, QString::fromUtf8("ε 0.33 · σ 0.00029"));
    QApplication::processEvents();
    QCOMPARE(m_canvas->showsWhitenedRelease(), whitened);
    const QRectF visible = m_canvas->mapToScene(m_canvas->viewport()->rect()).boundingRect();
    QList<QRectF> nodes;
    for (QGraphicsItem* item : m_canvas->scene()->items())
      if (item->type() == GraphNodeItem::Type) nodes << item->sceneBoundingRect();
    QCOMPARE(nodes.size(), 9);
    QList<QPair<int, QRectF>> pills;  // the middle of each edge label's pill
    for (int e = 0; e < kEdgeCount; ++e)
      pills << qMakePair(e, QRectF(m_canvas->edgeMidpoint(e) - QPointF(12, 8), QSizeF(24, 16)));
    int captions = 0;
    for (QGraphicsItem* item : m_canvas->scene()->items()) {
      if (item->type() != GraphEdgeLabelItem::Type) continue;
      auto* label = static_cast<GraphEdgeLabelItem*>(item);
      const QRectF caption = label->mapRectToScene(label->captionRect());
      if (caption.isEmpty()) continue;
      ++captions;
      const QString name = QString("e%1's caption").arg(label->edgeId());
      QVERIFY2(visible.contains(caption), qPrintable(name + " leaves the view"));
      for (const auto& [e, pill] : pills)
        QVERIFY2(e == label->edgeId() || !caption.intersects(pill), qPrintable(name + QString(" covers e%1").arg(e)));
      for (const QRectF& node : nodes) QVERIFY2(!caption.intersects(node), qPrintable(name + " covers a node"));
    }
    QCOMPARE(captions, int(std::bitset<32>(edges).count()));
  }

  void viewFitsOnResize() {
    m_canvas->resize(600, 260);
    QApplication::processEvents();
    const QRect view = m_canvas->viewport()->rect();
    for (int e = 0; e < kEdgeCount; ++e) QVERIFY(view.contains(viewportPoint(*m_canvas, m_canvas->edgeMidpoint(e))));
    for (Node n : {Node::D, Node::OUT, Node::Wplus, Node::M3})
      QVERIFY(view.contains(viewportPoint(*m_canvas, m_canvas->nodeCenter(n))));
    // Clicks still land after the rescale.
    clickEdge(*m_canvas, 2);
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet(1u << 2));
  }

 private:
  QLabel* bannerLabel() const { return m_canvas->findChildren<QLabel*>().value(0); }
  QLabel* captionStrip() const { return m_canvas->findChildren<QLabel*>().value(1); }
  // The banner's background, read from the rendered widget (inside its padding).
  QRgb bannerColor() const {
    QApplication::processEvents();
    return m_canvas->grab(QRect(2, 2, 4, 4)).toImage().pixel(1, 1);
  }

  std::unique_ptr<GraphCanvas> m_canvas;
};

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  TstGraphCanvas test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_graph_canvas.moc"
