#pragma once
// Error against total privacy budget ε (seed 002 Figure 2): one curve per configuration with
// the median over trials, a translucent band between lower and upper quantiles, and the
// non-private baseline as a dashed horizontal line. ε is on a log axis.
#include <QMap>
#include <QStringList>
#include <QVector>
#include <limits>

#include "ui/plots/plot_widget.h"

namespace dplda {

class ErrorVsEpsilonPlot : public PlotWidget {
  Q_OBJECT

 public:
  explicit ErrorVsEpsilonPlot(QWidget* parent = nullptr);

  // Adds or replaces the curve of one configuration. eps > 0 (finite), one value per ε in
  // median; lower and upper are either empty (no band) or the same length as eps. NaN
  // medians are gaps (e.g. runs that released nothing). styleIndex picks colour, line style
  // and marker (use the configuration's index so colours stay stable; -1: next unused).
  // Returns false (plot unchanged) with a message naming the curve and point otherwise.
  bool setCurve(const QString& key, const QString& label, const QVector<double>& eps,
                const QVector<double>& median, const QVector<double>& lower, const QVector<double>& upper,
                int styleIndex = -1, QString* error = nullptr);
  // Draws an existing curve as a reference (thin, dashed, translucent; e.g. a pinned sweep).
  void setCurveDimmed(const QString& key);
  void removeCurve(const QString& key);
  // A curve's data as given to setCurve (sorted by ε); false for an unknown key.
  struct CurveData {
    QString label;
    QVector<double> eps, median, lower, upper;
    int style = 0;
  };
  bool curveData(const QString& key, CurveData* out) const;
  void clearCurves();
  QStringList curveKeys() const { return m_order; }

  // A horizontal dashed reference line (the non-private baseline); NaN or empty label removes it.
  void setBaseline(const QString& label, double value) { setReference(kBaseline, label, value); }
  void clearBaseline() { setReference(kBaseline, QString(), 0.0); }
  bool hasBaseline() const { return m_references.contains(kBaseline); }
  // A dotted line at the error of a random guess (uniform topics): the level above which a
  // private model tells nothing. NaN or empty label removes it.
  void setGuess(const QString& label, double value) { setReference(kGuess, label, value); }
  bool hasGuess() const { return m_references.contains(kGuess); }
  // A vertical line at the session's current ε ("you are here"); NaN removes it.
  void setMarkedEpsilon(double epsilon);
  double markedEpsilon() const { return m_markedEpsilon; }

  void setErrorLabel(const QString& label);  // y axis, default "mean ℓ₂ error per topic"
  void setLogError(bool log);                // log y axis (default linear)
  bool isLogError() const { return m_logY; }

  CsvTable csvTable() const override;
  bool hasData() const override;

 protected:
  void fitAxesToData() override;
  QString readoutText(const QCPAbstractPlottable* plottable, int index) const override;

 private:
  struct Curve {
    QString label;
    QVector<double> eps, median, lower, upper;  // sorted by eps
    int style = 0;
    QCPGraph* medianGraph = nullptr;
    QCPGraph* lowerGraph = nullptr;
    QCPGraph* upperGraph = nullptr;
  };
  // Horizontal reference lines: graphs (not items) so that they have legend entries.
  struct Reference {
    QString label;
    double value = 0;
    QCPGraph* graph = nullptr;
  };
  static constexpr const char* kBaseline = "baseline";
  static constexpr const char* kGuess = "random guess";
  void setReference(const QString& key, const QString& label, double value);
  void updateBaselineSpan();

  QMap<QString, Curve> m_curves;
  QStringList m_order;
  int m_nextStyle = 0;
  bool m_logY = false;
  QMap<QString, Reference> m_references;
  double m_markedEpsilon = std::numeric_limits<double>::quiet_NaN();
  QCPItemStraightLine* m_epsilonLine = nullptr;
  QCPItemText* m_epsilonText = nullptr;
};

}  // namespace dplda
