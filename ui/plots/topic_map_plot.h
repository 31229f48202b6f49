#pragma once
// The intertopic distance map (as in LDAvis): one circle per topic, placed by classical scaling of
// the Jensen–Shannon distances between the topics (core/eval/topic_map.h), its area proportional to
// the topic's prevalence α_t/α₀. The axes keep one scale (a distance reads the same across and up),
// circles are sized from the data area so a small export looks like the screen, and a click on a
// circle selects its topic (drawn in vermillion, the others in light blue, numbered in both).
// A second model's topics can share the map (MapCompanion): one scaling of both models' topics,
// the second's drawn as dashed rings, each joined by a line to the topic it is matched to.
#include <QVector>

#include "core/eval/topic_map.h"
#include "ui/plots/plot_widget.h"

namespace dplda {

struct MapCompanion {
  int firstCount = 0;     // rows [0, firstCount) are the first model's topics, the rest the second's
  QVector<int> matching;  // matching[t]: the second model's topic matched to topic t (firstCount entries)
  QString name;           // the second model, for the footnote and readout
};

class TopicMapPlot : public PlotWidget {
  Q_OBJECT

 public:
  explicit TopicMapPlot(QWidget* parent = nullptr);

  // Shows a map (coordinates k × 2, prevalence k) of the model called `name` (in the footnote);
  // `topWords[t]` names topic t in the hover readout (may be empty). Returns false (plot unchanged)
  // with a message on inconsistent sizes.
  // With a companion, `map` holds both models' topics (each model's prevalences summing to 1) and
  // `topWords` the first model's.
  bool setMap(const TopicMap& map, const QStringList& topWords, const QString& name, QString* error = nullptr,
              const MapCompanion& companion = {});
  void clearMap();

  void setCurrentTopic(int topic);
  int currentTopic() const { return m_current; }
  int topicCount() const { return m_firstCount; }  // the first model's: the topics one can pick
  int companionCount() const { return static_cast<int>(m_prevalence.size()) - m_firstCount; }
  // The topic whose circle holds the widget pixel (on overlaps, the one whose centre is nearest
  // relative to its radius), or -1.
  int topicAt(const QPointF& pixel) const;
  // Diameter in pixels of point i's circle in the current layout (its area ∝ prevalence); points
  // topicCount() + c are the companion's topics.
  double circleDiameter(int point) const;
  // Widget pixel of point i's centre in the current layout.
  QPointF circleCentre(int point) const;

  CsvTable csvTable() const override;
  bool hasData() const override { return topicCount() > 0; }

 signals:
  void currentTopicChanged(int topic);

 protected:
  QString readoutText(const QCPAbstractPlottable* plottable, int index) const override;
  void fitAxesToData() override;
  void updateLayout() override;  // sizes the circles from the data area, keeps one scale
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  void rebuild();
  void restyle();           // colours: the current topic stands out
  void fitRangesToRect();   // equal scales, every circle inside the data area
  double maxDiameter() const;

  Eigen::MatrixXd m_xy;  // k × 2
  Eigen::VectorXd m_prevalence;
  QStringList m_topWords;
  double m_explained = 0.0;
  int m_current = 0;
  QVector<QCPGraph*> m_circles;  // one single-point graph per topic
  QVector<QCPItemText*> m_labels;
  QVector<QCPItemLine*> m_links;  // topic t to its match, with a companion
  int m_firstCount = 0;
  MapCompanion m_companion;
  bool m_userView = false;    // the user zoomed or panned: keep their ranges
  bool m_settingRange = false;
  QPointF m_pressPos;
};

}  // namespace dplda
