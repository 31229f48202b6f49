#include "ui/common/palette.h"

#include <QHash>
#include <QString>
#include <algorithm>
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

int seriesStyleIndex(int colour, int line, int shape) {
  for (int i = 0; i < kSeriesColorCount * kSeriesLineStyleCount * kSeriesShapeCount; ++i)
    if (i % kSeriesColorCount == colour && i % kSeriesLineStyleCount == line && i % kSeriesShapeCount == shape) return i;
  return 0;
}

int configurationStyle(const QString& label, int order) {
  // Indices into the cycles of seriesColor, seriesLineStyle and seriesShape.
  enum Colour { Blue, Orange, Green, Vermillion, Purple, SkyBlue, Black, Yellow };
  enum Line { Solid, Dash, Dot, DashDot, DashDotDot };
  enum Shape { Circle, Square, Triangle, Diamond, Cross, Plus, InvertedTriangle };
  if (label == "vi") return seriesStyleIndex(Yellow, Solid, Circle);
  if (label == "dp-vi") return seriesStyleIndex(Yellow, Dash, Square);
  static const QHash<QString, int> colours = {{"none", Black},     {"1", Blue},          {"2", Orange},
                                              {"3", Green},        {"4", Vermillion},    {"whitened", Purple},
                                              {"input", SkyBlue}};
  struct Variant {
    Line line;
    Shape shape;
  };
  static const QHash<QString, Variant> variants = {{"", {Solid, Circle}},           {"gdp", {Dash, Square}},
                                                   {"clip", {Dot, Triangle}},       {"clip/gdp", {DashDot, Diamond}},
                                                   {"raw", {DashDotDot, InvertedTriangle}}, {"tpm", {Dash, Plus}}};
  const int slash = label.indexOf(QLatin1Char('/'));
  const QString base = slash < 0 ? label : label.left(slash);
  const QString variant = slash < 0 ? QString() : label.mid(slash + 1);
  if (colours.contains(base) && variants.contains(variant)) {
    const Variant v = variants.value(variant);
    return seriesStyleIndex(colours.value(base), v.line, v.shape);
  }
  // Custom edge sets: sky blue or yellow with crosses and plusses, which no named one uses.
  const int i = std::max(0, order);
  return seriesStyleIndex(i % 2 ? Yellow : SkyBlue, (1 + i / 2) % kSeriesLineStyleCount, (i / 2) % 2 ? Plus : Cross);
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
