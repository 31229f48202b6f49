#pragma once
// The budget bar above the canvas: total ε on a log slider (1e-2 … 1e2) with typed entry, δ,
// the configuration preset (reflecting clicks on the canvas), mechanism, bound set, shared
// releases, the accountant (basic | Gaussian-DP), the budget split over the releases, the noise
// seed (empty = secure noise), e6's release (noise on T̂, the private decomposition or the
// whitened release; shown while e6 is noisy), the clipping bounds (the whitened release's C1,
// C2, C, or "clip documents" with C1, C2, C3 for other noisy edges; docs/PRIVACY.md §11–§12) and the
// indicator of what the configuration may claim (privacyStatement: "✔ private" only for a
// proven cut; printed or heuristic bounds and uncovered releases say so; cautions counted,
// listed in its tooltip).
#include <QHash>
#include <QWidget>
#include <optional>

#include "core/pipeline/privacy_statement.h"

#include "core/experiments/sweep.h"
#include "ui/session/session.h"

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QSlider;

namespace dplda {

class BudgetBar : public QWidget {
  Q_OBJECT

 public:
  explicit BudgetBar(QWidget* parent = nullptr);

  void setState(const SessionState& state);
  // N for the statement's δ ≥ 1/N caution (the corpus's document count; 0 when unknown).
  void setDocCount(int docCount);
  // A finished run's statement for the current state (see GraphCanvas::setRunStatement);
  // nullopt goes back to the statement of the state's inputs.
  void setRunStatement(const std::optional<PrivacyStatement>& statement);
  // What the session's ε sweep says at this ε (teaching): shown beside the privacy indicator.
  void setSweepReading(const SweepReading& reading);
  QString errorText() const;        // the current input error ("" when none)
  QString indicatorText() const;    // "✔ private" / "⚠ cut, printed bounds …" / "✘ NOT private" …
  QString indicatorToolTip() const;  // the statement's summary and cautions
  QString presetText() const;       // the preset combo's current text

  QSlider* epsilonSlider() const { return m_slider; }
  QLineEdit* epsilonEdit() const { return m_epsilon; }
  QLineEdit* deltaEdit() const { return m_delta; }
  QLineEdit* noiseSeedEdit() const { return m_noiseSeed; }
  QComboBox* presetCombo() const { return m_preset; }
  QComboBox* mechanismCombo() const { return m_mechanism; }
  QLineEdit* splitEdit() const { return m_split; }
  QComboBox* accountantCombo() const { return m_accountant; }
  QComboBox* e6Combo() const { return m_e6; }
  QLineEdit* clipM1Edit() const { return m_clipM1; }
  QLineEdit* clipM2Edit() const { return m_clipM2; }
  QLineEdit* clipWhitenedEdit() const { return m_clipWhitened; }
  QLineEdit* clipM3Edit() const { return m_clipM3; }
  QCheckBox* clipDocumentsCheck() const { return m_clipDocuments; }
  QCheckBox* rowBoundCheck() const { return m_rowBound; }
  QCheckBox* shareCheck() const { return m_share; }
  // e6's release and the clipping bounds, a box under the bar's two rows that the window may
  // place elsewhere (shown while some edge is noisy).
  QWidget* releaseOptions() const { return m_e6Row; }
  bool isE6RowVisible() const;  // e6's release (e6 noisy, or a release chosen for it)
  bool isClipBoxVisible() const;  // the clipping bounds (noisy edges of the spectral model)
  QString e6ProblemText() const;  // why the session's e6 release cannot run ("" when it can)

  // Slider position <-> ε (log scale, 100 steps per decade).
  static int sliderPosition(double epsilon);
  static double sliderEpsilon(int position);

 signals:
  // mergeKey >= 0 merges consecutive edits into one undo step (slider drags).
  void edited(const dplda::SessionState& next, const QString& what, int mergeKey);
  // A typed value became invalid (the message) or every field is valid again (""): the
  // session keeps its last valid state, so results on screen no longer match the fields.
  void inputProblem(const QString& message);

 private:
  void showError(QLineEdit* field, const QString& message);
  void commitText();
  void commitSplit();
  void commitClips();
  void buildE6Row();
  void updateE6Row();
  void emitIfValid(const SessionState& next, const QString& what, int mergeKey = -1);
  void updateIndicator();

  SessionState m_state;
  int m_docCount = 0;
  std::optional<PrivacyStatement> m_runStatement;
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
  QComboBox* m_accountant = nullptr;
  QWidget* m_e6Row = nullptr;
  QWidget* m_e6Group = nullptr;
  QComboBox* m_e6 = nullptr;
  QWidget* m_clipBox = nullptr;
  QCheckBox* m_clipDocuments = nullptr;
  QLineEdit* m_clipM1 = nullptr;
  QLineEdit* m_clipM2 = nullptr;
  QLineEdit* m_clipM3 = nullptr;
  QWidget* m_clipM3Box = nullptr;
  QLineEdit* m_clipWhitened = nullptr;
  QWidget* m_clipWhitenedBox = nullptr;
  QCheckBox* m_rowBound = nullptr;
  QLabel* m_e6Problem = nullptr;
  QLabel* m_indicator = nullptr;
  SweepReading m_reading;
  QLabel* m_error = nullptr;
  QHash<QLineEdit*, QString> m_tips;  // the fields' own tooltips, while an error replaces them
  QString m_reportedProblem;
};

}  // namespace dplda
