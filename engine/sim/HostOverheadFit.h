#pragma once
// The measuring tool's own host cost. pipescope's CUDA backend does more per GPU op
// than the bare CUDA call (CUPTI correlation ids, op records) and more per batch
// (finalising and publishing ops): on small batches that is most of the host's
// time. The calibration runs the backend itself on tiny batches and reads the calls'
// costs, hostOpOverheadNs and what retiring a batch costs from their traces, so the
// simulator reproduces those runs (docs/fidelity.md).
#include <cstdint>
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
  /// The API calls as the op-heavy run paid them inside the pipeline (its own trace,
  /// median of 3 runs): what the simulator charges for them, in place of the bare
  /// calls' cost in calibrate's tight loops (inside the pipeline an H200 host's
  /// cudaEventRecord took 1.0 us where the loop measured 1.9).
  double kernelLaunchNs = 0, memcpyAsyncCallNs = 0, eventRecordNs = 0;
  /// Retiring a batch, from both runs' traces (empty, 0 when they record no syncs):
  /// the sync's cost when its batch is done, the gap after it in each run, the ops
  /// the backend held then in each (the simulator's count), and the cost per held op.
  double syncReturnNs = 0, perHeldOpNs = 0;
  std::vector<double> retireGapsNs, heldOps;
  std::vector<double> measuredNs;   ///< makespan of each fitting run (the plain one's median of reps, the op-heavy one's of 3)
  std::vector<double> predictedNs;  ///< the simulator's, with the fitted parameters
  /// The backend's periodic CUPTI flush (sim/RecorderFlushFit.h), from one longer run
  /// of the op-heavy configuration: per GPU op issued before it (0 when the run never
  /// reached a flush), and that run measured and simulated with the fit.
  double recorderFlushNsPerOp = 0;
  double flushStallNs = 0, flushAtNs = 0;
  std::uint64_t flushOps = 0;
  double flushRunMeasuredNs = 0, flushRunPredictedNs = 0;
};

/// Runs the plain one of hostOverheadConfigs() `reps` times on `measured` (its
/// makespan), and the op-heavy one 3 times for its trace. From the trace: each call's cost and,
/// as the per-op overhead, the median time between one call's end and the next call's
/// start in the same batch (readPipelineCallTimes; read, not fitted: two runs could not
/// tell a per-op overhead from the call costs, and calibrations minutes apart on one
/// host put 0.02 and 2.8 us on it where the traces show 0.5-0.7). The plain run is
/// traced 3 times too: retiring a batch costs a sync's return (the op-heavy run's
/// lower quartile) and then a gap before the next call that grows with the GPU ops the
/// backend still holds (a line through the two runs' gaps, the simulator counting the
/// held ops); both >= 0. Where the traces hold no syncs, the per-batch overhead is
/// solved instead by bisection on the simulator with `profile` (other fields as they
/// are) until it reproduces the plain run; >= 0. Last, one longer run of the op-heavy
/// configuration (recorderFlushConfig) for the recorder's periodic flush, read from
/// its trace (readRecorderFlush). Throws std::runtime_error when a measured run fails
/// or its trace holds no such calls.
HostOverheadResult fitHostOverhead(Backend& measured, const DeviceProfile& profile, int reps,
                                   const std::function<void(const std::string&)>& log = {});

/// Writes a fit's results into a profile (the overheads, the flush and the call costs).
void applyHostOverhead(DeviceProfile& profile, const HostOverheadResult& fit);

}  // namespace pipescope
