#pragma once
// The one-page report figure: title, configuration, device, the timeline, its
// legend, the metrics table and the charts, laid out for a slide or a paper page.
#include <QPalette>
#include <QRect>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

#include "metrics/MetricsRows.h"

class QPainter;

namespace pipescope::ui {

struct ReportContent {
  QString title;                     ///< "pipescope — multi-stream"
  QString subtitle;                  ///< what the preset teaches, or the file name
  QString device;                    ///< "Simulator: h200", "NVIDIA H200 (PCIe Gen5 x16)"
  QStringList configuration;         ///< configSummaryLines()
  std::vector<MetricsRow> metrics;   ///< metricsRows()
  QString bottleneck;                ///< the bottleneck sentence
  std::function<void(QPainter&, const QRect&)> paintTimeline;
  int timelineHeight = 0;            ///< height the lanes need (0: a default share of the page)
  std::function<void(QPainter&, const QRect&)> paintCharts;
  /// Paints the legend into the rect and returns the height it used.
  std::function<int(QPainter&, const QRect&)> paintLegend;
  /// Page colours: Base (paper), WindowText (ink), Mid (rules). Light for print.
  QPalette palette = QPalette(Qt::white);
};

/// Default page: 16:10, large enough for every lane and readable when printed.
inline constexpr QSize kReportPageSize{1800, 1125};

void paintReport(QPainter& painter, const QRect& page, const ReportContent& content);

}  // namespace pipescope::ui
