#pragma once
// Everything the analysis says about one finished run, in one place, for the CLI's
// run summary and the UI's metrics panel: limits, wait-cause summary, advice.
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/Advice.h"
#include "analysis/Limits.h"
#include "analysis/WaitSummary.h"
#include "metrics/Metrics.h"
#include "sim/DeviceProfile.h"
#include "trace/Trace.h"

namespace pipescope {

struct RunAnalysis {
  Limits limits;
  WaitSummary waits;
  std::vector<std::string> waitSentences;  ///< describeSummary(waits)
  std::optional<AdviceResult> advice;      ///< nullopt when not asked for (no configuration or profile)
};

/// Analyses the published ops of `trace` with its metrics. Advice needs the run's
/// configuration (imported traces have none) and a device profile to predict with.
RunAnalysis analyseRun(const Trace& trace, const Metrics& metrics, const DeviceProfile* adviceProfile,
                       std::stop_token stop = {});

}  // namespace pipescope
