#include "sim/MultiGpuHostFit.h"

#include <stdexcept>

#include "sim/FitRuns.h"

namespace pipescope {

namespace {

constexpr double kMaxOverheadNs = 1e5;   // 100 us per op: far beyond any host seen
constexpr double kMinGroupCallNs = 1e3;  // 0 would mean "not measured" (a launch per GPU)
constexpr double kMaxGroupCallNs = 1e6;  // 1 ms per group call
const std::string kWhat = "several-GPU host overhead fit";

}  // namespace

std::vector<PipelineConfig> multiGpuHostConfigs(const std::vector<int>& devices) {
  if (devices.size() < 2) throw std::invalid_argument("the several-GPU host overhead fit needs two or more GPUs");
  const int gpus = int(devices.size());
  PipelineConfig data = tinyBatchFitConfig(100 * gpus);  // 100 batches per GPU
  data.devices = devices;
  data.parallel = ParallelMode::Data;
  data.streams = 4;
  data.transferChunks = 4;
  data.allreduceBytes = 256 * 1024;
  data.buckets = 4;
  PipelineConfig pipeline = tinyBatchFitConfig(150);
  pipeline.devices = devices;
  pipeline.parallel = ParallelMode::Pipeline;
  pipeline.streams = 2;
  pipeline.microBatches = 4;
  pipeline.activationBytes = 64 * 1024;
  return {data, pipeline};
}

MultiGpuHostResult fitMultiGpuHostOverhead(Backend& measured, const DeviceProfile& profile,
                                           const std::vector<int>& devices, int reps,
                                           const std::function<void(const std::string&)>& log) {
  const std::vector<PipelineConfig> configs = multiGpuHostConfigs(devices);
  MultiGpuHostResult r;
  r.measuredNs = measureInterleavedNs(measured, configs, reps, kWhat);
  // The pipeline-parallel run makes no NCCL call: it alone fixes the per-op term. The
  // data-parallel run then fixes the group call's cost with that term in place (its
  // four all-reduces per batch are most of its host time; the probe's figure, taken
  // with the GPUs held busy by one kernel, differed from it either way: 84 against
  // 132 us in one 4 x H200 calibration, 86 against 72 in another).
  DeviceProfile p = profile;
  r.perOpNs = solveProfileField(p, &DeviceProfile::multiGpuHostOpOverheadNs, configs[1], r.measuredNs[1], 0,
                                kMaxOverheadNs, kWhat);
  p.multiGpuHostOpOverheadNs = r.perOpNs;
  r.groupCallNs = solveProfileField(p, &DeviceProfile::allreduceCallNs, configs[0], r.measuredNs[0],
                                    kMinGroupCallNs, kMaxGroupCallNs, kWhat);
  p.allreduceCallNs = r.groupCallNs;
  for (const PipelineConfig& c : configs) r.predictedNs.push_back(simulatedMakespanNs(p, c, kWhat));
  if (log) {
    logFitRuns(log, "several-GPU host overhead", configs, r.measuredNs, r.predictedNs);
    log("host time per GPU op over " + std::to_string(devices.size()) + " GPUs beyond one GPU's: " +
        fitMicros(r.perOpNs) + " us; a group all-reduce call inside the pipeline: " + fitMicros(r.groupCallNs) +
        " us (the probe: " + fitMicros(profile.allreduceCallNs) + " us)");
  }
  return r;
}

void applyMultiGpuHostOverhead(DeviceProfile& profile, const MultiGpuHostResult& fit) {
  profile.multiGpuHostOpOverheadNs = fit.perOpNs;
  profile.allreduceCallNs = fit.groupCallNs;
}

}  // namespace pipescope
