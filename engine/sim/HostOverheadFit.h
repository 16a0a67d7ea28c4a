#pragma once
// The measuring tool's own host cost. pipescope's CUDA backend does more per GPU op
// than the bare CUDA call (CUPTI correlation ids, op records) and more per batch
// (finalising and publishing ops): on small batches that is most of the host's
// time. The calibration runs the backend itself on tiny batches and fits two
// profile parameters, hostOpOverheadNs and hostBatchOverheadNs, so the simulator
// reproduces those runs (docs/fidelity.md).
#include <functional>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

/// The two fitting runs: async pinned, 1 stream, 64 KiB batches; one with 4 GPU ops
/// per batch, one with 18 (copies in 8 chunks). Their sizes are not in the
/// validation matrix, so the validation stays an independent check.
std::vector<PipelineConfig> hostOverheadConfigs();

struct HostOverheadResult {
  double perOpNs = 0;
  double perBatchNs = 0;
  /// Factor on the profile's bare API call costs (kernel launch, cudaMemcpyAsync,
  /// event record): 1 unless the simulator with those costs and no overhead is
  /// already slower than the measured op-heavy run, when the calls evidently cost
  /// less inside the pipeline than in the calibration's tight loops (seen on an H100:
  /// launches measured 8.2 us bare in one calibration, 5.0 in the previous one).
  double callScale = 1;
  std::vector<double> measuredNs;   ///< makespan of each fitting run (median of reps)
  std::vector<double> predictedNs;  ///< the simulator's, with the fitted parameters
};

/// Runs hostOverheadConfigs() `reps` times each on `measured` and fits the two
/// parameters by bisection on the simulator with `profile` (other fields as they
/// are). Both are >= 0. When the simulator is already slower than the op-heavy
/// measurement with no overhead at all, the API call costs are scaled down first
/// (callScale) until it matches, then the overheads are fitted on top. Throws
/// std::runtime_error when a measured run fails.
HostOverheadResult fitHostOverhead(Backend& measured, const DeviceProfile& profile, int reps,
                                   const std::function<void(const std::string&)>& log = {});

/// Writes a fit's results into a profile (the overheads, and the call costs scaled).
void applyHostOverhead(DeviceProfile& profile, const HostOverheadResult& fit);

}  // namespace pipescope
