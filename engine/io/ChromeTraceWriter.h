#pragma once
// Chrome trace event JSON export, for Perfetto (ui.perfetto.dev) and chrome://tracing:
// a process for the host and one for the GPU, a thread per lane (named with 'M'
// metadata and ordered with sort indices), an 'X' event per op, flow events from each
// host API call to the GPU op it started, and throughput counters. A lane whose ops
// overlap is split over several threads ("stream 1", "stream 1 (2)") because a
// thread's slices must nest. GPU ops are also shown on their engine lane (marked
// args.mirror, skipped when pipescope reads the file back). See docs/file-formats.md.
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "trace/Trace.h"

namespace pipescope {

/// 2: lanes carry "lane_device", otherData lists "devices"; 1 still reads.
inline constexpr int kChromeExportVersion = 2;

struct ChromeExportOptions {
  /// Hook for the wait-cause analysis (engine/analysis/): given an op and its global
  /// index, the text to put in args["wait cause"]; empty text or no function = no argument.
  std::function<std::string(const Op& op, std::uint64_t index)> waitCause;
  /// Most throughput counter samples ('C' events, one per interval of TimeSeries.h:
  /// one per batch up to this many); 0 disables the counters.
  int counterBins = 400;
};

void writeChromeTrace(const Trace& trace, std::ostream& out, const ChromeExportOptions& options = {});
/// Writes atomically; throws TraceFileError.
void saveChromeTrace(const Trace& trace, const std::string& path, const ChromeExportOptions& options = {});

/// "1234.567": nanoseconds as microseconds with three decimals, exactly.
std::string nsToMicrosText(std::int64_t ns);

}  // namespace pipescope
