// PlotWidget's layout (split from plot_widget.cpp), one code path for the screen and every
// exported page: title and footnote wrapped to the width, tick counts chosen from the pixels the
// axes have, and the legend off the data (a free corner, else beside or below the data area).
#include <QFontMetricsF>
#include <QtMath>
#include <QLineF>
#include <QPolygonF>
#include <algorithm>
#include <cmath>

#include "ui/plots/plot_widget.h"

namespace dplda {

namespace {

// `text` broken at spaces into lines no wider than `width` pixels in `font` (a word longer than
// the width keeps its own line): a title or footnote longer than the page wraps instead of being cut.
QString wrappedToWidth(const QString& text, const QFont& font, int width) {
  const QFontMetrics metrics(font);
  if (width <= 0 || metrics.horizontalAdvance(text) <= width) return text;
  QStringList lines;
  QString line;
  for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
    if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
      lines << line;
      line = word;
    } else {
      line = longer;
    }
  }
  lines << line;
  return lines.join(QLatin1Char('\n'));
}

bool segmentMeetsRect(const QLineF& segment, const QRectF& rect) {
  if (rect.contains(segment.p1()) || rect.contains(segment.p2())) return true;
  const QLineF edges[] = {{rect.topLeft(), rect.topRight()},
                          {rect.topRight(), rect.bottomRight()},
                          {rect.bottomRight(), rect.bottomLeft()},
                          {rect.bottomLeft(), rect.topLeft()}};
  for (const QLineF& edge : edges)
    if (segment.intersects(edge) == QLineF::BoundedIntersection) return true;
  return false;
}

bool finitePoint(const QPointF& p) { return std::isfinite(p.x()) && std::isfinite(p.y()); }

// Pixels a graph's points sit at (NaN, or not drawable on a log axis: a gap), in data order.
QVector<QPointF> graphPixels(const QCPGraph* graph) {
  QVector<QPointF> out;
  const QCPAxis* value = graph->valueAxis();
  const QCPAxis* key = graph->keyAxis();
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
    const bool drawable = std::isfinite(it->key) && std::isfinite(it->value) &&
                          (key->scaleType() != QCPAxis::stLogarithmic || it->key > 0) &&
                          (value->scaleType() != QCPAxis::stLogarithmic || it->value > 0);
    out.append(drawable ? graph->coordsToPixels(it->key, it->value) : QPointF(qQNaN(), qQNaN()));
  }
  return out;
}

}  // namespace

double PlotWidget::pageFontScale(const QSize& logical) {
  // 8.5 pt is the smallest text on screen (the footnote): 7 pt on a journal page.
  return logical.width() < 720 ? 7.0 / 8.5 : 1.0;
}

void PlotWidget::updateLayout() {
  legend->setVisible(m_legendWanted && legend->itemCount() > 0);  // no empty box on an empty plot
  const int textWidth = viewport().width() - 16;
  if (m_titleElement) m_titleElement->setText(wrappedToWidth(m_title, m_titleElement->font(), textWidth));
  if (m_footnoteElement) m_footnoteElement->setText(wrappedToWidth(m_footnoteText, m_footnoteElement->font(), textWidth));
  putLegendInside();
  QCustomPlot::updateLayout();
  fitTicksToRoom();
  placeLegend();
  // The data area shrank: fewer ticks may fit, and the legend's final place (beside or below) may
  // then differ, so again until the ticks were fitted to the data area that stays.
  for (int pass = 0; m_legendOutside && pass < 4; ++pass) {
    fitTicksToRoom();
    const QRect fitted = axisRect()->rect();
    putLegendInside();
    m_legendOutside = placeLegendOutside();
    if (axisRect()->rect() == fitted) break;
  }
  // The minimum height follows the room around the data once this layout is done (legend included).
  if (m_minDataHeight > 0 && !m_exporting)
    QMetaObject::invokeMethod(this, &PlotWidget::keepMinimumDataHeight, Qt::QueuedConnection);
}

void PlotWidget::setMinimumDataHeight(int px) {
  m_minDataHeight = std::max(0, px);
  replot(rpQueuedReplot);  // updateLayout measures the room around the data and sets the minimum
}

void PlotWidget::keepMinimumDataHeight() {
  if (m_minDataHeight <= 0 || m_exporting || height() <= 0 || axisRect()->rect().height() <= 0) return;
  const int wanted = m_minDataHeight + height() - axisRect()->rect().height();  // title, axes, legend
  if (wanted != minimumHeight()) setMinimumHeight(wanted);
}

// ---- ticks ----------------------------------------------------------------------------------

QVector<QRectF> PlotWidget::tickLabelRects(const QCPAxis* axis) {
  QVector<QRectF> out;
  if (!axis->visible() || !axis->tickLabels() || axis->tickLabelRotation() != 0) return out;
  const QFontMetricsF metrics(axis->tickLabelFont());
  const QVector<double> ticks = axis->tickVector();
  const QVector<QString> labels = axis->tickVectorLabels();
  const QRect data = axis->axisRect()->rect();
  const double offset = axis->offset() + std::max(0, axis->tickLengthOut()) + axis->tickLabelPadding();
  const bool beautifulPowers = axis->numberFormat().contains(QLatin1Char('b'));
  for (int i = 0; i < ticks.size() && i < labels.size(); ++i) {
    if (!axis->range().contains(ticks[i])) continue;
    const QString& label = labels[i];
    QSizeF size = metrics.size(0, label);
    const int e = label.indexOf(QLatin1Char('e'));
    if (beautifulPowers && e > 0) {  // "1.8e+04" is drawn as 1.8·10 with a raised, smaller exponent
      const QString exponent = QString::number(label.mid(e + 1).toInt());
      size = QSizeF(metrics.horizontalAdvance(label.left(e) + QStringLiteral("·10")) +
                        0.8 * metrics.horizontalAdvance(exponent),
                    1.3 * metrics.height());
    }
    const double at = axis->coordToPixel(ticks[i]);
    switch (axis->axisType()) {
      case QCPAxis::atBottom: out.append(QRectF(at - size.width() / 2, data.bottom() + offset, size.width(), size.height())); break;
      case QCPAxis::atTop: out.append(QRectF(at - size.width() / 2, data.top() - offset - size.height(), size.width(), size.height())); break;
      case QCPAxis::atLeft: out.append(QRectF(data.left() - offset - size.width(), at - size.height() / 2, size.width(), size.height())); break;
      case QCPAxis::atRight: out.append(QRectF(data.right() + offset, at - size.height() / 2, size.width(), size.height())); break;
    }
  }
  return out;
}

void PlotWidget::fitTicksToRoom() {
  // First the count the room suggests (a label and a gap per tick), then fewer while the drawn
  // labels still touch: nice steps can give more ticks than asked for.
  auto tunable = [](QCPAxis* axis) -> QCPAxisTicker* {
    if (!axis->visible() || !axis->tickLabels() || axis->tickLabelRotation() != 0) return nullptr;
    QCPAxisTicker* ticker = axis->ticker().data();
    return ticker && !dynamic_cast<QCPAxisTickerText*>(ticker) ? ticker : nullptr;
  };
  // An axis label longer than its axis wraps (a journal column's y axis is ~130 px high).
  bool changed = false;
  for (QCPAxis* axis : axisRect()->axes()) {
    if (!axis->visible() || axis->label().isEmpty()) continue;
    const int length = axis->orientation() == Qt::Horizontal ? axisRect()->width() : axisRect()->height();
    const QString label = wrappedToWidth(QString(axis->label()).replace(QLatin1Char('\n'), QLatin1Char(' ')), axis->labelFont(), length);
    if (label != axis->label()) {
      axis->setLabel(label);
      changed = true;
    }
  }
  if (changed) QCustomPlot::updateLayout();
  changed = false;
  for (QCPAxis* axis : axisRect()->axes()) {
    QCPAxisTicker* ticker = tunable(axis);
    if (!ticker) continue;
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const QFontMetricsF metrics(axis->tickLabelFont());
    const double room = horizontal ? axisRect()->width() : axisRect()->height();
    const double pitch = horizontal ? metrics.horizontalAdvance(QStringLiteral("0.000")) + metrics.height()
                                    : 2.4 * metrics.height();
    const int want = std::clamp(static_cast<int>(room / pitch), 2, horizontal ? 8 : 7);
    if (ticker->tickCount() != want) {
      ticker->setTickCount(want);
      changed = true;
    }
  }
  if (changed) QCustomPlot::updateLayout();
  for (int round = 0; round < 6; ++round) {
    changed = false;
    for (QCPAxis* axis : axisRect()->axes()) {
      QCPAxisTicker* ticker = tunable(axis);
      if (!ticker || ticker->tickCount() <= 1) continue;
      const QVector<QRectF> rects = tickLabelRects(axis);
      const double gap = 0.3 * QFontMetricsF(axis->tickLabelFont()).height();
      bool crowded = false;
      for (int i = 1; i < rects.size() && !crowded; ++i)
        crowded = rects[i].adjusted(-gap, -gap, gap, gap).intersects(rects[i - 1]);
      if (crowded) {
        ticker->setTickCount(ticker->tickCount() - 1);
        changed = true;
      }
    }
    if (!changed) break;
    QCustomPlot::updateLayout();
  }
  // The corner: the lowest y label (at the bottom edge) and the first x label (at the left edge)
  // may meet; the x labels then move down just clear of it.
  constexpr int kTickLabelPadding = 5;  // QCustomPlot's default
  const int padding = xAxis->tickLabelPadding();
  int needed = kTickLabelPadding;  // the padding that leaves 1 px between them, never less than the default
  const QVector<QRectF> xs = tickLabelRects(xAxis), ys = tickLabelRects(yAxis);
  if (!xs.isEmpty())
    for (const QRectF& y : ys)
      if (y.right() > xs.first().left())
        needed = std::max(needed, padding + qCeil(y.bottom() + 1 - xs.first().top()));
  if (needed != padding) {
    xAxis->setTickLabelPadding(needed);
    QCustomPlot::updateLayout();
  }
}

// ---- legend -----------------------------------------------------------------------------------

int PlotWidget::dataPixelsUnder(const QRectF& rect, bool stopAtFirst) const {
  // Graphs exactly (segments, markers and the bands between two graphs); other plottables
  // (bars, error bars) and items (the session's ε, notes) by sampling every 3 pixels.
  int count = 0;
  const QCPAbstractItem* overlays[] = {m_staleVeil, m_staleLabel, m_placeholder};
  QVector<const QCPAbstractPlottable*> sampled;
  for (int i = 0; i < plottableCount(); ++i) {
    const QCPAbstractPlottable* p = const_cast<PlotWidget*>(this)->plottable(i);  // QCustomPlot lacks a const getter
    if (!p->visible() || !p->keyAxis() || p->keyAxis()->axisRect() != axisRect()) continue;
    auto* graph = qobject_cast<const QCPGraph*>(p);
    if (!graph) {
      sampled.append(p);
      continue;
    }
    const QVector<QPointF> pixels = graphPixels(graph);
    const bool line = graph->lineStyle() != QCPGraph::lsNone && graph->pen().style() != Qt::NoPen;
    const double reach = graph->pen().widthF() / 2 + 1.0;
    const QRectF lineRect = rect.adjusted(-reach, -reach, reach, reach);
    const double marker = graph->scatterStyle().isNone() ? 0.0 : graph->scatterStyle().size() / 2 + 1.0;
    const QRectF markerRect = rect.adjusted(-marker, -marker, marker, marker);
    for (int j = 0; j < pixels.size(); ++j) {
      if (!finitePoint(pixels[j])) continue;
      if (marker > 0 && markerRect.contains(pixels[j])) ++count;
      if (line && j > 0 && finitePoint(pixels[j - 1]) && segmentMeetsRect(QLineF(pixels[j - 1], pixels[j]), lineRect))
        ++count;
    }
    if (const QCPGraph* other = graph->channelFillGraph(); other && other->visible() && graph->brush() != Qt::NoBrush) {
      const QVector<QPointF> below = graphPixels(other);
      const QPolygonF area(rect);
      for (int j = 1; j < pixels.size() && j < below.size(); ++j) {
        const QPointF corners[] = {pixels[j - 1], pixels[j], below[j], below[j - 1]};
        if (!std::all_of(std::begin(corners), std::end(corners), finitePoint)) continue;
        if (QPolygonF({corners[0], corners[1], corners[2], corners[3]}).intersects(area)) ++count;
      }
    }
    if (stopAtFirst && count > 0) return count;
  }
  QVector<const QCPAbstractItem*> items;
  for (int i = 0; i < itemCount(); ++i) {
    const QCPAbstractItem* item = const_cast<PlotWidget*>(this)->item(i);
    if (item->visible() && std::find(std::begin(overlays), std::end(overlays), item) == std::end(overlays))
      items.append(item);
  }
  if (sampled.isEmpty() && items.isEmpty()) return count;
  constexpr double kStep = 3.0;
  for (double y = rect.top() + kStep / 2; y < rect.bottom(); y += kStep) {
    for (double x = rect.left() + kStep / 2; x < rect.right(); x += kStep) {
      const QPointF at(x, y);
      bool hit = false;
      for (const QCPAbstractPlottable* p : sampled) {
        const double d = p->selectTest(at, false);
        // Bars answer a fixed value inside a bar; lines their distance.
        hit = d >= 0 && (qobject_cast<const QCPBars*>(p) ? true : d <= 2.0 + kStep / 2);
        if (hit) break;
      }
      for (int i = 0; !hit && i < items.size(); ++i) {
        const double d = items[i]->selectTest(at, false);
        hit = d >= 0 && d <= 1.5 + kStep / 2;
      }
      if (!hit) continue;
      ++count;
      if (stopAtFirst) return count;
    }
  }
  return count;
}

Qt::Alignment PlotWidget::leastCrowdedCorner(bool* free) {
  // The fixed corner first when there is one, then the conventional order TR, TL, BR, BL.
  const QRectF area = axisRect()->rect();
  const QSizeF size = legend->outerRect().size();
  QVector<Qt::Alignment> corners = {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
                                    Qt::AlignBottom | Qt::AlignRight, Qt::AlignBottom | Qt::AlignLeft};
  if (m_fixedLegendCorner) {
    corners.removeAll(m_fixedLegendCorner);
    corners.prepend(m_fixedLegendCorner);
  }
  auto rectAt = [&](Qt::Alignment corner) {
    const double x = (corner & Qt::AlignRight) ? area.right() - size.width() : area.left();
    const double y = (corner & Qt::AlignBottom) ? area.bottom() - size.height() : area.top();
    return QRectF(QPointF(x, y), size);
  };
  for (Qt::Alignment corner : corners) {
    if (dataPixelsUnder(rectAt(corner), true) == 0) {
      *free = true;
      return corner;
    }
  }
  *free = false;
  Qt::Alignment best = corners.first();
  int fewest = -1;
  for (Qt::Alignment corner : corners) {
    const int n = dataPixelsUnder(rectAt(corner));
    if (fewest < 0 || n < fewest) {
      fewest = n;
      best = corner;
    }
  }
  return best;
}

void PlotWidget::placeLegend() {
  QCPLayoutInset* inset = axisRect()->insetLayout();
  if (!legend->visible() || inset->elementCount() == 0 || inset->elementAt(0) != legend) return;
  const QRect data = axisRect()->rect();
  const QSize box = legend->outerRect().size();
  // A legend that would fill most of the data area goes outside even when a corner is free.
  const bool small = box.height() <= 0.5 * data.height() && box.width() <= 0.6 * data.width();
  const bool outsideAllowed = !m_exporting || m_exportLegendOutside;
  bool free = false;
  const Qt::Alignment corner = leastCrowdedCorner(&free);
  if ((free && small) || !outsideAllowed) {
    if (corner != inset->insetAlignment(0)) {
      inset->setInsetAlignment(0, corner);
      QCustomPlot::updateLayout();
    }
    // Checked again where it landed (its size may differ from the one the corners were tried with).
    if (!outsideAllowed || dataPixelsUnder(legend->outerRect(), true) == 0) return;
  }
  m_marginsInside = axisRect()->minimumMargins();
  m_legendWrapInside = legend->wrap();
  m_legendOrderInside = legend->fillOrder();
  m_legendOutside = placeLegendOutside();
  if (!m_legendOutside && corner != inset->insetAlignment(0)) {  // no room outside: the least crowded corner
    inset->setInsetAlignment(0, corner);
    QCustomPlot::updateLayout();
  }
}

bool PlotWidget::placeLegendOutside() {
  QCPLayoutInset* inset = axisRect()->insetLayout();
  if (!legend->visible() || inset->elementCount() == 0 || inset->elementAt(0) != legend) return false;
  const QRect page = viewport();
  constexpr int kGap = 8;
  // Beside the data on wide pages; below it, in rows of entries, on the others, unless rows
  // below would leave the data less than half the page's height.
  auto layOut = [&](bool beside) {
    inset->setInsetPlacement(0, QCPLayoutInset::ipFree);
    inset->setInsetRect(0, QRectF(0, 0, 0, 0));
    axisRect()->setMinimumMargins(m_marginsInside);
    legend->setWrap(m_legendWrapInside);
    legend->setFillOrder(m_legendOrderInside, true);
    if (!beside) {
      int widest = 1;
      for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = legend->item(i)) widest = std::max(widest, item->minimumOuterSizeHint().width());
      const int columns = std::clamp(static_cast<int>((page.width() - 4) / (widest + legend->columnSpacing())), 1,
                                     legend->itemCount());
      legend->setWrap(columns);
      legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
    QCustomPlot::updateLayout();  // pass 1: the margins the axes need by themselves
    const QMargins need = axisRect()->margins();
    // Beside: clear of the last x tick label, which may reach past the data area's right edge.
    auto overhang = [&] {
      int out = need.right();
      for (const QRectF& r : tickLabelRects(xAxis)) out = std::max(out, qCeil(r.right()) - axisRect()->rect().right());
      return out;
    };
    const int overhangAlone = overhang();
    QSize box = legend->minimumOuterSizeHint();
    if (beside && box.height() > page.height() - axisRect()->rect().top() && legend->itemCount() > 1) {
      legend->setWrap(2);  // too tall for one column beside the data: two
      legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
      box = legend->minimumOuterSizeHint();
    }
    QMargins room = m_marginsInside;
    if (beside) room.setRight(std::max(room.right(), overhangAlone + kGap + box.width() + 2));
    else room.setBottom(std::max(room.bottom(), need.bottom() + kGap + box.height()));
    axisRect()->setMinimumMargins(room);
    QCustomPlot::updateLayout();  // pass 2: the data area leaves room for the legend
    const QRect data = axisRect()->rect();
    if (data.width() <= 0 || data.height() <= 0) return false;
    const int clear = std::max(overhangAlone, overhang());
    // Below: centred on the page (it may be wider than the data area), never past its edges.
    const int left = std::clamp((page.width() - box.width()) / 2, 0, std::max(0, page.width() - box.width()));
    const QPoint at = beside ? QPoint(data.right() + clear + kGap, data.top()) : QPoint(left, data.bottom() + need.bottom() + kGap);
    // The inset rect is in fractions of the inset layout's rect, which lies inside the data area by its margins.
    const QRect frame = inset->rect();
    if (frame.width() <= 0 || frame.height() <= 0) return false;
    inset->setInsetRect(0, QRectF(double(at.x() - frame.left()) / frame.width(), double(at.y() - frame.top()) / frame.height(),
                                  double(box.width()) / frame.width(), double(box.height()) / frame.height()));
    QCustomPlot::updateLayout();  // pass 3: the legend in its place
    return true;
  };
  const bool wide = page.width() >= 1.4 * page.height();
  if (layOut(wide) && (wide || axisRect()->rect().height() >= page.height() / 2)) return true;
  if (!wide && layOut(true) && axisRect()->rect().width() >= page.width() / 3) return true;
  return layOut(wide);
}

void PlotWidget::putLegendInside() {
  if (!m_legendOutside) return;
  m_legendOutside = false;
  QCPLayoutInset* inset = axisRect()->insetLayout();
  axisRect()->setMinimumMargins(m_marginsInside);
  if (inset->elementCount() > 0 && inset->elementAt(0) == legend) inset->setInsetPlacement(0, QCPLayoutInset::ipBorderAligned);
  legend->setWrap(m_legendWrapInside);
  legend->setFillOrder(m_legendOrderInside, true);
}

// ---- pages --------------------------------------------------------------------------------------

void PlotWidget::beginPageLayout(const QSize& logical) {
  if (m_exporting) endPageLayout();
  m_screen.viewport = viewport();
  m_screen.fontScale = m_fontScale;
  m_screen.footnote = m_footnoteText;
  m_screen.iconSize = legend->iconSize();
  m_exporting = true;
  m_fontScale = pageFontScale(logical);  // presentation sizes stay on screen
  applyFonts();
  legend->setIconSize(QSize(qRound(32 * m_fontScale), qRound(18 * m_fontScale)));
  setViewport(QRect(QPoint(0, 0), logical));
  updateLayout();
  // A page too short for its footnote leaves it to the caption (the side file keeps it), so
  // that the data area keeps at least half the page.
  if (m_footnoteElement && axisRect()->rect().height() < logical.height() / 2) {
    setFootnote(QString());
    updateLayout();
  }
  // Still short (a journal column with a wide legend): the title goes to the caption too.
  if (m_titleElement && axisRect()->rect().height() < logical.height() / 2) {
    const QString title = m_title;
    setTitle(QString());
    m_title = title;  // the export's file metadata keeps it
    updateLayout();
  }
}

QSize PlotWidget::pageSizeFor(const QSize& requested) {
  QSize page = requested;
  // The data area grows one for one with the page's height once the legend and text are placed;
  // a few rounds, as a taller page may place them differently.
  for (int round = 0; round < 4 && page.height() < 2 * requested.height(); ++round) {
    beginPageLayout(page);
    const int data = axisRect()->rect().height();
    endPageLayout();
    if (2 * data >= page.height()) break;
    page.setHeight(std::min(2 * requested.height(), page.height() + (page.height() - 2 * data) + 1));
  }
  return page;
}

void PlotWidget::endPageLayout() {
  if (!m_exporting) return;
  putLegendInside();
  m_exporting = false;
  m_fontScale = m_screen.fontScale;
  applyFonts();
  legend->setIconSize(m_screen.iconSize);
  if (m_footnoteText != m_screen.footnote) setFootnote(m_screen.footnote);
  if (!m_titleElement && !m_title.isEmpty()) setTitle(m_title);
  setViewport(m_screen.viewport);
  replot();  // back to the on-screen layout
}

void PlotWidget::paintForExport(QCPPainter* painter, const QSize& logical) {
  beginPageLayout(logical);
  // toPainter lays the page out again (the same rules, so the same result) and draws it.
  toPainter(painter, logical.width(), logical.height());
  m_lastExportAxisRect = axisRect()->rect();
  m_lastExportLegendRect = legend->visible() ? legend->outerRect() : QRect();
  m_lastExportFontScale = m_fontScale;
  endPageLayout();
}

}  // namespace dplda
