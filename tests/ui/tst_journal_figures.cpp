// Issue 24: every preset's figures at journal sizes, correct by construction. Each figure is made
// from a small run of its preset and laid out as the exports lay it out (one column, 3.5 in, and
// two columns, 7 in): text of at least 6.5 pt, no two tick labels or titles overlapping, all text
// on the page, the data area at least half the page's height, y axes not inverted, and a legend
// that covers no drawn data. Every figure's PDF is then read back with `pdftotext -bbox`
// (poppler-utils): no two words overlap and every word lies on the page.
#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <set>
#include <algorithm>
#include <cmath>

#include "core/experiments/presets.h"
#include "ui/common/palette.h"
#include "ui/experiments/experiment_output.h"

using namespace dplda;

namespace {

// The first, middle and last values of `v`.
template <class T>
std::vector<T> ends(const std::vector<T>& v) {
  if (v.size() <= 3) return v;
  return {v.front(), v[v.size() / 2], v.back()};
}

// A preset's run at a size a test affords: the same cases, configurations and figures, on
// fewer documents, ε values and trials.
ExperimentRun smallRun(const std::string& name) {
  PresetOverrides ov;
  ov.trials = 2;
  ov.threads = 2;
  ov.seed = 3;
  ExperimentRun run;
  run.preset = makeExperimentPreset(name, ov).value();
  run.finished = true;
  ExperimentPreset& p = run.preset;
  switch (p.kind) {
    case ExperimentKind::TpmNoise:
      p.tpm.dims = {8, 12};
      for (auto& m : p.tpm.models) m.sigmas = ends(m.sigmas);
      run.tpm = std::make_shared<const TpmNoiseResult>(runTpmNoise(p.tpm).value());
      break;
    case ExperimentKind::OnlineTpm:
      p.online.corpus.docCount = 4000;
      p.online.batchSizes = {200, 2000};
      p.online.iterations = 10;
      run.online = std::make_shared<const OnlineTpmResult>(runOnlineTpm(p.online).value());
      break;
    case ExperimentKind::DpTpm: {
      std::vector<DpTpmCase> kept;
      for (DpTpmCase c : p.dp.cases) {
        const auto sameGroup = std::count_if(kept.begin(), kept.end(), [&](const DpTpmCase& k) { return k.group == c.group; });
        if (sameGroup >= 2) continue;
        c.d = std::min(c.d, 20);
        c.epsilons = ends(c.epsilons);
        kept.push_back(c);
      }
      p.dp.cases = kept;
      p.dp.iterations = 10;
      run.dp = std::make_shared<const DpTpmResult>(runDpTpm(p.dp).value());
      break;
    }
    default:
      for (SweepCase& c : p.sweep.cases)
        if (c.source.generator) c.source.generator->docCount = 3000;
      // Up to ε's where the sound bounds release on a small corpus, so that every curve is drawn.
      if (p.kind == ExperimentKind::ErrorSweep)
        p.sweep.epsilons = {p.sweep.epsilons.front(), 1e3, std::max(1e5, p.sweep.epsilons.back())};
      p.sweep.vi.iterations = 3;
      run.sweep = std::make_shared<const SweepResult>(runSweep(p.sweep).value());
  }
  return run;
}

QString rectText(const QRectF& r) {
  return QString("(%1, %2 %3×%4)").arg(r.x(), 0, 'f', 1).arg(r.y(), 0, 'f', 1).arg(r.width(), 0, 'f', 1).arg(r.height(), 0, 'f', 1);
}

// Where a text element draws its (possibly wrapped) text.
QRectF textRect(const QCPTextElement* e) {
  return QFontMetricsF(e->font()).boundingRect(e->rect(), Qt::AlignCenter | Qt::TextDontClip, e->text());
}

// Whether drawn data lies under `rect`, sampled every pixel along every graph's segments,
// at its markers, inside the bands between two graphs, and at every pixel of bars.
QString dataUnder(PlotWidget& plot, const QRectF& rect) {
  const QRectF inner = rect.adjusted(1, 1, -1, -1);
  for (int i = 0; i < plot.plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot.plottable(i);
    if (!p->visible()) continue;
    if (auto* bars = qobject_cast<QCPBars*>(p)) {
      for (double y = inner.top(); y <= inner.bottom(); y += 1)
        for (double x = inner.left(); x <= inner.right(); x += 1)
          if (bars->selectTest(QPointF(x, y), false) >= 0) return p->name() + " (a bar)";
      continue;
    }
    auto* graph = qobject_cast<QCPGraph*>(p);
    if (!graph) continue;
    QVector<QPointF> px;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
      const bool ok = std::isfinite(it->value) &&
                      (graph->valueAxis()->scaleType() != QCPAxis::stLogarithmic || it->value > 0);
      px << (ok ? graph->coordsToPixels(it->key, it->value) : QPointF(qQNaN(), qQNaN()));
    }
    const double reach = graph->pen().widthF() / 2;
    const double marker = graph->scatterStyle().isNone() ? 0 : graph->scatterStyle().size() / 2;
    for (int j = 0; j < px.size(); ++j) {
      if (!std::isfinite(px[j].x())) continue;
      if (marker > 0 && inner.adjusted(-marker, -marker, marker, marker).contains(px[j]))
        return p->name() + " (a marker at " + rectText(QRectF(px[j], QSizeF())) + ")";
      if (j == 0 || !std::isfinite(px[j - 1].x()) || graph->lineStyle() == QCPGraph::lsNone) continue;
      const QLineF segment(px[j - 1], px[j]);
      const int steps = std::min(200000, static_cast<int>(segment.length()) + 1);
      for (int s = 0; s <= steps; ++s)
        if (inner.adjusted(-reach, -reach, reach, reach).contains(segment.pointAt(double(s) / steps)))
          return p->name() + " (its line)";
    }
    if (QCPGraph* other = graph->channelFillGraph()) {
      // The band is filled between neighbouring points where both bounds are finite (a NaN is a
      // gap in the fill, as QCustomPlot draws it).
      QVector<QPointF> below;
      for (auto it = other->data()->constBegin(); it != other->data()->constEnd(); ++it)
        below << (std::isfinite(it->value) ? other->coordsToPixels(it->key, it->value) : QPointF(qQNaN(), qQNaN()));
      auto finite = [](const QPointF& q) { return std::isfinite(q.x()) && std::isfinite(q.y()); };
      for (int j = 1; j < px.size() && j < below.size(); ++j) {
        if (!finite(px[j - 1]) || !finite(px[j]) || !finite(below[j - 1]) || !finite(below[j])) continue;
        const QPolygonF band({px[j - 1], px[j], below[j], below[j - 1]});
        for (double y = inner.top(); y <= inner.bottom(); y += 1)
          for (double x = inner.left(); x <= inner.right(); x += 1)
            if (band.containsPoint(QPointF(x, y), Qt::OddEvenFill)) return p->name() + " (its band)";
      }
    }
  }
  return {};
}

struct PdfWord {
  QString text;
  QRectF box;
};

// Words of page 1 with their boxes (points) from `pdftotext -bbox`; false when the tool is missing.
bool pdfWords(const QString& pdf, QSizeF* page, QVector<PdfWord>* words) {
  const QString tool = QStandardPaths::findExecutable("pdftotext");
  if (tool.isEmpty()) return false;
  QProcess p;
  p.start(tool, {"-bbox", "-f", "1", "-l", "1", pdf, "-"});
  if (!p.waitForFinished(30000) || p.exitCode() != 0) return false;
  const QString html = QString::fromUtf8(p.readAllStandardOutput());
  static const QRegularExpression pageRe("<page width=\"([\\d.]+)\" height=\"([\\d.]+)\"");
  static const QRegularExpression wordRe(
      "<word xMin=\"([\\d.-]+)\" yMin=\"([\\d.-]+)\" xMax=\"([\\d.-]+)\" yMax=\"([\\d.-]+)\">([^<]*)</word>");
  const auto m = pageRe.match(html);
  if (!m.hasMatch()) return false;
  *page = QSizeF(m.captured(1).toDouble(), m.captured(2).toDouble());
  for (auto it = wordRe.globalMatch(html); it.hasNext();) {
    const auto w = it.next();
    // A lone combining mark (the hat of a rotated "v̂") comes back as a box of zero height: not text a reader sees.
    if (w.captured(2) == w.captured(4) || w.captured(1) == w.captured(3)) continue;
    words->append({w.captured(5), QRectF(QPointF(w.captured(1).toDouble(), w.captured(2).toDouble()),
                                         QPointF(w.captured(3).toDouble(), w.captured(4).toDouble()))});
  }
  return true;
}

// Pairs of words whose boxes overlap by more than `tolerance` points each way.
QStringList overlappingWords(const QVector<PdfWord>& words, double tolerance = 0.5) {
  QStringList out;
  for (int i = 0; i < words.size(); ++i)
    for (int j = i + 1; j < words.size(); ++j) {
      const QRectF both = words[i].box.intersected(words[j].box);
      if (both.width() > tolerance && both.height() > tolerance)
        out << QString("'%1' %2 and '%3' %4").arg(words[i].text, rectText(words[i].box), words[j].text, rectText(words[j].box));
    }
  return out;
}

}  // namespace

class TstJournalFigures : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void everyPresetsFiguresFitAJournalPage_data() {
    QTest::addColumn<QString>("preset");
    // figure3 runs on a real corpus (its figures are the sweep presets' error and release figures).
    const std::set<std::string> elsewhere = {"figure3"};
    for (const std::string& name : experimentPresetNames())
      if (!elsewhere.count(name)) QTest::newRow(name.c_str()) << QString::fromStdString(name);
  }

  void everyPresetsFiguresFitAJournalPage() {
    QFETCH(QString, preset);
    const ExperimentRun run = smallRun(preset.toStdString());
    const std::vector<ExperimentFigure> figures = experimentFigures(run);
    QVERIFY(!figures.empty());
    QTemporaryDir tmp;
    // DPLDA_JOURNAL_KEEP=DIR keeps the PDFs there, to look at.
    const QString keep = qEnvironmentVariable("DPLDA_JOURNAL_KEEP");
    const QDir dir(keep.isEmpty() ? tmp.path() : keep);
    const bool havePdfText = !QStandardPaths::findExecutable("pdftotext").isEmpty();
    double smallestFraction = 1.0, smallestPt = 100.0, tallest = 1.0;
    for (const ExperimentFigure& f : figures) {
      std::unique_ptr<PlotWidget> plot = f.create();
      QString error;
      QVERIFY2(f.fill(*plot, &error), qPrintable(f.key + ": " + error));
      plot->setTitle(f.title);
      if (!keep.isEmpty())  // before any check can stop the test
        for (const char* sizeName : {"column", "two-column"}) {
          plot->setExportSize(PlotWidget::pageSizeFromText(sizeName, &error));
          plot->exportPdf(dir.filePath(preset + "_" + f.key + "_" + sizeName + ".pdf"), &error);
        }
      for (const QString& sizeName : {QString("column"), QString("two-column")}) {
        const QSize asked = PlotWidget::pageSizeFromText(sizeName, &error);
        QVERIFY(asked.isValid());
        // The page the exports draw: the journal's width, taller only when the data needs it.
        const QSize page = plot->pageSizeFor(asked);
        QCOMPARE(page.width(), asked.width());
        QVERIFY2(page.height() >= asked.height() && page.height() <= 2 * asked.height(), qPrintable(f.key));
        tallest = std::max(tallest, double(page.height()) / asked.height());
        const QString what = f.key + " at " + sizeName;
        plot->beginPageLayout(page);
        const QRect data = plot->axisRect()->rect();
        smallestFraction = std::min(smallestFraction, double(data.height()) / page.height());
        QVERIFY2(data.height() >= page.height() / 2,
                 qPrintable(QString("%1: data area %2×%3 of a %4×%5 page").arg(what).arg(data.width()).arg(data.height())
                                .arg(page.width()).arg(page.height())));
        QVERIFY2(data.width() >= page.width() / 3, qPrintable(what + ": data area " + rectText(data)));
        for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
          QVERIFY2(!axis->rangeReversed(), qPrintable(what));
          const double lo = axis->coordToPixel(axis->range().lower), hi = axis->coordToPixel(axis->range().upper);
          QVERIFY2(axis == plot->yAxis ? hi < lo : lo < hi, qPrintable(what + ": an axis runs backwards"));
        }
        // Text: every box on the page, none over another; fonts of at least 6.5 pt.
        QVector<QPair<QString, QRectF>> texts;
        QVector<double> points;
        for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
          points << axis->tickLabelFont().pointSizeF() << axis->labelFont().pointSizeF();
          const QVector<QRectF> ticks = PlotWidget::tickLabelRects(axis);
          QVERIFY2(ticks.size() >= 2 || axis->ticker().dynamicCast<QCPAxisTickerText>(),
                   qPrintable(QString("%1: %2 tick labels").arg(what).arg(ticks.size())));
          for (const QRectF& r : ticks) texts.append({"tick label", r});
        }
        for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
          if (auto* t = qobject_cast<QCPTextElement*>(e); t && !t->text().isEmpty()) {
            texts.append({t->text().left(20), textRect(t)});
            points << t->font().pointSizeF();
          }
        const QRect legend = plot->legend->visible() ? plot->legend->outerRect() : QRect();
        if (!legend.isEmpty()) {
          points << plot->legend->font().pointSizeF();
          texts.append({"legend", legend});
        }
        smallestPt = std::min(smallestPt, *std::min_element(points.begin(), points.end()));
        for (double pt : points) QVERIFY2(pt >= 6.5, qPrintable(QString("%1: a %2 pt font").arg(what).arg(pt)));
        const QRectF pageRect(QPointF(0, 0), QSizeF(page));
        for (int i = 0; i < texts.size(); ++i) {
          QVERIFY2(pageRect.adjusted(-0.5, -0.5, 0.5, 0.5).contains(texts[i].second),
                   qPrintable(what + ": " + texts[i].first + " " + rectText(texts[i].second) + " leaves the page"));
          for (int j = i + 1; j < texts.size(); ++j) {
            const QRectF both = texts[i].second.intersected(texts[j].second);
            QVERIFY2(both.width() <= 0.5 || both.height() <= 0.5,
                     qPrintable(QString("%1: %2 %3 overlaps %4 %5").arg(what, texts[i].first, rectText(texts[i].second),
                                                                        texts[j].first, rectText(texts[j].second))));
          }
        }
        if (!legend.isEmpty()) {
          // Data is drawn clipped to the data area: a legend beside it covers nothing, although a
          // line such as the random guess runs on past the axis range (to x = 1e8) in data terms.
          const QRectF overData = QRectF(legend).intersected(QRectF(plot->axisRect()->rect()));
          const QString covered = overData.isEmpty() ? QString() : dataUnder(*plot, overData);
          QVERIFY2(covered.isEmpty(), qPrintable(what + ": the legend " + rectText(legend) + " covers " + covered));
        }
        plot->endPageLayout();

        // The PDF as a reader's tools see it.
        if (!havePdfText || !plot->hasData()) continue;
        plot->setExportSize(asked);
        const QString pdf = dir.filePath(preset + "_" + f.key + "_" + sizeName + ".pdf");
        QVERIFY2(plot->exportPdf(pdf, &error), qPrintable(error));
        QSizeF pdfPage;
        QVector<PdfWord> words;
        QVERIFY2(pdfWords(pdf, &pdfPage, &words), qPrintable(what + ": pdftotext could not read the PDF"));
        QCOMPARE(qRound(pdfPage.width()), qRound(page.width() * 0.75));
        QCOMPARE(qRound(pdfPage.height()), qRound(page.height() * 0.75));
        QVERIFY2(words.size() >= 5, qPrintable(QString("%1: %2 words").arg(what).arg(words.size())));
        const QRectF sheet(QPointF(0, 0), pdfPage);
        for (const PdfWord& w : words)
          QVERIFY2(sheet.adjusted(-0.5, -0.5, 0.5, 0.5).contains(w.box),
                   qPrintable(what + ": '" + w.text + "' " + rectText(w.box) + " leaves the page"));
        const QStringList overlaps = overlappingWords(words);
        QVERIFY2(overlaps.isEmpty(), qPrintable(what + ": " + overlaps.join("; ")));
      }
    }
    qInfo("%s: %d figures; smallest data area %.0f%% of the page height, smallest text %.1f pt, tallest page %.2f× the asked height",
          qPrintable(preset), int(figures.size()), 100 * smallestFraction, smallestPt, tallest);
  }

  void figureSizeText() {
    QString error;
    QCOMPARE(PlotWidget::pageSizeFromText("column", &error).width(), 336);    // 3.5 in
    QCOMPARE(PlotWidget::pageSizeFromText("two-column", &error).width(), 672);  // 7 in
    QCOMPARE(PlotWidget::pageSizeFromText("3.5x2", &error), QSize(336, 192));
    QCOMPARE(PlotWidget::pageSizeFromText("7 × 4.5", &error), QSize(672, 432));
    for (const char* bad : {"", "columns", "0x2", "3.5", "3.5x", "50x3", "x2", "-3x2"}) {
      error.clear();
      QVERIFY2(!PlotWidget::pageSizeFromText(bad, &error).isValid(), bad);
      QVERIFY2(error.contains(QString("'%1'").arg(bad)), qPrintable(error));
    }
  }

  void configurationsHaveDistinctStyles() {
    // One style per configuration (colour, line and marker together), none the non-private
    // baseline's black dash; the variants of a configuration share its colour.
    const QStringList labels = {"1", "1/gdp", "1/clip", "1/clip/gdp", "2", "2/gdp", "2/clip/gdp", "2/tpm",
                                "3", "3/clip/gdp", "4", "4/clip/gdp", "whitened/raw", "whitened", "whitened/gdp",
                                "input", "vi", "dp-vi", "e2+e5", "e5+e6"};
    QSet<QString> seen;
    for (int i = 0; i < labels.size(); ++i) {
      const int s = configurationStyle(labels[i], i);
      const QString look = QString("%1 %2 %3").arg(seriesColor(s).name()).arg(int(seriesLineStyle(s))).arg(int(seriesShape(s)));
      QVERIFY2(!seen.contains(look), qPrintable(labels[i] + " looks like another configuration: " + look));
      seen.insert(look);
      QVERIFY2(!(seriesColor(s) == baselineColor() && seriesLineStyle(s) == Qt::DashLine),
               qPrintable(labels[i] + " looks like the non-private baseline"));
    }
    QCOMPARE(seriesColor(configurationStyle("1/clip/gdp")), seriesColor(configurationStyle("1")));
    QVERIFY(seriesColor(configurationStyle("whitened")) != seriesColor(configurationStyle("1")));
    for (int colour = 0; colour < kSeriesColorCount; ++colour) {
      const int i = seriesStyleIndex(colour, 3, 5);
      QVERIFY(i % kSeriesColorCount == colour && i % kSeriesLineStyleCount == 3 && i % kSeriesShapeCount == 5);
    }
  }
};

QTEST_MAIN(TstJournalFigures)
#include "tst_journal_figures.moc"
