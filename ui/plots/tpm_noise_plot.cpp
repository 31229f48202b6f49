#include "ui/plots/tpm_noise_plot.h"

#include <cmath>

#include "ui/common/palette.h"

namespace dplda {

QPair<double, double> wilsonInterval(double p, int n) {
  if (n <= 0 || !std::isfinite(p)) return {std::nan(""), std::nan("")};
  const double z = 1.959963984540054;  // two-sided 95% normal quantile
  const double z2n = z * z / n;
  const double centre = (p + z2n / 2) / (1 + z2n);
  const double half = z * std::sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / (1 + z2n);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

FailureProbabilityPlot::FailureProbabilityPlot(QWidget* parent) : SeriesPlot(parent) {
  setNoiseLabel(QStringLiteral("σ"));
  yAxis->setLabel(tr("failure probability"));
  yAxis->setRange(0, 1);
}

void FailureProbabilityPlot::setNoiseLabel(const QString& label) {
  m_noiseLabel = label;
  xAxis->setLabel(tr("noise level %1").arg(label));
  requestReplot();
}

QString FailureProbabilityPlot::checkPoint(double x, double y) const {
  QString base = SeriesPlot::checkPoint(x, y);
  if (!base.isEmpty()) return base;
  if (std::isfinite(y) && (y < 0 || y > 1)) return tr("a probability must lie in [0, 1]");
  if (std::isinf(y)) return tr("a probability must be finite");
  return {};
}

bool FailureProbabilityPlot::setTrials(const QString& key, const QVector<int>& trials, QString* error) {
  const Series* s = series(key);
  if (!s) {
    if (error) *error = tr("failure-probability plot: no series '%1' to attach trial counts to").arg(key);
    return false;
  }
  if (trials.size() != s->xs.size()) {
    if (error)
      *error = tr("failure-probability plot: series '%1' has %2 points but %3 trial counts")
                   .arg(key).arg(s->xs.size()).arg(trials.size());
    return false;
  }
  QVector<int> sorted(trials.size());  // into the series' x order
  for (int i = 0; i < trials.size(); ++i) sorted[i] = trials[s->sourceIndex[i]];
  m_trials[key] = sorted;
  QCPErrorBars*& bars = m_errorBars[key];
  if (!bars) {
    bars = new QCPErrorBars(xAxis, yAxis);
    bars->removeFromLegend();
    bars->setDataPlottable(s->graph);
    bars->setWhiskerWidth(6);
    linkCompanion(s->graph, bars);
  }
  QColor c = s->graph->pen().color();
  c.setAlpha(170);
  bars->setPen(QPen(c, 1.2));
  QVector<double> minus(sorted.size()), plus(sorted.size());
  for (int i = 0; i < sorted.size(); ++i) {
    const auto [lo, hi] = wilsonInterval(s->ys[i], sorted[i]);
    minus[i] = std::isfinite(lo) ? s->ys[i] - lo : 0.0;
    plus[i] = std::isfinite(hi) ? hi - s->ys[i] : 0.0;
  }
  bars->setData(minus, plus);
  requestReplot();
  return true;
}

void FailureProbabilityPlot::seriesChanged(const QString& key, bool) {
  // New or removed points make old trial counts meaningless.
  m_trials.remove(key);
  if (QCPErrorBars* bars = m_errorBars.take(key)) removePlottable(bars);
}

void FailureProbabilityPlot::fitAxesToData() {
  SeriesPlot::fitAxesToData();
  yAxis->setRange(-0.03, 1.03);  // probabilities: always the whole [0, 1]
}

CsvTable FailureProbabilityPlot::csvTable() const {
  CsvTable table = SeriesPlot::csvTable();
  table.header << QStringLiteral("trials") << QStringLiteral("ci95_low") << QStringLiteral("ci95_high");
  int row = 0;
  for (const QString& key : m_order) {
    const Series& s = m_series[key];
    const QVector<int> trials = m_trials.value(key);
    for (int i = 0; i < s.xs.size(); ++i, ++row) {
      if (i < trials.size() && trials[i] > 0) {
        const auto [lo, hi] = wilsonInterval(s.ys[i], trials[i]);
        table.rows[row] << QString::number(trials[i]) << csvNumber(lo) << csvNumber(hi);
      } else {
        table.rows[row] << QString() << QString() << QString();
      }
    }
  }
  return table;
}

}  // namespace dplda
