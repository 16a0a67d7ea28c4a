#include "analysis/RunAnalysis.h"

#include "analysis/WaitAnalysis.h"

namespace pipescope {

RunAnalysis analyseRun(const Trace& trace, const Metrics& metrics, const DeviceProfile* adviceProfile,
                       std::stop_token stop) {
  RunAnalysis r;
  r.limits = computeLimits(metrics);
  const TraceView view = trace.ops().snapshot();
  const auto lanes = trace.lanes();
  const WaitAnalysis waits = analyzeWaits(view, lanes);
  r.waits = summarizeWaits(waits, view, lanes);
  r.waitSentences = describeSummary(r.waits);
  if (adviceProfile && !trace.configHistory().empty()) {
    AdviceInput in;
    in.config = trace.config();
    in.profile = *adviceProfile;
    in.metrics = &metrics;
    in.waits = &r.waits;
    r.advice = advise(in, {}, stop);
  }
  return r;
}

}  // namespace pipescope
