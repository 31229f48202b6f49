#pragma once
// SeriesPlot: a PlotWidget holding named line series (x, y) with markers. Shared by the
// diagnostics plot (σ_k, γ_s vs k) and the failure-probability plot.
#include <QMap>
#include <QStringList>
#include <QVector>

#include "ui/plots/plot_widget.h"

namespace dplda {

class SeriesPlot : public PlotWidget {
  Q_OBJECT

 public:
  explicit SeriesPlot(QWidget* parent = nullptr);

  // Adds or replaces the series `key`. xs and ys must have equal length and finite xs (NaN ys
  // are gaps). styleIndex picks colour, line style and marker (-1: next unused index).
  // Returns false (plot unchanged) with a message naming the series and point otherwise.
  bool setSeries(const QString& key, const QString& label, const QVector<double>& xs,
                 const QVector<double>& ys, int styleIndex = -1, QString* error = nullptr);
  void removeSeries(const QString& key);
  void clearSeries();
  QStringList seriesKeys() const { return m_order; }

  // Logarithmic axes. Points that a log axis cannot show (≤ 0) are left out of the drawing
  // (not out of the CSV) and counted in a note in the plot's corner.
  void setLogX(bool log);
  void setLogY(bool log);
  // y is a proportion (e.g. a release rate): the axis runs from 0 to 1 (with room for markers at
  // either end), the legend stays off the data as always (off: the y range follows the data).
  void setProportionY(bool on);
  bool isLogX() const { return m_logX; }
  bool isLogY() const { return m_logY; }
  int hiddenPointCount() const { return m_hiddenPoints; }

  CsvTable csvTable() const override;

 protected:
  struct Series {
    QString label;
    QVector<double> xs, ys;  // sorted by x
    QVector<int> sourceIndex;  // sourceIndex[i]: position of point i in the caller's xs
    int style = 0;
    QCPGraph* graph = nullptr;
  };
  // Checks one point; returns an empty string when it is acceptable.
  virtual QString checkPoint(double x, double y) const;
  // Called after a series was set, replaced or removed (removed: its graph is gone).
  virtual void seriesChanged(const QString& key, bool removed);
  void fitAxesToData() override;
  const Series* series(const QString& key) const;
  // Re-sends all series to their graphs (after a log-axis switch).
  void refreshGraphs();

  QMap<QString, Series> m_series;
  QStringList m_order;

 private:
  void updateHiddenNote();

  int m_nextStyle = 0;
  bool m_logX = false;
  bool m_logY = false;
  bool m_proportionY = false;
  int m_hiddenPoints = 0;
};

}  // namespace dplda
