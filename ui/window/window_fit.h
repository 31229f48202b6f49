#pragma once
// Opening inside the screen: a top-level window gets its preferred size only when the screen's
// available area (without panels and docks of the desktop) has room for it.
#include <QSize>

class QWidget;

namespace dplda {

// Resizes `window` to `preferred` clamped to its screen's available size (minus room for the
// window frame) and centres it there. Offscreen or without a screen it just takes `preferred`.
void fitWindowToScreen(QWidget* window, QSize preferred);

}  // namespace dplda
