#pragma once
// A page in a scroll area that grows with it: the page keeps its minimum size (a plot's readable
// data area, a form's rows) without passing it on, so a tall tab or panel cannot push the window
// past a small screen (1280×720: the status bar went below its edge); a scroll bar appears instead.
class QScrollArea;
class QWidget;

namespace dplda {

QScrollArea* scrollPage(QWidget* page, bool horizontalBar);

}  // namespace dplda
