#pragma once
// The sweep as one figure for a report: a heading (device, grid), the throughput
// chart, the throughput and efficiency heatmaps, and the recommendation with the
// stream knees underneath. Painted the same into the PNG and the SVG export.
#include <QRect>
#include <QString>
#include <QStringList>

class QPainter;

namespace pipescope::ui {

class SweepLineChart;
class SweepHeatmap;

struct SweepFigureText {
  QString heading;         ///< "Sweep on NVIDIA H200: 16 points, ..."
  QString recommendation;  ///< the one-sentence recommendation
  QStringList knees;       ///< one line per batch size
  QStringList notes;
};

/// Logical size of the exported figure (PNG at 2x: 3200 x 2000 pixels).
inline constexpr int kSweepFigureWidth = 1600;
inline constexpr int kSweepFigureHeight = 1000;

void paintSweepFigure(QPainter& painter, const QRect& target, SweepLineChart& chart, const SweepHeatmap& throughput,
                      const SweepHeatmap& efficiency, const SweepFigureText& text);

}  // namespace pipescope::ui
