#pragma once
// Scaling efficiency of a run over several GPUs: its throughput over N times the
// throughput of the same configuration on one GPU (docs/analysis.md, "Several GPUs").
// The one-GPU figure comes from the simulator; the estimate says so, and whether the
// N-GPU figure was measured or simulated too.
#include <optional>
#include <stop_token>
#include <string>

#include "config/PipelineConfig.h"
#include "metrics/Metrics.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

struct ScalingEstimate {
  int gpus = 0;
  double samplesPerSec = 0;        ///< the run's
  double oneGpuSamplesPerSec = 0;  ///< the same configuration on its first GPU alone
  double efficiency = 0;           ///< samplesPerSec / (gpus x oneGpuSamplesPerSec)
  bool runSimulated = false;       ///< the N-GPU figure is the simulator's too
  std::string source;              ///< where the one-GPU figure came from
  std::string sentence;            ///< "Scaling efficiency 87%: ..."
};

/// The configuration run on one GPU: its first device, data parallel (a pipeline's
/// stages all on that GPU, so no micro-batches), no all-reduce.
PipelineConfig oneGpuConfig(const PipelineConfig& config);

/// nullopt for one GPU, no throughput, or a one-GPU run that fails on the simulator.
/// `samplesPerSec` is the run's; `runSimulated` says whether it came from the
/// simulator (with the same profile: a model-consistent ratio) or was measured.
std::optional<ScalingEstimate> estimateScaling(const PipelineConfig& config, double samplesPerSec, bool runSimulated,
                                               const DeviceProfile& profile, std::stop_token stop = {});

}  // namespace pipescope
