#pragma once
// Everything the analysis says about one finished run, in one place, for the CLI's
// run summary and the UI's metrics panel: limits, wait-cause summary, advice.
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/Advice.h"
#include "analysis/DerivedConfig.h"
#include "analysis/Limits.h"
#include "analysis/ScalingEstimate.h"
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
  /// Imported traces with iterations: the configuration that reproduces them on the
  /// simulator (the advice's baseline); nullopt for native runs or without a profile.
  std::optional<DerivedConfig> derived;
  /// Several GPUs, with a profile: throughput over N x one GPU's (the simulator's).
  std::optional<ScalingEstimate> scaling;
};

/// Analyses the published ops of `trace` with its metrics. Advice needs a device
/// profile to predict with and a configuration: the run's own, or for an imported
/// trace with iterations the derived one (analysis/DerivedConfig.h). An imported trace
/// without iterations says why in the limits' sentence.
/// "No iterations were found, so there are no limits to compare with: <why>." for an
/// imported trace without iterations (empty otherwise): the limits' sentence, said once.
std::string noIterationsSentence(const Trace& trace, std::int64_t batches);

RunAnalysis analyseRun(const Trace& trace, const Metrics& metrics, const DeviceProfile* adviceProfile,
                       std::stop_token stop = {});

}  // namespace pipescope
