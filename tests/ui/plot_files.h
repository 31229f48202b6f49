#pragma once
// Helpers of the plot tests (tst_plots.cpp, tst_diagnostic_plots.cpp): reading what an export
// wrote (CSV with RFC 4180 quoting, the JSON side files) and checking all four export formats.
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QXmlStreamReader>
#include <QtTest>
#include <cmath>

#include "csv_fields.h"
#include "ui/plots/plot_widget.h"

namespace dplda::plot_files {
inline QJsonObject sampleMetadata() {
  QJsonObject m;
  m.insert("config", "2");
  m.insert("seed_data", 12345);
  m.insert("seed_noise", 777);
  m.insert("delta", 1e-5);
  return m;
}

inline QByteArray readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

inline QJsonObject readJson(const QString& path) { return QJsonDocument::fromJson(readAll(path)).object(); }

struct Csv {
  QStringList header;
  QVector<QStringList> rows;
};

inline Csv readCsv(const QString& path) {
  Csv csv;
  const QStringList lines = QString::fromUtf8(readAll(path)).split('\n', Qt::SkipEmptyParts);
  for (const QString& line : lines) {
    if (csv.header.isEmpty()) {
      csv.header = csvFields(line);
    } else {
      csv.rows.append(csvFields(line));
    }
  }
  return csv;
}

inline int countNear(const QImage& image, const QColor& color, int tolerance) {
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
inline void checkAllExports(PlotWidget& plot, const QString& dir, const QString& stem, int expectedRows) {
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
inline void fakeCurve(int c, QVector<double>& eps, QVector<double>& med, QVector<double>& lo, QVector<double>& hi) {
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

}  // namespace dplda::plot_files
