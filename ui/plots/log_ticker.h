#pragma once
// A logarithmic axis ticker that labels 1-2-5 steps when the axis spans only a few decades
// (the ε axis runs 0.1..2: plain decade ticks would label just 0.1 and 1).
#include <qcustomplot.h>

namespace dplda {

class NiceLogTicker : public QCPAxisTickerLog {
 public:
  NiceLogTicker();

 protected:
  QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
  QVector<double> createSubTickVector(int subTickCount, const QVector<double>& ticks) override;

 private:
  bool m_useMantissas = false;  // set by createTickVector for the current range
  bool m_linear = false;        // a range too short for two mantissa ticks: evenly spaced ones
};

// Puts a NiceLogTicker and logarithmic scaling on the axis, or back to linear when log is false.
void setAxisLogarithmic(QCPAxis* axis, bool log);

}  // namespace dplda
