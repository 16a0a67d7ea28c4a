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

// Lays the page out; paints only when `p` is given (the size pass measures).
int layoutComparison(QPainter* p, const QRect& page, const ComparisonContent& c) {
  QImage scratch(1, 1, QImage::Format_ARGB32);
  QPainter measure(&scratch);
  QPainter& q = p ? *p : measure;
  const int x0 = page.left() + kMargin, innerW = page.width() - 2 * kMargin;
  int y = text(q, QRect(x0, page.top() + kMargin, innerW, 100), c.title, pixelFont(28, true), kInk);
  if (!c.subtitle.isEmpty()) y = text(q, QRect(x0, y + 2, innerW, 100), c.subtitle, pixelFont(15), kMuted);
  y += 10;
  if (p) p->fillRect(QRect(x0, y, innerW, 2), kRule);
  y += 12;

  // The two timelines across the page, one time axis.
  const int captionH = QFontMetrics(pixelFont(18, true)).height() + 6;
  for (int run = 0; run < 2; ++run) {
    const QString& cap = run == 0 ? c.aCaption : c.bCaption;
    const int h = std::max(120, run == 0 ? c.aHeight : c.bHeight);
    if (p) {
      text(*p, QRect(x0, y, innerW, captionH), cap, pixelFont(18, true),
           run == 0 ? QColor(0x00, 0x50, 0x90) : QColor(0x90, 0x40, 0x00));
      const QRect r(x0, y + captionH, innerW, h);
      if (const auto& paint = run == 0 ? c.paintA : c.paintB) {
        p->save();
        p->setClipRect(r);
        paint(*p, r);
        p->restore();
      }
      p->setPen(QPen(kRule, 1));
      p->drawRect(r.adjusted(0, 0, -1, -1));
    }
    y += captionH + h + 10;
  }
  if (c.paintLegend) {
    q.save();
    y += c.paintLegend(q, QRect(x0, y, innerW, 200)) + 6;
    q.restore();
  }
  if (p) p->fillRect(QRect(x0, y, innerW, 1), kRule);
  y += 12;

  // The table on the left, the verdict and the runs' bottlenecks on the right.
  const int tableW = std::min(980, innerW * 6 / 10);
  int ty = text(q, QRect(x0, y, tableW, 40), QObject::tr("Figures"), pixelFont(18, true), kInk) + 4;
  if (p) ty = paintTable(*p, x0, ty, tableW, c.table);
  else ty += (int(c.table.rows.size()) + 1) * (QFontMetrics(pixelFont(15)).height() + 10) + 4;
  const int nx = x0 + tableW + 2 * kMargin, nw = page.right() - kMargin - nx;
  int ny = y;
  if (const ComparisonRow* m = c.table.find("makespan_ns"); m && m->a > 0 && m->b > 0) {
    const double speedup = m->a / m->b;
    const QString verdict = std::abs(speedup - 1.0) < 0.01 ? QObject::tr("B takes about as long as A.")
                            : speedup > 1 ? QObject::tr("B finishes %1× faster than A.").arg(speedup, 0, 'g', 3)
                                          : QObject::tr("B takes %1× as long as A.").arg(1.0 / speedup, 0, 'g', 3);
    ny = text(q, QRect(nx, ny, nw, 100), verdict, pixelFont(24, true), kInk) + 12;
  }
  for (const auto& [caption, note] : {std::pair{c.aCaption, c.aNote}, std::pair{c.bCaption, c.bNote}}) {
    if (note.isEmpty()) continue;
    ny = text(q, QRect(nx, ny, nw, 60), caption, pixelFont(16, true), kMuted) + 2;
    ny = text(q, QRect(nx, ny, nw, 400), note, pixelFont(16), kInk) + 12;
  }
  return std::max(ty, ny) + kMargin - page.top();
}

}  // namespace

QSize comparisonPageSize(const ComparisonContent& c) {
  return {kComparisonPageWidth, layoutComparison(nullptr, QRect(0, 0, kComparisonPageWidth, 100000), c)};
}

void paintComparison(QPainter& p, const QRect& page, const ComparisonContent& c) {
  p.save();
  p.fillRect(page, Qt::white);
  layoutComparison(&p, page, c);
  p.restore();
}

}  // namespace pipescope::ui
