#include "ui/plots/plot_widget.h"

#include <QLocale>
#include <QSettings>
#include <QToolTip>
#include <cmath>
#include <algorithm>
#include <limits>

#include "ui/common/palette.h"

namespace dplda {

namespace {
double s_defaultFontScale = 1.0;  // of plots made from now on (presentation mode)
}  // namespace

QString csvNumber(double v) {
  if (std::isnan(v)) return QStringLiteral("nan");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  // 'g' with the shortest round-trip precision: reading the text back gives exactly v.
  return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

QString csvField(const QString& text) {
  const bool needsQuotes = text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
                           text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r'));
  if (!needsQuotes) return text;
  QString quoted = text;
  quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

PlotWidget::PlotWidget(QWidget* parent) : QCustomPlot(parent), m_staleText(tr("stale — parameters changed")) {
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setAntialiasedElements(QCP::aeAll);
  setNoAntialiasingOnDrag(true);
  setMouseTracking(true);
  setMinimumSize(240, 180);
  m_exportLegendOutside = QSettings().value(QStringLiteral("export/legend_outside"), true).toBool();

  for (QCPAxis* axis : {xAxis, yAxis}) {
    axis->setNumberFormat("gbd");
    axis->grid()->setSubGridVisible(false);
    axis->grid()->setPen(QPen(QColor(0, 0, 0, 40), 1, Qt::DotLine));
  }
  legend->setVisible(true);
  legend->setBrush(QColor(255, 255, 255, 225));
  legend->setBorderPen(QPen(QColor(0, 0, 0, 90)));
  legend->setSelectableParts(QCPLegend::spItems);
  connect(this, &QCustomPlot::legendClick, this,
          [this](QCPLegend* l, QCPAbstractLegendItem* item, QMouseEvent*) { onLegendClick(l, item); });

  // Overlays live on a layer above the legend so nothing drawn later can hide them.
  addLayer(QStringLiteral("stale"), layer(QStringLiteral("legend")), QCustomPlot::limAbove);

  m_placeholder = new QCPItemText(this);
  m_placeholder->setLayer(QStringLiteral("stale"));
  m_placeholder->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_placeholder->position->setCoords(0.5, 0.5);
  m_placeholder->setText(tr("no data yet"));
  m_placeholder->setColor(idleColor());
  m_placeholder->setSelectable(false);

  m_staleVeil = new QCPItemRect(this);
  m_staleVeil->setLayer(QStringLiteral("stale"));
  m_staleVeil->topLeft->setType(QCPItemPosition::ptAxisRectRatio);
  m_staleVeil->bottomRight->setType(QCPItemPosition::ptAxisRectRatio);
  m_staleVeil->topLeft->setCoords(0, 0);
  m_staleVeil->bottomRight->setCoords(1, 1);
  m_staleVeil->setPen(Qt::NoPen);
  m_staleVeil->setBrush(QColor(255, 255, 255, 150));
  m_staleVeil->setSelectable(false);

  m_staleLabel = new QCPItemText(this);
  m_staleLabel->setLayer(QStringLiteral("stale"));
  m_staleLabel->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_staleLabel->position->setCoords(0.5, 0.5);
  m_staleLabel->setColor(staleColor().darker(130));
  m_staleLabel->setPen(QPen(staleColor(), 1.5));
  m_staleLabel->setBrush(QColor(255, 250, 225, 235));
  m_staleLabel->setPadding(QMargins(10, 6, 10, 6));
  m_staleLabel->setSelectable(false);
  m_fontScale = s_defaultFontScale;
  applyFonts();
  updateOverlays();
}

QFont PlotWidget::plotFont(double points, bool bold) const {
  QFont f = font();
  f.setPointSizeF(points * m_fontScale);
  f.setBold(bold);
  return f;
}

void PlotWidget::applyFonts() {
  for (QCPAxis* axis : axisRect()->axes()) {
    axis->setTickLabelFont(plotFont(9));
    axis->setLabelFont(plotFont(10));
  }
  legend->setFont(plotFont(9));
  for (int i = 0; i < legend->itemCount(); ++i)  // items copy the legend's font when made
    if (QCPAbstractLegendItem* item = legend->item(i)) item->setFont(plotFont(9));
  if (m_titleElement) m_titleElement->setFont(plotFont(11, true));
  if (m_footnoteElement) m_footnoteElement->setFont(plotFont(8.5));
  m_staleLabel->setFont(plotFont(12, true));
  m_placeholder->setFont(plotFont(font().pointSizeF()));
}

void PlotWidget::setDefaultFontScale(double scale) {
  if (std::isfinite(scale)) s_defaultFontScale = std::clamp(scale, 0.5, 4.0);
}

void PlotWidget::setFontScale(double scale) {
  if (!std::isfinite(scale)) return;
  m_fontScale = std::clamp(scale, 0.5, 4.0);
  applyFonts();
  requestReplot();
}

PlotWidget::~PlotWidget() = default;

void PlotWidget::setTitle(const QString& title) {
  m_title = title;
  if (title.isEmpty()) {
    if (m_titleElement) {
      plotLayout()->remove(m_titleElement);
      m_titleElement = nullptr;
      plotLayout()->simplify();
    }
  } else if (!m_titleElement) {
    plotLayout()->insertRow(0);
    m_titleElement = new QCPTextElement(this, title, plotFont(11, true));
    plotLayout()->addElement(0, 0, m_titleElement);
  } else {
    m_titleElement->setText(title);
  }
  requestReplot();
}

void PlotWidget::setFootnote(const QString& text) {
  m_footnoteText = text;
  if (text.isEmpty()) {
    if (m_footnoteElement) {
      plotLayout()->remove(m_footnoteElement);
      m_footnoteElement = nullptr;
      plotLayout()->simplify();
    }
  } else if (!m_footnoteElement) {
    const int row = plotLayout()->rowCount();
    plotLayout()->insertRow(row);
    m_footnoteElement = new QCPTextElement(this, text, plotFont(8.5));
    m_footnoteElement->setTextColor(QColor(90, 90, 90));
    m_footnoteElement->setMargins(QMargins(4, 0, 4, 4));
    plotLayout()->addElement(row, 0, m_footnoteElement);
  } else {
    m_footnoteElement->setText(text);
  }
  requestReplot();
}

void PlotWidget::setAxisLabels(const QString& xLabel, const QString& yLabel) {
  xAxis->setLabel(xLabel);
  yAxis->setLabel(yLabel);
  requestReplot();
}

void PlotWidget::setStale(bool stale) {
  if (m_stale == stale) return;
  m_stale = stale;
  updateOverlays();
  replot(rpQueuedReplot);
}

void PlotWidget::setStaleText(const QString& text) {
  m_staleText = text;
  updateOverlays();
  replot(rpQueuedReplot);
}

void PlotWidget::setPlaceholderText(const QString& text) {
  const QString shown = text.isEmpty() ? tr("no data yet") : text;
  if (shown == m_placeholder->text()) return;
  m_placeholder->setText(shown);
  replot(rpQueuedReplot);
}

QString PlotWidget::placeholderText() const { return m_placeholder->text(); }

void PlotWidget::updateOverlays() {
  m_staleVeil->setVisible(m_stale);
  m_staleLabel->setVisible(m_stale);
  m_staleLabel->setText(QStringLiteral("⚠ ") + m_staleText);
  m_placeholder->setVisible(!hasData());
}

void PlotWidget::requestReplot() {
  updateOverlays();
  replot(rpQueuedReplot);
}

bool PlotWidget::hasData() const {
  for (int i = 0; i < plottableCount(); ++i) {
    QCPAbstractPlottable* p = const_cast<PlotWidget*>(this)->plottable(i);  // QCustomPlot lacks a const getter
    if (auto* one = p->interface1D(); one && one->dataCount() > 0) return true;
  }
  return false;
}

CsvTable PlotWidget::csvTable() const {
  CsvTable table;
  table.header = {QStringLiteral("series"), QStringLiteral("x"), QStringLiteral("y")};
  for (int i = 0; i < plottableCount(); ++i) {
    QCPAbstractPlottable* p = const_cast<PlotWidget*>(this)->plottable(i);  // QCustomPlot lacks a const getter
    if (qobject_cast<QCPErrorBars*>(p)) continue;
    auto* one = p->interface1D();
    if (!one) continue;
    for (int j = 0; j < one->dataCount(); ++j)
      table.rows.append({p->name(), csvNumber(one->dataMainKey(j)), csvNumber(one->dataMainValue(j))});
  }
  return table;
}

QString PlotWidget::readoutText(const QCPAbstractPlottable* plottable, int index) const {
  auto* one = const_cast<QCPAbstractPlottable*>(plottable)->interface1D();
  const QString name = plottable->name().isEmpty() ? tr("series") : plottable->name();
  return QStringLiteral("%1\n%2 = %3, %4 = %5")
      .arg(name, xAxis->label().isEmpty() ? QStringLiteral("x") : QString(xAxis->label()).replace('\n', ' '),
           QString::number(one->dataMainKey(index), 'g', 6),
           yAxis->label().isEmpty() ? QStringLiteral("y") : QString(yAxis->label()).replace('\n', ' '),  // wrapped to the axis
           QString::number(one->dataMainValue(index), 'g', 6));
}

QString PlotWidget::readoutAt(const QPointF& pixel, double maxDistancePx) const {
  const QCPAbstractPlottable* best = nullptr;
  int bestIndex = -1;
  double bestDist = maxDistancePx;
  for (int i = 0; i < plottableCount(); ++i) {
    QCPAbstractPlottable* p = const_cast<PlotWidget*>(this)->plottable(i);  // QCustomPlot lacks a const getter
    if (!p->visible() || qobject_cast<QCPErrorBars*>(p)) continue;
    auto* one = p->interface1D();
    if (!one) continue;
    const QRect area = p->keyAxis()->axisRect()->rect();
    for (int j = 0; j < one->dataCount(); ++j) {
      if (!std::isfinite(one->dataMainKey(j)) || !std::isfinite(one->dataMainValue(j))) continue;
      const QPointF pos = one->dataPixelPosition(j);
      if (!area.adjusted(-2, -2, 2, 2).contains(pos.toPoint())) continue;
      const double dist = std::hypot(pos.x() - pixel.x(), pos.y() - pixel.y());
      if (dist <= bestDist) {  // ties: the later (drawn on top) series wins
        bestDist = dist;
        best = p;
        bestIndex = j;
      }
    }
  }
  return best ? readoutText(best, bestIndex) : QString();
}

void PlotWidget::fitAxesToData() { rescaleAxes(true); }

void PlotWidget::resetView() {
  fitAxesToData();
  requestReplot();
}

void PlotWidget::setLegendShown(bool shown) {
  m_legendWanted = shown;
  legend->setVisible(shown && legend->itemCount() > 0);
  replot(rpQueuedReplot);
}

bool PlotWidget::isLegendShown() const { return m_legendWanted; }

void PlotWidget::setLegendCorner(Qt::Alignment corner) {
  m_fixedLegendCorner = corner;
  if (corner) axisRect()->insetLayout()->setInsetAlignment(0, corner);
  replot(rpQueuedReplot);
}

Qt::Alignment PlotWidget::legendCorner() const { return axisRect()->insetLayout()->insetAlignment(0); }

void PlotWidget::linkCompanion(QCPAbstractPlottable* main, QCPAbstractPlottable* companion) {
  m_companions.insert(main, QPointer<QCPAbstractPlottable>(companion));
}

void PlotWidget::setPlottableShown(QCPAbstractPlottable* p, bool shown) {
  p->setVisible(shown);
  for (const QPointer<QCPAbstractPlottable>& c : m_companions.values(p))
    if (c) c->setVisible(shown);
  if (QCPPlottableLegendItem* item = legend->itemWithPlottable(p))
    item->setTextColor(shown ? QColor(Qt::black) : QColor(150, 150, 150));
}

void PlotWidget::onLegendClick(QCPLegend*, QCPAbstractLegendItem* item) {
  // A click on a legend entry hides or shows that series (and its band), for decluttering.
  if (auto* plItem = qobject_cast<QCPPlottableLegendItem*>(item)) {
    setPlottableShown(plItem->plottable(), !plItem->plottable()->visible());
    plItem->setSelected(false);
    replot(rpQueuedReplot);
  }
}

void PlotWidget::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  if (event->buttons() != Qt::NoButton) return;
  const QString text = readoutAt(event->position());
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void PlotWidget::leaveEvent(QEvent* event) {
  QToolTip::hideText();
  QCustomPlot::leaveEvent(event);
}

void PlotWidget::mouseDoubleClickEvent(QMouseEvent* event) {
  QCustomPlot::mouseDoubleClickEvent(event);
  if (event->button() == Qt::LeftButton) resetView();
}

}  // namespace dplda
