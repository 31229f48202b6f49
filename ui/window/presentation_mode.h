#pragma once
// Presentation mode for a lecture hall or a projector. F5 hides the side docks (all but one the
// window asks to keep, e.g. the Inspector while it shows a lesson's text) and scales everything a
// viewer reads together: the window's text (menus, banner, tables, tabs, lesson), the graph's
// texts and every plot's, by the window's height over 720 px when it starts (1.5× on a 1920×1080 screen, 1× on
// a 1280×720 one, where the layout already fits). Ctrl++ / Ctrl+− / Ctrl+0 zoom on top of that,
// in or out of presentation mode; the graph's texts grow with the zoom (they never shrink below
// their minimum on screen).
#include <QFont>
#include <QObject>
#include <QPointer>
#include <QVector>
#include <functional>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;

namespace dplda {

class GraphCanvas;

class PresentationMode : public QObject {
  Q_OBJECT

 public:
  // Adds its actions (with shortcuts) to `menu`. `keepDock` says which visible docks stay shown
  // when the mode starts (none when empty).
  PresentationMode(QMainWindow* window, GraphCanvas* canvas, QMenu* menu,
                   std::function<bool(QDockWidget*)> keepDock = {});
  ~PresentationMode() override;  // plots made after the window closes start at the normal size

  bool isActive() const { return m_active; }
  void setActive(bool active);
  // The text scale in use: the presentation scale (when active) times the zoom.
  double scale() const { return (m_active ? m_windowScale : 1.0) * m_zoom; }
  double zoom() const { return m_zoom; }
  void setZoom(double zoom);  // clamped to 0.75..3
  void zoomIn() { setZoom(m_zoom * 1.25); }
  void zoomOut() { setZoom(m_zoom / 1.25); }
  // The presentation scale of a window this tall: height / 720, between 1 and 2.5.
  static double scaleForHeight(int height);

  QAction* toggleAction() const { return m_toggle; }

 private:
  void apply();

  QMainWindow* m_window;
  QPointer<GraphCanvas> m_canvas;
  std::function<bool(QDockWidget*)> m_keepDock;
  QAction* m_toggle = nullptr;
  bool m_active = false;
  double m_zoom = 1.0;
  double m_windowScale = 1.0;  // of the window's height when the mode started (its text makes it no taller)
  double m_applied = 1.0;  // the scale last applied
  QFont m_baseFont;
  double m_baseGraphTextPx = 11.0;
  QVector<QPointer<QDockWidget>> m_hiddenDocks;  // the docks this mode hid, shown again on leaving
};

}  // namespace dplda
