#pragma once
// What `analyze` prints about an opened trace and `record` about a recording: the
// metrics, limits and wait causes of the run summary, and, for traces that carry no
// pipescope configuration (imported or recorded), their iterations, the configuration
// derived from one iteration and the advice the simulator predicts for it.
#include <optional>
#include <ostream>
#include <string>

#include "RunSummary.h"
#include "sim/DeviceProfile.h"
#include "trace/Trace.h"

namespace pipescope::cli {

struct TraceReportOptions {
  std::string profile;     ///< --profile NAME|FILE (empty: the trace's device's, else h200)
  std::string derivePath;  ///< --derive-config FILE.json
  bool noAdvice = false;   ///< --no-advice
};

struct TraceReport {
  RunReport report;
  bool imported = false;  ///< no pipescope configuration: iterations and a derived configuration
  std::optional<DeviceProfile> profile;
  std::string profileWhy;
};

/// Analyses `trace` as `analyze` does. Throws UsageError for an unknown --profile.
TraceReport analyseTrace(const Trace& trace, const TraceReportOptions& options);
/// Writes --derive-config; false with `error` set when it cannot.
bool writeDerivedConfig(const Trace& trace, const TraceReport& r, const TraceReportOptions& options, std::string& error);
/// The iterations line, the summary and the derived configuration (text).
void printTraceReport(std::ostream& out, const Trace& trace, const TraceReport& r, const TraceReportOptions& options);
/// "12 from NVTX ranges, each starting at 'step'; batch size unknown (...)".
std::string iterationsLine(const IterationInfo& it, std::int64_t batches);

}  // namespace pipescope::cli
