#include "sweep/SweepHeatmap.h"

#include <algorithm>
#include <cmath>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include "sweep/SweepColors.h"

namespace pipescope::ui {

namespace {
constexpr double kLeft = 58, kBottom = 40, kTitle = 22, kScaleWidth = 16, kScaleGap = 12, kScaleLabels = 74;
}

SweepHeatmap::SweepHeatmap(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void SweepHeatmap::setGrid(const HeatmapGrid& grid, const QString& title) {
  grid_ = grid;
  title_ = title;
  current_ = QPoint(std::clamp(current_.x(), 0, std::max(0, grid_.columns() - 1)),
                    std::clamp(current_.y(), 0, std::max(0, grid_.rows() - 1)));
  // Throughput spans the grid's own range (its differences are what matter);
  // efficiency keeps its absolute meaning, 0..100% of the ideal bound.
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& v : grid_.values)
    if (v) {
      lo = any ? std::min(lo, *v) : *v;
      hi = any ? std::max(hi, *v) : *v;
      any = true;
    }
  if (grid_.metric == HeatmapMetric::Efficiency) {
    lo_ = 0;
    hi_ = std::max(1.0, hi);
  } else {
    lo_ = any ? lo : 0;
    hi_ = any && hi > lo ? hi : lo_ + 1;
  }
  update();
}

double SweepHeatmap::scaled(double v) const { return (v - lo_) / (hi_ - lo_); }

QString SweepHeatmap::valueText(double v) const {
  return grid_.metric == HeatmapMetric::Efficiency ? QString::number(v * 100.0, 'f', 0) + "%" : rateLabel(v).trimmed();
}

QString SweepHeatmap::scaleUnit() const {
  return grid_.metric == HeatmapMetric::Efficiency ? tr("% of bound") : tr("samples/s");
}

QColor SweepHeatmap::cellColor(int row, int column) const {
  const auto v = grid_.value(row, column);
  return v ? heatmapColor(scaled(*v)) : QColor("#e6e6e6");
}

SweepHeatmap::Layout SweepHeatmap::layoutFor(const QRectF& t) const {
  Layout l;
  l.title = QRectF(t.left(), t.top(), t.width(), kTitle);
  const double right = kScaleGap + kScaleWidth + kScaleLabels;
  l.cells = QRectF(t.left() + kLeft, t.top() + kTitle + 4, std::max(10.0, t.width() - kLeft - right),
                   std::max(10.0, t.height() - kTitle - 4 - kBottom));
  l.scale = QRectF(l.cells.right() + kScaleGap, l.cells.top(), kScaleWidth, l.cells.height());
  return l;
}

QRectF SweepHeatmap::cellRect(int row, int column, QSizeF size) const {
  if (size.isEmpty()) size = QSizeF(this->size());
  const QRectF cells = layoutFor(QRectF(QPointF(0, 0), size)).cells;
  const double w = cells.width() / std::max(1, grid_.columns()), h = cells.height() / std::max(1, grid_.rows());
  // Row 0 (fewest streams) at the bottom, as on a chart's y axis.
  return QRectF(cells.left() + column * w, cells.bottom() - (row + 1) * h, w, h);
}

std::optional<std::size_t> SweepHeatmap::indexAt(QPointF pos) const {
  for (int r = 0; r < grid_.rows(); ++r)
    for (int c = 0; c < grid_.columns(); ++c)
      if (cellRect(r, c).contains(pos)) return grid_.index(r, c);
  return std::nullopt;
}

void SweepHeatmap::paintTo(QPainter& p, const QRectF& target) const {
  p.save();
  p.setRenderHint(QPainter::Antialiasing, false);
  p.fillRect(target, Qt::white);
  const Layout l = layoutFor(target);
  QFont font = p.font();
  font.setPointSizeF(8.5);
  QFont bold = font;
  bold.setBold(true);
  bold.setPointSizeF(9.5);
  p.setFont(bold);
  p.setPen(QColor("#222222"));
  // Narrow docks: elide the title rather than clip it at both ends.
  p.drawText(l.title, Qt::AlignCenter, QFontMetricsF(bold).elidedText(title_, Qt::ElideRight, l.title.width()));
  p.setFont(font);

  const int rows = grid_.rows(), cols = grid_.columns();
  if (rows == 0 || cols == 0) {
    p.drawText(l.cells, Qt::AlignCenter, tr("no sweep yet"));
    p.restore();
    return;
  }
  const QFontMetricsF fm(font);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      QRectF cell = cellRect(r, c, target.size()).translated(target.topLeft());
      const QColor fill = cellColor(r, c);
      p.fillRect(cell.adjusted(0.5, 0.5, -0.5, -0.5), fill);
      if (const auto v = grid_.value(r, c)) {
        const double luma = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue();
        p.setPen(luma > 135 ? QColor("#111111") : QColor("#ffffff"));
        const QString text = valueText(*v);
        if (fm.horizontalAdvance(text) < cell.width() - 2 && fm.height() < cell.height())
          p.drawText(cell, Qt::AlignCenter, text);
      }
    }
  // Axes: stream counts on the left, batch sizes below, each with its title.
  p.setPen(QColor("#333333"));
  for (int r = 0; r < rows; ++r) {
    const QRectF cell = cellRect(r, 0, target.size()).translated(target.topLeft());
    p.drawText(QRectF(l.cells.left() - 30, cell.top(), 26, cell.height()), Qt::AlignRight | Qt::AlignVCenter,
               QString::number(grid_.streams[std::size_t(r)]));
  }
  // Batch sizes below: every k-th one when the labels would overlap.
  double widest = 0;
  for (int c = 0; c < cols; ++c)
    widest = std::max(widest, fm.horizontalAdvance(batchSizeLabel(double(grid_.batchBytes[std::size_t(c)]))));
  const double cellWidth = l.cells.width() / cols;
  const int stride = std::max(1, int(std::ceil((widest + 6) / std::max(1.0, cellWidth))));
  for (int c = 0; c < cols; c += stride) {
    const QRectF cell = cellRect(0, c, target.size()).translated(target.topLeft());
    p.drawText(QRectF(cell.left() - 10, l.cells.bottom() + 2, cell.width() + 20, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
               batchSizeLabel(double(grid_.batchBytes[std::size_t(c)])));
  }
  p.drawText(QRectF(l.cells.left(), l.cells.bottom() + 4 + fm.height(), l.cells.width(), fm.height()), Qt::AlignCenter,
             tr("batch size"));
  p.save();
  p.translate(target.left() + 12, l.cells.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-l.cells.height() / 2, -fm.height() / 2, l.cells.height(), fm.height()), Qt::AlignCenter, tr("streams"));
  p.restore();

  // Colour scale with its range and unit.
  const int steps = 32;
  for (int i = 0; i < steps; ++i) {
    const double h = l.scale.height() / steps;
    p.fillRect(QRectF(l.scale.left(), l.scale.bottom() - (i + 1) * h, l.scale.width(), h + 0.5),
               heatmapColor((i + 0.5) / steps));
  }
  p.setPen(QColor("#333333"));
  p.drawRect(l.scale);
  const QRectF labels(l.scale.right() + 4, l.scale.top(), kScaleLabels - 4, l.scale.height());
  p.drawText(labels, Qt::AlignLeft | Qt::AlignTop, valueText(hi_));
  p.drawText(labels, Qt::AlignLeft | Qt::AlignBottom, valueText(lo_));
  p.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, scaleUnit());
  p.restore();
}

void SweepHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paintTo(p, QRectF(rect()));
  if (hasFocus() && grid_.rows() > 0 && grid_.columns() > 0) {
    // The keyboard's cell: a frame in the highlight colour, inside the cell.
    const QRectF cell = cellRect(current_.y(), current_.x()).adjusted(1.5, 1.5, -1.5, -1.5);
    p.setPen(QPen(palette().color(QPalette::Highlight), 3));
    p.setBrush(Qt::NoBrush);
    p.drawRect(cell);
  }
}

QString SweepHeatmap::cellText(int row, int column) const {
  if (row < 0 || column < 0 || row >= grid_.rows() || column >= grid_.columns()) return {};
  const auto v = grid_.value(row, column);
  const QString what = batchSizeLabel(double(grid_.batchBytes[std::size_t(column)])) + " x " +
                       QString::number(grid_.streams[std::size_t(row)]) + tr(" streams");
  if (!v) return what + tr(": not measured");
  return what + ": " + valueText(*v) +
         (grid_.metric == HeatmapMetric::Efficiency ? QString() : QStringLiteral(" ") + tr("samples/s"));
}

void SweepHeatmap::keyPressEvent(QKeyEvent* event) {
  const int rows = grid_.rows(), cols = grid_.columns();
  if (rows == 0 || cols == 0) return QWidget::keyPressEvent(event);
  QPoint next = current_;
  switch (event->key()) {
    case Qt::Key_Left: next.rx() -= 1; break;
    case Qt::Key_Right: next.rx() += 1; break;
    case Qt::Key_Up: next.ry() += 1; break;  // row 0 is at the bottom
    case Qt::Key_Down: next.ry() -= 1; break;
    case Qt::Key_Home: next = QPoint(0, next.y()); break;
    case Qt::Key_End: next = QPoint(cols - 1, next.y()); break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Space:
      if (const auto index = grid_.index(current_.y(), current_.x()); index && grid_.value(current_.y(), current_.x()))
        emit pointClicked(*index);
      return;
    default: return QWidget::keyPressEvent(event);
  }
  current_ = QPoint(std::clamp(next.x(), 0, cols - 1), std::clamp(next.y(), 0, rows - 1));
  setStatusTip(cellText(current_.y(), current_.x()));
  setAccessibleDescription(statusTip());
  // Say it where the pointer would: the tooltip at the cell.
  QToolTip::showText(mapToGlobal(cellRect(current_.y(), current_.x()).center().toPoint()),
                     statusTip() + tr("\nEnter: open its timeline"), this);
  update();
}

void SweepHeatmap::focusInEvent(QFocusEvent* event) {
  QWidget::focusInEvent(event);
  update();
}

void SweepHeatmap::focusOutEvent(QFocusEvent* event) {
  QWidget::focusOutEvent(event);
  update();
}

void SweepHeatmap::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  if (const auto index = indexAt(event->position())) emit pointClicked(*index);
}

void SweepHeatmap::mouseMoveEvent(QMouseEvent* event) {
  for (int r = 0; r < grid_.rows(); ++r)
    for (int c = 0; c < grid_.columns(); ++c)
      if (cellRect(r, c).contains(event->position())) {
        const bool measured = grid_.value(r, c).has_value();
        QToolTip::showText(event->globalPosition().toPoint(),
                           cellText(r, c) + (measured ? tr("\nclick: open its timeline") : QString()), this);
        setCursor(measured ? Qt::PointingHandCursor : Qt::ArrowCursor);
        return;
      }
  setCursor(Qt::ArrowCursor);
}

}  // namespace pipescope::ui
