#pragma once
// The submit thread's time around each CPU stage: waking the workers, and being
// woken when the last one is done. Neither is inside a worker's recorded span nor
// an API call, and on the GPU hosts each way took 15-35 us: a pipeline with pre-
// and postprocessing on small batches spent 50-100 us per batch that the model
// left out. The calibration runs the backend itself with tiny CPU stages on one and
// on eight workers and fits the hand-off until the simulator reproduces each run.
#include <functional>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

/// The fitting runs: async pinned, 1 stream, 64 KiB batches, pre- and postprocessing
/// at zero rounds, on 1 and on 8 workers (the hand-offs are most of each batch).
std::vector<PipelineConfig> cpuHandoffConfigs();

struct CpuHandoffResult {
  std::vector<WorkerHandoff> handoff;  ///< one point per fitting run
  std::vector<double> measuredNs;      ///< makespan of each fitting run (median of reps)
  std::vector<double> predictedNs;     ///< the simulator's, with the fitted hand-off
};

/// Runs cpuHandoffConfigs() `reps` times each (interleaved) on `measured` and solves
/// each run's hand-off by bisection on the simulator with `profile` (its CPU stage
/// costs and host overheads already fitted). Throws std::runtime_error when a
/// measured run fails.
CpuHandoffResult fitCpuHandoff(Backend& measured, const DeviceProfile& profile, int reps,
                               const std::function<void(const std::string&)>& log = {});

}  // namespace pipescope
