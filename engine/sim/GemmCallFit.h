#pragma once
// Host cost of one cublasSgemm call of the light and heavy presets inside the
// pipeline. The calibration's own GEMM loop (calls queued behind a long kernel,
// at one moment of a shared host) disagreed with the pipeline in both directions:
// 11.4 us per light call on an H100 host whose pipeline paid 8.4, 9.2 us on an H200
// host whose pipeline paid 13.3 while its kernel launches cost 1.7x more than the
// calibration's too. On small batches those calls are the run's length, so the
// calibration runs the backend itself with each preset on 64 KiB batches and reads
// the call cost from those runs' traces (docs/fidelity.md).
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
  double lightCallNs = 0;  ///< what the profile takes: the traced figure where there is one
  double heavyCallNs = 0;
  double lightTracedNs = 0, heavyTracedNs = 0;  ///< the runs' traces' median call (0: not recorded)
  double lightSolvedNs = 0, heavySolvedNs = 0;  ///< solved from the runs' length
  std::vector<double> measuredNs;   ///< makespan of each fitting run (median of reps)
  std::vector<double> predictedNs;  ///< the simulator's, with the fitted call costs
};

/// Runs gemmCallConfigs() `reps` times each (interleaved) on `measured`, then 3
/// times each for their traces: each preset's call cost is the traces' median
/// cublasSgemm call. Where the backend records no such calls, the cost is solved by
/// bisection on the simulator with `profile` (its host overheads already fitted)
/// until it reproduces the run's length (1 ns when the simulator is already as slow
/// with free calls); both are kept for the log. Throws std::runtime_error when a
/// measured run fails.
GemmCallResult fitGemmCalls(Backend& measured, const DeviceProfile& profile, int reps,
                            const std::function<void(const std::string&)>& log = {});

/// Writes a fit's call costs into a profile.
void applyGemmCalls(DeviceProfile& profile, const GemmCallResult& fit);

}  // namespace pipescope
