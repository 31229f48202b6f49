// Plot widgets: domain APIs, CSV data, export to PNG/PDF/SVG/CSV with metadata, stale state,
// log axes and the hover readout. Runs offscreen.
#include <QApplication>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <cmath>

#include "ui/common/palette.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/plots/log_ticker.h"
#include "ui/plots/series_plot.h"
#include "ui/plots/plot_widget.h"
#include "ui/plots/topics_plot.h"
#include "ui/plots/tpm_noise_plot.h"

using namespace dplda;

namespace {

QJsonObject sampleMetadata() {
  QJsonObject m;
  m.insert("config", "2");
  m.insert("seed_data", 12345);
  m.insert("seed_noise", 777);
  m.insert("delta", 1e-5);
  return m;
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

QJsonObject readJson(const QString& path) { return QJsonDocument::fromJson(readAll(path)).object(); }

// Splits one CSV line (RFC 4180 quoting) into cells.
QStringList splitCsv(const QString& line) {
  QStringList cells;
  QString cell;
  bool quoted = false;
  for (int i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells << cell;
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells << cell;
  return cells;
}

struct Csv {
  QStringList header;
  QVector<QStringList> rows;
};

Csv readCsv(const QString& path) {
  Csv csv;
  const QStringList lines = QString::fromUtf8(readAll(path)).split('\n', Qt::SkipEmptyParts);
  for (const QString& line : lines) {
    if (csv.header.isEmpty()) {
      csv.header = splitCsv(line);
    } else {
      csv.rows.append(splitCsv(line));
    }
  }
  return csv;
}

int countNear(const QImage& image, const QColor& color, int tolerance) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - color.red()) <= tolerance && std::abs(c.green() - color.green()) <= tolerance &&
          std::abs(c.blue() - color.blue()) <= tolerance)
        ++n;
    }
  return n;
}

// Exports the plot in all four formats and checks each file and its side file.
void checkAllExports(PlotWidget& plot, const QString& dir, const QString& stem, int expectedRows) {
  plot.setMetadata(sampleMetadata());
  QString error;
  const QString png = dir + "/" + stem + ".png";
  QVERIFY2(plot.exportPng(png, 640, 400, 144, &error), qPrintable(error));
  QImage image(png);
  QVERIFY(!image.isNull());
  QCOMPARE(image.size(), QSize(640, 400));
  QCOMPARE(image.dotsPerMeterX(), qRound(144 / 0.0254));
  QCOMPARE(image.dotsPerMeterY(), qRound(144 / 0.0254));
  const QJsonObject embedded = QJsonDocument::fromJson(image.text("Description").toUtf8()).object();
  QCOMPARE(embedded.value("metadata").toObject(), sampleMetadata());
  QCOMPARE(readJson(png + ".json").value("metadata").toObject(), sampleMetadata());
  QCOMPARE(readJson(png + ".json").value("format").toString(), QString("png"));

  const QString pdf = dir + "/" + stem + ".pdf";
  QVERIFY2(plot.exportPdf(pdf, &error), qPrintable(error));
  QVERIFY(readAll(pdf).startsWith("%PDF"));
  QVERIFY(readAll(pdf).size() > 1000);
  QCOMPARE(readJson(pdf + ".json").value("metadata").toObject(), sampleMetadata());

  const QString svg = dir + "/" + stem + ".svg";
  QVERIFY2(plot.exportSvg(svg, &error), qPrintable(error));
  QXmlStreamReader xml(readAll(svg));
  QString root;
  int drawing = 0;
  QString desc;
  while (!xml.atEnd()) {
    if (xml.readNext() != QXmlStreamReader::StartElement) continue;
    if (root.isEmpty()) root = xml.name().toString();
    const QString name = xml.name().toString();
    if (name == "path" || name == "polyline" || name == "rect" || name == "line") ++drawing;
    if (name == "desc") desc = xml.readElementText();
  }
  QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
  QCOMPARE(root, QString("svg"));
  QVERIFY(drawing > 5);
  QCOMPARE(QJsonDocument::fromJson(desc.toUtf8()).object().value("metadata").toObject(), sampleMetadata());
  QCOMPARE(readJson(svg + ".json").value("metadata").toObject(), sampleMetadata());

  const QString csvPath = dir + "/" + stem + ".csv";
  QVERIFY2(plot.exportCsv(csvPath, &error), qPrintable(error));
  // The header first (spreadsheets and data-frame readers expect it); the parameters are in the side file.
  QVERIFY(!readAll(csvPath).startsWith("#"));
  const Csv csv = readCsv(csvPath);
  QVERIFY(csv.header.size() >= 3);
  QCOMPARE(csv.rows.size(), expectedRows);
  for (const QStringList& row : csv.rows) QCOMPARE(row.size(), csv.header.size());
  QCOMPARE(readJson(csvPath + ".json").value("metadata").toObject(), sampleMetadata());
}

// A plausible error-vs-ε curve for configuration c: error ≈ a/ε + floor.
void fakeCurve(int c, QVector<double>& eps, QVector<double>& med, QVector<double>& lo, QVector<double>& hi) {
  eps = {0.1, 0.2, 0.5, 1.0, 2.0};
  med.clear();
  lo.clear();
  hi.clear();
  for (double e : eps) {
    const double m = 0.05 + (0.02 + 0.01 * c) / e;
    med << m;
    lo << 0.8 * m;
    hi << 1.25 * m;
  }
}

}  // namespace

class TstPlots : public QObject {
  Q_OBJECT

 private slots:
  void init() { QVERIFY(m_dir.isValid()); }

  void csvNumberRoundTrips() {
    const double values[] = {0.1, 1.0 / 3.0, 1e-300, -2.5e17, 123456789.123456789, 5e-324, 0.0};
    for (double v : values) {
      const QString text = csvNumber(v);
      bool ok = false;
      QCOMPARE(text.toDouble(&ok), v);
      QVERIFY(ok);
    }
    QCOMPARE(csvNumber(std::nan("")), QString("nan"));
    QCOMPARE(csvNumber(-INFINITY), QString("-inf"));
    QCOMPARE(csvField("a,b"), QString("\"a,b\""));
    QCOMPARE(csvField("say \"hi\""), QString("\"say \"\"hi\"\"\""));
    QCOMPARE(csvField("plain"), QString("plain"));
  }

  void paletteSeriesDifferByMoreThanColour() {
    QSet<QRgb> colors;
    for (int i = 0; i < kSeriesColorCount; ++i) colors.insert(seriesColor(i).rgb());
    QCOMPARE(colors.size(), kSeriesColorCount);
    QCOMPARE(seriesColor(kSeriesColorCount).rgb(), seriesColor(0).rgb());  // cycles
    for (int i = 0; i + 1 < 8; ++i) {
      QVERIFY(seriesLineStyle(i) != seriesLineStyle(i + 1));
      QVERIFY(seriesShape(i) != seriesShape(i + 1));
      QCOMPARE(seriesPen(i).color(), seriesColor(i));
      QCOMPARE(seriesPen(i).style(), seriesLineStyle(i));
    }
    QCOMPARE(seriesColor(-3).rgb(), seriesColor(0).rgb());
    QCOMPARE(seriesFill(2, 60).color().alpha(), 60);
  }

  void niceLogTickerLabelsOneTwoFive() {
    ErrorVsEpsilonPlot plot;
    QCOMPARE(plot.xAxis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(plot.xAxis->ticker().dynamicCast<QCPAxisTickerLog>());
    QVector<double> ticks, subTicks;
    QVector<QString> labels;
    plot.xAxis->ticker()->generate(QCPRange(0.1, 2.0), QLocale::c(), 'g', 6, ticks, &subTicks, &labels);
    for (double want : {0.1, 0.2, 0.5, 1.0, 2.0}) {
      bool found = false;
      for (double t : ticks) found = found || std::abs(t - want) < 1e-12;
      QVERIFY2(found, qPrintable(QString("tick %1 missing").arg(want)));
    }
    QVERIFY(labels.contains("0.2"));
    QVERIFY(subTicks.size() >= 3);  // e.g. 0.3, 0.4, 3 ...
    // Over many decades it falls back to one tick per decade.
    plot.xAxis->ticker()->generate(QCPRange(1e-6, 1e6), QLocale::c(), 'g', 6, ticks, &subTicks, &labels);
    for (double t : ticks) QVERIFY(std::abs(std::log10(t) - std::round(std::log10(t))) < 1e-9);
  }

  void errorPlotRejectsBadInput() {
    ErrorVsEpsilonPlot plot;
    QString error;
    QVERIFY(!plot.setCurve("c1", "Config 1", {0.1, 0.2}, {0.5}, {}, {}, -1, &error));
    QVERIFY(error.contains("c1"));
    QVERIFY(!plot.setCurve("c1", "Config 1", {0.0, 0.2}, {0.5, 0.4}, {}, {}, -1, &error));
    QVERIFY(error.contains("positive"));
    QVERIFY(!plot.setCurve("c1", "Config 1", {0.1, 0.2}, {0.5, 0.4}, {0.4}, {0.6, 0.5}, -1, &error));
    QVERIFY(!plot.setCurve("c1", "Config 1", {0.1}, {0.5}, {0.6}, {0.4}, -1, &error));  // lower > upper
    QVERIFY(!plot.hasData());
    QVERIFY(plot.curveKeys().isEmpty());
  }

  void errorPlotExportsAndCsvRoundTrips() {
    ErrorVsEpsilonPlot plot;
    plot.setTitle("Error vs ε");
    QVector<QVector<double>> allEps, allMed, allLo, allHi;
    for (int c = 0; c < 3; ++c) {
      QVector<double> eps, med, lo, hi;
      fakeCurve(c, eps, med, lo, hi);
      // Unsorted input must come out sorted by ε in the CSV.
      std::reverse(eps.begin(), eps.end());
      std::reverse(med.begin(), med.end());
      std::reverse(lo.begin(), lo.end());
      std::reverse(hi.begin(), hi.end());
      QString error;
      QVERIFY2(plot.setCurve(QString("config%1").arg(c + 1), QString("Config %1, \"quoted\"").arg(c + 1), eps, med,
                             lo, hi, c, &error),
               qPrintable(error));
      std::reverse(eps.begin(), eps.end());
      std::reverse(med.begin(), med.end());
      std::reverse(lo.begin(), lo.end());
      std::reverse(hi.begin(), hi.end());
      allEps << eps;
      allMed << med;
      allLo << lo;
      allHi << hi;
    }
    plot.setBaseline("non-private", 0.04);
    QVERIFY(plot.xAxis->range().lower > 0);
    QVERIFY(plot.xAxis->range().lower <= 0.1 && plot.xAxis->range().upper >= 2.0);
    QVERIFY(plot.yAxis->range().upper >= allHi[2][0]);
    checkAllExports(plot, m_dir.path(), "error", 3 * 5 + 1);

    const Csv csv = readCsv(m_dir.path() + "/error.csv");
    QCOMPARE(csv.header, (QStringList{"series_key", "series_label", "epsilon", "median", "lower", "upper"}));
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < 5; ++i) {
        const QStringList& row = csv.rows[c * 5 + i];
        QCOMPARE(row[0], QString("config%1").arg(c + 1));
        QCOMPARE(row[1], QString("Config %1, \"quoted\"").arg(c + 1));
        QCOMPARE(row[2].toDouble(), allEps[c][i]);  // exact: shortest round-trip text
        QCOMPARE(row[3].toDouble(), allMed[c][i]);
        QCOMPARE(row[4].toDouble(), allLo[c][i]);
        QCOMPARE(row[5].toDouble(), allHi[c][i]);
      }
    QCOMPARE(csv.rows.last()[0], QString("baseline"));
    QCOMPARE(csv.rows.last()[3].toDouble(), 0.04);

    // The curves are really drawn: the PNG holds pixels of the first configuration's colour.
    QImage image(m_dir.path() + "/error.png");
    QVERIFY(countNear(image, seriesColor(0), 12) > 200);
    QVERIFY(countNear(image, seriesColor(1), 12) > 200);

    // Replacing and removing curves.
    QVector<double> eps, med, lo, hi;
    fakeCurve(0, eps, med, lo, hi);
    QVERIFY(plot.setCurve("config2", "Config 2", eps, med, {}, {}));
    QCOMPARE(plot.curveKeys().size(), 3);
    plot.removeCurve("config3");
    QCOMPARE(plot.curveKeys(), (QStringList{"config1", "config2"}));
    QCOMPARE(plot.csvTable().rows.size(), 2 * 5 + 1);
    QVERIFY(plot.csvTable().rows[5][4].isEmpty());  // config2 has no band now

    // The random-guess line: a second reference with its own CSV row; NaN removes it.
    plot.setGuess("random guess", 0.6);
    QVERIFY(plot.hasGuess() && plot.hasBaseline());
    QCOMPARE(plot.csvTable().rows.size(), 2 * 5 + 2);
    QVERIFY(plot.yAxis->range().upper >= 0.6);
    plot.setGuess("random guess", std::nan(""));
    QVERIFY(!plot.hasGuess());
    QCOMPARE(plot.csvTable().rows.size(), 2 * 5 + 1);
    // The session's ε: a vertical marker that follows the value.
    plot.setMarkedEpsilon(0.5);
    QCOMPARE(plot.markedEpsilon(), 0.5);
    plot.setMarkedEpsilon(std::nan(""));
    QVERIFY(std::isnan(plot.markedEpsilon()));
    plot.clearCurves();
    QVERIFY(!plot.hasData());
  }

  void errorPlotLogErrorAxis() {
    ErrorVsEpsilonPlot plot;
    QVector<double> eps, med, lo, hi;
    fakeCurve(0, eps, med, lo, hi);
    QVERIFY(plot.setCurve("c", "C", eps, med, lo, hi));
    QCOMPARE(plot.yAxis->scaleType(), QCPAxis::stLinear);
    QCOMPARE(plot.yAxis->range().lower, 0.0);  // errors start at zero on a linear axis
    plot.setLogError(true);
    QCOMPARE(plot.yAxis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(plot.yAxis->range().lower > 0 && plot.yAxis->range().lower <= lo.last());
  }

  void exportFailuresReportAndDoNotCrash() {
    ErrorVsEpsilonPlot empty;
    QString error;
    QVERIFY(!empty.exportPng(m_dir.path() + "/empty.png", 300, 200, 96, &error));
    QVERIFY(error.contains("no data"));
    QVERIFY(!QFile::exists(m_dir.path() + "/empty.png"));
    QVERIFY(!empty.exportCsv(m_dir.path() + "/empty.csv", &error));

    ErrorVsEpsilonPlot plot;
    QVector<double> eps, med, lo, hi;
    fakeCurve(0, eps, med, lo, hi);
    QVERIFY(plot.setCurve("c", "C", eps, med, lo, hi));
    const QString bad = m_dir.path() + "/no/such/dir/plot";
    for (auto format : {ExportFormat::Png, ExportFormat::Pdf, ExportFormat::Svg, ExportFormat::Csv}) {
      error.clear();
      const QString path = bad + "." + exportFormatSuffix(format);
      QVERIFY(!plot.exportTo(path, format, &error));
      QVERIFY2(error.contains(QDir::toNativeSeparators(path)), qPrintable(error));
      QVERIFY(!QFile::exists(path + ".json"));
    }
    QVERIFY(!plot.exportPng(m_dir.path() + "/tiny.png", 0, 200, 96, &error));
    QVERIFY(error.contains("size"));
    QVERIFY(!plot.exportPng(m_dir.path() + "/dpi.png", 300, 200, std::nan(""), &error));
    QVERIFY(error.contains("dpi"));
    QVERIFY(!plot.exportPng(QString(), 300, 200, 96, &error));
  }

  void staleStateIsVisibleAndRecorded() {
    ErrorVsEpsilonPlot plot;
    QVector<double> eps, med, lo, hi;
    fakeCurve(0, eps, med, lo, hi);
    QVERIFY(plot.setCurve("c", "C", eps, med, lo, hi));
    QVERIFY(!plot.isStale());
    const QString fresh = m_dir.path() + "/fresh.png", stale = m_dir.path() + "/stale.png";
    QVERIFY(plot.exportPng(fresh, 500, 350, 96));
    plot.setStale(true);
    QVERIFY(plot.isStale());
    QVERIFY(plot.exportPng(stale, 500, 350, 96));
    QCOMPARE(readJson(stale + ".json").value("stale").toBool(), true);
    QCOMPARE(readJson(fresh + ".json").value("stale").toBool(), false);
    // The veil lightens the curve: fewer fully saturated curve pixels, and the label's colour appears.
    const QImage a(fresh), b(stale);
    QVERIFY(countNear(b, seriesColor(0), 10) < countNear(a, seriesColor(0), 10) / 2);
    QVERIFY(countNear(b, staleColor().darker(130), 25) > 30);
    QCOMPARE(countNear(a, staleColor().darker(130), 25), 0);
    plot.setStale(false);
    QVERIFY(!plot.isStale());
  }

  void hoverReadoutFindsNearestPoint() {
    ErrorVsEpsilonPlot plot;
    QVector<double> eps, med, lo, hi;
    fakeCurve(0, eps, med, lo, hi);
    QVERIFY(plot.setCurve("c1", "Config 1", eps, med, lo, hi, 0));
    QVector<double> med2 = med;
    for (double& m : med2) m *= 2.0;
    QVERIFY(plot.setCurve("c2", "Config 2", eps, med2, {}, {}, 1));
    plot.resize(640, 420);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replot();
    const QPointF p(plot.xAxis->coordToPixel(0.5), plot.yAxis->coordToPixel(med2[2]));
    const QString text = plot.readoutAt(p + QPointF(3, -2));
    QVERIFY2(text.contains("Config 2"), qPrintable(text));
    QVERIFY2(text.contains("ε = 0.5"), qPrintable(text));
    QVERIFY2(text.contains(QString::number(med2[2], 'g', 4)), qPrintable(text));
    const QPointF q(plot.xAxis->coordToPixel(1.0), plot.yAxis->coordToPixel(med[3]));
    QVERIFY(plot.readoutAt(q).contains("Config 1"));
    // Far from every point: nothing.
    QVERIFY(plot.yAxis->range().contains(0.45));
    QVERIFY(plot.readoutAt(QPointF(plot.xAxis->coordToPixel(0.3), plot.yAxis->coordToPixel(0.45))).isEmpty());
  }

  void legendClickHidesSeriesAndBand() {
    ErrorVsEpsilonPlot plot;
    QVector<double> eps, med, lo, hi;
    fakeCurve(0, eps, med, lo, hi);
    QVERIFY(plot.setCurve("c1", "Config 1", eps, med, lo, hi, 0));
    plot.resize(640, 420);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replot();
    QCOMPARE(plot.legend->itemCount(), 1);
    const QPoint at = plot.legend->item(0)->outerRect().center();
    QTest::mouseClick(&plot, Qt::LeftButton, {}, at);
    for (int i = 0; i < plot.graphCount(); ++i) QVERIFY(!plot.graph(i)->visible());
    // Hidden series give no readout.
    QVERIFY(plot.readoutAt(QPointF(plot.xAxis->coordToPixel(0.5), plot.yAxis->coordToPixel(med[2]))).isEmpty());
    QTest::mouseClick(&plot, Qt::LeftButton, {}, at);
    for (int i = 0; i < plot.graphCount(); ++i) QVERIFY(plot.graph(i)->visible());
  }

  void legendMovesToTheEmptiestCorner() {
    SigmaGammaPlot plot;
    plot.resize(640, 420);
    // Points crowd the top right; the bottom right is empty; the line runs from bottom left.
    QVERIFY(plot.setSeries("a", "a", {0, 7, 8, 9, 10}, {0, 9, 10, 9, 10}));
    QVERIFY(plot.setSeries("b", "b", {0, 1, 2}, {10, 9, 10}));  // and the top left
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replot();
    QCOMPARE(plot.legendCorner(), Qt::AlignBottom | Qt::AlignRight);
    QCOMPARE(plot.dataPixelsUnder(plot.legend->outerRect()), 0);
    QVERIFY(plot.dataPixelsUnder(QRectF(plot.axisRect()->rect().topLeft(), plot.legend->outerRect().size())) > 0);
    plot.setLegendCorner(Qt::AlignTop | Qt::AlignLeft);  // a fixed corner, but never over data
    plot.replot();
    QCOMPARE(plot.legendCorner(), Qt::AlignBottom | Qt::AlignRight);
    QVERIFY(plot.setSeries("b", "b", {0, 1, 2}, {4, 5, 4}));  // the top left is free now: the fixed corner holds
    plot.replot();
    QCOMPARE(plot.legendCorner(), Qt::AlignTop | Qt::AlignLeft);
  }

  void shortPlotPutsTheLegendBesideTheData() {
    // Four entries on a low, wide plot (the Sweeps tab at 1280x720) would cover the data: the
    // legend goes beside it; made tall again, the plot takes the legend back inside.
    SeriesPlot plot;
    for (int i = 0; i < 4; ++i)
      QVERIFY(plot.setSeries(QString::number(i), "configuration " + QString::number(i), {0.1, 1, 2}, {1.0 + i, 2, 3}));
    plot.resize(700, 190);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replot();
    QRect data = plot.axisRect()->rect(), legend = plot.legend->outerRect();
    QVERIFY2(!data.intersects(legend), "the legend covers the data of a short plot");
    QVERIFY(legend.left() > data.right() && plot.rect().contains(legend));
    plot.resize(700, 600);
    plot.replot();
    data = plot.axisRect()->rect();
    legend = plot.legend->outerRect();
    QVERIFY2(data.contains(legend), "a tall plot keeps its legend over the data");
    QVERIFY(data.width() > 550);  // and the room beside the data is given back
  }

  void longTitleAndFootnoteWrapToTheWidth() {
    // A preset's long title (sound-utility's) was cut at both edges of an exported figure.
    SeriesPlot plot;
    const QString title = QString("a long title word ").repeated(12).trimmed();
    plot.setTitle(title);
    QVERIFY(plot.setSeries("a", "a", {1, 2}, {1, 2}));
    plot.setFootnote(QString("footnote word ").repeated(20).trimmed());
    plot.resize(420, 320);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replot();
    QCPTextElement *top = nullptr, *bottom = nullptr;
    for (QCPLayoutElement* e : plot.plotLayout()->elements(true))
      if (auto* t = qobject_cast<QCPTextElement*>(e)) (t->text().startsWith("a long") ? top : bottom) = t;
    QVERIFY(top && bottom);
    for (QCPTextElement* e : {top, bottom}) {
      QVERIFY2(e->text().contains('\n'), qPrintable(e->text()));
      QVERIFY(QFontMetrics(e->font()).boundingRect(QRect(0, 0, 10000, 10000), 0, e->text()).width() <= plot.width());
    }
    QCOMPARE(plot.title(), title);  // exports name the file and the metadata after the whole title
    plot.resize(4000, 320);  // wide enough again: one line
    plot.replot();
    QVERIFY(!top->text().contains('\n'));
  }

  void emptyLegendIsHidden() {
    // No empty legend box on a plot without series; the user's choice is kept apart.
    SeriesPlot plot;
    plot.resize(400, 300);
    plot.replot();
    QVERIFY(!plot.legend->visible());
    QVERIFY(plot.isLegendShown());
    QVERIFY(plot.setSeries("a", "a", {1, 2}, {1, 2}));
    plot.replot();
    QVERIFY(plot.legend->visible());
    plot.setLegendShown(false);
    plot.replot();
    QVERIFY(!plot.legend->visible() && !plot.isLegendShown());
    plot.setLegendShown(true);
    plot.clearSeries();
    plot.replot();
    QVERIFY(!plot.legend->visible() && plot.isLegendShown());
  }

  void proportionAxisRunsFromZeroToOne() {
    // A release rate at 0 and 1 in every corner: the axis shows 0 to 1 only (issue 24: it ran
    // to 1.4 to make room for the legend), and the legend, with no free corner, goes beside the data.
    SeriesPlot plot;
    plot.resize(640, 420);
    QVERIFY(plot.setSeries("a", "config 1", {0.1, 1, 2}, {1, 1, 1}));
    QVERIFY(plot.setSeries("b", "config 3", {0.1, 1, 2}, {0, 0, 0}));
    plot.setProportionY(true);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.resetView();
    plot.replot();
    QVERIFY(plot.yAxis->range().lower < 0 && plot.yAxis->range().lower > -0.05);
    QVERIFY(plot.yAxis->range().upper > 1 && plot.yAxis->range().upper < 1.05);
    for (double t : plot.yAxis->tickVector())
      if (plot.yAxis->range().contains(t)) QVERIFY2(t >= 0 && t <= 1, qPrintable(QString::number(t)));
    const QRect legendRect = plot.legend->outerRect();
    QVERIFY2(!plot.axisRect()->rect().intersects(legendRect), "the legend covers the points at 0 or 1");
    plot.setProportionY(false);  // back to the data's range
    QVERIFY(plot.yAxis->range().upper < 1.2);
  }

  void sigmaGammaPlot() {
    SigmaGammaPlot plot;
    const QVector<double> k = {2, 3, 4, 5, 6, 7};
    QVector<double> sigma, sigmaTilde, gamma, gammaTilde;
    for (double x : k) {
      sigma << 1.0 / x;
      sigmaTilde << 1.0 / x - 0.2;  // the private lower bound can go negative
      gamma << 0.3 / (x * x);
      gammaTilde << 0.3 / (x * x) - 0.002;
    }
    QVERIFY(plot.setSeries("sigma", "σ_k(M̂2)", k, sigma));
    QVERIFY(plot.setSeries("sigma_tilde", "σ̃_k (private lower bound)", k, sigmaTilde));
    QVERIFY(plot.setSeries("gamma", "γ_s", k, gamma));
    QVERIFY(plot.setSeries("gamma_tilde", "γ̃_s", k, gammaTilde));
    QString error;
    QVERIFY(!plot.setSeries("bad", "bad", {1, 2}, {1}, -1, &error));
    QVERIFY(error.contains("bad"));
    QVERIFY(!plot.setSeries("bad", "bad", {1, std::nan("")}, {1, 2}, -1, &error));
    QCOMPARE(plot.seriesKeys().size(), 4);
    QCOMPARE(plot.hiddenPointCount(), 0);
    plot.setLogY(true);
    int nonPositive = 0;
    for (double v : sigmaTilde) nonPositive += v <= 0;
    for (double v : gammaTilde) nonPositive += v <= 0;
    QVERIFY(nonPositive > 0);
    QCOMPARE(plot.hiddenPointCount(), nonPositive);
    QVERIFY(plot.footnote().startsWith(QString::number(nonPositive) + " point(s) ≤ 0"));
    QVERIFY(plot.yAxis->range().lower > 0);
    checkAllExports(plot, m_dir.path(), "sigma_gamma", 4 * 6);  // hidden points stay in the CSV
    plot.setLogY(false);
    QCOMPARE(plot.hiddenPointCount(), 0);
    QVERIFY(plot.footnote().isEmpty());
    const Csv csv = readCsv(m_dir.path() + "/sigma_gamma.csv");
    QCOMPARE(csv.header, (QStringList{"series_key", "series_label", "x", "y"}));
    QCOMPARE(csv.rows[6][0], QString("sigma_tilde"));
    QCOMPARE(csv.rows[6][3].toDouble(), sigmaTilde[0]);
    plot.removeSeries("gamma");
    QCOMPARE(plot.csvTable().rows.size(), 3 * 6);
  }

  void eigenSpectrumPlot() {
    EigenSpectrumPlot plot;
    QString error;
    QVERIFY(!plot.setSpectrum({}, 1, &error));
    QVERIFY(!plot.setSpectrum({3, 2, 1}, 4, &error));
    QVERIFY(error.contains("k = 4"));
    QVERIFY(!plot.setSpectrum({3, std::nan(""), 1}, 1, &error));
    QVERIFY(!plot.hasData());
    const QVector<double> sigmas = {5.0, 3.0, 2.0, 0.5, -0.1};
    QVERIFY(plot.setSpectrum(sigmas, 3));
    QCOMPARE(plot.gap(), 1.5);
    QVERIFY(plot.yAxis->range().lower < -0.1);  // the negative eigenvalue is visible
    checkAllExports(plot, m_dir.path(), "spectrum", 5);
    const Csv csv = readCsv(m_dir.path() + "/spectrum.csv");
    QCOMPARE(csv.header, (QStringList{"index", "sigma", "in_top_k", "k"}));
    for (int i = 0; i < 5; ++i) {
      QCOMPARE(csv.rows[i][0].toInt(), i + 1);
      QCOMPARE(csv.rows[i][1].toDouble(), sigmas[i]);
      QCOMPARE(csv.rows[i][2], QString(i < 3 ? "1" : "0"));
    }
    QVERIFY(plot.setSpectrum({2, 1}, 2));
    QVERIFY(std::isnan(plot.gap()));  // no σ_{k+1}: no gap
  }

  void topicsPlot() {
    // Three true topics over six words; recovered topics are a noisy permutation.
    const QVector<QVector<double>> truth = {{0.5, 0.3, 0.1, 0.05, 0.05, 0.0},
                                            {0.0, 0.1, 0.2, 0.3, 0.4, 0.0},
                                            {0.1, 0.1, 0.1, 0.1, 0.1, 0.5}};
    const QVector<QVector<double>> recovered = {{0.1, 0.1, 0.2, 0.3, 0.3, 0.0},
                                                {0.12, 0.08, 0.1, 0.1, 0.1, 0.5},
                                                {0.45, 0.35, 0.1, 0.05, 0.05, 0.0}};
    const QVector<int> matching = {2, 0, 1};
    const QStringList words = {"gene", "dna", "cell", "ball", "goal", "vote"};
    TopicsPlot plot;
    QString error;
    QVERIFY(!plot.setTopics(truth, recovered, {2, 0, 5}, words, 3, &error));
    QVERIFY(error.contains("matching[2]"));
    QVERIFY(!plot.setTopics(truth, recovered, matching, {"a"}, 3, &error));
    QVERIFY(!plot.setTopics(truth, {{0.5, 0.5}}, {0, 0, 0}, {}, 3, &error));
    QVERIFY(!plot.hasData());
    QVERIFY2(plot.setTopics(truth, recovered, matching, words, 3, &error), qPrintable(error));
    QCOMPARE(plot.topicCount(), 3);
    QCOMPARE(plot.shownWords(), (QVector<int>{0, 1, 2}));  // by max(true, recovered)
    // Topic 1 vs recovered 3: |0.5 - 0.45| + |0.3 - 0.35| = 0.1 in ℓ1.
    QVERIFY2(plot.footnote().contains("ℓ₁ = 0.1,"), qPrintable(plot.footnote()));
    plot.setCurrentTopic(1);
    QCOMPARE(plot.shownWords(), (QVector<int>{4, 3, 2}));  // goal 0.4, ball 0.3, then cell 0.2 (max)
    plot.setCurrentTopic(99);
    QCOMPARE(plot.currentTopic(), 2);
    QCOMPARE(plot.shownWords().first(), 5);  // "vote"
    checkAllExports(plot, m_dir.path(), "topics", 3 * 3);
    const Csv csv = readCsv(m_dir.path() + "/topics.csv");
    QCOMPARE(csv.header, (QStringList{"topic", "recovered_topic", "rank", "word_index", "word", "true_prob",
                                      "recovered_prob"}));
    for (const QStringList& row : csv.rows) {
      const int t = row[0].toInt() - 1, r = row[1].toInt() - 1, w = row[3].toInt();
      QCOMPARE(r, matching[t]);
      QCOMPARE(row[4], words[w]);
      QCOMPARE(row[5].toDouble(), truth[t][w]);
      QCOMPARE(row[6].toDouble(), recovered[r][w]);
    }
    // Without truth (real data): recovered topics only.
    QVERIFY(plot.setTopics({}, recovered, {}, {}, 2, &error));
    QCOMPARE(plot.topicCount(), 3);
    QCOMPARE(plot.csvTable().rows.first()[4], QString("w%1").arg(plot.csvTable().rows.first()[3]));
  }

  void failureProbabilityPlot() {
    const auto [lo, hi] = wilsonInterval(0.5, 100);  // reference: 0.4038, 0.5962
    QVERIFY(std::abs(lo - 0.40383) < 1e-4);
    QVERIFY(std::abs(hi - 0.59617) < 1e-4);
    const auto [lo0, hi0] = wilsonInterval(0.0, 20);  // reference: [0, 0.1611]
    QCOMPARE(lo0, 0.0);
    QVERIFY(std::abs(hi0 - 0.16113) < 1e-4);

    FailureProbabilityPlot plot;
    plot.setNoiseLabel("σ√d");
    QVERIFY(plot.xAxis->label().contains("σ√d"));
    QString error;
    QVERIFY(!plot.setSeries("d25", "d = 25", {0.1, 0.2}, {0.5, 1.2}, -1, &error));
    QVERIFY(error.contains("[0, 1]"));
    const QVector<double> xs = {0.4, 0.1, 0.2, 0.8};  // unsorted on purpose
    const QVector<double> ys = {0.6, 0.0, 0.1, 1.0};
    QVERIFY(plot.setSeries("d25", "d = 25", xs, ys));
    QVERIFY(plot.setSeries("d50", "d = 50", {0.1, 0.2, 0.4, 0.8}, {0.0, 0.3, 0.9, 1.0}));
    QVERIFY(!plot.setTrials("d25", {10, 10}, &error));
    QVERIFY(!plot.setTrials("nope", {10}, &error));
    QVERIFY(plot.setTrials("d25", {40, 10, 20, 30}));
    QCOMPARE(plot.yAxis->range().lower, -0.03);
    QCOMPARE(plot.yAxis->range().upper, 1.03);
    checkAllExports(plot, m_dir.path(), "tpm", 8);
    const Csv csv = readCsv(m_dir.path() + "/tpm.csv");
    QCOMPARE(csv.header, (QStringList{"series_key", "series_label", "x", "y", "trials", "ci95_low", "ci95_high"}));
    // Sorted by x, trials follow their points: x = 0.4 had 40 trials.
    QCOMPARE(csv.rows[2][2].toDouble(), 0.4);
    QCOMPARE(csv.rows[2][4], QString("40"));
    QCOMPARE(csv.rows[2][5].toDouble(), wilsonInterval(0.6, 40).first);
    QVERIFY(csv.rows[4][4].isEmpty());  // d50 has no trial counts
    plot.setLogX(true);
    QCOMPARE(plot.xAxis->scaleType(), QCPAxis::stLogarithmic);
    // Setting the series again drops stale trial counts.
    QVERIFY(plot.setSeries("d25", "d = 25", xs, ys));
    QVERIFY(plot.csvTable().rows[0][4].isEmpty());
  }

 private:
  QTemporaryDir m_dir;
};

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  TstPlots test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_plots.moc"
