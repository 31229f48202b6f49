#pragma once
// A median-and-band plot against any positive quantity on a log x axis (documents per step,
// passes, ε spent): ErrorVsEpsilonPlot with its own x label and CSV column name, for the
// online-tpm and dp-tpm figures.
#include <QString>

#include "ui/plots/error_epsilon_plot.h"

namespace dplda {

class BandPlot : public ErrorVsEpsilonPlot {
  Q_OBJECT

 public:
  explicit BandPlot(QWidget* parent = nullptr) : ErrorVsEpsilonPlot(parent) {}
  // The x axis label and the name of the x column in the exported CSV (default "epsilon").
  void setXAxis(const QString& label, const QString& csvColumn) {
    m_xColumn = csvColumn;
    xAxis->setLabel(label);
    requestReplot();
  }
  CsvTable csvTable() const override {  // the data with the x column named
    CsvTable t = ErrorVsEpsilonPlot::csvTable();
    if (t.header.size() > 2) t.header[2] = m_xColumn;
    return t;
  }

 protected:
  QString readoutText(const QCPAbstractPlottable* plottable, int index) const override {
    QString text = ErrorVsEpsilonPlot::readoutText(plottable, index);
    return text.replace(QStringLiteral("ε = "), m_xColumn + QStringLiteral(" = "));
  }

 private:
  QString m_xColumn = QStringLiteral("epsilon");
};

}  // namespace dplda
