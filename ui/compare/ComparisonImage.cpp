#include "compare/ComparisonImage.h"

#include <QFontMetrics>
#include <QImage>
#include <QObject>
#include <QPainter>
#include <algorithm>

#include "compare/ComparisonTableWidget.h"

namespace pipescope::ui {

namespace {

constexpr int kMargin = 24;
constexpr int kTableWidth = 560;
const QColor kInk("#1a1a1a");
const QColor kMuted("#555555");
const QColor kRule("#c8c8c8");

QFont pixelFont(int px, bool bold = false) {
  QFont f;
  f.setPixelSize(px);
  f.setBold(bold);
  return f;
}

int text(QPainter& p, const QRect& r, const QString& s, const QFont& f, const QColor& c, int flags = Qt::AlignLeft) {
  p.setFont(f);
  p.setPen(c);
  const QRect b = p.boundingRect(r, flags | Qt::TextWordWrap | Qt::AlignTop, s);
  p.drawText(b, flags | Qt::TextWordWrap | Qt::AlignTop, s);
  return b.bottom() + 1;
}

int paintTable(QPainter& p, int x, int y, int width, const ComparisonTable& t) {
  const QFont head = pixelFont(15, true), body = pixelFont(15), bold = pixelFont(15, true);
  const int rowH = QFontMetrics(body).height() + 10;
  const int labelW = int(width * 0.30), valueW = int(width * 0.21), diffW = width - labelW - 2 * valueW;
  const int cols[] = {x, x + labelW, x + labelW + valueW, x + labelW + 2 * valueW};
  const int widths[] = {labelW, valueW, valueW, diffW};
  const QString headers[] = {QObject::tr("figure"), QObject::tr("A"), QObject::tr("B"), QObject::tr("B − A")};
  for (int c = 0; c < 4; ++c)
    text(p, QRect(cols[c] + 4, y + 4, widths[c] - 8, rowH), headers[c], head, kMuted, c ? Qt::AlignRight : Qt::AlignLeft);
  y += rowH;
  p.fillRect(QRect(x, y - 2, width, 2), kInk);
  int i = 0;
  for (const ComparisonRow& r : t.rows) {
    if (i++ % 2) p.fillRect(QRect(x, y, width, rowH), QColor(0xF3, 0xF4, 0xF6));
    const QString cells[] = {QString::fromStdString(r.label), QString::fromStdString(r.aText),
                             QString::fromStdString(r.bText), QString::fromStdString(r.differenceText)};
    for (int c = 0; c < 4; ++c) {
      QColor color = kInk;
      if (c == 3 && ComparisonTableWidget::winnerColor(r.better).isValid()) color = ComparisonTableWidget::winnerColor(r.better);
      const bool strong = (c == 1 && r.better == Winner::A) || (c == 2 && r.better == Winner::B);
      p.setFont(strong ? bold : body);
      p.setPen(color);
      const QRect cell(cols[c] + 4, y, widths[c] - 8, rowH);
      p.drawText(cell, Qt::AlignVCenter | (c ? Qt::AlignRight : Qt::AlignLeft),
                 QFontMetrics(p.font()).elidedText(cells[c], Qt::ElideRight, cell.width()));
    }
    y += rowH;
  }
  p.fillRect(QRect(x, y, width, 1), kRule);
  return y + 4;
}

}  // namespace

void paintComparison(QPainter& p, const QRect& page, const ComparisonContent& c) {
  p.save();
  p.fillRect(page, Qt::white);
  const int x0 = page.left() + kMargin, innerW = page.width() - 2 * kMargin;
  int y = text(p, QRect(x0, page.top() + kMargin, innerW, 100), c.title, pixelFont(28, true), kInk);
  if (!c.subtitle.isEmpty()) y = text(p, QRect(x0, y + 2, innerW, 100), c.subtitle, pixelFont(15), kMuted);
  y += 10;
  p.fillRect(QRect(x0, y, innerW, 2), kRule);
  const int bodyTop = y + 12, bottom = page.bottom() - kMargin;

  // Left: the two timelines and the legend; right: the table.
  const int tableX = page.right() - kMargin - kTableWidth;
  const int lw = tableX - kMargin - x0;
  const int captionH = QFontMetrics(pixelFont(17, true)).height() + 6;
  int legendH = 0;
  if (c.paintLegend) {
    // Measure first: the legend goes under the timelines, which get the rest.
    QImage scratch(1, 1, QImage::Format_ARGB32);
    QPainter measure(&scratch);
    legendH = c.paintLegend(measure, QRect(0, 0, lw, 400));
  }
  const int lanesSpace = std::max(200, bottom - bodyTop - 2 * captionH - legendH - 16);
  int ha = c.aHeight, hb = c.bHeight;
  if (ha <= 0 || hb <= 0 || ha + hb > lanesSpace) {
    const double share = (ha > 0 && hb > 0) ? double(ha) / (ha + hb) : 0.5;
    ha = int(lanesSpace * share);
    hb = lanesSpace - ha;
  }
  y = bodyTop;
  for (int run = 0; run < 2; ++run) {
    const QString& cap = run == 0 ? c.aCaption : c.bCaption;
    text(p, QRect(x0, y, lw, captionH), cap, pixelFont(17, true), run == 0 ? QColor(0x00, 0x50, 0x90) : QColor(0x90, 0x40, 0x00));
    y += captionH;
    const QRect r(x0, y, lw, run == 0 ? ha : hb);
    const auto& paint = run == 0 ? c.paintA : c.paintB;
    if (paint) {
      p.save();
      p.setClipRect(r);
      paint(p, r);
      p.restore();
    }
    p.setPen(QPen(kRule, 1));
    p.drawRect(r.adjusted(0, 0, -1, -1));
    y = r.bottom() + 8;
  }
  if (c.paintLegend) {
    p.save();
    c.paintLegend(p, QRect(x0, y, lw, legendH));
    p.restore();
  }

  p.setPen(QPen(kRule, 1));
  p.drawLine(tableX - kMargin / 2, bodyTop, tableX - kMargin / 2, bottom);
  int ty = text(p, QRect(tableX, bodyTop, kTableWidth, 40), QObject::tr("Figures"), pixelFont(17, true), kInk) + 4;
  ty = paintTable(p, tableX, ty, kTableWidth, c.table);
  if (const ComparisonRow* m = c.table.find("makespan_ns"); m && m->ratio && *m->ratio > 0) {
    const double r = 1.0 / *m->ratio;
    const QString verdict = std::abs(r - 1.0) < 0.01
                                ? QObject::tr("B takes about as long as A.")
                                : r > 1 ? QObject::tr("B finishes %1× faster than A.").arg(r, 0, 'f', 2)
                                        : QObject::tr("B takes %1× as long as A.").arg(1.0 / r, 0, 'f', 2);
    text(p, QRect(tableX, ty + 10, kTableWidth, 80), verdict, pixelFont(18, true), kInk);
  }
  p.restore();
}

}  // namespace pipescope::ui
