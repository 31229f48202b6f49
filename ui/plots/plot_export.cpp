// PlotWidget's exports (split from plot_widget.cpp): PNG, PDF, SVG and CSV at a chosen page
// size, with the legend laid out beside or below the data, plus the export context menu.
#include "ui/plots/plot_widget.h"

#include <QActionGroup>
#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QImageWriter>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMenu>
#include <QMessageBox>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>

#include "ui/common/last_folder.h"

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

// Page sizes offered for exports, in logical units of 1/96 inch ("window": the widget's own).
struct SizeChoice {
  const char* key;
  const char* label;
  QSize logical;
};
const SizeChoice kSizeChoices[] = {
    {"window", QT_TRANSLATE_NOOP("PlotWidget", "Window size"), QSize()},
    {"column", QT_TRANSLATE_NOOP("PlotWidget", "Paper, one column (3.5 × 2.8 in)"), QSize(336, 269)},
    {"wide", QT_TRANSLATE_NOOP("PlotWidget", "Paper, two columns (7 × 3.5 in)"), QSize(672, 336)},
    {"classic", QT_TRANSLATE_NOOP("PlotWidget", "3:2 (7.5 × 5 in)"), QSize(720, 480)},
    {"slide", QT_TRANSLATE_NOOP("PlotWidget", "Slide 16:9 (10 × 5.6 in)"), QSize(960, 540)},
    {"square", QT_TRANSLATE_NOOP("PlotWidget", "Square (5 × 5 in)"), QSize(480, 480)},
};
constexpr const char* kSizeSetting = "export/size";
constexpr const char* kLegendSetting = "export/legend_outside";

// QSvgGenerator writes the widget's family (often a fontconfig alias such as "Sans Serif" that
// browsers and Inkscape do not know, so they fall back to a serif face); give every text a
// standard list that ends in the generic sans-serif.
QByteArray withStandardFontFamilies(const QByteArray& svg) {
  QString text = QString::fromUtf8(svg);
  static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
  QString out;
  out.reserve(text.size() + 1024);
  qsizetype last = 0;
  for (auto it = family.globalMatch(text); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    QStringList names;
    for (QString name : m.captured(1).split(QLatin1Char(','))) {
      name = name.trimmed().remove(QLatin1Char('\'')).remove(QStringLiteral("&apos;"));
      if (!name.isEmpty() && name.compare(QStringLiteral("Sans Serif"), Qt::CaseInsensitive) != 0 &&
          name.compare(QStringLiteral("sans-serif"), Qt::CaseInsensitive) != 0)
        names << name;
    }
    for (const char* standard : {"DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"})
      if (!names.contains(QLatin1String(standard), Qt::CaseInsensitive)) names << QLatin1String(standard);
    QStringList quoted;
    for (const QString& name : names) quoted << (name.contains(QLatin1Char(' ')) ? "'" + name + "'" : name);
    quoted << QStringLiteral("sans-serif");
    out += text.mid(last, m.capturedStart() - last);
    out += QStringLiteral("font-family=\"%1\"").arg(quoted.join(QStringLiteral(", ")));
    last = m.capturedEnd();
  }
  out += text.mid(last);
  return out.toUtf8();
}

}  // namespace

const char* exportFormatSuffix(ExportFormat format) {
  switch (format) {
    case ExportFormat::Png: return "png";
    case ExportFormat::Pdf: return "pdf";
    case ExportFormat::Svg: return "svg";
    case ExportFormat::Csv: return "csv";
  }
  return "dat";
}

QString exportFileStem(const QString& title) {
  // Greek and script letters by name, so that the name reads the same in every file manager.
  static const QHash<QChar, QString> spelled = {{u'ε', "epsilon"}, {u'δ', "delta"}, {u'σ', "sigma"},
                                                {u'γ', "gamma"},   {u'μ', "mu"},    {u'α', "alpha"},
                                                {u'ℓ', "l"},       {u'Δ', "delta"}, {u'λ', "lambda"}};
  QStringList words;
  QString word;
  for (const QChar c : title.normalized(QString::NormalizationForm_KD)) {
    if (spelled.contains(c.toLower())) {
      word += spelled.value(c.toLower());
    } else if (c.isLetterOrNumber() && c.unicode() < 128) {
      word += c.toLower();
    } else if (c.isLetterOrNumber() || c.category() == QChar::Mark_NonSpacing) {
      continue;  // accents and other scripts' marks: the base letter is already in
    } else if (c == QLatin1Char('.') && !word.isEmpty() && word.back().isDigit()) {
      word += c;  // decimals: "0.5" stays one word
    } else if (!word.isEmpty()) {
      words << word;
      word.clear();
    }
  }
  if (!word.isEmpty()) words << word;
  for (QString& w : words)
    while (w.endsWith(QLatin1Char('.'))) w.chop(1);
  words.removeAll(QString());
  QString stem;
  for (const QString& w : words) {  // whole words up to 60 characters
    if (!stem.isEmpty() && stem.size() + 1 + w.size() > 60) break;
    stem += (stem.isEmpty() ? QString() : QStringLiteral("-")) + w;
  }
  return stem.isEmpty() ? QStringLiteral("plot") : stem;
}

// ---- page size ---------------------------------------------------------------------------------

QStringList PlotWidget::exportSizeKeys() {
  QStringList keys;
  for (const SizeChoice& c : kSizeChoices) keys << QLatin1String(c.key);
  return keys;
}

QString PlotWidget::exportSizeLabel(const QString& key) {
  for (const SizeChoice& c : kSizeChoices)
    if (key == QLatin1String(c.key)) return tr(c.label);
  return key;
}

QSize PlotWidget::exportSizeOf(const QString& key) {
  for (const SizeChoice& c : kSizeChoices)
    if (key == QLatin1String(c.key)) return c.logical;
  return QSize();
}

QSize PlotWidget::pageSizeFromText(const QString& text, QString* error) {
  const QString t = text.trimmed().toLower();
  if (t == QLatin1String("column")) return exportSizeOf(QStringLiteral("column"));
  if (t == QLatin1String("two-column") || t == QLatin1String("wide")) return exportSizeOf(QStringLiteral("wide"));
  static const QRegularExpression inches(QStringLiteral("^(\\d+(?:\\.\\d*)?)\\s*[x×]\\s*(\\d+(?:\\.\\d*)?)(?:\\s*in)?$"));
  const QRegularExpressionMatch m = inches.match(t);
  const double w = m.hasMatch() ? m.captured(1).toDouble() : 0.0, h = m.hasMatch() ? m.captured(2).toDouble() : 0.0;
  if (!m.hasMatch() || w < 1 || w > 40 || h < 1 || h > 40) {
    setError(error, tr("a figure size is column, two-column or WxH in inches with each side in [1, 40] "
                       "(e.g. 3.5x2.8), got '%1'").arg(text));
    return QSize();
  }
  return QSize(qRound(w * 96), qRound(h * 96));
}

QString PlotWidget::exportSizeChoice() {
  const QString key = QSettings().value(QLatin1String(kSizeSetting), QStringLiteral("window")).toString();
  return exportSizeKeys().contains(key) ? key : QStringLiteral("window");
}

void PlotWidget::setExportSizeChoice(const QString& key) {
  if (exportSizeKeys().contains(key)) QSettings().setValue(QLatin1String(kSizeSetting), key);
}

QSize PlotWidget::exportSize() const {
  if (m_exportSize.isValid() && !m_exportSize.isEmpty()) return m_exportSize;
  const QSize chosen = exportSizeOf(exportSizeChoice());
  if (chosen.isValid()) return chosen;
  if (isVisible() && width() >= 100 && height() >= 80) return size();
  return QSize(720, 480);
}

// ---- context menu -------------------------------------------------------------------------------

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
  // Page size and legend placement of every export (remembered for the next session).
  QMenu* sizeMenu = menu.addMenu(tr("Export size"));
  auto* sizes = new QActionGroup(sizeMenu);
  const QString chosen = exportSizeChoice();
  for (const QString& key : exportSizeKeys()) {
    QAction* a = sizeMenu->addAction(exportSizeLabel(key), this, [key] { setExportSizeChoice(key); });
    a->setCheckable(true);
    a->setChecked(key == chosen);
    sizes->addAction(a);
  }
  if (m_exportSize.isValid()) sizeMenu->setEnabled(false);  // fixed by the caller
  QAction* outside = menu.addAction(tr("Legend outside the data in exports"));
  outside->setCheckable(true);
  outside->setChecked(m_exportLegendOutside);
  connect(outside, &QAction::toggled, this, [this](bool on) {
    m_exportLegendOutside = on;
    QSettings().setValue(QLatin1String(kLegendSetting), on);
  });
  menu.addSeparator();
  QAction* legendAction = menu.addAction(tr("Show legend"));
  legendAction->setCheckable(true);
  legendAction->setChecked(isLegendShown());
  connect(legendAction, &QAction::toggled, this, [this](bool on) { setLegendShown(on); });
  menu.addAction(tr("Reset view"), this, [this] { resetView(); });
  menu.exec(event->globalPos());
}

// ---- files --------------------------------------------------------------------------------------

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
  // The plot's note for a caption (a journal page may leave it out of the figure).
  if (!m_footnoteText.isEmpty()) info.insert(QStringLiteral("note"), m_footnoteText);
  info.insert(QStringLiteral("metadata"), m_metadata);
  info.insert(QStringLiteral("legend"), !legend->visible() ? QStringLiteral("none")
                                        : m_exportLegendOutside ? QStringLiteral("off the data (a free corner or outside)")
                                                                : QStringLiteral("inside the data"));
  return info;
}

QJsonObject PlotWidget::pageLayoutInfo() const {
  // Where the page put the data and the legend (1/96 in), for checking a figure without opening it.
  auto rect = [](const QRect& r) { return QJsonArray{r.x(), r.y(), r.width(), r.height()}; };
  QJsonObject layout{{"data_area", rect(m_lastExportAxisRect)}, {"text_scale", m_lastExportFontScale}};
  if (!m_lastExportLegendRect.isEmpty()) layout.insert("legend", rect(m_lastExportLegendRect));
  return layout;
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
  // Fonts resolve their point sizes at the image's resolution: 96 dpi while painting (the scale
  // below does the rest), whatever the screen's; the requested dpi is stored afterwards.
  const int logicalDotsPerMeter = qRound(96.0 / 0.0254);
  image.setDotsPerMeterX(logicalDotsPerMeter);
  image.setDotsPerMeterY(logicalDotsPerMeter);
  {
    QCPPainter painter(&image);
    if (!painter.isActive()) {
      setError(error, tr("cannot render the plot for '%1' (%2×%3 px)").arg(fileLabel(path)).arg(widthPx).arg(heightPx));
      return false;
    }
    if (scale > 1.0) painter.setMode(QCPPainter::pmNonCosmetic);  // hairlines would vanish at high dpi
    painter.scale(double(widthPx) / logicalW, double(heightPx) / logicalH);
    paintForExport(&painter, QSize(logicalW, logicalH));
    painter.end();
  }

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
  info.insert(QStringLiteral("layout"), pageLayoutInfo());
  if (!writeSideFile(path, info, error)) return false;
  emit exported(path);
  return true;
}

bool PlotWidget::exportPdf(const QString& path, QString* error) {
  if (!checkExportable(path, error)) return false;
  // QPdfWriter instead of QCustomPlot::savePdf: it writes through QSaveFile (atomic, with an
  // error message) and can embed the metadata and the data as file attachments.
  const QSize logical = pageSizeFor(exportSize());
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
    // One device unit = one logical unit = 1/96 inch = 0.75 pt. Fonts resolve their point
    // sizes at the writer's resolution, so it must be 96 dpi too: at the default 1200 dpi with
    // a window transform on top, a 9 pt font came out 12.5 times too large.
    writer.setResolution(96);
    writer.setPageLayout(QPageLayout(QPageSize(QSizeF(logical.width() * 0.75, logical.height() * 0.75),
                                               QPageSize::Point, QString(), QPageSize::ExactMatch),
                                     QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    writer.addFileAttachment(QStringLiteral("metadata.json"), QJsonDocument(info).toJson(QJsonDocument::Indented),
                             QStringLiteral("application/json"));
    writer.addFileAttachment(QStringLiteral("data.csv"), csvText().toUtf8(), QStringLiteral("text/csv"));
    QCPPainter painter;
    if (!painter.begin(&writer)) {
      setError(error, tr("cannot start the PDF painter for '%1'").arg(fileLabel(path)));
      file.cancelWriting();
      return false;
    }
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNonCosmetic);  // a 1-unit pen is 0.75 pt, not a hairline
    paintForExport(&painter, logical);
    painter.end();
  }
  if (!file.commit()) {
    setError(error, tr("cannot write PDF '%1': %2").arg(fileLabel(path), file.errorString()));
    return false;
  }
  info.insert(QStringLiteral("layout"), pageLayoutInfo());
  if (!writeSideFile(path, info, error)) return false;
  emit exported(path);
  return true;
}

bool PlotWidget::exportSvg(const QString& path, QString* error) {
  if (!checkExportable(path, error)) return false;
  const QSize logical = pageSizeFor(exportSize());
  QJsonObject info = exportInfo(path, ExportFormat::Svg);
  info.insert(QStringLiteral("width_px"), logical.width());
  info.insert(QStringLiteral("height_px"), logical.height());
  QBuffer buffer;  // rendered in memory: the font families are rewritten before writing
  buffer.open(QIODevice::WriteOnly);
  {
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(logical);
    generator.setViewBox(QRect(QPoint(0, 0), logical));
    generator.setResolution(96);
    generator.setTitle(m_title.isEmpty() ? shortClassName(this) : m_title);
    generator.setDescription(QString::fromUtf8(QJsonDocument(info).toJson(QJsonDocument::Compact)));
    QCPPainter painter;
    if (!painter.begin(&generator)) {
      setError(error, tr("cannot start the SVG painter for '%1'").arg(fileLabel(path)));
      return false;
    }
    painter.setMode(QCPPainter::pmVectorized);
    paintForExport(&painter, logical);
    painter.end();
  }
  if (!writeFileAtomically(path, withStandardFontFamilies(buffer.data()), error, tr("SVG"))) return false;
  info.insert(QStringLiteral("layout"), pageLayoutInfo());
  if (!writeSideFile(path, info, error)) return false;
  emit exported(path);
  return true;
}

QString PlotWidget::csvText() const {
  // The header comes first, as spreadsheets and data-frame readers expect; the parameters are
  // in the "<file>.json" side file (and the PDF's metadata.json attachment).
  const CsvTable table = csvTable();
  QString text;
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
  if (!writeFileAtomically(path, csvText().toUtf8(), error, tr("CSV"))) return false;
  if (!writeSideFile(path, info, error)) return false;
  emit exported(path);
  return true;
}

bool PlotWidget::exportTo(const QString& path, ExportFormat format, QString* error) {
  switch (format) {
    case ExportFormat::Png: {
      const QSize logical = pageSizeFor(exportSize());
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
  const QSize logical = pageSizeFor(exportSize());
  const double ratio = std::max(1.0, devicePixelRatioF());
  QImage image(QSize(qRound(logical.width() * ratio), qRound(logical.height() * ratio)), QImage::Format_ARGB32);
  image.setDevicePixelRatio(ratio);
  image.fill(Qt::white);
  {
    QCPPainter painter(&image);
    paintForExport(&painter, logical);
  }
  const QPixmap pixmap = QPixmap::fromImage(image);
  if (QClipboard* clipboard = QApplication::clipboard()) clipboard->setPixmap(pixmap);
}

bool PlotWidget::exportWithDialog(ExportFormat format) {
  const QString suffix = QString::fromLatin1(exportFormatSuffix(format));
  static const QHash<QString, QString> filters = {{"png", tr("PNG image (*.png)")},
                                                   {"pdf", tr("PDF document (*.pdf)")},
                                                   {"svg", tr("SVG drawing (*.svg)")},
                                                   {"csv", tr("CSV data (*.csv)")}};
  const QString base = exportFileStem(m_title.isEmpty() ? shortClassName(this) : m_title);
  QString path = QFileDialog::getSaveFileName(this, tr("Export plot as %1").arg(suffix.toUpper()),
                                              QDir(lastFolder(QStringLiteral("export"))).filePath(base + QLatin1Char('.') + suffix),
                                              filters.value(suffix));
  if (path.isEmpty()) return false;
  if (QFileInfo(path).suffix().compare(suffix, Qt::CaseInsensitive) != 0) path += QLatin1Char('.') + suffix;
  rememberFolder(QStringLiteral("export"), path);
  QString error;
  if (!exportTo(path, format, &error)) {
    QMessageBox::warning(this, tr("Export failed"), error);
    return false;
  }
  return true;
}

}  // namespace dplda
