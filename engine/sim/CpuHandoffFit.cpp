#include "sim/CpuHandoffFit.h"

#include <cstdio>

#include "sim/FitRuns.h"
#include "sim/Validation.h"

namespace pipescope {

namespace {

constexpr double kMaxHandoffNs = 1e6;  // 1 ms per stage: beyond any thread wake-up
const std::string kWhat = "CPU hand-off fit";

std::string us(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", ns / 1e3);
  return buf;
}

}  // namespace

std::vector<PipelineConfig> cpuHandoffConfigs() {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pinned;
  c.streams = 1;
  c.batchSamples = 16;
  c.sampleBytes = 4096;  // 64 KiB batches: a stage's own work is a few tens of us
  c.batchCount = 200;
  c.modelFlopsPerByte = 100;
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
  if (log) {
    std::string line = "CPU stage hand-off (submit thread, per stage):";
    for (std::size_t i = 0; i < configs.size(); ++i) {
      log("CPU hand-off run " + std::to_string(i + 1) + " (" + describeCase(configs[i]) + "): measured " +
          us(r.measuredNs[i]) + " us, simulated with the fit " + us(r.predictedNs[i]) + " us");
      line += " " + std::to_string(r.handoff[i].workers) + "w=" + us(r.handoff[i].ns) + " us";
    }
    log(line);
  }
  return r;
}

}  // namespace pipescope
