#include "ui/common/scroll_page.h"

#include <QScrollArea>

namespace dplda {

QScrollArea* scrollPage(QWidget* page, bool horizontalBar) {
  auto* scroll = new QScrollArea;
  scroll->setWidget(page);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(horizontalBar ? Qt::ScrollBarAsNeeded : Qt::ScrollBarAlwaysOff);
  return scroll;
}

}  // namespace dplda
