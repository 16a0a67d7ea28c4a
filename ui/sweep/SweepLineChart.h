#pragma once
// Throughput against batch size (log scale), one line per stream count with its
// min/max spread as a band, and optionally the simulator's prediction as dashed
// lines. This header is the whole interface: Qt Charts stays in the .cpp (it is
// deprecated from Qt 6.10 in favour of Qt Graphs, which Qt 6.4 lacks).
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "sweep/SweepChartData.h"

class QPainter;

namespace pipescope::ui {

class SweepLineChart : public QWidget {
  Q_OBJECT
 public:
  explicit SweepLineChart(QWidget* parent = nullptr);
  ~SweepLineChart() override;

  /// Replaces everything; `predicted` may be empty.
  void setData(const std::vector<SweepSeries>& measured, const std::vector<SweepSeries>& predicted,
               const QString& title);
  void clear();

  /// Measured lines, their point counts, and the dashed prediction lines (tests).
  int measuredSeriesCount() const;
  std::vector<int> measuredPointCounts() const;
  int predictedSeriesCount() const;
  QStringList legendNames() const;
  QString xAxisTitle() const;
  QString yAxisTitle() const;
  /// Where the point with this grid index is drawn, in this widget's coordinates.
  std::optional<QPoint> positionOf(std::size_t index) const;

  /// Paints the chart into `target` (export and report figures).
  void renderTo(QPainter& painter, const QRectF& target);

 signals:
  /// A measured point was clicked: its grid index.
  void pointClicked(std::size_t index);

 private:
  struct Impl;
  std::unique_ptr<Impl> d_;
};

}  // namespace pipescope::ui
