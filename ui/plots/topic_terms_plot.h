#pragma once
// One topic's most relevant terms (Sievert & Shirley 2014, as in LDAvis): horizontal bars, the most
// relevant term on top, ranked by r = λ log p(w|t) + (1 − λ) log(p(w|t)/p(w)). Two bars per term,
// both shares of all words: grey the term's overall share p(w), vermillion the topic's part of it
// (α_t/α₀) p(w|t); their ratio shows how much the term belongs to this topic. p(w) is the model's own
// marginal Σ_t (α_t/α₀) p(w|t) (core/eval/topic_map.h), never the corpus counts: for a private model
// the plot is post-processing of the release.
#include <QStringList>
#include <QVector>

#include "core/corpus/corpus.h"
#include "ui/plots/plot_widget.h"

namespace dplda {

class TopicTermsPlot : public PlotWidget {
  Q_OBJECT

 public:
  explicit TopicTermsPlot(QWidget* parent = nullptr);

  // The model whose topics are shown (d words, k topics) and its word labels (d, or empty: "w17").
  // `name` says whose topics they are in the title ("spectral non-private (run 2)"). False (plot
  // unchanged) with a message when the model is not browsable (validateBrowsableModel).
  bool setModel(const LdaModel& model, const QStringList& words, const QString& name, QString* error = nullptr);
  void clearModel();
  void setTopic(int topic);
  void setLambda(double lambda);  // clamped to [0, 1]
  void setTermCount(int n);       // at least 1
  // Before "topic t, λ = …" in the title, e.g. "Non-private " ("" for none).
  void setHeading(const QString& heading);
  // Under the plot after the model's name, e.g. how the topic was matched ("" for none).
  void setNote(const QString& note);

  int topic() const { return m_topic; }
  double lambda() const { return m_lambda; }
  // Word ids shown, most relevant first.
  QVector<int> shownWords() const { return m_shown; }

  CsvTable csvTable() const override;
  bool hasData() const override { return !m_shown.isEmpty(); }

 protected:
  QString readoutText(const QCPAbstractPlottable* plottable, int index) const override;
  void fitAxesToData() override;

 private:
  void rebuild();
  QString wordLabel(int w) const;

  LdaModel m_model;
  Eigen::VectorXd m_marginal;
  QStringList m_words;
  QString m_name, m_note, m_heading;
  int m_topic = 0;
  double m_lambda = 0.6;  // Sievert & Shirley's user study found λ ≈ 0.6 best for interpretation
  int m_termCount = 10;
  QVector<int> m_shown;
  QCPBars* m_overall = nullptr;
  QCPBars* m_within = nullptr;
};

}  // namespace dplda
