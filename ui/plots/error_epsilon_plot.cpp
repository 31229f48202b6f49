#include "ui/plots/error_epsilon_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ui/common/palette.h"
#include "ui/plots/log_ticker.h"

namespace dplda {

namespace {
QVector<double> permuted(const QVector<double>& v, const QVector<int>& order) {
  QVector<double> out;
  if (v.isEmpty()) return out;
  out.reserve(order.size());
  for (int i : order) out.append(v[i]);
  return out;
}
}  // namespace

ErrorVsEpsilonPlot::ErrorVsEpsilonPlot(QWidget* parent) : PlotWidget(parent) {
  setAxisLogarithmic(xAxis, true);
  xAxis->grid()->setSubGridVisible(true);
  xAxis->grid()->setSubGridPen(QPen(QColor(0, 0, 0, 20), 1, Qt::DotLine));
  setAxisLabels(tr("total privacy budget ε (log scale)"), tr("mean ℓ₂ error per topic"));
  xAxis->setRange(0.1, 2.0);
  yAxis->setRange(0, 1);
}

bool ErrorVsEpsilonPlot::setCurve(const QString& key, const QString& label, const QVector<double>& eps,
                                  const QVector<double>& median, const QVector<double>& lower,
                                  const QVector<double>& upper, int styleIndex, QString* error) {
  auto fail = [&](const QString& msg) {
    if (error) *error = tr("error-vs-ε curve '%1': %2").arg(key, msg);
    return false;
  };
  if (key.isEmpty()) return fail(tr("empty curve key"));
  if (median.size() != eps.size())
    return fail(tr("%1 ε values but %2 medians").arg(eps.size()).arg(median.size()));
  if (lower.size() != upper.size() || (!lower.isEmpty() && lower.size() != eps.size()))
    return fail(tr("band needs lower and upper of length %1 (or both empty), got %2 and %3")
                    .arg(eps.size()).arg(lower.size()).arg(upper.size()));
  for (int i = 0; i < eps.size(); ++i) {
    if (!std::isfinite(eps[i]) || !(eps[i] > 0))
      return fail(tr("ε[%1] = %2 must be positive and finite (log axis)").arg(i).arg(eps[i]));
    if (!lower.isEmpty() && std::isfinite(lower[i]) && std::isfinite(upper[i]) && lower[i] > upper[i])
      return fail(tr("band at ε = %1: lower %2 > upper %3").arg(eps[i]).arg(lower[i]).arg(upper[i]));
  }

  Curve& c = m_curves[key];
  if (!c.medianGraph) {
    c.style = styleIndex >= 0 ? styleIndex : m_nextStyle;
    m_nextStyle = std::max(m_nextStyle, c.style + 1);
    // Band graphs first so the median line is drawn on top of the fill.
    c.lowerGraph = addGraph();
    c.upperGraph = addGraph();
    c.medianGraph = addGraph();
    c.lowerGraph->removeFromLegend();
    c.upperGraph->removeFromLegend();
    linkCompanion(c.medianGraph, c.lowerGraph);
    linkCompanion(c.medianGraph, c.upperGraph);
    m_order.append(key);
  } else if (styleIndex >= 0) {
    c.style = styleIndex;
  }
  QVector<int> order(eps.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return eps[a] < eps[b]; });
  c.label = label;
  c.eps = permuted(eps, order);
  c.median = permuted(median, order);
  c.lower = permuted(lower, order);
  c.upper = permuted(upper, order);

  c.medianGraph->setName(label);
  c.medianGraph->setPen(seriesPen(c.style, 2.2));
  c.medianGraph->setScatterStyle(seriesScatter(c.style, 7.5));
  c.medianGraph->setData(c.eps, c.median, true);

  QColor edge = seriesColor(c.style);
  edge.setAlpha(110);
  const QPen bandPen(edge, 1.0, Qt::SolidLine);
  c.lowerGraph->setName(label + tr(" (lower)"));
  c.upperGraph->setName(label + tr(" (upper)"));
  c.lowerGraph->setPen(bandPen);
  c.upperGraph->setPen(bandPen);
  const QVector<double> bandKeys = c.lower.isEmpty() ? QVector<double>{} : c.eps;
  c.lowerGraph->setData(bandKeys, c.lower, true);
  c.upperGraph->setData(bandKeys, c.upper, true);
  c.upperGraph->setBrush(seriesFill(c.style, 45));
  c.upperGraph->setChannelFillGraph(c.lower.isEmpty() ? nullptr : c.lowerGraph);

  updateBaselineSpan();
  fitAxesToData();
  requestReplot();
  return true;
}

void ErrorVsEpsilonPlot::setCurveDimmed(const QString& key) {
  auto it = m_curves.find(key);
  if (it == m_curves.end()) return;
  QPen pen = seriesPen(it->style, 1.4);
  QColor c = pen.color();
  c.setAlpha(150);
  pen.setColor(c);
  pen.setStyle(Qt::DashLine);
  it->medianGraph->setPen(pen);
  QCPScatterStyle marker = seriesScatter(it->style, 5.0);
  marker.setPen(pen);
  it->medianGraph->setScatterStyle(marker);
  requestReplot();
}

bool ErrorVsEpsilonPlot::curveData(const QString& key, CurveData* out) const {
  auto it = m_curves.find(key);
  if (it == m_curves.end()) return false;
  *out = CurveData{it->label, it->eps, it->median, it->lower, it->upper, it->style};
  return true;
}

void ErrorVsEpsilonPlot::removeCurve(const QString& key) {
  auto it = m_curves.find(key);
  if (it == m_curves.end()) return;
  removePlottable(it->medianGraph);
  removePlottable(it->upperGraph);
  removePlottable(it->lowerGraph);
  m_curves.erase(it);
  m_order.removeAll(key);
  updateBaselineSpan();
  requestReplot();
}

void ErrorVsEpsilonPlot::clearCurves() {
  for (const QString& key : QStringList(m_order)) removeCurve(key);
  m_nextStyle = 0;
}

void ErrorVsEpsilonPlot::setReference(const QString& key, const QString& label, double value) {
  if (label.isEmpty() || !std::isfinite(value)) {
    if (m_references.contains(key)) removePlottable(m_references[key].graph);
    m_references.remove(key);
    requestReplot();
    return;
  }
  Reference& r = m_references[key];
  r.label = label;
  r.value = value;
  if (!r.graph) {
    r.graph = addGraph();
    r.graph->setPen(key == kGuess ? QPen(QColor(120, 120, 120), 1.4, Qt::DotLine)
                                  : QPen(baselineColor(), 1.6, Qt::DashLine));
  }
  r.graph->setName(label);
  updateBaselineSpan();
  fitAxesToData();
  requestReplot();
}

void ErrorVsEpsilonPlot::updateBaselineSpan() {
  // Each reference spans far beyond the data so it crosses the whole axis rect under any zoom.
  double lo = 0.1, hi = 2.0;
  for (const Curve& c : m_curves)
    for (double e : c.eps) {
      lo = std::min(lo, e);
      hi = std::max(hi, e);
    }
  for (Reference& r : m_references)
    r.graph->setData(QVector<double>{lo / 1e3, hi * 1e3}, QVector<double>{r.value, r.value}, true);
}

void ErrorVsEpsilonPlot::setMarkedEpsilon(double epsilon) {
  m_markedEpsilon = epsilon;
  const bool show = std::isfinite(epsilon) && epsilon > 0;
  if (show && !m_epsilonLine) {
    m_epsilonLine = new QCPItemStraightLine(this);
    m_epsilonLine->setPen(QPen(QColor(200, 60, 40, 160), 1.2, Qt::DashDotLine));
    m_epsilonText = new QCPItemText(this);
    m_epsilonText->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_epsilonText->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_epsilonText->setColor(QColor(200, 60, 40));
  }
  if (m_epsilonLine) {
    m_epsilonLine->setVisible(show);
    m_epsilonText->setVisible(show);
  }
  if (show) {
    m_epsilonLine->point1->setCoords(epsilon, 0);
    m_epsilonLine->point2->setCoords(epsilon, 1);
    m_epsilonText->position->setCoords(epsilon * 1.02, 0.02);
    m_epsilonText->setText(tr("this session: ε = %1").arg(QString::number(epsilon, 'g', 3)));
  }
  requestReplot();
}

void ErrorVsEpsilonPlot::setErrorLabel(const QString& label) {
  yAxis->setLabel(label);
  requestReplot();
}

void ErrorVsEpsilonPlot::setLogError(bool log) {
  m_logY = log;
  setAxisLogarithmic(yAxis, log);
  fitAxesToData();
  requestReplot();
}

bool ErrorVsEpsilonPlot::hasData() const {
  for (const Curve& c : m_curves)
    if (!c.eps.isEmpty()) return true;
  return false;
}

void ErrorVsEpsilonPlot::fitAxesToData() {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo;
  double ylo = xlo, yhi = -xlo;
  auto takeY = [&](double v) {
    if (!std::isfinite(v) || (m_logY && !(v > 0))) return;
    ylo = std::min(ylo, v);
    yhi = std::max(yhi, v);
  };
  for (const Curve& c : m_curves) {
    if (!c.medianGraph->visible()) continue;
    for (int i = 0; i < c.eps.size(); ++i) {
      xlo = std::min(xlo, c.eps[i]);
      xhi = std::max(xhi, c.eps[i]);
      takeY(c.median[i]);
      if (!c.lower.isEmpty()) {
        takeY(c.lower[i]);
        takeY(c.upper[i]);
      }
    }
  }
  for (const Reference& r : m_references)
    if (r.graph->visible()) takeY(r.value);
  if (xlo <= xhi) {
    const double pad = xhi > xlo ? std::pow(xhi / xlo, 0.04) : 1.5;
    xAxis->setRange(xlo / pad, xhi * pad);
  }
  if (ylo <= yhi) {
    if (m_logY) {
      const double pad = yhi > ylo ? std::pow(yhi / ylo, 0.06) : 2.0;
      yAxis->setRange(ylo / pad, yhi * pad);
    } else {
      // Errors are non-negative: start at 0 so curves compare by height honestly.
      const double lo = std::min(0.0, ylo);
      const double span = yhi - lo > 0 ? yhi - lo : 1.0;
      yAxis->setRange(lo, yhi + 0.08 * span);
    }
  }
}

QString ErrorVsEpsilonPlot::readoutText(const QCPAbstractPlottable* plottable, int index) const {
  for (const Curve& c : m_curves) {
    if (plottable != c.medianGraph && plottable != c.lowerGraph && plottable != c.upperGraph) continue;
    // Points are stored sorted, as in the graph, so the index is shared.
    QString text = QStringLiteral("%1\nε = %2\nmedian error = %3")
                       .arg(c.label, QString::number(c.eps[index], 'g', 4), QString::number(c.median[index], 'g', 4));
    if (!c.lower.isEmpty())
      text += QStringLiteral("\nband [%1, %2]")
                  .arg(QString::number(c.lower[index], 'g', 4), QString::number(c.upper[index], 'g', 4));
    return text;
  }
  return PlotWidget::readoutText(plottable, index);
}

CsvTable ErrorVsEpsilonPlot::csvTable() const {
  CsvTable table;
  table.header = {QStringLiteral("series_key"), QStringLiteral("series_label"), QStringLiteral("epsilon"),
                  QStringLiteral("median"), QStringLiteral("lower"), QStringLiteral("upper")};
  for (const QString& key : m_order) {
    const Curve& c = m_curves[key];
    for (int i = 0; i < c.eps.size(); ++i) {
      table.rows.append({key, c.label, csvNumber(c.eps[i]), csvNumber(c.median[i]),
                         c.lower.isEmpty() ? QString() : csvNumber(c.lower[i]),
                         c.upper.isEmpty() ? QString() : csvNumber(c.upper[i])});
    }
  }
  for (auto it = m_references.cbegin(); it != m_references.cend(); ++it)  // every ε: the epsilon cell stays empty
    table.rows.append({it.key(), it->label, QString(), csvNumber(it->value), QString(), QString()});
  return table;
}

}  // namespace dplda
