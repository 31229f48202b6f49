#pragma once
// One document's topic mixture (issue 26): horizontal bars, one per topic in topic order (topic 1
// on top), of the document's topic proportions E_q[θ] (core/model/topic_inference.h). Each bar is
// named by the topic's number and its top words. With more than kMaxShownTopics topics the largest
// shares are shown (the footnote says so); the CSV export always lists every topic.
#include <Eigen/Dense>
#include <QStringList>
#include <QVector>

#include "ui/plots/plot_widget.h"

namespace dplda {

class DocumentMixturePlot : public PlotWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxShownTopics = 20;

  explicit DocumentMixturePlot(QWidget* parent = nullptr);

  // `proportions`: k shares (>= 0, summing to 1); `topicWords`: k labels ("apple boat cloud"),
  // or empty. `note` goes under the plot (the privacy label of the mixture). False (plot unchanged)
  // with a message on inconsistent sizes or shares that are not a distribution.
  bool setMixture(const Eigen::VectorXd& proportions, const QStringList& topicWords, const QString& title,
                  const QString& note, QString* error = nullptr);
  void clearMixture();

  Eigen::VectorXd proportions() const { return m_proportions; }
  QVector<int> shownTopics() const { return m_shown; }  // topic indices, top bar first

  CsvTable csvTable() const override;
  bool hasData() const override { return !m_shown.isEmpty(); }

 protected:
  QString readoutText(const QCPAbstractPlottable* plottable, int index) const override;
  void fitAxesToData() override;

 private:
  QString topicLabel(int t) const;

  Eigen::VectorXd m_proportions;
  QStringList m_words;
  QVector<int> m_shown;
  QCPBars* m_bars = nullptr;
};

}  // namespace dplda
