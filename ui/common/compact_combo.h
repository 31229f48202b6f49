#pragma once
// Combo boxes that cannot widen the window: by default (AdjustToContents…) a QComboBox's
// minimum width is its longest item, so one long preset title or "custom {e0,e1,…}" forced the
// main window past the screen. A compact combo is at least `chars` characters wide and grows
// with its layout; its popup list still shows every item whole.
class QComboBox;

namespace dplda {

void makeCompact(QComboBox* combo, int chars);

}  // namespace dplda
