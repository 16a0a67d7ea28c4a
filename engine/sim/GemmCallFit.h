#pragma once
// Host cost of one cublasSgemm call of the light and heavy presets inside the
// pipeline. The calibration's own GEMM loop (calls queued behind a long kernel,
// at one moment of a shared host) disagreed with the pipeline in both directions:
// 11.4 us per light call on an H100 host whose pipeline paid 8.4, 9.2 us on an H200
// host whose pipeline paid 13.3 while its kernel launches cost 1.7x more than the
// calibration's too. On small batches those calls are the run's length, so the
// calibration runs the backend itself with each preset on 64 KiB batches and fits
// the call cost until the simulator reproduces the run (docs/fidelity.md).
#include <functional>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

/// The two fitting runs: async pinned, 1 stream, 64 KiB batches, the light preset
/// and the heavy preset (host-bound: each GEMM's GPU time is under its call's).
std::vector<PipelineConfig> gemmCallConfigs();

struct GemmCallResult {
  double lightCallNs = 0;
  double heavyCallNs = 0;
  std::vector<double> measuredNs;   ///< makespan of each fitting run (median of reps)
  std::vector<double> predictedNs;  ///< the simulator's, with the fitted call costs
};

/// Runs gemmCallConfigs() `reps` times each (interleaved) on `measured` and solves
/// lightGemmCallNs and heavyGemmCallNs by bisection on the simulator with `profile`
/// (its host overheads already fitted). 1 ns when the simulator is already as slow
/// with free calls. Throws std::runtime_error when a measured run fails.
GemmCallResult fitGemmCalls(Backend& measured, const DeviceProfile& profile, int reps,
                            const std::function<void(const std::string&)>& log = {});

/// Writes a fit's call costs into a profile.
void applyGemmCalls(DeviceProfile& profile, const GemmCallResult& fit);

}  // namespace pipescope
