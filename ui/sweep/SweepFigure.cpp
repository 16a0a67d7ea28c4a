#include "sweep/SweepFigure.h"

#include <QPainter>

#include "sweep/SweepHeatmap.h"
#include "sweep/SweepLineChart.h"

namespace pipescope::ui {

void paintSweepFigure(QPainter& p, const QRect& target, SweepLineChart& chart, const SweepHeatmap& throughput,
                      const SweepHeatmap& efficiency, const SweepFigureText& text) {
  p.save();
  p.fillRect(target, Qt::white);
  const QRectF area = QRectF(target).adjusted(16, 12, -16, -12);
  QFont heading = p.font();
  heading.setPointSizeF(12);
  heading.setBold(true);
  QFont body = p.font();
  body.setPointSizeF(10);

  p.setFont(heading);
  p.setPen(QColor("#111111"));
  const QRectF headRect(area.left(), area.top(), area.width(), QFontMetricsF(heading).height() * 2.2);
  const QRectF headUsed = p.boundingRect(headRect, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text.heading);
  p.drawText(headRect, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text.heading);

  // The text block under the figures: the recommendation, the knees, the notes.
  QString block = QObject::tr("Recommendation: %1").arg(text.recommendation);
  if (!text.knees.isEmpty()) block += "\n" + QObject::tr("Where more streams stop helping:") + "\n  " + text.knees.join("\n  ");
  for (const QString& n : text.notes) block += "\n" + QObject::tr("Note: %1").arg(n);
  p.setFont(body);
  const QRectF blockBounds = p.boundingRect(QRectF(area.left(), 0, area.width(), area.height()),
                                            Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, block);
  const double blockHeight = std::min(blockBounds.height(), area.height() * 0.35);
  const QRectF blockRect(area.left(), area.bottom() - blockHeight, area.width(), blockHeight);

  const double top = headUsed.bottom() + 8, bottom = blockRect.top() - 10;
  const QRectF figures(area.left(), top, area.width(), std::max(50.0, bottom - top));
  const double chartWidth = figures.width() * 0.58;
  chart.renderTo(p, QRectF(figures.left(), figures.top(), chartWidth, figures.height()));
  const QRectF maps(figures.left() + chartWidth + 12, figures.top(), figures.width() - chartWidth - 12, figures.height());
  throughput.paintTo(p, QRectF(maps.left(), maps.top(), maps.width(), maps.height() / 2 - 4));
  efficiency.paintTo(p, QRectF(maps.left(), maps.top() + maps.height() / 2 + 4, maps.width(), maps.height() / 2 - 4));

  p.setFont(body);
  p.setPen(QColor("#111111"));
  p.drawText(blockRect, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, block);
  p.restore();
}

}  // namespace pipescope::ui
