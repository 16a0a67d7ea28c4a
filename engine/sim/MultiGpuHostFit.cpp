#include "sim/MultiGpuHostFit.h"

#include <stdexcept>

#include "sim/FitRuns.h"

namespace pipescope {

namespace {

constexpr double kMaxOverheadNs = 1e5;  // 100 us per op: far beyond any host seen
const std::string kWhat = "several-GPU host overhead fit";

double totalSimulatedNs(const DeviceProfile& p, const std::vector<PipelineConfig>& configs) {
  double sum = 0;
  for (const PipelineConfig& c : configs) sum += simulatedMakespanNs(p, c, kWhat);
  return sum;
}

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
  double target = 0;
  for (double ns : r.measuredNs) target += ns;
  // One term for both runs: their total, so neither kind of parallelism dominates by
  // its length alone (they take about as long). The total grows with the term.
  DeviceProfile p = profile;
  p.multiGpuHostOpOverheadNs = 0;
  double lo = 0, hi = kMaxOverheadNs;
  if (totalSimulatedNs(p, configs) < target) {
    p.multiGpuHostOpOverheadNs = hi;
    if (totalSimulatedNs(p, configs) > target) {
      for (int i = 0; i < 40 && hi - lo > 5; ++i) {
        p.multiGpuHostOpOverheadNs = 0.5 * (lo + hi);
        (totalSimulatedNs(p, configs) < target ? lo : hi) = p.multiGpuHostOpOverheadNs;
      }
      p.multiGpuHostOpOverheadNs = 0.5 * (lo + hi);
    }
  }
  r.perOpNs = p.multiGpuHostOpOverheadNs;
  for (const PipelineConfig& c : configs) r.predictedNs.push_back(simulatedMakespanNs(p, c, kWhat));
  if (log) {
    logFitRuns(log, "several-GPU host overhead", configs, r.measuredNs, r.predictedNs);
    log("host time per GPU op over " + std::to_string(devices.size()) + " GPUs beyond one GPU's: " +
        fitMicros(r.perOpNs) + " us");
  }
  return r;
}

}  // namespace pipescope
