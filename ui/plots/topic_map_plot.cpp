#include "ui/plots/topic_map_plot.h"

#include <QMouseEvent>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ui/common/palette.h"

namespace dplda {

namespace {
QString percent(double share) { return QString::number(100.0 * share, 'f', 0) + QStringLiteral("%"); }
}  // namespace

TopicMapPlot::TopicMapPlot(QWidget* parent) : PlotWidget(parent) {
  // Coordinates of a scaling have no units: the axes name the principal coordinates, no ticks.
  for (QCPAxis* axis : {xAxis, yAxis}) {
    axis->setTickLabels(false);
    axis->setTicks(false);
    axis->grid()->setVisible(false);
  }
  setAxisLabels(tr("PC1"), tr("PC2"));
  setPlaceholderText(tr("no model yet: run one"));
  connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
    if (!m_settingRange) m_userView = true;
  });
  connect(yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
    if (!m_settingRange) m_userView = true;
  });
}

bool TopicMapPlot::setMap(const TopicMap& map, const QStringList& topWords, const QString& name, QString* error,
                          const MapCompanion& companion) {
  const Eigen::Index n = map.prevalence.size();
  const Eigen::Index k = companion.firstCount > 0 ? companion.firstCount : n;
  QString problem;
  if (k == 0) problem = tr("no topics");
  else if (map.map.coordinates.rows() != n || map.map.coordinates.cols() < 2)
    problem = tr("%1 × %2 coordinates for %3 topics").arg(map.map.coordinates.rows()).arg(map.map.coordinates.cols()).arg(n);
  else if (k > n || (companion.firstCount > 0 && companion.matching.size() != k))
    problem = tr("a companion of %1 topics after %2 with %3 matches").arg(n - k).arg(k).arg(companion.matching.size());
  else if (std::any_of(companion.matching.begin(), companion.matching.end(), [&](int m) { return m < 0 || m >= n - k; }))
    problem = tr("a match outside the companion's %1 topics").arg(n - k);
  else if (!topWords.isEmpty() && topWords.size() != k)
    problem = tr("%1 word lists for %2 topics").arg(topWords.size()).arg(k);
  else if (!map.map.coordinates.allFinite() || !map.prevalence.allFinite() || map.prevalence.minCoeff() < 0)
    problem = tr("coordinates or prevalences not finite and ≥ 0");
  if (!problem.isEmpty()) {
    if (error) *error = tr("topic map: %1").arg(problem);
    return false;
  }
  m_xy = map.map.coordinates.leftCols(2);
  m_prevalence = map.prevalence;
  m_firstCount = static_cast<int>(k);
  m_companion = companion;
  m_topWords = topWords;
  double positive = 0.0;
  for (double l : map.map.eigenvalues) positive += std::max(0.0, l);
  auto share = [&](int j) {
    return positive > 0 && j < map.map.eigenvalues.size() ? std::max(0.0, map.map.eigenvalues[j]) / positive : 0.0;
  };
  setAxisLabels(tr("PC1 (%1 of the spread)").arg(percent(share(0))), tr("PC2 (%1)").arg(percent(share(1))));
  QString note = companion.firstCount > 0 ? tr("%1; dashed: %2").arg(name, companion.name) : name;
  note += tr(". Area ∝ α_t/α₀, JS distances (%1 of the spread)").arg(percent(map.map.explained));
  setFootnote(note);
  m_current = std::clamp(m_current, 0, static_cast<int>(k) - 1);
  m_userView = false;
  rebuild();
  return true;
}

void TopicMapPlot::clearMap() {
  m_xy.resize(0, 2);
  m_prevalence.resize(0);
  m_firstCount = 0;
  m_companion = MapCompanion{};
  m_topWords.clear();
  m_current = 0;
  setFootnote(QString());
  rebuild();
}

void TopicMapPlot::rebuild() {
  clearGraphs();
  for (QCPItemText* label : m_labels) removeItem(label);
  for (QCPItemLine* link : m_links) removeItem(link);
  m_circles.clear();
  m_labels.clear();
  m_links.clear();
  const int k = topicCount(), n = static_cast<int>(m_prevalence.size());
  m_circles.resize(n);
  for (int t = 0; t < k && companionCount() > 0; ++t) {  // under the circles
    auto* link = new QCPItemLine(this);
    link->start->setCoords(m_xy(t, 0), m_xy(t, 1));
    const int m = k + m_companion.matching[t];
    link->end->setCoords(m_xy(m, 0), m_xy(m, 1));
    link->setClipToAxisRect(true);
    link->setLayer(QStringLiteral("grid"));
    m_links.append(link);
  }
  // Large circles first, so a small one over a large one stays visible and clickable.
  QVector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return m_prevalence[a] > m_prevalence[b]; });
  for (int t : order) {
    QCPGraph* g = addGraph();
    g->setName(t < k ? tr("topic %1").arg(t + 1) : tr("%1 topic %2").arg(m_companion.name).arg(t - k + 1));
    g->setLineStyle(QCPGraph::lsNone);
    g->setData({m_xy(t, 0)}, {m_xy(t, 1)});
    g->removeFromLegend();
    m_circles[t] = g;
  }
  for (int t = 0; t < k; ++t) {
    auto* label = new QCPItemText(this);
    label->position->setCoords(m_xy(t, 0), m_xy(t, 1));
    label->setText(QString::number(t + 1));
    label->setClipToAxisRect(true);
    m_labels.append(label);
  }
  restyle();
  fitAxesToData();
  requestReplot();
}

double TopicMapPlot::maxDiameter() const {
  const QRect r = axisRect()->rect();
  return std::clamp(0.22 * std::min(r.width(), r.height()), 14.0, 110.0);
}

double TopicMapPlot::circleDiameter(int topic) const {
  if (topic < 0 || topic >= m_prevalence.size()) return 0.0;
  const double top = m_prevalence.maxCoeff();
  // Area ∝ prevalence; a topic of (almost) no weight stays a visible dot.
  return top > 0 ? std::max(4.0, maxDiameter() * std::sqrt(m_prevalence[topic] / top)) : 4.0;
}

QPointF TopicMapPlot::circleCentre(int topic) const {
  if (topic < 0 || topic >= m_prevalence.size()) return {};
  return {xAxis->coordToPixel(m_xy(topic, 0)), yAxis->coordToPixel(m_xy(topic, 1))};
}

void TopicMapPlot::restyle() {
  QColor others = okabe_ito::kSkyBlue;
  others.setAlpha(110);
  QColor chosen = okabe_ito::kVermillion;
  chosen.setAlpha(200);
  for (int t = 0; t < topicCount(); ++t) {
    const bool current = t == m_current;
    QCPScatterStyle style(QCPScatterStyle::ssCircle, circleDiameter(t));
    style.setPen(QPen(current ? okabe_ito::kVermillion.darker(140) : okabe_ito::kBlue, current ? 2.0 : 1.0));
    style.setBrush(current ? chosen : others);
    m_circles[t]->setScatterStyle(style);
    QFont f = font();
    f.setBold(current);
    m_labels[t]->setFont(f);
    m_labels[t]->setColor(current ? Qt::white : Qt::black);
  }
  // The companion's topics: dashed rings, the current topic's match and its link in vermillion.
  const int match = m_current < m_companion.matching.size() ? m_companion.matching[m_current] : -1;
  for (int c = 0; c < companionCount(); ++c) {
    const bool current = c == match;
    QCPScatterStyle style(QCPScatterStyle::ssCircle, circleDiameter(topicCount() + c));
    style.setPen(QPen(current ? okabe_ito::kVermillion.darker(120) : okabe_ito::kBlue, current ? 2.2 : 1.2,
                      Qt::DashLine));
    style.setBrush(Qt::NoBrush);
    m_circles[topicCount() + c]->setScatterStyle(style);
  }
  for (int t = 0; t < m_links.size(); ++t)
    m_links[t]->setPen(t == m_current ? QPen(okabe_ito::kVermillion.darker(120), 2.0) : QPen(QColor(0, 0, 0, 90), 1.0));
}

void TopicMapPlot::setCurrentTopic(int topic) {
  if (topicCount() == 0) return;
  const int t = std::clamp(topic, 0, topicCount() - 1);
  if (t == m_current) return;
  m_current = t;
  restyle();
  requestReplot();
  emit currentTopicChanged(t);
}

void TopicMapPlot::fitAxesToData() {
  m_userView = false;
  fitRangesToRect();
}

void TopicMapPlot::fitRangesToRect() {
  if (topicCount() == 0) return;
  const QRect r = axisRect()->rect();
  const double margin = maxDiameter() / 2 + 6;
  const double w = std::max(1.0, r.width() - 2 * margin), h = std::max(1.0, r.height() - 2 * margin);
  const Eigen::Vector2d lo = m_xy.colwise().minCoeff(), hi = m_xy.colwise().maxCoeff();
  double ex = hi[0] - lo[0], ey = hi[1] - lo[1];
  if (ex <= 1e-12 && ey <= 1e-12) ex = ey = 1.0;  // one topic, or all in one spot
  // One scale for both axes: pixels per unit from the tighter side.
  const double scale = std::min(ex > 1e-12 ? w / ex : INFINITY, ey > 1e-12 ? h / ey : INFINITY);
  const double cx = 0.5 * (lo[0] + hi[0]), cy = 0.5 * (lo[1] + hi[1]);
  m_settingRange = true;
  xAxis->setRange(cx - r.width() / (2 * scale), cx + r.width() / (2 * scale));
  yAxis->setRange(cy - r.height() / (2 * scale), cy + r.height() / (2 * scale));
  m_settingRange = false;
}

void TopicMapPlot::updateLayout() {
  PlotWidget::updateLayout();
  if (topicCount() == 0) return;
  if (!m_userView) fitRangesToRect();
  restyle();  // circle sizes follow the data area (screen or export page)
}

int TopicMapPlot::topicAt(const QPointF& pixel) const {
  // Among the circles holding the pixel, the one it is most central in (its number is drawn there).
  int best = -1;
  double bestShare = 1.0;
  for (int t = 0; t < topicCount(); ++t) {  // only the first model's topics can be picked
    const QPointF c = circleCentre(t);
    const double radius = std::max(6.0, circleDiameter(t) / 2);
    const double share = std::hypot(c.x() - pixel.x(), c.y() - pixel.y()) / radius;
    if (share <= bestShare) {
      best = t;
      bestShare = share;
    }
  }
  return best;
}

void TopicMapPlot::mousePressEvent(QMouseEvent* event) {
  m_pressPos = event->position();
  PlotWidget::mousePressEvent(event);
}

void TopicMapPlot::mouseReleaseEvent(QMouseEvent* event) {
  PlotWidget::mouseReleaseEvent(event);
  // A click (not a drag) on a circle selects its topic.
  if (event->button() != Qt::LeftButton) return;
  const QPointF moved = event->position() - m_pressPos;
  if (std::hypot(moved.x(), moved.y()) > 4) return;
  const int t = topicAt(event->position());
  if (t >= 0) setCurrentTopic(t);
}

QString TopicMapPlot::readoutText(const QCPAbstractPlottable* plottable, int) const {
  const int t = static_cast<int>(m_circles.indexOf(const_cast<QCPGraph*>(qobject_cast<const QCPGraph*>(plottable))));
  if (t < 0) return {};
  if (t >= topicCount()) {
    const int c = t - topicCount();
    QStringList to;
    for (int s = 0; s < m_companion.matching.size(); ++s)
      if (m_companion.matching[s] == c) to << QString::number(s + 1);
    return tr("%1, topic %2: prevalence %3%4")
        .arg(m_companion.name)
        .arg(c + 1)
        .arg(QString::number(100 * m_prevalence[t], 'g', 3) + "%")
        .arg(to.isEmpty() ? QString() : tr("\nmatched to topic %1").arg(to.join(", ")));
  }
  QString text = tr("topic %1: prevalence %2").arg(t + 1).arg(QString::number(100 * m_prevalence[t], 'g', 3) + "%");
  if (t < m_topWords.size() && !m_topWords[t].isEmpty()) text += QStringLiteral("\n") + m_topWords[t];
  return text;
}

CsvTable TopicMapPlot::csvTable() const {
  CsvTable table;
  table.header = {QStringLiteral("model"),      QStringLiteral("topic"),     QStringLiteral("pc1"),
                  QStringLiteral("pc2"),        QStringLiteral("prevalence"), QStringLiteral("matched_topic"),
                  QStringLiteral("top_words")};
  for (int t = 0; t < static_cast<int>(m_prevalence.size()); ++t) {
    const bool first = t < topicCount();
    const int match = first && t < m_companion.matching.size() ? m_companion.matching[t] + 1 : 0;
    table.rows.append({first ? QStringLiteral("map") : QStringLiteral("companion"),
                       QString::number(first ? t + 1 : t - topicCount() + 1), csvNumber(m_xy(t, 0)),
                       csvNumber(m_xy(t, 1)), csvNumber(m_prevalence[t]), match > 0 ? QString::number(match) : QString(),
                       first ? m_topWords.value(t) : QString()});
  }
  return table;
}

}  // namespace dplda
