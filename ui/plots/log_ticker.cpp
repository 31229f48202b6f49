#include "ui/plots/log_ticker.h"

#include <algorithm>
#include <cmath>

namespace dplda {

namespace {
// Mantissas per decade, densest first; the span picks where to start (fewer decades, more labels).
const QVector<QVector<double>> kMantissaSets = {{1, 1.5, 2, 3, 4, 5, 6, 8}, {1, 2, 5}, {1, 3}};
int firstMantissaSet(double decades) {
  if (decades <= 0.8) return 0;
  if (decades <= 2.5) return 1;
  if (decades <= 4.0) return 2;
  return 3;  // decades only
}

QVector<double> mantissaTicks(const QVector<double>& mantissas, const QCPRange& range) {
  QVector<double> ticks;
  const int first = static_cast<int>(std::floor(std::log10(range.lower))) - 1;
  const int last = static_cast<int>(std::ceil(std::log10(range.upper))) + 1;
  for (int e = first; e <= last; ++e) {
    for (double m : mantissas) {
      // Round to the decimal value so labels read "0.2" and not "0.20000000000000001".
      ticks.append(QString::number(m * std::pow(10.0, e), 'g', 12).toDouble());
    }
  }
  return ticks;
}
}  // namespace

NiceLogTicker::NiceLogTicker() {
  setLogBase(10);
  setSubTickCount(8);  // 2..9 between decade ticks when the span is large
}

QVector<double> NiceLogTicker::createTickVector(double tickStep, const QCPRange& range) {
  m_useMantissas = false;
  m_linear = false;
  if (!(range.lower > 0) || !(range.upper > range.lower) || !std::isfinite(range.upper))
    return QCPAxisTickerLog::createTickVector(tickStep, range);
  const double decades = std::log10(range.upper / range.lower);
  // Less than two of even the densest mantissas inside (1.85..2.27): evenly spaced ticks, as a
  // linear axis would label it, so that the axis still reads with two or more labels.
  const QVector<double> densest = mantissaTicks(kMantissaSets.front(), range);
  if (std::count_if(densest.begin(), densest.end(), [&](double t) { return range.contains(t); }) < 2) {
    m_linear = true;
    return QCPAxisTicker::createTickVector(QCPAxisTicker::getTickStep(range), range);
  }
  m_linear = false;
  // The densest set whose ticks inside the range are no more than the tick count asks for
  // (the count follows the room on the axis; PlotWidget sets it).
  for (int set = firstMantissaSet(decades); set < kMantissaSets.size(); ++set) {
    const QVector<double> ticks = mantissaTicks(kMantissaSets[set], range);
    const auto inside = std::count_if(ticks.begin(), ticks.end(), [&](double t) { return range.contains(t); });
    if (inside <= tickCount() + 1) {
      m_useMantissas = true;
      return ticks;  // the base class trims ticks outside the range
    }
  }
  return QCPAxisTickerLog::createTickVector(tickStep, range);
}

QVector<double> NiceLogTicker::createSubTickVector(int subTickCount, const QVector<double>& ticks) {
  if (m_linear) return QCPAxisTicker::createSubTickVector(QCPAxisTicker::getSubTickCount(ticks.size() > 1 ? ticks[1] - ticks[0] : 1.0), ticks);
  if (!m_useMantissas || ticks.size() < 2) return QCPAxisTickerLog::createSubTickVector(subTickCount, ticks);
  // Sub ticks at every integer mantissa between the outer ticks that is not itself a tick.
  QVector<double> sub;
  const int first = static_cast<int>(std::floor(std::log10(ticks.first())));
  const int last = static_cast<int>(std::ceil(std::log10(ticks.last())));
  for (int e = first; e <= last; ++e) {
    for (int m = 1; m <= 9; ++m) {
      const double v = m * std::pow(10.0, e);
      if (v <= ticks.first() || v >= ticks.last()) continue;
      bool isTick = false;
      for (double t : ticks) isTick = isTick || std::abs(t - v) <= 1e-9 * v;
      if (!isTick) sub.append(v);
    }
  }
  return sub;
}

void setAxisLogarithmic(QCPAxis* axis, bool log) {
  if (!axis) return;
  if (log) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<NiceLogTicker>::create());
    axis->setNumberFormat("g");
    axis->setNumberPrecision(6);
  } else {
    axis->setScaleType(QCPAxis::stLinear);
    axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    axis->setNumberFormat("gbd");
    axis->setNumberPrecision(6);
  }
}

}  // namespace dplda
