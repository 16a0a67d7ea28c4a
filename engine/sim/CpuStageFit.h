#pragma once
// CPU pre/postprocessing cost as the pipeline sees it. Timed in isolation, the
// stages scaled 5.4x on 4 workers on the H200 host, but inside a running pipeline
// (submit thread, CUPTI's thread and DMA traffic next to them) barely 2x: the
// calibration therefore runs the backend itself with 1, 2, 4 and 8 workers and
// reads the stage times from its trace (docs/fidelity.md).
#include <functional>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"
#include "sim/DeviceProfile.h"
#include "trace/Trace.h"

namespace pipescope {

/// The fitting run for `workers`: async pinned, 4 streams, 8 MiB batches, 2 ops/B
/// of pre- and postprocessing (a size not in the validation matrix).
PipelineConfig cpuStageConfig(int workers);

/// Median over batches of one CPU stage's span (first worker start to last worker
/// end) per op-byte: ns per (byte x op/B). 0 when the trace has no such stage.
double cpuNsPerOpByte(const Trace& trace, OpKind stage, double opsPerByte);

struct CpuStageResult {
  double nsPerOp = 0;                    ///< one worker
  std::vector<WorkerSpeedup> speedup;    ///< 1, 2, 4, 8 workers
};

/// Runs cpuStageConfig(w) for w = 1, 2, 4, 8 on `measured`, `reps` times each
/// (median), and returns the profile's cpuNsPerOp and cpuWorkerSpeedup. Throws
/// std::runtime_error when a run fails.
CpuStageResult fitCpuStages(Backend& measured, int reps, const std::function<void(const std::string&)>& log = {});

}  // namespace pipescope
