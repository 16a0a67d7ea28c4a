#include "analysis/RunAnalysis.h"

#include "analysis/WaitAnalysis.h"
#include "analysis/WaitWindows.h"

namespace pipescope {

std::string noIterationsSentence(const Trace& trace, std::int64_t batches) {
  if (!trace.configHistory().empty() || batches > 0) return {};
  const std::string why = trace.iterations().why;
  if (why.empty()) return {};
  return "No iterations were found, so there are no limits to compare with: " + why + ".";
}

RunAnalysis analyseRun(const Trace& trace, const Metrics& metrics, const DeviceProfile* adviceProfile,
                       std::stop_token stop) {
  RunAnalysis r;
  r.limits = computeLimits(metrics);
  const TraceView view = trace.ops().snapshot();
  const auto lanes = trace.lanes();
  r.waits = summarizeAllWaits(view, lanes);
  r.waitSentences = describeSummary(r.waits);
  const bool imported = trace.configHistory().empty();
  if (const std::string none = noIterationsSentence(trace, metrics.batches); !none.empty())
    r.limits.positionSentence = none;
  if (imported && adviceProfile && metrics.batches > 0) r.derived = deriveConfig(trace, metrics, *adviceProfile, stop);
  const bool haveConfig = !imported || (r.derived && r.derived->ok());
  if (adviceProfile && !imported && trace.config().isMultiGpu())
    r.scaling = estimateScaling(trace.config(), metrics.samplesPerSec, trace.device().backend == "simulator",
                                *adviceProfile, stop);
  if (adviceProfile && haveConfig) {
    AdviceInput in;
    in.config = imported ? r.derived->config : trace.config();
    in.profile = *adviceProfile;
    in.metrics = &metrics;
    in.waits = &r.waits;
    if (r.scaling) in.scalingEfficiency = r.scaling->efficiency;
    AdviceOptions options;
    options.cpuStagesAreDispatch = imported;
    r.advice = advise(in, options, stop);
  }
  return r;
}

}  // namespace pipescope
