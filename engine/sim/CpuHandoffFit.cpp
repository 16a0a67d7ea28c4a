#include "sim/CpuHandoffFit.h"

#include "sim/FitRuns.h"
#include "sim/Validation.h"

namespace pipescope {

namespace {

constexpr double kMaxHandoffNs = 1e6;  // 1 ms per stage: beyond any thread wake-up
const std::string kWhat = "CPU hand-off fit";

}  // namespace

std::vector<PipelineConfig> cpuHandoffConfigs() {
  PipelineConfig c = tinyBatchFitConfig(200);  // a stage's own work on 64 KiB is a few tens of us
  c.cpuWorkers = 1;
  c.preprocessOpsPerByte = 0.25;  // zero rounds: the samples generated, the output read
  c.postprocessOpsPerByte = 0.25;
  PipelineConfig eight = c;
  eight.cpuWorkers = 8;
  return {c, eight};
}

CpuHandoffResult fitCpuHandoff(Backend& measured, const DeviceProfile& profile, int reps,
                               const std::function<void(const std::string&)>& log) {
  const std::vector<PipelineConfig> configs = cpuHandoffConfigs();
  CpuHandoffResult r;
  r.measuredNs = measureInterleavedNs(measured, configs, reps, kWhat);
  // Each run solved alone, with the hand-off the same at every worker count, so the
  // run on one worker count does not see the other's point.
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const double ns = solveProfileValue(
        profile,
        [](DeviceProfile& p, double v) {
          p.cpuStageHandoff = {{1, v}};
        },
        configs[i], r.measuredNs[i], 0, kMaxHandoffNs, kWhat);
    r.handoff.push_back({configs[i].cpuWorkers, ns});
  }
  DeviceProfile fitted = profile;
  fitted.cpuStageHandoff = r.handoff;
  for (const PipelineConfig& c : configs) r.predictedNs.push_back(simulatedMakespanNs(fitted, c, kWhat));
  logFitRuns(log, "CPU hand-off", configs, r.measuredNs, r.predictedNs);
  if (log) {
    std::string line = "CPU stage hand-off (submit thread, per stage):";
    for (const WorkerHandoff& h : r.handoff) line += " " + std::to_string(h.workers) + "w=" + fitMicros(h.ns) + " us";
    log(line);
  }
  return r;
}

}  // namespace pipescope
