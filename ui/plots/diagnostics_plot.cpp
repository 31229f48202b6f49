#include "ui/plots/diagnostics_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/common/palette.h"

namespace dplda {

QString subscripted(const QString& symbol, int index) {
  static const QString digits = QStringLiteral("₀₁₂₃₄₅₆₇₈₉");
  QString out = symbol;
  const QString number = QString::number(index);
  for (QChar c : number) out += c.isDigit() ? digits[c.digitValue()] : c;
  return out;
}

// ---- SigmaGammaPlot ----------------------------------------------------------------------------

SigmaGammaPlot::SigmaGammaPlot(QWidget* parent) : SeriesPlot(parent) {
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  ticker->setTickStep(1.0);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  xAxis->setTicker(ticker);
  setAxisLabels(tr("k (number of topics)"), tr("value"));
}

void SigmaGammaPlot::setXLabel(const QString& label) {
  xAxis->setLabel(label);
  requestReplot();
}

void SigmaGammaPlot::setYLabel(const QString& label) {
  yAxis->setLabel(label);
  requestReplot();
}

// ---- EigenSpectrumPlot -------------------------------------------------------------------------

EigenSpectrumPlot::EigenSpectrumPlot(QWidget* parent) : PlotWidget(parent) {
  auto makeBars = [this](const QString& name, const QColor& color, Qt::BrushStyle style) {
    auto* bars = new QCPBars(xAxis, yAxis);
    bars->setName(name);
    bars->setWidth(0.6);
    bars->setPen(QPen(color.darker(120), 1.2));
    QColor fill = color;
    if (style == Qt::SolidPattern) fill.setAlpha(200);
    bars->setBrush(QBrush(fill, style));
    bars->removeFromLegend();  // listed once it holds data
    return bars;
  };
  m_topBars = makeBars(tr("σ₁…σₖ (kept: top k)"), seriesColor(0), Qt::SolidPattern);
  m_restBars = makeBars(tr("σₖ₊₁… (discarded)"), idleColor(), Qt::SolidPattern);
  // Negative eigenvalues: after noise, or in the unbiased M̂2 of a corpus that supports fewer
  // than k topics. Hatching marks them without relying on colour.
  m_negativeBars = makeBars(tr("negative (σ < 0)"), leakColor(), Qt::BDiagPattern);

  m_gapArrow = new QCPItemLine(this);
  m_gapArrow->setPen(QPen(noiseColor().darker(115), 2.0));
  m_gapArrow->setHead(QCPLineEnding::esSpikeArrow);
  m_gapArrow->setTail(QCPLineEnding::esSpikeArrow);
  for (QCPItemLine** guide : {&m_gapTop, &m_gapBottom}) {
    *guide = new QCPItemLine(this);
    (*guide)->setPen(QPen(noiseColor().darker(115), 1.0, Qt::DashLine));
  }
  m_gapLabel = new QCPItemText(this);
  m_gapLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  m_gapLabel->setColor(noiseColor().darker(160));
  m_gapLabel->setBrush(QColor(255, 255, 255, 220));
  m_gapLabel->setPadding(QMargins(3, 1, 3, 1));
  for (QCPAbstractItem* item : std::initializer_list<QCPAbstractItem*>{m_gapArrow, m_gapTop, m_gapBottom, m_gapLabel}) {
    item->setVisible(false);
    item->setSelectable(false);
  }
  setAxisLabels(tr("index i"), tr("eigenvalue of M̂₂"));
  yAxis->grid()->setZeroLinePen(QPen(Qt::black, 1));
  xAxis->grid()->setVisible(false);
}

void EigenSpectrumPlot::setValueLabel(const QString& label) {
  yAxis->setLabel(label);
  requestReplot();
}

double EigenSpectrumPlot::gap() const {
  if (m_k < 1 || m_k >= m_sigmas.size()) return std::numeric_limits<double>::quiet_NaN();
  return m_sigmas[m_k - 1] - m_sigmas[m_k];
}

bool EigenSpectrumPlot::setSpectrum(const QVector<double>& sigmas, int k, QString* error) {
  auto fail = [&](const QString& msg) {
    if (error) *error = msg;
    return false;
  };
  if (sigmas.isEmpty()) return fail(tr("eigenvalue spectrum: no eigenvalues given"));
  for (int i = 0; i < sigmas.size(); ++i)
    if (!std::isfinite(sigmas[i]))
      return fail(tr("eigenvalue spectrum: σ_%1 = %2 is not finite").arg(i + 1).arg(sigmas[i]));
  if (k < 1 || k > sigmas.size())
    return fail(tr("eigenvalue spectrum: k = %1 outside [1, %2]").arg(k).arg(sigmas.size()));
  m_sigmas = sigmas;
  m_k = k;

  QVector<double> topKeys, topValues, restKeys, restValues, negKeys, negValues;
  for (int i = 0; i < sigmas.size(); ++i) {
    const double key = i + 1;
    if (sigmas[i] < 0) {
      negKeys.append(key);
      negValues.append(sigmas[i]);
    } else if (i < k) {
      topKeys.append(key);
      topValues.append(sigmas[i]);
    } else {
      restKeys.append(key);
      restValues.append(sigmas[i]);
    }
  }
  m_topBars->setData(topKeys, topValues, true);
  m_restBars->setData(restKeys, restValues, true);
  m_negativeBars->setData(negKeys, negValues, true);
  // Only series with data in the legend.
  for (QCPBars* bars : {m_topBars, m_restBars, m_negativeBars}) {
    if (bars->dataCount() > 0)
      bars->addToLegend();
    else
      bars->removeFromLegend();
  }

  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const int step = sigmas.size() <= 20 ? 1 : static_cast<int>(std::ceil(sigmas.size() / 20.0));
  for (int i = 1; i <= sigmas.size(); i += step) ticker->addTick(i, subscripted(QStringLiteral("σ"), i));
  xAxis->setTicker(ticker);

  const bool showGap = k < sigmas.size();
  for (QCPAbstractItem* item : std::initializer_list<QCPAbstractItem*>{m_gapArrow, m_gapTop, m_gapBottom, m_gapLabel})
    item->setVisible(showGap);
  if (showGap) {
    const double hi = sigmas[k - 1], lo = sigmas[k];
    const double x = k + 0.5;
    m_gapArrow->start->setCoords(x, lo);
    m_gapArrow->end->setCoords(x, hi);
    m_gapTop->start->setCoords(k - 0.3, hi);
    m_gapTop->end->setCoords(x, hi);
    m_gapBottom->start->setCoords(x, lo);
    m_gapBottom->end->setCoords(k + 1.3, lo);
    m_gapLabel->position->setCoords(x + 0.08, (hi + lo) / 2);
    m_gapLabel->setText(tr("gap %1 − %2 = %3")
                            .arg(subscripted(QStringLiteral("σ"), k), subscripted(QStringLiteral("σ"), k + 1))
                            .arg(QString::number(hi - lo, 'g', 4)));
  }
  fitAxesToData();
  requestReplot();
  return true;
}

void EigenSpectrumPlot::clearSpectrum() {
  m_sigmas.clear();
  m_k = 0;
  for (QCPBars* bars : {m_topBars, m_restBars, m_negativeBars}) {
    bars->data()->clear();
    bars->removeFromLegend();
  }
  for (QCPAbstractItem* item : std::initializer_list<QCPAbstractItem*>{m_gapArrow, m_gapTop, m_gapBottom, m_gapLabel})
    item->setVisible(false);
  requestReplot();
}

void EigenSpectrumPlot::fitAxesToData() {
  if (m_sigmas.isEmpty()) return;
  const double hi = std::max(0.0, *std::max_element(m_sigmas.begin(), m_sigmas.end()));
  const double lo = std::min(0.0, *std::min_element(m_sigmas.begin(), m_sigmas.end()));
  const double span = hi - lo > 0 ? hi - lo : 1.0;
  // The gap's label sits right of its arrow: past the last bar it needs room of its own.
  const bool labelPastLastBar = m_gapLabel->visible() && m_k + 1 == m_sigmas.size();
  xAxis->setRange(0.4, m_sigmas.size() + 0.6 + (labelPastLastBar ? 1.8 : 0.0));
  yAxis->setRange(lo - (lo < 0 ? 0.08 * span : 0.0), hi + 0.12 * span);
}

QString EigenSpectrumPlot::readoutText(const QCPAbstractPlottable* plottable, int index) const {
  auto* one = const_cast<QCPAbstractPlottable*>(plottable)->interface1D();
  const int i = qRound(one->dataMainKey(index));
  return QStringLiteral("%1 = %2\n%3")
      .arg(subscripted(QStringLiteral("σ"), i), QString::number(one->dataMainValue(index), 'g', 6),
           i <= m_k ? tr("kept (top k = %1)").arg(m_k) : tr("discarded (beyond k = %1)").arg(m_k));
}

CsvTable EigenSpectrumPlot::csvTable() const {
  CsvTable table;
  table.header = {QStringLiteral("index"), QStringLiteral("sigma"), QStringLiteral("in_top_k"), QStringLiteral("k")};
  for (int i = 0; i < m_sigmas.size(); ++i)
    table.rows.append({QString::number(i + 1), csvNumber(m_sigmas[i]), i < m_k ? QStringLiteral("1") : QStringLiteral("0"),
                       QString::number(m_k)});
  return table;
}

}  // namespace dplda
