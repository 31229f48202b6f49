#include "ui/window/window_fit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>
#include <algorithm>

namespace dplda {

void fitWindowToScreen(QWidget* window, QSize preferred) {
  QScreen* screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
  // The offscreen platform's screen is a nominal 800×600: renders and tests keep their size.
  if (!screen || QGuiApplication::platformName() == QLatin1String("offscreen")) {
    window->resize(preferred);
    return;
  }
  const QRect area = screen->availableGeometry();
  constexpr int kFrame = 40;  // title bar and borders drawn by the window manager
  const QSize size(std::min(preferred.width(), area.width() - kFrame / 2),
                   std::min(preferred.height(), area.height() - kFrame));
  window->resize(size.expandedTo(QSize(200, 150)));
  window->move(area.center() - QPoint(size.width() / 2, size.height() / 2));
}

}  // namespace dplda
