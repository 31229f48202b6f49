#pragma once
// A document's topic mixture (issue 26), a view of the Topics tab: pick a model (the session's
// runs, or a model file opened with File ▸ Open model…) and a document of the session's corpus
// (its training part or its held-out part), and see the document's topic proportions
// (DocumentMixturePlot; exportable as every plot) beside its most frequent words. The proportions
// are `dplda infer`'s: the variational E-step of core/model/topic_inference.h (inferTopics) with
// the model's topics and α fixed. Every mixture carries `infer`'s privacy label
// (core/model/inference_privacy.h): for the model's training documents, or under a model that is
// not a private release, the mixture is NOT private (computed from the document itself: a
// non-private diagnostic); for other documents it is post-processing of the release. The app has
// no release-only mode (it always shows the non-private diagnostics, labelled), so nothing is
// refused here that `infer --release-only` would refuse: the label says what it is.
#include <Eigen/Dense>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "core/corpus/corpus.h"
#include "core/model/model_file.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSpinBox;

namespace dplda {

class DocumentMixturePlot;
struct RunOutcome;

// A model whose mixtures the view shows.
struct MixtureModel {
  QString key, label;
  LdaModel model;
  bool isPrivate = false;  // its privacy claim holds: a private release
  QString claim;           // the claim in one sentence
  // Opened from a model file (its training record decides which documents are its own); null: a
  // model this session fitted on its training part.
  std::shared_ptr<const ModelFile> file;
};

class DocumentMixtureView : public QWidget {
  Q_OBJECT

 public:
  enum class Set { Training = 0, HeldOut = 1 };

  explicit DocumentMixtureView(QWidget* parent = nullptr);

  // The session's documents as the run read them: the corpus, its training and held-out parts,
  // their rows, the document ids and the word labels. The document shown is kept when it exists.
  void setDocuments(const RunOutcome& o);
  // The models to choose from (most recent first); the choice is kept while it exists.
  void setModels(const QVector<MixtureModel>& models);
  void setStale(bool stale);
  // Shows document `index` (0-based) of `set` under the chosen model; false with a message when
  // there is no such document or no model.
  bool showDocument(Set set, int index, QString* error = nullptr);
  // Chooses the model by key; false when there is none with it.
  bool chooseModel(const QString& key);

  DocumentMixturePlot* plot() const { return m_plot; }
  QComboBox* modelChoice() const { return m_model; }
  QComboBox* setChoice() const { return m_set; }
  QSpinBox* documentChoice() const { return m_document; }
  QString privacyText() const;   // the label of the mixture shown
  QString documentText() const;  // the document's id, length and most frequent words
  QString problem() const;       // why nothing is shown ("" when a mixture is)
  Eigen::VectorXd proportions() const;  // of the document shown (empty when none)
  // The documents of a set (null when the session has none).
  const Corpus* documents(Set set) const;

 private:
  const MixtureModel* chosen() const;
  void refresh();  // the chosen model, set and document
  void updateDocumentRange();
  // Why the set's documents are the model's training documents ("" when nothing says so).
  QString trainingMatch(const MixtureModel& m, Set set);
  QString documentId(int row) const;
  QStringList topicWordLists(const LdaModel& model) const;
  void showProblem(const QString& problem);

  QComboBox* m_model = nullptr;
  QComboBox* m_set = nullptr;
  QSpinBox* m_document = nullptr;
  QLabel* m_id = nullptr;
  QLabel* m_privacy = nullptr;
  QLabel* m_problem = nullptr;
  DocumentMixturePlot* m_plot = nullptr;
  QPlainTextEdit* m_words = nullptr;
  QVector<MixtureModel> m_models;
  std::shared_ptr<const Corpus> m_corpus, m_train, m_test;
  std::vector<int> m_trainRows, m_testRows;
  std::shared_ptr<const std::vector<std::string>> m_ids;
  QStringList m_wordLabels;
  QString m_corpusFolder;  // a UCI session's folder (what `dplda run` is given), else ""
  QHash<QString, QString> m_matches;  // model key + set -> trainingMatch, for the current documents
  bool m_updating = false;
};

}  // namespace dplda
