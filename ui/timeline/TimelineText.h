#pragma once
// The words the timeline shows: tooltips of ops and folds, and the summary of a
// selected time range (whose figures all come from computeMetrics).
#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

#include "metrics/Metrics.h"
#include "trace/Trace.h"

namespace pipescope::ui {

/// "1.234568 s", "12.345 ms", "812.500 µs", "37 ns": a timestamp precise to ~1 ns.
QString formatTimestamp(std::int64_t ns);
/// "812 ns", "1.25 ms".
QString formatDuration(double ns);
/// "512 B", "4.19 MB", "1.07 GB" (decimal units, like GB/s).
QString formatBytes(double bytes);

/// Tooltip of one op, one fact per line: name and kind, batch and stream, lanes,
/// submit/ready/start/end, duration, bytes and GB/s, the two waits, flags; then
/// the annotator's extra lines (if any).
QStringList opTooltipLines(const Trace& trace, const std::vector<Lane>& lanes, const Op& op,
                           const QString& extra = {});
/// Tooltip of a folded run of ops.
QStringList foldTooltipLines(std::uint32_t count, std::int64_t fromNs, std::int64_t toNs);
/// Lines describing a selected range [fromNs, toNs) from its metrics.
QStringList selectionSummaryLines(const Metrics& m, std::int64_t fromNs, std::int64_t toNs);
/// Lines as rich text for QToolTip: the first line bold, the rest plain, escaped.
QString linesToRichText(const QStringList& lines);

}  // namespace pipescope::ui
