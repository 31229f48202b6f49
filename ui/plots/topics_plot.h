#pragma once
// True vs recovered topic-word distributions for matched topics: for the selected topic, bars
// of both probabilities over its top words. One colour per true topic (the same colour in every
// view); recovered bars are hatched in that colour, so the two differ by more than colour.
#include <QStringList>
#include <QVector>

#include "ui/plots/plot_widget.h"

namespace dplda {

class TopicsPlot : public PlotWidget {
  Q_OBJECT

 public:
  explicit TopicsPlot(QWidget* parent = nullptr);

  // truth: k true topics of d probabilities each, or empty (real data: recovered topics only).
  // recovered: the recovered topics (d each). matching[i]: the recovered topic matched to true
  // topic i (-1: unmatched); empty means the identity. words: d labels, or empty ("w17").
  // topWords: how many words to show per topic (clamped to [1, d]); a topic's top words are
  // those with the largest max(true, recovered) probability. Returns false (plot unchanged)
  // with a message on inconsistent sizes or indices.
  bool setTopics(const QVector<QVector<double>>& truth, const QVector<QVector<double>>& recovered,
                 const QVector<int>& matching, const QStringList& words, int topWords, QString* error = nullptr);
  void clearTopics();

  // The topic shown: an index into truth (or into recovered when there is no truth).
  void setCurrentTopic(int topic);
  int currentTopic() const { return m_current; }
  int topicCount() const;
  // Word indices shown for the current topic, most probable first.
  QVector<int> shownWords() const;

  CsvTable csvTable() const override;
  bool hasData() const override { return topicCount() > 0; }

 signals:
  void currentTopicChanged(int topic);

 protected:
  QString readoutText(const QCPAbstractPlottable* plottable, int index) const override;
  void fitAxesToData() override;

 private:
  QVector<int> topWordsOf(int topic) const;
  QString wordLabel(int w) const;
  int recoveredOf(int topic) const;  // -1 when unmatched
  void rebuild();

  QVector<QVector<double>> m_truth, m_recovered;
  QVector<int> m_matching;
  QStringList m_words;
  int m_topWords = 10;
  int m_current = 0;
  QVector<int> m_shown;
  QCPBars* m_trueBars = nullptr;
  QCPBars* m_recoveredBars = nullptr;
  QCPBarsGroup* m_group = nullptr;
};

}  // namespace dplda
