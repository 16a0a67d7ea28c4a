#pragma once
// The metrics of a run as labelled, formatted rows: one list shared by the metrics
// panel and the exported report so both always say the same thing. Every figure
// comes from computeMetrics(); this only chooses units and words.
#include <QString>
#include <vector>

#include "metrics/Metrics.h"

namespace pipescope::ui {

struct MetricsRow {
  QString label;
  QString value;
  QString tip;  ///< what the figure means (tooltip)
};

/// "850 ns", "12.4 µs", "3.21 ms", "1.50 s".
QString formatDurationNs(double ns);
/// "12.3 GB/s" (1e9 bytes per second).
QString formatGBps(double gbps);
/// "1.23 k/s", "45.6 M/s" with a unit word: formatRate(1234, "samples") = "1.23 k samples/s".
QString formatRate(double perSecond, const QString& unit);
/// "87.5 %" from a fraction.
QString formatPercent(double fraction);

std::vector<MetricsRow> metricsRows(const Metrics& m);

}  // namespace pipescope::ui
