// GraphCanvas: clicking and keyboard toggling of noisy edges, the privacy banner, the leaking
// path, node states and captions. Runs offscreen with real mouse and key events.
#include <QApplication>
#include <QLineEdit>
#include <QSignalSpy>
#include <QVBoxLayout>
#include <QtTest>
#include <cmath>

#include "core/graph/computation_graph.h"
#include "ui/graph/graph_canvas.h"

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
    QVERIFY2(m_canvas->bannerText().startsWith("✓ Private"), qPrintable(m_canvas->bannerText()));
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

  void presetsShowPrivate() {
    QSignalSpy changed(m_canvas.get(), &GraphCanvas::noisyEdgesChanged);
    for (Preset p : {Preset::Config1, Preset::Config2, Preset::Config3, Preset::Config4, Preset::Input}) {
      m_canvas->setNoisyEdges(presetEdges(p));
      QCOMPARE(m_canvas->noisyEdges(), presetEdges(p));
      QVERIFY2(m_canvas->bannerText().startsWith("✓ Private"), qPrintable(m_canvas->bannerText()));
    }
    QCOMPARE(changed.count(), 5);
    m_canvas->setNoisyEdges(presetEdges(Preset::Input));  // unchanged: no signal
    QCOMPARE(changed.count(), 5);
    m_canvas->setNoisyEdges(presetEdges(Preset::Config1));
    QVERIFY(m_canvas->bannerText().contains("e2, e3, e5"));
    m_canvas->setNoisyEdges(0xFFFFFFFFu);  // bits above e9 are dropped
    QCOMPARE(m_canvas->noisyEdges(), EdgeSet((1u << kEdgeCount) - 1));
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
  std::unique_ptr<GraphCanvas> m_canvas;
};

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  TstGraphCanvas test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_graph_canvas.moc"
