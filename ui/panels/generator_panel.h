#pragma once
// The left dock: corpus source (synthetic LDA generator, a UCI folder or plain text), every generator
// parameter of SPEC §2 with its seed, the model options and the sweep settings. Invalid input
// is shown in red next to its field and never reaches the session.
#include <QMap>
#include <QWidget>

#include "ui/session/session.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QFormLayout;

namespace dplda {

class GeneratorPanel : public QWidget {
  Q_OBJECT

 public:
  explicit GeneratorPanel(QWidget* parent = nullptr);
  // Puts `section` (e.g. the budget bar's release options) at the top of the panel.
  void insertSection(QWidget* section);

  void setState(const SessionState& state);  // shows the session (clears field errors)
  // Shows (non-empty) or clears a message next to a field: keys as in validateSession, plus
  // "seed" and "init_seed".
  void setFieldError(const QString& key, const QString& message);
  QString fieldError(const QString& key) const;
  // The first field error shown ("" when every field is valid).
  QString problem() const;

  // For tests and keyboard users: the widgets by field key ("vocab", "topics", "docs", "alpha0",
  // "beta", "length", "seed", "init_seed", "corpus", "separator", "text_format", "text_column", "source", "trials", "sweep_epsilons", "max_length",
  // "model", "vi_method", "vi_iterations", "vi_batch_size", "vi_tau0", "vi_kappa", "vi_clip", "holdout",
  // "holdout_seed").
  QWidget* field(const QString& key) const { return m_fields.value(key); }

 signals:
  // A valid edit of the session; `what` names the change for the undo stack.
  void edited(const dplda::SessionState& next, const QString& what);
  void loadCorpusRequested();
  // The panel's input became invalid (the message) or valid again (""): the session keeps its
  // last valid state, so results on screen no longer match the fields.
  void inputProblem(const QString& message);

 private:
  void addRow(QFormLayout* form, const QString& key, const QString& label, QWidget* w, const QString& tip);
  void commit(const QString& key, const QString& what);  // reads the widgets, validates, emits
  SessionState fromWidgets(QString* seedError, QString* seedKey) const;
  void updateEnabled(const SessionState& s);  // which fields the corpus source and the model use
  void browseText();                                // Browse… for a plain-text file or folder
  void reportProblem();                             // emits inputProblem when it changed

  SessionState m_state;
  bool m_updating = false;
  QMap<QString, QWidget*> m_fields;
  QMap<QString, QLabel*> m_errors;
  QMap<QString, QWidget*> m_rows;  // the form row (field + error label) of each key
  QMap<QString, QString> m_tips;  // the fields' own tooltips, while an error replaces them
  QString m_reportedProblem;
  QComboBox* m_source = nullptr;
  QLineEdit* m_path = nullptr;
  QLineEdit* m_separator = nullptr;
  QComboBox* m_textFormat = nullptr;  // Lines, CSV, TSV, JSON Lines
  QLineEdit* m_textColumn = nullptr;  // the column or field of a table's documents
  QLineEdit* m_vocabularyFile = nullptr;
  QPushButton* m_browse = nullptr;
  QSpinBox* m_vocab = nullptr;
  QSpinBox* m_topics = nullptr;
  QSpinBox* m_docs = nullptr;
  QDoubleSpinBox* m_alpha0 = nullptr;
  QComboBox* m_prior = nullptr;
  QDoubleSpinBox* m_beta = nullptr;
  QDoubleSpinBox* m_length = nullptr;
  QCheckBox* m_fixed = nullptr;
  QLineEdit* m_seed = nullptr;
  QComboBox* m_decomposer = nullptr;
  QLineEdit* m_initSeed = nullptr;
  QSpinBox* m_trials = nullptr;
  QLineEdit* m_sweepEpsilons = nullptr;
  QCheckBox* m_compare = nullptr;
  QCheckBox* m_compareSound = nullptr;
  QDoubleSpinBox* m_maxLength = nullptr;
  QWidget* m_syntheticBox = nullptr;
  QWidget* m_sweepBox = nullptr;
  QFormLayout* m_modelForm = nullptr;
  // The model choice and VI's parameters (issue 10), held-out evaluation.
  QComboBox* m_model = nullptr;
  QComboBox* m_viMethod = nullptr;
  QComboBox* m_viAlpha = nullptr;
  QSpinBox* m_viIterations = nullptr;
  QSpinBox* m_viBatch = nullptr;
  QDoubleSpinBox* m_viTau0 = nullptr;
  QDoubleSpinBox* m_viKappa = nullptr;
  QDoubleSpinBox* m_viClip = nullptr;
  QDoubleSpinBox* m_holdout = nullptr;
  QLineEdit* m_holdoutSeed = nullptr;
};

}  // namespace dplda
