#pragma once
// Presentation mode for a lecture hall: one key (F5) hides the side docks so the graph, its
// banner and the results take the whole window; Ctrl++ / Ctrl+− / Ctrl+0 scale every text of
// the window (menus, banner, tables, tabs) and of every plot, readable from the back row.
#include <QFont>
#include <QObject>
#include <QPointer>
#include <QVector>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;

namespace dplda {

class PresentationMode : public QObject {
  Q_OBJECT

 public:
  // Adds its actions (with shortcuts) to `menu`.
  PresentationMode(QMainWindow* window, QMenu* menu);

  bool isActive() const { return m_active; }
  void setActive(bool active);
  double scale() const { return m_scale; }
  void setScale(double scale);  // clamped to 0.75..3
  void zoomIn() { setScale(m_scale * 1.25); }
  void zoomOut() { setScale(m_scale / 1.25); }

  QAction* toggleAction() const { return m_toggle; }

 private:
  void apply();

  QMainWindow* m_window;
  QAction* m_toggle = nullptr;
  bool m_active = false;
  double m_scale = 1.0;
  QFont m_baseFont;
  QVector<QPointer<QDockWidget>> m_hiddenDocks;  // the docks this mode hid, shown again on leaving
};

}  // namespace dplda
