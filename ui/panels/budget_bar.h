#pragma once
// The budget bar above the canvas: total ε on a log slider (1e-2 … 1e2) with typed entry, δ,
// the configuration preset (reflecting clicks on the canvas), mechanism, bound set, shared
// releases, the budget split over the releases, the noise seed (empty = secure noise) and the private / not private indicator.
#include <QWidget>

#include "ui/session/session.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;

namespace dplda {

class BudgetBar : public QWidget {
  Q_OBJECT

 public:
  explicit BudgetBar(QWidget* parent = nullptr);

  void setState(const SessionState& state);
  QString errorText() const;        // the current input error ("" when none)
  QString indicatorText() const;    // "private" / "NOT private …"
  QString presetText() const;       // the preset combo's current text

  QSlider* epsilonSlider() const { return m_slider; }
  QLineEdit* epsilonEdit() const { return m_epsilon; }
  QLineEdit* deltaEdit() const { return m_delta; }
  QLineEdit* noiseSeedEdit() const { return m_noiseSeed; }
  QComboBox* presetCombo() const { return m_preset; }
  QComboBox* mechanismCombo() const { return m_mechanism; }
  QLineEdit* splitEdit() const { return m_split; }

  // Slider position <-> ε (log scale, 100 steps per decade).
  static int sliderPosition(double epsilon);
  static double sliderEpsilon(int position);

 signals:
  // mergeKey >= 0 merges consecutive edits into one undo step (slider drags).
  void edited(const dplda::SessionState& next, const QString& what, int mergeKey);

 private:
  void showError(QLineEdit* field, const QString& message);
  void commitText();
  void commitSplit();
  void emitIfValid(const SessionState& next, const QString& what, int mergeKey = -1);

  SessionState m_state;
  bool m_updating = false;
  QSlider* m_slider = nullptr;
  QLineEdit* m_epsilon = nullptr;
  QLineEdit* m_delta = nullptr;
  QComboBox* m_preset = nullptr;
  QComboBox* m_mechanism = nullptr;
  QComboBox* m_bounds = nullptr;
  QCheckBox* m_share = nullptr;
  QLineEdit* m_noiseSeed = nullptr;
  QLineEdit* m_split = nullptr;
  QLabel* m_indicator = nullptr;
  QLabel* m_error = nullptr;
};

}  // namespace dplda
