#pragma once
// A stream count x batch size grid coloured by throughput or efficiency, with
// labelled axes, each cell's value written in it and a colour scale. Custom-painted:
// a handful of cells needs no chart library. Clicking a finished cell asks for that
// point's timeline; so does Enter on the keyboard's current cell (the arrow keys move
// it, a frame shows it while the map has the focus, its tooltip text is the status tip).
#include <QWidget>
#include <optional>

#include "sweep/SweepChartData.h"

namespace pipescope::ui {

class SweepHeatmap : public QWidget {
  Q_OBJECT
 public:
  explicit SweepHeatmap(QWidget* parent = nullptr);

  void setGrid(const HeatmapGrid& grid, const QString& title);
  const HeatmapGrid& grid() const { return grid_; }
  QString title() const { return title_; }

  /// The fill of a cell (empty cells are light grey).
  QColor cellColor(int row, int column) const;
  /// A cell's rectangle in a target of `size` (the widget's own size by default).
  QRectF cellRect(int row, int column, QSizeF size = {}) const;
  std::optional<std::size_t> indexAt(QPointF position) const;
  /// The keyboard's cell (row 0 = fewest streams, column 0 = smallest batch).
  QPoint currentCell() const { return current_; }
  /// What the cell holds, as its tooltip says it.
  QString cellText(int row, int column) const;

  /// Paints the whole heatmap (title, axes, cells, colour scale) into `target`.
  void paintTo(QPainter& painter, const QRectF& target) const;

  QSize sizeHint() const override { return {420, 260}; }
  QSize minimumSizeHint() const override { return {260, 180}; }

 signals:
  void pointClicked(std::size_t index);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void focusInEvent(QFocusEvent* event) override;
  void focusOutEvent(QFocusEvent* event) override;

 private:
  struct Layout {
    QRectF title, cells, scale;
  };
  Layout layoutFor(const QRectF& target) const;
  /// The value's place on the colour scale, 0..1.
  double scaled(double value) const;
  QString valueText(double value) const;
  QString scaleUnit() const;

  HeatmapGrid grid_;
  QString title_;
  double lo_ = 0, hi_ = 1;
  QPoint current_;  ///< x = column, y = row
};

}  // namespace pipescope::ui
