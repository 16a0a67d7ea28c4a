#pragma once
// What the Controls dock says about an opened trace: the file, or for the ranks of a
// job merged into one trace, the folder (or files) and how many profiler traces of
// which ranks it holds.
#include <QString>

#include "controls/TraceSourceBox.h"
#include "trace/Trace.h"

namespace pipescope::ui {

/// `path`: what was opened (a file, a profiler folder, or "N files" for rank files
/// dropped together).
TraceSource describeOpenedTrace(const Trace& trace, const QString& path);

/// "ranks 0-3 of 4", "ranks 0, 1 and 3 of 4", "rank 2": the ranks a merged trace holds.
QString rankRangeText(const std::vector<RankInfo>& ranks);

}  // namespace pipescope::ui
