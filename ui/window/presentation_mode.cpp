#include "ui/window/presentation_mode.h"

#include <QAction>
#include <QDockWidget>
#include <QEvent>
#include <QMainWindow>
#include <QMenu>
#include <algorithm>
#include <cmath>

#include "ui/graph/graph_canvas.h"
#include "ui/plots/plot_widget.h"

namespace dplda {

PresentationMode::PresentationMode(QMainWindow* window, GraphCanvas* canvas, QMenu* menu,
                                   std::function<bool(QDockWidget*)> keepDock)
    : QObject(window), m_window(window), m_canvas(canvas), m_keepDock(std::move(keepDock)), m_baseFont(window->font()) {
  if (canvas) m_baseGraphTextPx = canvas->minimumTextPixels();
  m_toggle = menu->addAction(tr("&Presentation mode"), this, [this](bool on) { setActive(on); });
  m_toggle->setCheckable(true);
  m_toggle->setShortcut(QKeySequence(Qt::Key_F5));
  m_toggle->setToolTip(tr("Hide the side panels (not the lesson) and scale text, graph and plots to the screen; "
                          "Ctrl++ and Ctrl+− zoom"));
  QAction* in = menu->addAction(tr("&Larger text"), this, &PresentationMode::zoomIn);
  // Ctrl+= too: on most keyboards "+" needs Shift, and Ctrl+Shift+= is not Ctrl++.
  in->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Plus), QKeySequence(Qt::CTRL | Qt::Key_Equal)});
  QAction* out = menu->addAction(tr("&Smaller text"), this, &PresentationMode::zoomOut);
  out->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Minus));
  QAction* reset = menu->addAction(tr("&Normal text size"), this, [this] { setZoom(1.0); });
  reset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
}

PresentationMode::~PresentationMode() { PlotWidget::setDefaultFontScale(1.0); }

double PresentationMode::scaleForHeight(int height) { return std::clamp(height / 720.0, 1.0, 2.5); }

void PresentationMode::setActive(bool active) {
  if (active == m_active) return;
  m_active = active;
  m_toggle->setChecked(active);
  if (active) {
    m_windowScale = scaleForHeight(m_window->height());
    m_hiddenDocks.clear();
    for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
      if (dock->isVisibleTo(m_window) && !(m_keepDock && m_keepDock(dock))) {
        dock->hide();
        m_hiddenDocks.append(dock);
      }
  } else {
    for (const QPointer<QDockWidget>& dock : m_hiddenDocks)
      if (dock) dock->show();
    m_hiddenDocks.clear();
  }
  apply();
}

void PresentationMode::setZoom(double zoom) {
  zoom = std::clamp(zoom, 0.75, 3.0);
  if (std::abs(zoom - m_zoom) < 1e-9) return;
  m_zoom = zoom;
  apply();
}

void PresentationMode::apply() {
  const double scale = this->scale();
  if (std::abs(scale - m_applied) < 1e-9) return;
  m_applied = scale;
  // The window's font propagates to every child that does not set its own size (menus, banner,
  // tables, tabs, panels, the lesson); the plots and the graph size their texts themselves.
  QFont f = m_baseFont;
  if (f.pointSizeF() > 0) f.setPointSizeF(m_baseFont.pointSizeF() * scale);
  else f.setPixelSize(std::max(1, static_cast<int>(std::lround(m_baseFont.pixelSize() * scale))));
  m_window->setFont(scale == 1.0 ? m_baseFont : f);
  PlotWidget::setDefaultFontScale(scale);  // plots made later (a new figure type)
  for (PlotWidget* plot : m_window->findChildren<PlotWidget*>()) plot->setFontScale(scale);
  if (m_canvas) m_canvas->setMinimumTextPixels(m_baseGraphTextPx * scale);
}

}  // namespace dplda
