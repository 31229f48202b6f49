#include "ui/common/compact_combo.h"

#include <QAbstractItemView>
#include <QComboBox>

namespace dplda {

void makeCompact(QComboBox* combo, int chars) {
  combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  combo->setMinimumContentsLength(chars);
  auto update = [combo] {
    // The popup may be wider than the box: items are read whole, not elided.
    combo->view()->setMinimumWidth(combo->view()->sizeHintForColumn(0) + 2 * combo->view()->frameWidth() + 8);
  };
  QObject::connect(combo, &QComboBox::currentIndexChanged, combo, update);
  QObject::connect(combo->model(), &QAbstractItemModel::rowsInserted, combo, update);
  QObject::connect(combo->model(), &QAbstractItemModel::dataChanged, combo, update);
  update();
}

}  // namespace dplda
