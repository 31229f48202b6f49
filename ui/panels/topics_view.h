#pragma once
// The Topics tab: one topic at a time (TopicsPlot: true vs recovered topic, matched, or the
// model's own top words for a corpus without truth), and beside it a table of all k topics that
// compares two models side by side. The models to compare are the last run of each kind in this
// session on the same corpus and split: spectral private, spectral non-private (teaching), VI and
// DP-VI. With a truth the rows are the true topics and each model's matched topic (Hungarian on
// ℓ₂, as the errors); without one the rows are the first model's topics and the second model's
// topic matched to each. Each model's per-topic coherence (NPMI of its top 10 words on the training
// documents, a non-private diagnostic) ends the row when the run computed it. The table exports as
// CSV from its context menu (table_export.h). A second view of the tab, the topic browser
// (TopicBrowser: a map of the topics and their relevant terms, two models side by side), reads the
// same remembered models. Private releases are remembered per configuration and ε, so two ε compare.
// A third view, the document mixture (DocumentMixtureView), shows a document's topic proportions
// under one of these models. Model files (docs/MODEL_FORMAT.md) join the models: openModelFile
// checks the vocabulary against the session's corpus and shows the file's topics beside the map's
// model; saveModelFile writes the model of the run shown.
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <memory>
#include <optional>

#include "core/corpus/corpus.h"
#include "core/model/model_file.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QTabWidget;
class QTableWidget;

namespace dplda {

class DocumentMixtureView;
class PlotWidget;
class TopicBrowser;
class TopicsPlot;
struct RunOutcome;

class TopicsView : public QWidget {
  Q_OBJECT

 public:
  explicit TopicsView(QWidget* parent = nullptr);

  void showOutcome(const RunOutcome& o);
  void setStale(bool stale);

  TopicsPlot* plot() const { return m_plot; }
  TopicBrowser* browser() const { return m_browser; }
  DocumentMixtureView* mixture() const { return m_mixture; }
  // The tab's three views: the words and table (0), the topic browser (1), the document mixture (2).
  QTabWidget* views() const { return m_views; }
  void showBrowser(bool browser);
  void showMixture();

  // File ▸ Open model…: reads the model file, checks its vocabulary against the session's corpus
  // and adds it to the models (the browser shows it beside the map's model, with its privacy
  // statement). False with a message naming the file and the problem (nothing changes then).
  bool openModelFile(const QString& path, QString* error = nullptr);
  // File ▸ Save model…: writes the model of the run shown (runModelFile) to `path`, atomically;
  // never over the session's corpus files or `otherInputs` (e.g. the session file).
  bool saveModelFile(const QString& path, const QStringList& otherInputs = {}, QString* error = nullptr);
  // The key of a model file's entry among the models ("file:" and its absolute path).
  static QString modelFileKey(const QString& path);
  // The plot of the visible view: the topic plot, or the browser's map.
  PlotWidget* currentPlot() const;
  QTableWidget* table() const { return m_table; }
  QComboBox* firstModel() const { return m_first; }
  QComboBox* secondModel() const { return m_second; }
  QString note() const;

  // The plot's title for a run, e.g. "True vs private spectral topic", "True vs non-private
  // spectral topic", "DP-VI topic — no truth for this corpus".
  static QString titleFor(const RunOutcome& o);
  // What the run's topics are, e.g. "private spectral", "non-private spectral", "VI (non-private)".
  static QString modelDescription(const RunOutcome& o);

 private:
  struct Model {
    QString key, label;
    LdaModel model;
    std::vector<double> npmi;  // per topic, on the training documents; empty when not computed
    bool isPrivate = false;
    QString shortName;  // the browser's titles: "Non-private", "Private ε 1", "VI", "DP-VI ε 2"
    QString claim;      // its privacy claim in one sentence
    bool claimHolds = false;  // the claim is a private release's (the document mixture's label)
    std::shared_ptr<const ModelFile> file;  // opened from a model file (else fitted by this session)
  };
  void remember(Model model);
  void refreshChoices(const QString& firstKey);
  const Model* chosen(const QComboBox* box) const;
  void rebuildTable();
  QString topWords(const Eigen::MatrixXd& topics, int column) const;

  TopicsPlot* m_plot = nullptr;
  TopicBrowser* m_browser = nullptr;
  DocumentMixtureView* m_mixture = nullptr;
  QTabWidget* m_views = nullptr;
  QSpinBox* m_spin = nullptr;
  QLabel* m_note = nullptr;
  QComboBox* m_first = nullptr;
  QComboBox* m_second = nullptr;
  QTableWidget* m_table = nullptr;
  QVector<Model> m_models;  // most recent first, one per key
  QString m_corpusKey;      // the corpus and split the remembered models were fitted on
  std::optional<LdaModel> m_truth;
  QStringList m_words;
  std::shared_ptr<const Corpus> m_corpus;  // the session's corpus (a model file's vocabulary is checked on it)
  // The run shown as a model file (its training fingerprint added when saved), or why there is none.
  std::optional<Result<ModelFile>> m_runFile;
  std::shared_ptr<const Corpus> m_train;  // the run's training documents
  std::vector<std::string> m_corpusFiles;      // the files its corpus was read from (never written over)
  bool m_updating = false;
};

}  // namespace dplda
