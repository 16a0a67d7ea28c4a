#include "export/ReportPainter.h"

#include <QFontMetrics>
#include <QObject>
#include <QPainter>
#include <algorithm>

namespace pipescope::ui {

namespace {

constexpr int kMargin = 24;
constexpr int kLeftColumn = 470;
// Page colours, set from the content's palette by paintReport (one page at a time,
// on the GUI thread).
struct PageColours {
  QColor paper, ink, muted, rule;
};
PageColours g_colours;

QFont font(int pointSize, bool bold = false) {
  QFont f;
  f.setPixelSize(pointSize);
  f.setBold(bold);
  return f;
}

// Draws wrapped text at `y`, returns the y below it.
int paragraph(QPainter& p, int x, int y, int width, const QString& text, const QFont& f, const QColor& color) {
  p.setFont(f);
  p.setPen(color);
  const QRect bounds = p.boundingRect(QRect(x, y, width, 10000), Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text);
  p.drawText(bounds, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text);
  return bounds.bottom() + 1;
}

int heading(QPainter& p, int x, int y, int width, const QString& text) {
  y = paragraph(p, x, y, width, text, font(17, true), g_colours.ink) + 2;
  p.setPen(QPen(g_colours.rule, 1));
  p.drawLine(x, y, x + width, y);
  return y + 6;
}

// Label/value rows; values wrap within their column.
int table(QPainter& p, int x, int y, int width, const std::vector<MetricsRow>& rows) {
  const QFont labelFont = font(14, true), valueFont = font(14);
  const int labelWidth = 150;
  for (const auto& row : rows) {
    p.setFont(valueFont);
    const QRect valueRect =
        p.boundingRect(QRect(x + labelWidth, y, width - labelWidth, 10000), Qt::TextWordWrap, row.value);
    p.setFont(labelFont);
    p.setPen(g_colours.muted);
    p.drawText(QRect(x, y, labelWidth - 8, valueRect.height()), Qt::AlignLeft | Qt::AlignTop, row.label);
    p.setFont(valueFont);
    p.setPen(g_colours.ink);
    p.drawText(valueRect, Qt::TextWordWrap, row.value);
    y = valueRect.bottom() + 4;
  }
  return y;
}

}  // namespace

void paintReport(QPainter& p, const QRect& page, const ReportContent& c) {
  p.save();
  {
    const QPalette& pal = c.palette;
    const bool dark = pal.color(QPalette::Base).lightnessF() < 0.5;
    g_colours.paper = pal.color(QPalette::Base);
    g_colours.ink = dark ? pal.color(QPalette::WindowText) : QColor("#1a1a1a");
    g_colours.muted = dark ? g_colours.ink.darker(135) : QColor("#555555");
    g_colours.rule = dark ? pal.color(QPalette::Mid) : QColor("#c8c8c8");
  }
  p.fillRect(page, g_colours.paper);
  const int x0 = page.left() + kMargin, top = page.top() + kMargin;
  const int innerWidth = page.width() - 2 * kMargin;

  // Header: title, subtitle, device.
  int y = paragraph(p, x0, top, innerWidth, c.title, font(28, true), g_colours.ink);
  if (!c.subtitle.isEmpty()) y = paragraph(p, x0, y + 2, innerWidth, c.subtitle, font(15), g_colours.muted);
  y = paragraph(p, x0, y + 2, innerWidth, c.device, font(15, true), g_colours.muted) + 10;
  p.setPen(QPen(g_colours.rule, 2));
  p.drawLine(x0, y, x0 + innerWidth, y);
  const int bodyTop = y + 12;
  const int bottom = page.bottom() - kMargin;

  // Left column: configuration, metrics, bottleneck.
  const int colWidth = kLeftColumn - kMargin;
  y = heading(p, x0, bodyTop, colWidth, QObject::tr("Configuration"));
  for (const QString& line : c.configuration) y = paragraph(p, x0, y, colWidth, line, font(14), g_colours.ink) + 2;
  y = heading(p, x0, y + 12, colWidth, QObject::tr("Metrics"));
  y = table(p, x0, y, colWidth, c.metrics);
  if (!c.bottleneck.isEmpty()) paragraph(p, x0, y + 10, colWidth, c.bottleneck, font(15, true), g_colours.ink);

  // Right column: timeline, legend, charts.
  const int rx = page.left() + kLeftColumn + kMargin;
  const int rWidth = page.right() - kMargin - rx;
  p.setPen(QPen(g_colours.rule, 1));
  p.drawLine(rx - kMargin / 2, bodyTop, rx - kMargin / 2, bottom);
  const int available = bottom - bodyTop;
  // The lanes' own height (no empty band under them), within 30..60 % of the page.
  const int timelineHeight = c.timelineHeight > 0 ? std::clamp(c.timelineHeight, int(available * 0.3), int(available * 0.6))
                                                  : int(available * 0.56);
  const QRect timelineRect(rx, bodyTop, rWidth, timelineHeight);
  if (c.paintTimeline) {
    p.save();
    p.setClipRect(timelineRect);
    c.paintTimeline(p, timelineRect);
    p.restore();
  }
  y = timelineRect.bottom() + 6;
  if (c.paintLegend) {
    p.save();
    y += c.paintLegend(p, QRect(rx, y, rWidth, 120)) + 8;
    p.restore();
  }
  if (c.paintCharts && bottom - y > 60) {
    p.save();
    const QRect chartsRect(rx, y, rWidth, bottom - y);
    p.setClipRect(chartsRect);
    c.paintCharts(p, chartsRect);
    p.restore();
  }
  p.restore();
}

}  // namespace pipescope::ui
