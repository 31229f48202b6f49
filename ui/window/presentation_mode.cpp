#include "ui/window/presentation_mode.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <algorithm>
#include <cmath>

#include "ui/plots/plot_widget.h"

namespace dplda {

PresentationMode::PresentationMode(QMainWindow* window, QMenu* menu)
    : QObject(window), m_window(window), m_baseFont(window->font()) {
  m_toggle = menu->addAction(tr("&Presentation mode"), this, [this](bool on) { setActive(on); });
  m_toggle->setCheckable(true);
  m_toggle->setShortcut(QKeySequence(Qt::Key_F5));
  m_toggle->setToolTip(tr("Hide the side panels; Ctrl++ and Ctrl+− scale the text"));
  QAction* in = menu->addAction(tr("&Larger text"), this, &PresentationMode::zoomIn);
  // Ctrl+= too: on most keyboards "+" needs Shift, and Ctrl+Shift+= is not Ctrl++.
  in->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Plus), QKeySequence(Qt::CTRL | Qt::Key_Equal)});
  QAction* out = menu->addAction(tr("&Smaller text"), this, &PresentationMode::zoomOut);
  out->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Minus));
  QAction* reset = menu->addAction(tr("&Normal text size"), this, [this] { setScale(1.0); });
  reset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
}

void PresentationMode::setActive(bool active) {
  if (active == m_active) return;
  m_active = active;
  m_toggle->setChecked(active);
  if (active) {
    m_hiddenDocks.clear();
    for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
      if (dock->isVisibleTo(m_window)) {
        dock->hide();
        m_hiddenDocks.append(dock);
      }
  } else {
    for (const QPointer<QDockWidget>& dock : m_hiddenDocks)
      if (dock) dock->show();
    m_hiddenDocks.clear();
  }
}

void PresentationMode::setScale(double scale) {
  scale = std::clamp(scale, 0.75, 3.0);
  if (std::abs(scale - m_scale) < 1e-9) return;
  m_scale = scale;
  apply();
}

void PresentationMode::apply() {
  // The window's font propagates to every child that does not set its own size (menus, banner,
  // tables, tabs, panels); the plots size their fonts themselves.
  QFont f = m_baseFont;
  if (f.pointSizeF() > 0) f.setPointSizeF(m_baseFont.pointSizeF() * m_scale);
  else f.setPixelSize(std::max(1, static_cast<int>(std::lround(m_baseFont.pixelSize() * m_scale))));
  m_window->setFont(m_scale == 1.0 ? m_baseFont : f);
  PlotWidget::setDefaultFontScale(m_scale);  // plots made later (a new figure type)
  for (PlotWidget* plot : m_window->findChildren<PlotWidget*>()) plot->setFontScale(m_scale);
}

}  // namespace dplda
