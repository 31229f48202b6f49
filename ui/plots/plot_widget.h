#pragma once
// PlotWidget: the base of every domain plot (after KStars' focushfrvplot): subclasses expose
// domain calls that take plain data, batch their changes and end with requestReplot().
// The base adds what every plot needs: zoom/pan, legend toggling, a hover readout, a
// visible "stale" state, and reproducible export (PNG/PDF/SVG/CSV + a "<file>.json" side file
// holding the metadata, i.e. parameters and seeds of the runs plotted).
#include <QHash>
#include <QJsonObject>
#include <QPointer>
#include <QRect>
#include <QSize>
#include <QStringList>
#include <QVector>

#include <qcustomplot.h>

namespace dplda {

// The data behind a plot: a header naming the columns, then rows of already formatted cells
// (use csvNumber for numbers). One row per data point, with the series named in its own columns.
struct CsvTable {
  QStringList header;
  QVector<QStringList> rows;
};

// Shortest text that reads back to exactly v ("nan", "inf", "-inf" for non-finite values).
QString csvNumber(double v);
// Quotes a CSV cell when it contains a comma, quote, or line break (RFC 4180).
QString csvField(const QString& text);

// A file name (without suffix) that reads well, from a plot's title: lower-case words joined by
// hyphens, Greek letters spelled out ("Error vs total ε (this session)" gives
// "error-vs-total-epsilon-this-session"), at most 60 characters; "plot" for an empty title.
QString exportFileStem(const QString& title);

enum class ExportFormat { Png, Pdf, Svg, Csv };
const char* exportFormatSuffix(ExportFormat format);  // "png", "pdf", "svg", "csv"

class PlotWidget : public QCustomPlot {
  Q_OBJECT

 public:
  explicit PlotWidget(QWidget* parent = nullptr);
  ~PlotWidget() override;

  // Title above the axis rect; also the title written into exported files. Empty hides it.
  void setTitle(const QString& title);
  QString title() const { return m_title; }
  void setAxisLabels(const QString& xLabel, const QString& yLabel);

  // A stale plot shows its data under a translucent veil with a label, so results of old
  // parameters are never mistaken for current ones. Exports keep the veil and record the flag.
  void setStale(bool stale);
  bool isStale() const { return m_stale; }
  void setStaleText(const QString& text);  // default "stale — parameters changed"
  QString staleText() const { return m_staleText; }

  // Parameters and seeds of the run(s) plotted; written with every export.
  void setMetadata(const QJsonObject& metadata) { m_metadata = metadata; }
  QJsonObject metadata() const { return m_metadata; }

  // Logical size (1/96 inch per unit) used for PNG, PDF, SVG and the clipboard. A size set here
  // wins (the command line's figures); otherwise the user's choice among exportSizeKeys(),
  // remembered in QSettings, where "window" is the widget's size once shown (else 720×480).
  void setExportSize(const QSize& logicalSize) { m_exportSize = logicalSize; }
  QSize exportSize() const;
  static QStringList exportSizeKeys();               // "window", "column", "wide", "slide", ...
  static QString exportSizeLabel(const QString& key);  // for menus: "One column (3.5 × 2.6 in)"
  static QSize exportSizeOf(const QString& key);     // logical size; invalid for "window"
  // A page size given as text (the command line's --figure-size): "column" (one journal column,
  // 3.5 in wide), "two-column" (7 in) or "WxH" in inches (each side 1 to 40). Invalid with a
  // message naming the text otherwise.
  static QSize pageSizeFromText(const QString& text, QString* error);
  static QString exportSizeChoice();
  static void setExportSizeChoice(const QString& key);

  // Exports keep the legend off the data: in a corner of the data area that no line, marker,
  // band or bar crosses, else beside (wide pages) or below (tall ones) the data area. Off keeps
  // the on-screen placement. Default on.
  void setExportLegendOutside(bool outside) { m_exportLegendOutside = outside; }
  bool exportLegendOutside() const { return m_exportLegendOutside; }
  // Where the last export drew the data area and the legend (empty when no legend was drawn),
  // in the export's logical units; also written to the side file.
  QRect lastExportAxisRect() const { return m_lastExportAxisRect; }
  QRect lastExportLegendRect() const { return m_lastExportLegendRect; }

  // The page every export draws, one code path for the app and the command line: the plot laid
  // out at `logical` size (1/96 in per unit) with the page's text sizes (pageFontScale), tick
  // counts that fit the room, the legend off the data and, on a page too short for it, the
  // footnote left to the caption (the side file keeps it). Until endPageLayout() restores the
  // screen, the widget's geometry (axis rect, ticks, legend) is the page's.
  void beginPageLayout(const QSize& logical);
  void endPageLayout();
  // The page an export of `requested` size draws: the same width, and taller (at most twice)
  // when the page's layout would leave the data area less than half the page's height, e.g. a
  // journal column's legend of 13 entries below the data. Journals fix a figure's width, not its height.
  QSize pageSizeFor(const QSize& requested);
  // Text scale of a page: journal sizes (one or two columns, narrower than 7.5 in) print the
  // smallest text at 7 pt, larger pages at the screen's sizes.
  static double pageFontScale(const QSize& logical);
  // Sampled pixels under `rect` (the current layout's pixels) that lie on drawn data: lines,
  // markers, bands, bars and annotations such as the session's ε. 0: the rect covers no data.
  int dataPixelsUnder(const QRectF& rect, bool stopAtFirst = false) const;
  // Where the tick labels of `axis` are drawn in the current layout (not rotated labels).
  static QVector<QRectF> tickLabelRects(const QCPAxis* axis);

  // Exports. Each returns false with a message naming the file and the reason (unwritable
  // path, empty plot, invalid size), and on success also writes "<path>.json".
  bool exportPng(const QString& path, int widthPx, int heightPx, double dpi, QString* error = nullptr);
  bool exportPdf(const QString& path, QString* error = nullptr);
  bool exportSvg(const QString& path, QString* error = nullptr);
  bool exportCsv(const QString& path, QString* error = nullptr);
  // PNG at 300 dpi of exportSize(); the others as above.
  bool exportTo(const QString& path, ExportFormat format, QString* error = nullptr);
  void copyToClipboard();
  // Asks for a file name and exports; failures are shown in a message box. False if cancelled.
  bool exportWithDialog(ExportFormat format);

  // The data behind the plot. The default lists every series' points (series, x, y).
  virtual CsvTable csvTable() const;
  // Whether there is anything to export; the default: any plottable holds a data point.
  virtual bool hasData() const;

  // The hover readout for a widget pixel: name and x, y of the nearest visible data point
  // within maxDistancePx, or an empty string. Shown as a tooltip while the mouse moves.
  QString readoutAt(const QPointF& pixel, double maxDistancePx = 24.0) const;

  // Presentation: every text of the plot (ticks, labels, legend, title, notes) at `scale` times
  // its normal point size (0.5..4) on screen; exports keep the normal size. Plots made later
  // start at the default scale (PresentationMode sets both).
  void setFontScale(double scale);
  double fontScale() const { return m_fontScale; }
  static void setDefaultFontScale(double scale);

  // The text in the middle of an empty plot; empty restores "no data yet" (a finished sweep that
  // released nothing says so and why instead).
  void setPlaceholderText(const QString& text);
  QString placeholderText() const;

  // A small grey note under the plot (e.g. "3 points ≤ 0 not shown"); empty removes it.
  void setFootnote(const QString& text);
  QString footnote() const { return m_footnoteText; }

  // Layout: the widget's minimum height keeps the data area at least `px` high on screen, with
  // the title, axes, legend and footnote at their current font sizes around it (0: no minimum
  // beyond the widget's own).
  void setMinimumDataHeight(int px);
  int minimumDataHeight() const { return m_minDataHeight; }

  // Rescales the axes to show all data (also on double click and from the context menu).
  void resetView();
  void setLegendShown(bool shown);
  bool isLegendShown() const;
  // The legend never covers data. By default (Qt::Alignment{}) it moves, at every layout, to a
  // corner of the data area that no data crosses; without one (or when it would fill more than
  // half the data area) it goes beside or below the data. A fixed corner is kept while it is free.
  void setLegendCorner(Qt::Alignment corner);
  Qt::Alignment legendCorner() const;  // the corner in use

 signals:
  void exported(const QString& path);

 protected:
  // One line per hovered point; subclasses may name x values (e.g. words) differently.
  virtual QString readoutText(const QCPAbstractPlottable* plottable, int index) const;
  // Sets the axis ranges to the data; subclasses override to add padding or fixed ranges.
  virtual void fitAxesToData();
  // Hiding `main` from the legend also hides `companion` (e.g. a median and its band).
  void linkCompanion(QCPAbstractPlottable* main, QCPAbstractPlottable* companion);
  // Call at the end of every domain update: refreshes the placeholder and queues one replot.
  void requestReplot();

  void updateLayout() override;  // also places the legend (see setLegendCorner)
  void contextMenuEvent(QContextMenuEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  QJsonObject exportInfo(const QString& path, ExportFormat format) const;
  QJsonObject pageLayoutInfo() const;  // the last export's data area, legend and text scale
  // Draws the plot at `logical` size onto an active painter (begin/endPageLayout around it).
  void paintForExport(QCPPainter* painter, const QSize& logical);
  void placeLegend();        // in a free corner of the data, else outside it (updateLayout)
  bool placeLegendOutside();  // beside or below the data; false: no legend to place
  void fitTicksToRoom();      // tick counts from the pixels the axes have
  bool checkExportable(const QString& path, QString* error) const;
  bool writeSideFile(const QString& path, const QJsonObject& info, QString* error) const;
  QString csvText() const;
  void onLegendClick(QCPLegend* legend, QCPAbstractLegendItem* item);
  void setPlottableShown(QCPAbstractPlottable* plottable, bool shown);
  void updateOverlays();
  QFont plotFont(double points, bool bold = false) const;  // the widget's font at points × scale
  void applyFonts();
  Qt::Alignment leastCrowdedCorner(bool* free);
  void putLegendInside();  // undoes placeLegendOutside
  void keepMinimumDataHeight();  // setMinimumDataHeight's minimum, from the layout just made

  QString m_title;
  QCPTextElement* m_titleElement = nullptr;
  QString m_footnoteText;
  QCPTextElement* m_footnoteElement = nullptr;
  Qt::Alignment m_fixedLegendCorner;
  bool m_legendWanted = true;  // the user's choice; an empty legend is hidden regardless
  bool m_stale = false;
  double m_fontScale = 1.0;
  QString m_staleText;
  QCPItemRect* m_staleVeil = nullptr;
  QCPItemText* m_staleLabel = nullptr;
  QCPItemText* m_placeholder = nullptr;
  QJsonObject m_metadata;
  QSize m_exportSize;
  bool m_exportLegendOutside = true;
  int m_minDataHeight = 0;
  bool m_exporting = false;  // between beginPageLayout and endPageLayout
  struct ScreenState {        // what beginPageLayout changes, for endPageLayout
    QRect viewport;
    double fontScale = 1.0;
    QString footnote;
    QSize iconSize;
  } m_screen;
  bool m_legendOutside = false;  // no free corner: the legend is beside or below the data
  QMargins m_marginsInside;      // the layout before the legend went outside
  int m_legendWrapInside = 0;
  QCPLayoutGrid::FillOrder m_legendOrderInside = QCPLayoutGrid::foRowsFirst;
  QRect m_lastExportAxisRect, m_lastExportLegendRect;
  double m_lastExportFontScale = 1.0;
  QMultiHash<QCPAbstractPlottable*, QPointer<QCPAbstractPlottable>> m_companions;
};

}  // namespace dplda
