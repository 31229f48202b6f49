#pragma once
// Failure probability of the robust tensor power method against the noise level (seed 004,
// Appendix A, Figure 1): one series per vocabulary size d, y in [0, 1]. When the number of
// trials per point is known, 95% Wilson intervals are drawn as error bars.
#include <QHash>
#include <QVector>

#include "ui/plots/series_plot.h"

namespace dplda {

class FailureProbabilityPlot : public SeriesPlot {
  Q_OBJECT

 public:
  explicit FailureProbabilityPlot(QWidget* parent = nullptr);

  // The noise scaling on the x axis, e.g. "σ", "σ√d", "σd", "σ ln d".
  void setNoiseLabel(const QString& label);
  QString noiseLabel() const { return m_noiseLabel; }

  // Per-point trial counts for an existing series, in the order its xs were given to setSeries
  // (0 = unknown); adds 95% Wilson score intervals. Setting the series again drops them.
  // Returns false with a message on an unknown key or a size mismatch.
  bool setTrials(const QString& key, const QVector<int>& trials, QString* error = nullptr);

  CsvTable csvTable() const override;

 protected:
  QString checkPoint(double x, double y) const override;
  void seriesChanged(const QString& key, bool removed) override;
  void fitAxesToData() override;

 private:
  QString m_noiseLabel;
  QHash<QString, QVector<int>> m_trials;
  QHash<QString, QCPErrorBars*> m_errorBars;
};

// The 95% Wilson score interval of a binomial proportion p observed in n trials.
QPair<double, double> wilsonInterval(double p, int n);

}  // namespace dplda
