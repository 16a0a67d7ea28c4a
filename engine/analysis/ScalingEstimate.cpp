#include "analysis/ScalingEstimate.h"

#include <algorithm>

#include "analysis/AnalysisFormat.h"
#include "analysis/SimulatedRun.h"

namespace pipescope {

PipelineConfig oneGpuConfig(const PipelineConfig& config) {
  PipelineConfig one = config;
  one.devices = {config.deviceOrdinals().front()};
  one.parallel = ParallelMode::Data;
  one.microBatches = 1;
  return one;
}

std::optional<ScalingEstimate> estimateScaling(const PipelineConfig& config, double samplesPerSec, bool runSimulated,
                                               const DeviceProfile& profile, std::stop_token stop) {
  if (!config.isMultiGpu() || samplesPerSec <= 0) return std::nullopt;
  PipelineConfig one = oneGpuConfig(config);
  // Enough batches for a steady rate, as the advice simulates.
  one.batchCount = one.runsUntilStopped() ? 64 : std::min(one.batchCount, 64);
  const SimulatedRun run = simulate(one, profile, stop);
  if (!run.ok() || run.metrics.samplesPerSec <= 0) return std::nullopt;
  ScalingEstimate s;
  s.gpus = config.gpuCount();
  s.samplesPerSec = samplesPerSec;
  s.oneGpuSamplesPerSec = run.metrics.samplesPerSec;
  s.efficiency = samplesPerSec / (s.gpus * s.oneGpuSamplesPerSec);
  s.runSimulated = runSimulated;
  s.source = "the simulator's one-GPU run of the same configuration (profile " + profile.name + ")";
  s.sentence = "Scaling efficiency " + formatPercent(s.efficiency) + ": " + formatFigure(samplesPerSec) +
               " samples/s on " + std::to_string(s.gpus) + " GPUs against " + std::to_string(s.gpus) + " x " +
               formatFigure(s.oneGpuSamplesPerSec) + " on one (" + s.source +
               (runSimulated ? "; the " + std::to_string(s.gpus) + "-GPU figure is simulated too)."
                             : "; the " + std::to_string(s.gpus) + "-GPU figure is measured, so the ratio also holds "
                                                                      "the model's error).");
  return s;
}

}  // namespace pipescope
