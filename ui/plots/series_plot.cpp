#include "ui/plots/series_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ui/common/palette.h"
#include "ui/plots/log_ticker.h"

namespace dplda {

SeriesPlot::SeriesPlot(QWidget* parent) : PlotWidget(parent) {}

QString SeriesPlot::checkPoint(double x, double) const {
  if (!std::isfinite(x)) return tr("x is not finite");
  return {};
}

bool SeriesPlot::setSeries(const QString& key, const QString& label, const QVector<double>& xs,
                           const QVector<double>& ys, int styleIndex, QString* error) {
  auto fail = [&](const QString& msg) {
    if (error) *error = tr("series '%1': %2").arg(key, msg);
    return false;
  };
  if (key.isEmpty()) return fail(tr("empty series key"));
  if (xs.size() != ys.size())
    return fail(tr("x has %1 values but y has %2").arg(xs.size()).arg(ys.size()));
  for (int i = 0; i < xs.size(); ++i) {
    const QString problem = checkPoint(xs[i], ys[i]);
    if (!problem.isEmpty())
      return fail(tr("point %1 (x=%2, y=%3): %4").arg(i).arg(xs[i]).arg(ys[i]).arg(problem));
  }
  Series& s = m_series[key];
  if (!s.graph) {
    s.style = styleIndex >= 0 ? styleIndex : m_nextStyle;
    m_nextStyle = std::max(m_nextStyle, s.style + 1);
    s.graph = addGraph();
    m_order.append(key);
  } else if (styleIndex >= 0) {
    s.style = styleIndex;
  }
  s.label = label;
  // Keep the data sorted by x so lines, CSV rows and the graph agree.
  QVector<int> order(xs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return xs[a] < xs[b]; });
  s.xs.resize(xs.size());
  s.ys.resize(xs.size());
  for (int i = 0; i < order.size(); ++i) {
    s.xs[i] = xs[order[i]];
    s.ys[i] = ys[order[i]];
  }
  s.sourceIndex = order;
  s.graph->setName(label);
  s.graph->setPen(seriesPen(s.style));
  s.graph->setScatterStyle(seriesScatter(s.style));
  refreshGraphs();
  seriesChanged(key, false);
  fitAxesToData();
  requestReplot();
  return true;
}

void SeriesPlot::seriesChanged(const QString&, bool) {}

void SeriesPlot::removeSeries(const QString& key) {
  auto it = m_series.find(key);
  if (it == m_series.end()) return;
  removePlottable(it->graph);
  m_series.erase(it);
  m_order.removeAll(key);
  seriesChanged(key, true);
  refreshGraphs();
  requestReplot();
}

void SeriesPlot::clearSeries() {
  for (const Series& s : m_series) removePlottable(s.graph);
  m_series.clear();
  const QStringList keys = m_order;
  m_order.clear();
  for (const QString& key : keys) seriesChanged(key, true);
  m_nextStyle = 0;
  refreshGraphs();
  requestReplot();
}

const SeriesPlot::Series* SeriesPlot::series(const QString& key) const {
  auto it = m_series.constFind(key);
  return it == m_series.constEnd() ? nullptr : &*it;
}

void SeriesPlot::refreshGraphs() {
  m_hiddenPoints = 0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (Series& s : m_series) {
    QVector<double> x = s.xs, y = s.ys;
    for (int i = 0; i < x.size(); ++i) {
      const bool hidden = (m_logX && !(x[i] > 0)) || (m_logY && std::isfinite(y[i]) && !(y[i] > 0));
      if (hidden) {
        ++m_hiddenPoints;
        y[i] = nan;  // a gap in the line
        if (m_logX) x[i] = std::numeric_limits<double>::min();
      }
    }
    s.graph->setData(x, y, true);
  }
  updateHiddenNote();
}

void SeriesPlot::updateHiddenNote() {
  setFootnote(m_hiddenPoints > 0
                  ? tr("%1 point(s) ≤ 0 not shown on the log axis (they are in the CSV)").arg(m_hiddenPoints)
                  : QString());
}

void SeriesPlot::setLogX(bool log) {
  m_logX = log;
  setAxisLogarithmic(xAxis, log);
  refreshGraphs();
  fitAxesToData();
  requestReplot();
}

void SeriesPlot::setLogY(bool log) {
  m_logY = log;
  setAxisLogarithmic(yAxis, log);
  refreshGraphs();
  fitAxesToData();
  requestReplot();
}

namespace {
// Range of the finite (and, on a log axis, positive) values, padded by `pad` of the span.
QCPRange paddedRange(const QVector<double>& values, bool log, double pad) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values) {
    if (!std::isfinite(v) || (log && !(v > 0))) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!(lo <= hi)) return log ? QCPRange(0.1, 10) : QCPRange(0, 1);
  if (log) {
    double f = std::pow(hi / lo, pad);
    if (hi == lo) f = 2;
    return QCPRange(lo / f, hi * f);
  }
  double span = hi - lo;
  if (span == 0) span = std::abs(lo) > 0 ? std::abs(lo) * 0.5 : 1.0;
  return QCPRange(lo - pad * span, hi + pad * span);
}
}  // namespace

void SeriesPlot::fitAxesToData() {
  QVector<double> xs, ys;
  for (const Series& s : m_series) {
    if (!s.graph->visible()) continue;
    xs += s.xs;
    ys += s.ys;
  }
  xAxis->setRange(paddedRange(xs, m_logX, 0.05));
  if (m_proportionY) yAxis->setRange(-0.04, 1.04);  // markers at 0 and 1 drawn whole
  else yAxis->setRange(paddedRange(ys, m_logY, 0.08));
}

void SeriesPlot::setProportionY(bool on) {
  m_proportionY = on;
  if (on) {
    yAxis->setScaleType(QCPAxis::stLinear);
    m_logY = false;
  }
  yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());  // a linear axis: ticks 0..1 only
  refreshGraphs();
  fitAxesToData();
  requestReplot();
}

CsvTable SeriesPlot::csvTable() const {
  CsvTable table;
  table.header = {QStringLiteral("series_key"), QStringLiteral("series_label"), QStringLiteral("x"),
                  QStringLiteral("y")};
  for (const QString& key : m_order) {
    const Series& s = m_series[key];
    for (int i = 0; i < s.xs.size(); ++i)
      table.rows.append({key, s.label, csvNumber(s.xs[i]), csvNumber(s.ys[i])});
  }
  return table;
}

}  // namespace dplda
