#include "ui/plots/plot_widget.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QImageWriter>
#include <QJsonDocument>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <QSvgGenerator>
#include <QToolTip>
#include <cmath>
#include <limits>

#include "ui/common/palette.h"

#ifndef DPLDA_VERSION
#define DPLDA_VERSION "unknown"
#endif

namespace dplda {

namespace {

constexpr const char* kApplication = "DP-LDA Explorer";
constexpr int kMinExportPx = 16;
constexpr int kMaxExportPx = 20000;

void setError(QString* error, const QString& message) {
  if (error) *error = message;
}

QString fileLabel(const QString& path) { return QDir::toNativeSeparators(path); }

// Writes bytes atomically: either the whole file appears or the old one stays.
bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error, const QString& what) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    setError(error, QStringLiteral("cannot write %1 '%2': %3").arg(what, fileLabel(path), file.errorString()));
    return false;
  }
  if (file.write(bytes) != bytes.size() || !file.commit()) {
    setError(error, QStringLiteral("cannot write %1 '%2': %3").arg(what, fileLabel(path), file.errorString()));
    return false;
  }
  return true;
}

QString shortClassName(const QObject* object) {
  QString name = QString::fromLatin1(object->metaObject()->className());
  const int colon = name.lastIndexOf(QLatin1Char(':'));
  return colon >= 0 ? name.mid(colon + 1) : name;
}

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

const char* exportFormatSuffix(ExportFormat format) {
  switch (format) {
    case ExportFormat::Png: return "png";
    case ExportFormat::Pdf: return "pdf";
    case ExportFormat::Svg: return "svg";
    case ExportFormat::Csv: return "csv";
  }
  return "dat";
}

PlotWidget::PlotWidget(QWidget* parent) : QCustomPlot(parent), m_staleText(tr("stale — parameters changed")) {
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setAntialiasedElements(QCP::aeAll);
  setNoAntialiasingOnDrag(true);
  setMouseTracking(true);
  setMinimumSize(240, 180);

  QFont tickFont = font();
  tickFont.setPointSizeF(9);
  QFont labelFont = font();
  labelFont.setPointSizeF(10);
  for (QCPAxis* axis : {xAxis, yAxis}) {
    axis->setTickLabelFont(tickFont);
    axis->setLabelFont(labelFont);
    axis->setNumberFormat("gbd");
    axis->grid()->setSubGridVisible(false);
    axis->grid()->setPen(QPen(QColor(0, 0, 0, 40), 1, Qt::DotLine));
  }
  legend->setVisible(true);
  legend->setFont(tickFont);
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
  QFont staleFont = font();
  staleFont.setPointSizeF(12);
  staleFont.setBold(true);
  m_staleLabel->setFont(staleFont);
  m_staleLabel->setColor(staleColor().darker(130));
  m_staleLabel->setPen(QPen(staleColor(), 1.5));
  m_staleLabel->setBrush(QColor(255, 250, 225, 235));
  m_staleLabel->setPadding(QMargins(10, 6, 10, 6));
  m_staleLabel->setSelectable(false);
  updateOverlays();
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
    QFont titleFont = font();
    titleFont.setPointSizeF(11);
    titleFont.setBold(true);
    plotLayout()->insertRow(0);
    m_titleElement = new QCPTextElement(this, title, titleFont);
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
    QFont noteFont = font();
    noteFont.setPointSizeF(8.5);
    const int row = plotLayout()->rowCount();
    plotLayout()->insertRow(row);
    m_footnoteElement = new QCPTextElement(this, text, noteFont);
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

QSize PlotWidget::exportSize() const {
  if (m_exportSize.isValid() && !m_exportSize.isEmpty()) return m_exportSize;
  if (isVisible() && width() >= 100 && height() >= 80) return size();
  return QSize(720, 480);
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
      .arg(name, xAxis->label().isEmpty() ? QStringLiteral("x") : xAxis->label(),
           QString::number(one->dataMainKey(index), 'g', 6),
           yAxis->label().isEmpty() ? QStringLiteral("y") : yAxis->label(),
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

void PlotWidget::updateLayout() {
  legend->setVisible(m_legendWanted && legend->itemCount() > 0);  // no empty box on an empty plot
  QCustomPlot::updateLayout();
  if (m_fixedLegendCorner || !legend->visible() || axisRect()->insetLayout()->elementCount() == 0) return;
  const Qt::Alignment best = leastCrowdedCorner();
  if (best != axisRect()->insetLayout()->insetAlignment(0)) {
    axisRect()->insetLayout()->setInsetAlignment(0, best);
    QCustomPlot::updateLayout();
  }
}

Qt::Alignment PlotWidget::leastCrowdedCorner() {
  // Sample every visible series in pixels (points, segments, bar bodies) and count the samples
  // under the legend at each corner; ties keep the conventional order TR, TL, BR, BL.
  const QRectF area = axisRect()->rect();
  const QSizeF size = legend->outerRect().size();
  const Qt::Alignment corners[] = {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
                                   Qt::AlignBottom | Qt::AlignRight, Qt::AlignBottom | Qt::AlignLeft};
  QRectF rects[4];
  for (int c = 0; c < 4; ++c) {
    const double x = (corners[c] & Qt::AlignRight) ? area.right() - size.width() : area.left();
    const double y = (corners[c] & Qt::AlignBottom) ? area.bottom() - size.height() : area.top();
    rects[c] = QRectF(QPointF(x, y), size);
  }
  int counts[4] = {0, 0, 0, 0};
  auto count = [&](const QPointF& p) {
    for (int c = 0; c < 4; ++c)
      if (rects[c].contains(p)) ++counts[c];
  };
  for (int i = 0; i < plottableCount(); ++i) {
    QCPAbstractPlottable* p = plottable(i);
    if (!p->visible() || qobject_cast<QCPErrorBars*>(p)) continue;
    auto* one = p->interface1D();
    if (!one) continue;
    auto* bars = qobject_cast<QCPBars*>(p);
    QPointF previous;
    bool havePrevious = false;
    for (int j = 0; j < one->dataCount(); ++j) {
      if (!std::isfinite(one->dataMainKey(j)) || !std::isfinite(one->dataMainValue(j))) {
        havePrevious = false;
        continue;
      }
      const QPointF pos = one->dataPixelPosition(j);
      if (bars) {
        const double base = p->valueAxis()->coordToPixel(0);
        for (int s = 0; s <= 8; ++s) count(QPointF(pos.x(), pos.y() + (base - pos.y()) * s / 8.0));
        continue;
      }
      count(pos);
      if (havePrevious)
        for (int s = 1; s < 10; ++s) count(previous + (pos - previous) * (s / 10.0));
      previous = pos;
      havePrevious = true;
    }
  }
  int best = 0;
  for (int c = 1; c < 4; ++c)
    if (counts[c] < counts[best]) best = c;
  return corners[best];
}

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

void PlotWidget::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  const bool exportable = hasData();
  auto addExport = [&](const QString& text, ExportFormat format) {
    menu.addAction(text, this, [this, format] { exportWithDialog(format); })->setEnabled(exportable);
  };
  addExport(tr("Export PNG…"), ExportFormat::Png);
  addExport(tr("Export PDF…"), ExportFormat::Pdf);
  addExport(tr("Export SVG…"), ExportFormat::Svg);
  addExport(tr("Export CSV (data)…"), ExportFormat::Csv);
  menu.addAction(tr("Copy image"), this, [this] { copyToClipboard(); })->setEnabled(exportable);
  menu.addSeparator();
  QAction* legendAction = menu.addAction(tr("Show legend"));
  legendAction->setCheckable(true);
  legendAction->setChecked(isLegendShown());
  connect(legendAction, &QAction::toggled, this, [this](bool on) { setLegendShown(on); });
  menu.addAction(tr("Reset view"), this, [this] { resetView(); });
  menu.exec(event->globalPos());
}

// ---- export ----------------------------------------------------------------------------------

QJsonObject PlotWidget::exportInfo(const QString& path, ExportFormat format) const {
  QJsonObject info;
  info.insert(QStringLiteral("application"), QString::fromLatin1(kApplication));
  info.insert(QStringLiteral("version"), QStringLiteral(DPLDA_VERSION));
  info.insert(QStringLiteral("plot"), shortClassName(this));
  info.insert(QStringLiteral("title"), m_title);
  info.insert(QStringLiteral("file"), QFileInfo(path).fileName());
  info.insert(QStringLiteral("format"), QString::fromLatin1(exportFormatSuffix(format)));
  info.insert(QStringLiteral("exported"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
  info.insert(QStringLiteral("stale"), m_stale);
  info.insert(QStringLiteral("metadata"), m_metadata);
  return info;
}

bool PlotWidget::checkExportable(const QString& path, QString* error) const {
  if (path.isEmpty()) {
    setError(error, tr("no file name given for the export"));
    return false;
  }
  if (!hasData()) {
    const QString name = m_title.isEmpty() ? shortClassName(this) : m_title;
    setError(error, tr("nothing to export to '%1': the plot '%2' has no data").arg(fileLabel(path), name));
    return false;
  }
  return true;
}

bool PlotWidget::writeSideFile(const QString& path, const QJsonObject& info, QString* error) const {
  return writeFileAtomically(path + QStringLiteral(".json"), QJsonDocument(info).toJson(QJsonDocument::Indented),
                             error, tr("metadata side file"));
}

bool PlotWidget::exportPng(const QString& path, int widthPx, int heightPx, double dpi, QString* error) {
  if (!checkExportable(path, error)) return false;
  if (widthPx < kMinExportPx || heightPx < kMinExportPx || widthPx > kMaxExportPx || heightPx > kMaxExportPx) {
    setError(error, tr("invalid PNG size %1×%2 px for '%3' (each side must be in %4..%5)")
                        .arg(widthPx).arg(heightPx).arg(fileLabel(path)).arg(kMinExportPx).arg(kMaxExportPx));
    return false;
  }
  if (!std::isfinite(dpi) || dpi < 24 || dpi > 2400) {
    setError(error, tr("invalid PNG resolution dpi=%1 for '%2' (allowed 24..2400)").arg(dpi).arg(fileLabel(path)));
    return false;
  }
  // Lay the plot out at a logical size where one unit is 1/96 inch, then scale it to fill the
  // requested pixels: fonts and lines come out at their physical size for the given dpi.
  const double scale = dpi / 96.0;
  const int logicalW = std::max(1, qRound(widthPx / scale));
  const int logicalH = std::max(1, qRound(heightPx / scale));
  QImage image(widthPx, heightPx, QImage::Format_ARGB32);
  image.fill(mBackgroundBrush.style() == Qt::SolidPattern ? mBackgroundBrush.color() : QColor(Qt::white));
  {
    QCPPainter painter(&image);
    if (!painter.isActive()) {
      setError(error, tr("cannot render the plot for '%1' (%2×%3 px)").arg(fileLabel(path)).arg(widthPx).arg(heightPx));
      return false;
    }
    if (scale > 1.0) painter.setMode(QCPPainter::pmNonCosmetic);  // hairlines would vanish at high dpi
    painter.scale(double(widthPx) / logicalW, double(heightPx) / logicalH);
    toPainter(&painter, logicalW, logicalH);
    painter.end();
  }
  replot();  // toPainter laid the plot out for the export size; restore the on-screen layout

  const int dotsPerMeter = qRound(dpi / 0.0254);
  image.setDotsPerMeterX(dotsPerMeter);
  image.setDotsPerMeterY(dotsPerMeter);
  QJsonObject info = exportInfo(path, ExportFormat::Png);
  info.insert(QStringLiteral("width_px"), widthPx);
  info.insert(QStringLiteral("height_px"), heightPx);
  info.insert(QStringLiteral("dpi"), dpi);
  image.setText(QStringLiteral("Title"), m_title);
  image.setText(QStringLiteral("Software"), QStringLiteral("%1 %2").arg(kApplication, DPLDA_VERSION));
  image.setText(QStringLiteral("Description"),
                QString::fromUtf8(QJsonDocument(info).toJson(QJsonDocument::Compact)));

  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    setError(error, tr("cannot write PNG '%1': %2").arg(fileLabel(path), file.errorString()));
    return false;
  }
  QImageWriter writer(&file, "png");
  if (!writer.write(image) || !file.commit()) {
    const QString reason = writer.error() != QImageWriter::UnknownError ? writer.errorString() : file.errorString();
    setError(error, tr("cannot write PNG '%1': %2").arg(fileLabel(path), reason));
    return false;
  }
  if (!writeSideFile(path, info, error)) return false;
  emit exported(path);
  return true;
}

bool PlotWidget::exportPdf(const QString& path, QString* error) {
  if (!checkExportable(path, error)) return false;
  // QPdfWriter instead of QCustomPlot::savePdf: it writes through QSaveFile (atomic, with an
  // error message) and can embed the metadata and the data as file attachments.
  const QSize logical = exportSize();
  QJsonObject info = exportInfo(path, ExportFormat::Pdf);
  info.insert(QStringLiteral("width_pt"), logical.width() * 0.75);
  info.insert(QStringLiteral("height_pt"), logical.height() * 0.75);
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    setError(error, tr("cannot write PDF '%1': %2").arg(fileLabel(path), file.errorString()));
    return false;
  }
  {
    QPdfWriter writer(&file);
    writer.setCreator(QStringLiteral("%1 %2").arg(kApplication, DPLDA_VERSION));
    writer.setTitle(m_title.isEmpty() ? shortClassName(this) : m_title);
    // One logical unit = 1/96 inch = 0.75 pt, so text has the same proportions as on screen.
    writer.setPageLayout(QPageLayout(QPageSize(QSizeF(logical.width() * 0.75, logical.height() * 0.75),
                                               QPageSize::Point, QString(), QPageSize::ExactMatch),
                                     QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    writer.addFileAttachment(QStringLiteral("metadata.json"), QJsonDocument(info).toJson(QJsonDocument::Indented),
                             QStringLiteral("application/json"));
    writer.addFileAttachment(QStringLiteral("data.csv"), csvText(info).toUtf8(), QStringLiteral("text/csv"));
    QCPPainter painter;
    if (!painter.begin(&writer)) {
      setError(error, tr("cannot start the PDF painter for '%1'").arg(fileLabel(path)));
      file.cancelWriting();
      return false;
    }
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNonCosmetic);
    painter.setWindow(QRect(0, 0, logical.width(), logical.height()));
    toPainter(&painter, logical.width(), logical.height());
    painter.end();
  }
  replot();
  if (!file.commit()) {
    setError(error, tr("cannot write PDF '%1': %2").arg(fileLabel(path), file.errorString()));
    return false;
  }
  if (!writeSideFile(path, info, error)) return false;
  emit exported(path);
  return true;
}

bool PlotWidget::exportSvg(const QString& path, QString* error) {
  if (!checkExportable(path, error)) return false;
  const QSize logical = exportSize();
  QJsonObject info = exportInfo(path, ExportFormat::Svg);
  info.insert(QStringLiteral("width_px"), logical.width());
  info.insert(QStringLiteral("height_px"), logical.height());
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    setError(error, tr("cannot write SVG '%1': %2").arg(fileLabel(path), file.errorString()));
    return false;
  }
  {
    QSvgGenerator generator;
    generator.setOutputDevice(&file);
    generator.setSize(logical);
    generator.setViewBox(QRect(QPoint(0, 0), logical));
    generator.setResolution(96);
    generator.setTitle(m_title.isEmpty() ? shortClassName(this) : m_title);
    generator.setDescription(QString::fromUtf8(QJsonDocument(info).toJson(QJsonDocument::Compact)));
    QCPPainter painter;
    if (!painter.begin(&generator)) {
      setError(error, tr("cannot start the SVG painter for '%1'").arg(fileLabel(path)));
      file.cancelWriting();
      return false;
    }
    painter.setMode(QCPPainter::pmVectorized);
    toPainter(&painter, logical.width(), logical.height());
    painter.end();
  }
  replot();
  if (!file.commit()) {
    setError(error, tr("cannot write SVG '%1': %2").arg(fileLabel(path), file.errorString()));
    return false;
  }
  if (!writeSideFile(path, info, error)) return false;
  emit exported(path);
  return true;
}

QString PlotWidget::csvText(const QJsonObject& info) const {
  const CsvTable table = csvTable();
  QString text;
  text += QStringLiteral("# ") + QString::fromUtf8(QJsonDocument(info).toJson(QJsonDocument::Compact)) +
          QLatin1Char('\n');
  QStringList header;
  for (const QString& h : table.header) header.append(csvField(h));
  text += header.join(QLatin1Char(',')) + QLatin1Char('\n');
  for (const QStringList& row : table.rows) {
    QStringList cells;
    for (const QString& c : row) cells.append(csvField(c));
    text += cells.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  return text;
}

bool PlotWidget::exportCsv(const QString& path, QString* error) {
  if (!checkExportable(path, error)) return false;
  const QJsonObject info = exportInfo(path, ExportFormat::Csv);
  if (!writeFileAtomically(path, csvText(info).toUtf8(), error, tr("CSV"))) return false;
  if (!writeSideFile(path, info, error)) return false;
  emit exported(path);
  return true;
}

bool PlotWidget::exportTo(const QString& path, ExportFormat format, QString* error) {
  switch (format) {
    case ExportFormat::Png: {
      const QSize logical = exportSize();
      const double dpi = 300.0;
      return exportPng(path, qRound(logical.width() * dpi / 96.0), qRound(logical.height() * dpi / 96.0), dpi,
                       error);
    }
    case ExportFormat::Pdf: return exportPdf(path, error);
    case ExportFormat::Svg: return exportSvg(path, error);
    case ExportFormat::Csv: return exportCsv(path, error);
  }
  setError(error, tr("unknown export format"));
  return false;
}

void PlotWidget::copyToClipboard() {
  const QSize logical = exportSize();
  const double ratio = std::max(1.0, devicePixelRatioF());
  QPixmap pixmap = toPixmap(logical.width(), logical.height(), ratio);
  replot();
  if (QClipboard* clipboard = QApplication::clipboard()) clipboard->setPixmap(pixmap);
}

bool PlotWidget::exportWithDialog(ExportFormat format) {
  const QString suffix = QString::fromLatin1(exportFormatSuffix(format));
  static const QHash<QString, QString> filters = {{"png", tr("PNG image (*.png)")},
                                                   {"pdf", tr("PDF document (*.pdf)")},
                                                   {"svg", tr("SVG drawing (*.svg)")},
                                                   {"csv", tr("CSV data (*.csv)")}};
  if (m_lastDir.isEmpty()) m_lastDir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  QString base = m_title.isEmpty() ? shortClassName(this) : m_title;
  base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_-]+")), QStringLiteral("_"));
  QString path = QFileDialog::getSaveFileName(this, tr("Export plot as %1").arg(suffix.toUpper()),
                                              QDir(m_lastDir).filePath(base + QLatin1Char('.') + suffix),
                                              filters.value(suffix));
  if (path.isEmpty()) return false;
  if (QFileInfo(path).suffix().compare(suffix, Qt::CaseInsensitive) != 0) path += QLatin1Char('.') + suffix;
  m_lastDir = QFileInfo(path).absolutePath();
  QString error;
  if (!exportTo(path, format, &error)) {
    QMessageBox::warning(this, tr("Export failed"), error);
    return false;
  }
  return true;
}

}  // namespace dplda
