#include "ui/plots/topic_terms_plot.h"

#include <algorithm>
#include <cmath>

#include "core/eval/topic_map.h"
#include "ui/common/palette.h"

namespace dplda {

TopicTermsPlot::TopicTermsPlot(QWidget* parent) : PlotWidget(parent) {
  // Horizontal bars: the terms on the left axis, the shares along the bottom.
  m_overall = new QCPBars(yAxis, xAxis);
  m_within = new QCPBars(yAxis, xAxis);
  m_overall->setWidth(0.75);
  m_within->setWidth(0.75);
  m_overall->setPen(Qt::NoPen);
  m_overall->setBrush(QColor(190, 190, 190));
  m_within->setPen(QPen(okabe_ito::kVermillion.darker(130), 1.0));
  m_within->setBrush(okabe_ito::kVermillion);
  m_overall->setName(tr("overall"));
  yAxis->grid()->setVisible(false);
  setAxisLabels(tr("share of words"), QString());
  // The footnote names the two bars: a legend finds no free corner beside bars that fill the rows.
  setLegendShown(false);
  setPlaceholderText(tr("no model yet: run one"));
  rebuild();
}

bool TopicTermsPlot::setModel(const LdaModel& model, const QStringList& words, const QString& name, QString* error) {
  if (const Status s = validateBrowsableModel(model); !s.isOk()) {
    if (error) *error = QString::fromStdString(s.message());
    return false;
  }
  if (!words.isEmpty() && words.size() != model.vocabSize()) {
    if (error) *error = tr("topic terms: %1 word labels for d = %2 words").arg(words.size()).arg(model.vocabSize());
    return false;
  }
  m_model = model;
  m_marginal = modelWordMarginal(model);
  m_words = words;
  m_name = name;
  m_topic = std::clamp(m_topic, 0, model.topicCount() - 1);
  rebuild();
  return true;
}

void TopicTermsPlot::clearModel() {
  m_model = LdaModel{};
  m_marginal.resize(0);
  m_words.clear();
  m_name.clear();
  m_topic = 0;
  rebuild();
}

void TopicTermsPlot::setTopic(int topic) {
  if (m_model.topicCount() == 0) return;
  const int t = std::clamp(topic, 0, m_model.topicCount() - 1);
  if (t == m_topic) return;
  m_topic = t;
  rebuild();
}

void TopicTermsPlot::setLambda(double lambda) {
  const double l = std::clamp(lambda, 0.0, 1.0);
  if (l == m_lambda) return;
  m_lambda = l;
  rebuild();
}

void TopicTermsPlot::setHeading(const QString& heading) {
  m_heading = heading;
  rebuild();
}

void TopicTermsPlot::setNote(const QString& note) {
  m_note = note;
  rebuild();
}

void TopicTermsPlot::setTermCount(int n) {
  m_termCount = std::max(1, n);
  rebuild();
}

QString TopicTermsPlot::wordLabel(int w) const {
  return w < m_words.size() && !m_words[w].isEmpty() ? m_words[w] : QStringLiteral("w%1").arg(w);
}

void TopicTermsPlot::rebuild() {
  m_shown.clear();
  m_overall->data()->clear();
  m_within->data()->clear();
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  if (m_model.topicCount() == 0) {
    setTitle(QString());
    setFootnote(QString());
    yAxis->setTicker(ticker);
    m_overall->removeFromLegend();
    m_within->removeFromLegend();
    requestReplot();
    return;
  }
  const Eigen::VectorXd topic = m_model.topics.col(m_topic);
  const double share = m_model.alpha[m_topic] / m_model.alpha0();
  for (int w : relevantTerms(topic, m_marginal, m_lambda, m_termCount)) m_shown.append(w);
  // The most relevant term on top: rank r sits at key n − r.
  const int n = m_shown.size();
  QVector<double> keys, overall, within;
  for (int r = 0; r < n; ++r) {
    const int w = m_shown[r];
    keys.append(n - r);
    overall.append(m_marginal[w]);
    within.append(share * topic[w]);
    ticker->addTick(n - r, wordLabel(w));
  }
  yAxis->setTicker(ticker);
  m_overall->setData(keys, overall, true);
  m_within->setData(keys, within, true);
  m_within->setName(tr("topic %1").arg(m_topic + 1));
  m_overall->addToLegend();
  m_within->addToLegend();
  setTitle(tr("%1topic %2").arg(m_heading).arg(m_topic + 1));
  // Short enough for one or two lines beside the map on a 1280×720 screen; the model's name is in
  // the title's heading, the browser's choices and the export's side file.
  const QString about = tr("grey: all words; colour: topic %1's part; λ %2").arg(m_topic + 1).arg(QString::number(m_lambda, 'f', 2));
  setFootnote(m_note.isEmpty() ? about : about + QStringLiteral("; ") + m_note);
  fitAxesToData();
  requestReplot();
}

void TopicTermsPlot::fitAxesToData() {
  yAxis->setRange(0.4, std::max<int>(1, m_shown.size()) + 0.6);
  double hi = 0;
  for (auto it = m_overall->data()->constBegin(); it != m_overall->data()->constEnd(); ++it) hi = std::max(hi, it->value);
  xAxis->setRange(0, hi > 0 ? hi * 1.05 : 1.0);
}

QString TopicTermsPlot::readoutText(const QCPAbstractPlottable* plottable, int index) const {
  auto* one = const_cast<QCPAbstractPlottable*>(plottable)->interface1D();
  const int rank = m_shown.size() - qRound(one->dataMainKey(index));
  if (rank < 0 || rank >= m_shown.size()) return PlotWidget::readoutText(plottable, index);
  const int w = m_shown[rank];
  const double p = m_model.topics(w, m_topic);
  const Eigen::VectorXd r = termRelevance(m_model.topics.col(m_topic), m_marginal, m_lambda);
  return tr("“%1”: p(w|t) = %2, p(w) = %3\nlift p(w|t)/p(w) = %4, relevance = %5")
      .arg(wordLabel(w), QString::number(p, 'g', 3), QString::number(m_marginal[w], 'g', 3),
           QString::number(p / m_marginal[w], 'g', 3), QString::number(r[w], 'g', 3));
}

CsvTable TopicTermsPlot::csvTable() const {
  CsvTable table;
  table.header = {QStringLiteral("topic"),           QStringLiteral("rank"),        QStringLiteral("word_index"),
                  QStringLiteral("word"),            QStringLiteral("p_w_given_t"), QStringLiteral("p_w_model"),
                  QStringLiteral("lift"),            QStringLiteral("relevance"),   QStringLiteral("lambda")};
  if (m_shown.isEmpty()) return table;
  const Eigen::VectorXd r = termRelevance(m_model.topics.col(m_topic), m_marginal, m_lambda);
  for (int i = 0; i < m_shown.size(); ++i) {
    const int w = m_shown[i];
    const double p = m_model.topics(w, m_topic);
    table.rows.append({QString::number(m_topic + 1), QString::number(i + 1), QString::number(w), wordLabel(w),
                       csvNumber(p), csvNumber(m_marginal[w]), csvNumber(p / m_marginal[w]), csvNumber(r[w]),
                       csvNumber(m_lambda)});
  }
  return table;
}

}  // namespace dplda
