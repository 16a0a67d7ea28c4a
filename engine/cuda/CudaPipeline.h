#pragma once
// One run of the pipeline on a real GPU: the same algorithm the simulator models
// (docs/cuda-backend.md), recorded op by op with CUPTI engine timestamps.
#include "backend/Backend.h"

namespace pipescope::cuda {

/// Runs `config` on `device`; throws CudaError / std::runtime_error on failure
/// (ops recorded so far stay in `trace`). Returns Finished or Stopped.
RunOutcome runPipeline(int device, const DeviceInfo& info, const PipelineConfig& config, Trace& trace,
                       RunControl& control);

}  // namespace pipescope::cuda
