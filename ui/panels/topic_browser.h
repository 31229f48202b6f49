#pragma once
// The topic browser (issue 26 §3; LDAvis, Sievert & Shirley 2014), a view of the Topics tab: the
// intertopic distance map of one model (TopicMapPlot: click a circle to pick a topic), that topic's
// most relevant terms with a relevance slider λ (TopicTermsPlot), and beside them the topic matched
// to it in a second model (Hungarian on ℓ₂, as the Topics table and the errors), so a class sees
// what privacy does to a topic: by default the non-private model and the private release of the
// session's last run; both models' topics can share the map (a checkbox). Relevance uses the model's own p(w), never the corpus counts, so browsing a
// private model shows nothing beyond its release. Every plot exports as PNG/PDF/SVG/CSV.
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <optional>

#include "core/eval/metrics.h"
#include "core/eval/topic_map.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;
class QSplitter;

namespace dplda {

class PlotWidget;
class TopicMapPlot;
class TopicTermsPlot;

// A model the browser can show: `key` identifies it across runs ("spectral", "spectral-private…",
// "vi", "dp-vi…"), `label` names it for people.
struct BrowsedModel {
  QString key, label;
  LdaModel model;
  bool isPrivate = false;
  QString shortName;  // for plot titles, e.g. "Private ε 1"; "" gives "Private" / "Non-private"
  QString statement;  // shown under the choices while the model is chosen (a model file's privacy statement)
};

class TopicBrowser : public QWidget {
  Q_OBJECT

 public:
  explicit TopicBrowser(QWidget* parent = nullptr);

  // The models to choose from (most recent first) and the corpus' word labels. The choices kept
  // when they still exist; otherwise the map shows the most recent non-private model and the side
  // the most recent private one.
  void setModels(const QVector<BrowsedModel>& models, const QStringList& words);
  void setStale(bool stale);
  void setCurrentTopic(int topic);  // of the first model
  // Shows the model `key` beside the map's model, as if the user had picked it (kept across runs).
  void chooseSecond(const QString& key);
  QString statement() const;  // the chosen models' statements, in full ("" when they have none)
  void setLambda(double lambda);

  TopicMapPlot* map() const { return m_map; }
  TopicTermsPlot* firstTerms() const { return m_firstTerms; }
  TopicTermsPlot* secondTerms() const { return m_secondTerms; }
  QComboBox* firstModel() const { return m_first; }
  QComboBox* secondModel() const { return m_second; }
  QSlider* lambdaSlider() const { return m_lambda; }
  // Both models' topics on one map (one scaling of all of them; the second's as dashed rings).
  QCheckBox* bothOnMap() const { return m_both; }
  QString problem() const;  // why a model cannot be shown ("" when all is well)
  // The second model's topic matched to the first's topic t; -1 without a comparable second model.
  int matchedTopic(int topic) const;
  // The plot to export from the menu: the map.
  PlotWidget* currentPlot() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;  // three equal widths until the user moves a handle

 private:
  const BrowsedModel* chosen(const QComboBox* box) const;
  void refreshChoices();
  void showModels();  // after a choice changed
  void showTopic(int topic);
  QStringList topWordLists(const LdaModel& model) const;
  static QString heading(const BrowsedModel& m);

  QComboBox* m_first = nullptr;
  QComboBox* m_second = nullptr;
  QSpinBox* m_topic = nullptr;
  QSlider* m_lambda = nullptr;
  QLabel* m_lambdaValue = nullptr;
  QCheckBox* m_both = nullptr;
  QLabel* m_problem = nullptr;
  QLabel* m_statement = nullptr;  // one line, elided; the full text in its tooltip
  QString m_statementText;
  void showStatement();
  TopicMapPlot* m_map = nullptr;
  TopicTermsPlot* m_firstTerms = nullptr;
  TopicTermsPlot* m_secondTerms = nullptr;
  QSplitter* m_split = nullptr;
  bool m_userSplit = false;  // the user moved a handle: keep their widths
  QVector<BrowsedModel> m_models;
  QStringList m_words;
  std::optional<TopicErrors> m_match;  // first (reference) vs second, when comparable
  bool m_updating = false;
  bool m_userFirst = false, m_userSecond = false;  // picked by the user: kept across runs
};

}  // namespace dplda
