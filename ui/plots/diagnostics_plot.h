#pragma once
// Diagnostics of a run (SPEC §12, seed 002 Figure 4): eigenvalues and eigengaps vs k, and the
// eigenvalue spectrum of M̂2 with the k-th gap marked.
#include <QVector>

#include "ui/plots/series_plot.h"

namespace dplda {

// σ_k(M̂2), σ̃_k (its private lower bound), γ_s, γ̃_s against k (or another x, by label).
// Use setSeries(key, label, xs, ys) for each curve; integer x ticks while x is linear.
class SigmaGammaPlot : public SeriesPlot {
  Q_OBJECT

 public:
  explicit SigmaGammaPlot(QWidget* parent = nullptr);
  void setXLabel(const QString& label);  // default "k (number of topics)"
  void setYLabel(const QString& label);  // default "value"
};

// Bars of σ_1..σ_n (n is usually k+1) with σ_1..σ_k in one colour, the rest in grey, values
// below zero (after noise, or in an unbiased M̂2 that supports fewer than k topics) marked, and
// the gap σ_k − σ_{k+1} drawn as an arrow.
class EigenSpectrumPlot : public PlotWidget {
  Q_OBJECT

 public:
  explicit EigenSpectrumPlot(QWidget* parent = nullptr);

  // sigmas in the order σ_1, σ_2, …; k in [1, n] (the gap is drawn when k < n). Returns false
  // (plot unchanged) with a message when sigmas is empty, contains NaN/inf, or k is invalid.
  bool setSpectrum(const QVector<double>& sigmas, int k, QString* error = nullptr);
  void clearSpectrum();
  void setValueLabel(const QString& label);  // y axis, default "eigenvalue of M̂₂"

  QVector<double> sigmas() const { return m_sigmas; }
  int k() const { return m_k; }
  // σ_k − σ_{k+1}, or NaN when k == n.
  double gap() const;

  CsvTable csvTable() const override;
  bool hasData() const override { return !m_sigmas.isEmpty(); }

 protected:
  QString readoutText(const QCPAbstractPlottable* plottable, int index) const override;
  void fitAxesToData() override;

 private:
  QVector<double> m_sigmas;
  int m_k = 0;
  QCPBars* m_topBars = nullptr;
  QCPBars* m_restBars = nullptr;
  QCPBars* m_negativeBars = nullptr;
  QCPItemLine* m_gapArrow = nullptr;
  QCPItemLine* m_gapTop = nullptr;
  QCPItemLine* m_gapBottom = nullptr;
  QCPItemText* m_gapLabel = nullptr;
};

// "σ₁₂" from ("σ", 12): subscript digits for axis labels.
QString subscripted(const QString& symbol, int index);

}  // namespace dplda
