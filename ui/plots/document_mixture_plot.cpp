#include "ui/plots/document_mixture_plot.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ui/common/palette.h"

namespace dplda {

DocumentMixturePlot::DocumentMixturePlot(QWidget* parent) : PlotWidget(parent) {
  m_bars = new QCPBars(yAxis, xAxis);  // topics on the left axis, shares along the bottom
  m_bars->setWidth(0.75);
  m_bars->setPen(QPen(okabe_ito::kBlue.darker(130), 1.0));
  m_bars->setBrush(okabe_ito::kBlue);
  m_bars->setName(tr("topic proportion"));
  yAxis->grid()->setVisible(false);
  setAxisLabels(tr("share of the document (E[θ])"), QString());
  setLegendShown(false);  // one series, named by the axis
  setPlaceholderText(tr("no document yet: run the session, then pick a document"));
  clearMixture();
}

bool DocumentMixturePlot::setMixture(const Eigen::VectorXd& proportions, const QStringList& topicWords,
                                     const QString& title, const QString& note, QString* error) {
  const int k = static_cast<int>(proportions.size());
  const bool finite = proportions.allFinite() && (k == 0 || proportions.minCoeff() >= 0);
  if (k == 0 || !finite || std::abs(proportions.sum() - 1.0) > 1e-6) {
    if (error) *error = tr("document mixture: %1 shares that are not a distribution over topics").arg(k);
    return false;
  }
  if (!topicWords.isEmpty() && topicWords.size() != k) {
    if (error) *error = tr("document mixture: %1 topic labels for k = %2 topics").arg(topicWords.size()).arg(k);
    return false;
  }
  m_proportions = proportions;
  m_words = topicWords;
  // Topic order (stable when stepping through documents); the largest shares when there are many.
  QVector<int> order(k);
  std::iota(order.begin(), order.end(), 0);
  if (k > kMaxShownTopics) {
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return proportions[a] > proportions[b]; });
    order.resize(kMaxShownTopics);
    std::sort(order.begin(), order.end());
  }
  m_shown = order;
  const int n = m_shown.size();
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  QVector<double> keys, values;
  for (int r = 0; r < n; ++r) {  // the first shown topic on top: rank r at key n − r
    keys.append(n - r);
    values.append(proportions[m_shown[r]]);
    ticker->addTick(n - r, topicLabel(m_shown[r]));
  }
  yAxis->setTicker(ticker);
  m_bars->setData(keys, values, true);
  setTitle(title);
  QString foot = note;
  if (k > n) foot = tr("the %1 largest of %2 topics; ").arg(n).arg(k) + foot;
  setFootnote(foot);
  fitAxesToData();
  requestReplot();
  return true;
}

void DocumentMixturePlot::clearMixture() {
  m_proportions.resize(0);
  m_words.clear();
  m_shown.clear();
  m_bars->data()->clear();
  yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
  setTitle(QString());
  setFootnote(QString());
  fitAxesToData();
  requestReplot();
}

QString DocumentMixturePlot::topicLabel(int t) const {
  const QString words = t < m_words.size() ? m_words[t] : QString();
  return words.isEmpty() ? tr("topic %1").arg(t + 1) : QStringLiteral("%1 · %2").arg(t + 1).arg(words);
}

void DocumentMixturePlot::fitAxesToData() {
  yAxis->setRange(0.4, std::max<int>(1, m_shown.size()) + 0.6);
  const double hi = m_proportions.size() ? m_proportions.maxCoeff() : 0.0;
  xAxis->setRange(0, hi > 0 ? std::min(1.0, hi * 1.08) : 1.0);
}

QString DocumentMixturePlot::readoutText(const QCPAbstractPlottable* plottable, int index) const {
  auto* one = const_cast<QCPAbstractPlottable*>(plottable)->interface1D();
  const int rank = m_shown.size() - qRound(one->dataMainKey(index));
  if (rank < 0 || rank >= m_shown.size()) return PlotWidget::readoutText(plottable, index);
  const int t = m_shown[rank];
  return tr("%1\nshare of the document: %2").arg(topicLabel(t), QString::number(m_proportions[t], 'g', 4));
}

CsvTable DocumentMixturePlot::csvTable() const {
  CsvTable table;
  table.header = {QStringLiteral("topic"), QStringLiteral("proportion"), QStringLiteral("top_words")};
  for (int t = 0; t < m_proportions.size(); ++t)
    table.rows.append({QString::number(t + 1), csvNumber(m_proportions[t]), t < m_words.size() ? m_words[t] : QString()});
  return table;
}

}  // namespace dplda
