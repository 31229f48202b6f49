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

#include "plot_files.h"
#include "ui/common/palette.h"
#include "ui/plots/diagnostics_plot.h"
#include "ui/plots/error_epsilon_plot.h"
#include "ui/plots/log_ticker.h"
#include "ui/plots/series_plot.h"
#include "ui/plots/plot_widget.h"

using namespace dplda;
using namespace dplda::plot_files;

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
