#pragma once
// The summary `pipescope-cli run` prints: a table for people, JSON for scripts. Both
// carry the same figures, all from computeMetrics().
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "analysis/RunAnalysis.h"
#include "config/PipelineConfig.h"
#include "metrics/Metrics.h"
#include "trace/DeviceInfo.h"
#include "trace/Trace.h"

namespace pipescope::cli {

struct RunReport {
  PipelineConfig config;
  bool configKnown = true;  ///< false for imported traces that carry no configuration
  std::string presetName;   ///< empty when none was given
  DeviceInfo device;
  std::string backendNote;  ///< why `auto` chose what it chose
  RunOutcome outcome;
  /// The stop signal that ended the run ("SIGTERM"), empty when none did.
  std::string stoppedBy;
  Metrics metrics;
  std::string tracePath;    ///< empty when no trace was written
  std::uint64_t droppedOps = 0;
  std::optional<RunAnalysis> analysis;  ///< limits, wait causes, advice (docs/analysis.md)
};

std::string formatSummary(const RunReport& report);
nlohmann::json summaryJson(const RunReport& report);

/// "850 ns", "12.3 µs", "24.1 ms", "1.23 s".
std::string formatDuration(double ns);

}  // namespace pipescope::cli
