// Exports as a reader sees them: PDF text at its real size (rendered by poppler's pdftotext and
// pdftoppm, as a paper's build would), the legend beside or below the data and never over it,
// standard SVG font families, the page-size choice, tables as CSV and remembered folders.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <algorithm>

#include "ui/common/last_folder.h"
#include "ui/panels/table_export.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/plots/series_plot.h"

#include "small_session.h"

using namespace dplda;

namespace {

struct PdfWord {
  QString text;
  QRectF box;  // points, origin top left
};
struct PdfText {
  QSizeF page;
  QVector<PdfWord> words;
};

// The words of page 1 with their bounding boxes, from `pdftotext -bbox` (poppler-utils).
bool readPdfText(const QString& pdf, PdfText* out, QString* error) {
  const QString tool = QStandardPaths::findExecutable("pdftotext");
  if (tool.isEmpty()) {
    *error = "pdftotext not found (install poppler-utils)";
    return false;
  }
  QProcess p;
  p.start(tool, {"-bbox", "-f", "1", "-l", "1", pdf, "-"});
  if (!p.waitForFinished(30000) || p.exitCode() != 0) {
    *error = "pdftotext failed: " + QString::fromUtf8(p.readAllStandardError());
    return false;
  }
  const QString html = QString::fromUtf8(p.readAllStandardOutput());
  static const QRegularExpression pageRe("<page width=\"([\\d.]+)\" height=\"([\\d.]+)\"");
  static const QRegularExpression wordRe(
      "<word xMin=\"([\\d.-]+)\" yMin=\"([\\d.-]+)\" xMax=\"([\\d.-]+)\" yMax=\"([\\d.-]+)\">([^<]*)</word>");
  const auto page = pageRe.match(html);
  if (!page.hasMatch()) {
    *error = "no page in pdftotext's output";
    return false;
  }
  out->page = QSizeF(page.captured(1).toDouble(), page.captured(2).toDouble());
  for (auto it = wordRe.globalMatch(html); it.hasNext();) {
    const auto m = it.next();
    const QPointF a(m.captured(1).toDouble(), m.captured(2).toDouble());
    const QPointF b(m.captured(3).toDouble(), m.captured(4).toDouble());
    out->words.append({m.captured(5), QRectF(a, b)});
  }
  return true;
}

// An error-vs-ε plot with three curves, a title and axis labels.
void fillErrorPlot(ErrorVsEpsilonPlot& plot) {
  plot.setTitle("Calibration check");
  for (int c = 1; c <= 3; ++c) {
    QVector<double> eps{0.1, 0.3, 1, 3, 10}, med, lo, hi;
    for (double e : eps) {
      med << 0.05 + 0.03 * c / e;
      lo << 0.8 * med.last();
      hi << 1.25 * med.last();
    }
    QString error;
    QVERIFY2(plot.setCurve(QString::number(c), QString("configuration %1").arg(c), eps, med, lo, hi, c, &error),
             qPrintable(error));
  }
}

double median(QVector<double> v) {
  std::sort(v.begin(), v.end());
  return v.isEmpty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

class TstExport : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::useTestSettings("tst_export");
    QSettings().clear();
  }

  void pdfTextHasItsPointSize() {
    // A 720×480 logical page is 540×360 pt. Tick labels are 9 pt and the title 11 pt, so every
    // word's box is at most ~16 pt tall; before the fix the text was about 12.5 times larger
    // and mostly off the page.
    QTemporaryDir dir;
    ErrorVsEpsilonPlot plot;
    fillErrorPlot(plot);
    plot.setExportSize(QSize(720, 480));
    const QString pdf = dir.filePath("plot.pdf");
    QString error;
    QVERIFY2(plot.exportPdf(pdf, &error), qPrintable(error));
    PdfText text;
    if (!readPdfText(pdf, &text, &error)) QSKIP(qPrintable(error));
    QCOMPARE(qRound(text.page.width()), 540);
    QCOMPARE(qRound(text.page.height()), 360);
    QVERIFY2(text.words.size() >= 10, qPrintable(QString("only %1 words on the page").arg(text.words.size())));
    QVector<double> heights;
    bool title = false;
    const QRectF page(QPointF(0, 0), text.page);
    for (const PdfWord& w : text.words) {
      // A word's size across its line: the height, or the width of a rotated (y axis) label.
      const double size = std::min(w.box.height(), w.box.width());
      heights << size;
      QVERIFY2(size <= 18, qPrintable(QString("'%1' is %2 pt tall").arg(w.text).arg(size)));
      QVERIFY2(page.contains(w.box.center()), qPrintable(QString("'%1' lies off the page").arg(w.text)));
      if (w.text == "Calibration") {
        title = true;
        // The title is 11 pt: its box (ascent + descent) is about 1.2 times that.
        QVERIFY2(w.box.height() > 9 && w.box.height() < 16, qPrintable(QString::number(w.box.height())));
      }
    }
    QVERIFY(title);
    const double typical = median(heights);
    QVERIFY2(typical > 7 && typical < 14, qPrintable(QString("median word height %1 pt").arg(typical)));

    // Rendered at 96 dpi the page is the logical size, and the text is not one big blot: most
    // of the page stays white.
    const QString ppm = QStandardPaths::findExecutable("pdftoppm");
    if (ppm.isEmpty()) QSKIP("pdftoppm not found (install poppler-utils)");
    QProcess p;
    p.start(ppm, {"-r", "96", "-png", "-singlefile", pdf, dir.filePath("render")});
    QVERIFY(p.waitForFinished(30000) && p.exitCode() == 0);
    const QImage image(dir.filePath("render.png"));
    QCOMPARE(image.size(), QSize(720, 480));
    int dark = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) dark += qGray(image.pixel(x, y)) < 128;
    QVERIFY2(dark < image.width() * image.height() / 10, qPrintable(QString("%1 dark pixels").arg(dark)));
  }

  void legendIsNeverOverTheDataInExports() {
    QTemporaryDir dir;
    ErrorVsEpsilonPlot plot;
    fillErrorPlot(plot);
    QString error;
    // A wide page with an empty corner: the legend sits there, over no line, band or marker.
    const QRect screen = plot.viewport();
    plot.setExportSize(QSize(720, 360));
    QVERIFY2(plot.exportSvg(dir.filePath("wide.svg"), &error), qPrintable(error));
    QRect data = plot.lastExportAxisRect(), legend = plot.lastExportLegendRect();
    QVERIFY(!legend.isEmpty() && QRect(0, 0, 720, 360).contains(legend));
    plot.beginPageLayout(QSize(720, 360));
    QCOMPARE(plot.axisRect()->rect(), data);  // the export's layout, inspected
    QCOMPARE(plot.legend->outerRect(), legend);
    QCOMPARE(plot.dataPixelsUnder(legend), 0);
    plot.endPageLayout();
    // A flat line across the whole plot at every height leaves no free corner: the legend
    // goes beside the data on a wide page and below it on a tall one, within the page.
    for (double y : {0.02, 0.06, 0.1, 0.2, 0.3, 0.5, 0.8})
      QVERIFY(plot.setCurve(QString("flat %1").arg(y), QString("flat %1").arg(y), {0.1, 10}, {y, y}, {}, {}, 4));
    QVERIFY2(plot.exportSvg(dir.filePath("wide.svg"), &error), qPrintable(error));
    data = plot.lastExportAxisRect();
    legend = plot.lastExportLegendRect();
    QVERIFY2(!data.intersects(legend), "the legend covers the data area");
    QVERIFY(legend.left() > data.right());
    QVERIFY(QRect(0, 0, 720, 360).contains(legend));
    plot.setExportSize(QSize(336, 420));
    QVERIFY2(plot.exportPng(dir.filePath("tall.png"), 672, 840, 192, &error), qPrintable(error));
    data = plot.lastExportAxisRect();
    legend = plot.lastExportLegendRect();
    QVERIFY2(!data.intersects(legend), "the legend covers the data area");
    QVERIFY(legend.top() > data.bottom());
    QVERIFY2(QRect(0, 0, 336, 420).contains(legend),
             qPrintable(QString("legend %1,%2 %3×%4").arg(legend.x()).arg(legend.y()).arg(legend.width()).arg(legend.height())));
    QVERIFY(data.height() >= 210);
    // The on-screen layout is back.
    QCOMPARE(plot.viewport(), screen);
    // Off: inside, as the user asked, in the least crowded corner.
    plot.setExportLegendOutside(false);
    QVERIFY2(plot.exportSvg(dir.filePath("inside.svg"), &error), qPrintable(error));
    QVERIFY(plot.lastExportAxisRect().contains(plot.lastExportLegendRect()));
  }

  void csvStartsWithItsHeader() {
    // Issue 24: the CSV's first line was a "# {json}" comment that spreadsheets read as data.
    QTemporaryDir dir;
    ErrorVsEpsilonPlot plot;
    fillErrorPlot(plot);
    plot.setMetadata(QJsonObject{{"seed", "7"}});
    QString error;
    const QString csv = dir.filePath("data.csv");
    QVERIFY2(plot.exportCsv(csv, &error), qPrintable(error));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.first(), QString("series_key,series_label,epsilon,median,lower,upper"));
    QCOMPARE(lines.size(), 1 + 3 * 5);
    QFile side(csv + ".json");
    QVERIFY(side.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(side.readAll()).object().value("metadata").toObject().value("seed").toString(),
             QString("7"));
  }

  void exportFileNamesReadWell() {
    QCOMPARE(exportFileStem("Error vs total ε (this session)"), QString("error-vs-total-epsilon-this-session"));
    QCOMPARE(exportFileStem("How far are the private topics from the true ones? — α₀ = 0.1"),
             QString("how-far-are-the-private-topics-from-the-true-ones-alpha0-0.1"));
    QCOMPARE(exportFileStem("σₖ(M̂₂) and its lower bound σ̃ₖ"), QString("sigmak-m2-and-its-lower-bound-sigmak"));
    QCOMPARE(exportFileStem("  "), QString("plot"));
    const QString longTitle = QString("word ").repeated(30);
    QVERIFY(exportFileStem(longTitle).size() <= 60);
    QVERIFY(!exportFileStem(longTitle).endsWith('-'));
  }

  void svgNamesStandardFontFamilies() {
    QTemporaryDir dir;
    ErrorVsEpsilonPlot plot;
    fillErrorPlot(plot);
    QString error;
    const QString svg = dir.filePath("plot.svg");
    QVERIFY2(plot.exportSvg(svg, &error), qPrintable(error));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    static const QRegularExpression family("font-family=\"([^\"]*)\"");
    int n = 0;
    for (auto it = family.globalMatch(text); it.hasNext(); ++n) {
      const QString value = it.next().captured(1);
      QVERIFY2(value.endsWith(", sans-serif") && value.contains("'DejaVu Sans'"), qPrintable(value));
      QVERIFY2(!value.contains("Sans Serif"), qPrintable(value));  // fontconfig's alias, unknown to browsers
    }
    QVERIFY(n > 0);
    QXmlStreamReader xml(text);
    while (!xml.atEnd()) xml.readNext();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
  }

  void exportSizeChoiceIsRemembered() {
    ErrorVsEpsilonPlot plot;
    fillErrorPlot(plot);
    QCOMPARE(PlotWidget::exportSizeChoice(), QString("window"));
    QCOMPARE(plot.exportSize(), QSize(720, 480));  // not shown: the default page
    for (const QString& key : PlotWidget::exportSizeKeys()) {
      QVERIFY(!PlotWidget::exportSizeLabel(key).isEmpty());
      if (key != "window") QVERIFY(PlotWidget::exportSizeOf(key).isValid());
    }
    PlotWidget::setExportSizeChoice("slide");
    QCOMPARE(QSettings().value("export/size").toString(), QString("slide"));
    QCOMPARE(plot.exportSize(), QSize(960, 540));
    QTemporaryDir dir;
    QString error;
    QVERIFY2(plot.exportTo(dir.filePath("slide.png"), ExportFormat::Png, &error), qPrintable(error));
    QCOMPARE(QImage(dir.filePath("slide.png")).size(), QSize(3000, 1688));  // 300 dpi
    plot.setExportSize(QSize(400, 300));  // a size fixed by the caller wins
    QCOMPARE(plot.exportSize(), QSize(400, 300));
    PlotWidget::setExportSizeChoice("no-such-size");  // ignored
    QCOMPARE(PlotWidget::exportSizeChoice(), QString("slide"));
    PlotWidget::setExportSizeChoice("window");
  }

  void tablesExportAsCsv() {
    QTableWidget table(3, 3);
    table.setHorizontalHeaderLabels({"release", "ε", "preconditions"});
    auto set = [&](int r, int c, const QString& text, const QString& tip = QString()) {
      auto* item = new QTableWidgetItem(text);
      item->setToolTip(tip.isEmpty() ? text : tip);
      table.setItem(r, c, item);
    };
    set(0, 0, "Released (private)");  // a section header: one cell
    set(1, 0, "M2");
    set(1, 1, "0.5");
    set(1, 2, "✔ N ≥ 3, \"bounded\"");
    set(2, 0, "σ₁…σ₄ released");
    set(2, 1, "1.5, 2", "1.5, 2, 3.25, 4.125");  // elided on screen: the tooltip holds it all
    QTemporaryDir dir;
    const QString path = dir.filePath("ledger.csv");
    QString error;
    QVERIFY2(exportTableCsv(&table, path, &error), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 4);
    QCOMPARE(lines[0], QString("release,ε,preconditions"));
    QCOMPARE(lines[1], QString("Released (private),,"));
    QCOMPARE(lines[2], QString("M2,0.5,\"✔ N ≥ 3, \"\"bounded\"\"\""));
    QCOMPARE(lines[3], QString("σ₁…σ₄ released,\"1.5, 2, 3.25, 4.125\","));
    QVERIFY(!exportTableCsv(&table, dir.filePath("no/such/folder/x.csv"), &error));
    QVERIFY2(error.contains("x.csv"), qPrintable(error));
  }

  void dialogsRememberTheLastFolder() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("figures"));
    const QString file = dir.filePath("figures/plot.pdf");
    QVERIFY(lastFolder("export") != QDir(dir.filePath("figures")).absolutePath());
    rememberFolder("export", file);
    QCOMPARE(lastFolder("export"), QDir(dir.filePath("figures")).absolutePath());
    QCOMPARE(QSettings().value("folders/export").toString(), QDir(dir.filePath("figures")).absolutePath());
    rememberFolder("corpus", dir.filePath("figures"));  // a folder is remembered as itself
    QCOMPARE(lastFolder("corpus"), QDir(dir.filePath("figures")).absolutePath());
    QVERIFY(lastFolder("session") != QDir(dir.filePath("figures")).absolutePath());  // kinds are apart
  }
};

QTEST_MAIN(TstExport)
#include "tst_export.moc"
