#include "ui/common/palette.h"

#include <array>

namespace dplda {

namespace {
int wrap(int i, int n) { return i < 0 ? 0 : i % n; }
}  // namespace

QColor seriesColor(int i) {
  using namespace okabe_ito;
  static const std::array<QColor, kSeriesColorCount> colors = {
      kBlue, kOrange, kBluishGreen, kVermillion, kReddishPurple, kSkyBlue, kBlack, kYellow};
  return colors[wrap(i, kSeriesColorCount)];
}

Qt::PenStyle seriesLineStyle(int i) {
  static const std::array<Qt::PenStyle, kSeriesLineStyleCount> styles = {
      Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
  return styles[wrap(i, kSeriesLineStyleCount)];
}

QPen seriesPen(int i, double width) {
  QPen pen(seriesColor(i), width, seriesLineStyle(i));
  pen.setCapStyle(Qt::FlatCap);
  pen.setJoinStyle(Qt::RoundJoin);
  return pen;
}

QBrush seriesFill(int i, int alpha) {
  QColor c = seriesColor(i);
  c.setAlpha(qBound(0, alpha, 255));
  return QBrush(c);
}

QCPScatterStyle::ScatterShape seriesShape(int i) {
  static const std::array<QCPScatterStyle::ScatterShape, kSeriesShapeCount> shapes = {
      QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare,      QCPScatterStyle::ssTriangle,
      QCPScatterStyle::ssDiamond, QCPScatterStyle::ssCross,      QCPScatterStyle::ssPlus,
      QCPScatterStyle::ssTriangleInverted};
  return shapes[wrap(i, kSeriesShapeCount)];
}

QCPScatterStyle seriesScatter(int i, double size) {
  QPen pen(seriesColor(i), 1.5);
  return QCPScatterStyle(seriesShape(i), pen, QBrush(Qt::white), size);
}

QColor privateColor() { return okabe_ito::kBluishGreen; }
QColor leakColor() { return okabe_ito::kVermillion; }
QColor cautionColor() { return okabe_ito::kYellow; }
QColor cautionTint() { return QColor(0xFC, 0xF8, 0xD2); }
QColor noiseColor() { return okabe_ito::kOrange; }
QColor runningColor() { return okabe_ito::kBlue; }
QColor staleColor() { return QColor(0x9A, 0x7B, 0x00); }
QColor idleColor() { return QColor(0x88, 0x88, 0x88); }
QColor baselineColor() { return okabe_ito::kBlack; }

}  // namespace dplda
