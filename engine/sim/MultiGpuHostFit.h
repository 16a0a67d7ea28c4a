#pragma once
// The submit thread's extra time per GPU op while a run spans several GPUs
// (DeviceProfile::multiGpuHostOpOverheadNs). The one-GPU calibration fits the
// backend's own host cost per op on one GPU; over several GPUs the same calls and
// the gaps between them cost more (device and stream switches in the driver and the
// backend, cross-device event waits, NCCL's group calls), and the probes of single
// calls do not reproduce it. So, as on one GPU, the calibration runs the backend
// itself over its GPUs on host-bound pipelines and fits the term until the simulator
// reproduces them (docs/fidelity.md).
#include <functional>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

/// The two fitting runs over `devices` (two or more): data parallel, 64 KiB batches in
/// 4 chunks on 4 streams per GPU with a 256 KiB all-reduce in 4 buckets; pipeline
/// parallel, 4 micro-batches handing 64 KiB activations on, 2 streams. Host-bound
/// on any of the GPU hosts, so their length measures the host's time per op.
std::vector<PipelineConfig> multiGpuHostConfigs(const std::vector<int>& devices);

struct MultiGpuHostResult {
  double perOpNs = 0;
  /// The group all-reduce call's host time that reproduces the data-parallel run
  /// (DeviceProfile::allreduceCallNs), with perOpNs in place.
  double groupCallNs = 0;
  std::vector<double> measuredNs;   ///< makespan of each fitting run (median of reps)
  std::vector<double> predictedNs;  ///< the simulator's, with the fitted term
};

/// Writes a fit's results into a profile.
void applyMultiGpuHostOverhead(DeviceProfile& profile, const MultiGpuHostResult& fit);

/// Runs multiGpuHostConfigs(devices) `reps` times each on `measured` (interleaved)
/// and fits, on the simulator with `profile`: multiGpuHostOpOverheadNs (>= 0) until
/// the pipeline-parallel run is reproduced (it makes no NCCL call), then
/// allreduceCallNs until the data-parallel run is, its group calls being most of its
/// host time. Throws std::invalid_argument for fewer than two devices and
/// std::runtime_error when a measured run fails.
MultiGpuHostResult fitMultiGpuHostOverhead(Backend& measured, const DeviceProfile& profile,
                                           const std::vector<int>& devices, int reps,
                                           const std::function<void(const std::string&)>& log = {});

}  // namespace pipescope
