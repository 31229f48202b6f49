#include "ui/plots/topics_plot.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ui/common/palette.h"

namespace dplda {

TopicsPlot::TopicsPlot(QWidget* parent) : PlotWidget(parent) {
  m_group = new QCPBarsGroup(this);
  m_group->setSpacingType(QCPBarsGroup::stAbsolute);
  m_group->setSpacing(2);
  m_trueBars = new QCPBars(xAxis, yAxis);
  m_recoveredBars = new QCPBars(xAxis, yAxis);
  for (QCPBars* bars : {m_trueBars, m_recoveredBars}) {
    bars->setWidth(0.38);
    bars->setBarsGroup(m_group);
  }
  xAxis->grid()->setVisible(false);
  xAxis->setTickLabelRotation(40);
  setAxisLabels(QString(), tr("probability"));
  rebuild();
}

int TopicsPlot::topicCount() const { return m_truth.isEmpty() ? m_recovered.size() : m_truth.size(); }

int TopicsPlot::recoveredOf(int topic) const {
  if (m_truth.isEmpty()) return topic;
  if (m_matching.isEmpty()) return topic < m_recovered.size() ? topic : -1;
  return m_matching.value(topic, -1);
}

QString TopicsPlot::wordLabel(int w) const {
  return w < m_words.size() && !m_words[w].isEmpty() ? m_words[w] : QStringLiteral("w%1").arg(w);
}

bool TopicsPlot::setTopics(const QVector<QVector<double>>& truth, const QVector<QVector<double>>& recovered,
                           const QVector<int>& matching, const QStringList& words, int topWords, QString* error) {
  auto fail = [&](const QString& msg) {
    if (error) *error = tr("topics plot: %1").arg(msg);
    return false;
  };
  if (recovered.isEmpty() && truth.isEmpty()) return fail(tr("no topics given"));
  const int d = !recovered.isEmpty() ? recovered.first().size() : truth.first().size();
  if (d == 0) return fail(tr("topics have no words (d = 0)"));
  auto checkTopics = [&](const QVector<QVector<double>>& topics, const QString& what) -> QString {
    for (int t = 0; t < topics.size(); ++t) {
      if (topics[t].size() != d)
        return tr("%1 topic %2 has %3 words, expected d = %4").arg(what).arg(t).arg(topics[t].size()).arg(d);
      for (int w = 0; w < d; ++w)
        if (!std::isfinite(topics[t][w]))
          return tr("%1 topic %2, word %3: probability %4 is not finite").arg(what).arg(t).arg(w).arg(topics[t][w]);
    }
    return {};
  };
  if (QString m = checkTopics(truth, tr("true")); !m.isEmpty()) return fail(m);
  if (QString m = checkTopics(recovered, tr("recovered")); !m.isEmpty()) return fail(m);
  if (!matching.isEmpty()) {
    if (truth.isEmpty()) return fail(tr("a matching was given without true topics"));
    if (matching.size() != truth.size())
      return fail(tr("matching has %1 entries for %2 true topics").arg(matching.size()).arg(truth.size()));
    for (int i = 0; i < matching.size(); ++i)
      if (matching[i] < -1 || matching[i] >= recovered.size())
        return fail(tr("matching[%1] = %2 outside [-1, %3)").arg(i).arg(matching[i]).arg(recovered.size()));
  } else if (!truth.isEmpty() && truth.size() != recovered.size()) {
    return fail(tr("%1 true and %2 recovered topics need an explicit matching").arg(truth.size()).arg(recovered.size()));
  }
  if (!words.isEmpty() && words.size() != d)
    return fail(tr("%1 word labels for d = %2 words").arg(words.size()).arg(d));

  m_truth = truth;
  m_recovered = recovered;
  m_matching = matching;
  m_words = words;
  m_topWords = std::clamp(topWords, 1, d);
  m_current = std::clamp(m_current, 0, topicCount() - 1);
  rebuild();
  return true;
}

void TopicsPlot::clearTopics() {
  m_truth.clear();
  m_recovered.clear();
  m_matching.clear();
  m_words.clear();
  m_current = 0;
  rebuild();
}

void TopicsPlot::setCurrentTopic(int topic) {
  if (topicCount() == 0) return;
  const int t = std::clamp(topic, 0, topicCount() - 1);
  if (t == m_current) return;
  m_current = t;
  rebuild();
  emit currentTopicChanged(t);
}

QVector<int> TopicsPlot::topWordsOf(int topic) const {
  const int r = recoveredOf(topic);
  const QVector<double>* truth = m_truth.isEmpty() ? nullptr : &m_truth[topic];
  const QVector<double>* rec = r >= 0 ? &m_recovered[r] : nullptr;
  const int d = truth ? truth->size() : (rec ? rec->size() : 0);
  QVector<int> idx(d);
  std::iota(idx.begin(), idx.end(), 0);
  auto weight = [&](int w) {
    double v = -std::numeric_limits<double>::infinity();
    if (truth) v = std::max(v, (*truth)[w]);
    if (rec) v = std::max(v, (*rec)[w]);
    return v;
  };
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return weight(a) > weight(b); });
  idx.resize(std::min<int>(d, m_topWords));
  return idx;
}

QVector<int> TopicsPlot::shownWords() const { return m_shown; }

void TopicsPlot::rebuild() {
  m_shown.clear();
  m_trueBars->data()->clear();
  m_recoveredBars->data()->clear();
  setFootnote(QString());
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  if (topicCount() == 0) {
    m_trueBars->removeFromLegend();
    m_recoveredBars->removeFromLegend();
    xAxis->setTicker(ticker);
    requestReplot();
    return;
  }
  const int t = m_current;
  const int r = recoveredOf(t);
  const bool hasTruth = !m_truth.isEmpty();
  m_shown = topWordsOf(t);
  QVector<double> keys, trueValues, recValues;
  for (int i = 0; i < m_shown.size(); ++i) {
    const int w = m_shown[i];
    keys.append(i + 1);
    if (hasTruth) trueValues.append(m_truth[t][w]);
    if (r >= 0) recValues.append(m_recovered[r][w]);
    ticker->addTick(i + 1, wordLabel(w));
  }
  xAxis->setTicker(ticker);
  xAxis->setTickLabelRotation(m_shown.size() > 6 ? 40 : 0);

  // One colour per true topic; recovered bars hatched in the same colour.
  const QColor color = seriesColor(t);
  QColor solid = color;
  solid.setAlpha(210);
  m_trueBars->setPen(QPen(color.darker(125), 1.2));
  m_trueBars->setBrush(solid);
  m_recoveredBars->setPen(QPen(color.darker(125), 1.6));
  m_recoveredBars->setBrush(QBrush(color.darker(110), Qt::BDiagPattern));
  m_trueBars->setName(tr("true topic %1").arg(t + 1));
  m_recoveredBars->setName(hasTruth ? tr("recovered topic %1 (matched)").arg(r + 1)
                                    : tr("recovered topic %1").arg(r + 1));
  m_trueBars->setData(keys.mid(0, trueValues.size()), trueValues, true);
  m_recoveredBars->setData(r >= 0 ? keys : QVector<double>{}, recValues, true);
  // The group offsets bars side by side only when both are present.
  m_trueBars->setBarsGroup(hasTruth && r >= 0 ? m_group : nullptr);
  m_recoveredBars->setBarsGroup(hasTruth && r >= 0 ? m_group : nullptr);
  if (hasTruth) m_trueBars->addToLegend(); else m_trueBars->removeFromLegend();
  if (r >= 0) m_recoveredBars->addToLegend(); else m_recoveredBars->removeFromLegend();

  if (hasTruth) {
    QString text;
    if (r >= 0) {
      double l1 = 0, l2 = 0;
      for (int w = 0; w < m_truth[t].size(); ++w) {
        const double diff = m_truth[t][w] - m_recovered[r][w];
        l1 += std::abs(diff);
        l2 += diff * diff;
      }
      text = tr("distance to the truth over all %1 words: ℓ₁ = %2, ℓ₂ = %3")
                 .arg(m_truth[t].size())
                 .arg(QString::number(l1, 'g', 3))
                 .arg(QString::number(std::sqrt(l2), 'g', 3));
    } else {
      text = tr("no recovered topic matched to true topic %1").arg(t + 1);
    }
    setFootnote(text);
  }
  fitAxesToData();
  requestReplot();
}

void TopicsPlot::fitAxesToData() {
  xAxis->setRange(0.4, std::max<int>(1, m_shown.size()) + 0.6);
  double hi = 0;
  for (QCPBars* bars : {m_trueBars, m_recoveredBars})
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) hi = std::max(hi, it->value);
  yAxis->setRange(0, hi > 0 ? hi * 1.1 : 1.0);
}

QString TopicsPlot::readoutText(const QCPAbstractPlottable* plottable, int index) const {
  auto* one = const_cast<QCPAbstractPlottable*>(plottable)->interface1D();
  const int rank = qRound(one->dataMainKey(index)) - 1;
  if (rank < 0 || rank >= m_shown.size()) return PlotWidget::readoutText(plottable, index);
  return QStringLiteral("%1\n“%2”: p = %3")
      .arg(plottable->name(), wordLabel(m_shown[rank]), QString::number(one->dataMainValue(index), 'g', 4));
}

CsvTable TopicsPlot::csvTable() const {
  // Every topic's top words (the current one is a subset), so one file reproduces all views.
  CsvTable table;
  table.header = {QStringLiteral("topic"),      QStringLiteral("recovered_topic"), QStringLiteral("rank"),
                  QStringLiteral("word_index"), QStringLiteral("word"),            QStringLiteral("true_prob"),
                  QStringLiteral("recovered_prob")};
  for (int t = 0; t < topicCount(); ++t) {
    const int r = recoveredOf(t);
    const QVector<int> top = topWordsOf(t);
    for (int i = 0; i < top.size(); ++i) {
      const int w = top[i];
      table.rows.append({QString::number(t + 1), r >= 0 ? QString::number(r + 1) : QString(), QString::number(i + 1),
                         QString::number(w), wordLabel(w), m_truth.isEmpty() ? QString() : csvNumber(m_truth[t][w]),
                         r >= 0 ? csvNumber(m_recovered[r][w]) : QString()});
    }
  }
  return table;
}

}  // namespace dplda
