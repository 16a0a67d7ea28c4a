#pragma once
// One run of the pipeline on a real GPU: the same algorithm the simulator models
// (docs/cuda-backend.md), recorded op by op with CUPTI engine timestamps.
#include <memory>

#include "backend/Backend.h"

namespace pipescope::cuda {

/// Buffers one run leaves to the next (Backend::keepBuffersBetweenRuns); opaque here.
struct BufferCache;
std::shared_ptr<BufferCache> makeBufferCache();
/// Frees what the cache holds (after the device is idle).
void clearBufferCache(BufferCache& cache);

/// Runs `config` on `device`; throws CudaError / std::runtime_error on failure
/// (ops recorded so far stay in `trace`). Returns Finished or Stopped. With a cache,
/// the run starts from the cached buffers when they fit and leaves its own there.
RunOutcome runPipeline(int device, const DeviceInfo& info, const PipelineConfig& config, Trace& trace,
                       RunControl& control, BufferCache* cache = nullptr);

}  // namespace pipescope::cuda
