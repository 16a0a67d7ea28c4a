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

/// The fitting run for `workers`: async pinned, 4 streams, 8 MiB batches,
/// `opsPerByte` of pre- and postprocessing (a size not in the validation matrix).
PipelineConfig cpuStageConfig(int workers, double opsPerByte = 2.0);

/// Median over batches of one CPU stage's span (first worker start to last worker
/// end) per byte. 0 when the trace has no such stage.
double cpuStageNsPerByte(const Trace& trace, OpKind stage);

/// Median over batches of one CPU stage's workers' mean time per byte of the stage.
/// 0 when the trace has no such stage.
double cpuStageWorkerMeanNsPerByte(const Trace& trace, OpKind stage);

/// One CPU stage summed over a trace's batches: the spans (first worker start to last
/// worker end) and the workers' mean times. Their ratio is the late-worker factor.
struct StageSpanSums {
  double spanNs = 0;
  double workerMeanNs = 0;
};
StageSpanSums cpuStageSpanSums(const Trace& trace, OpKind stage);

struct CpuStageResult {
  double nsPerOp = 0;            ///< one round on one byte, one worker (both stages' mean)
  double preprocessNsPerOp = 0;  ///< the same, each stage on its own
  double postprocessNsPerOp = 0;
  double preprocessNsPerByte = 0;  ///< at zero rounds, one worker
  double postprocessNsPerByte = 0;
  /// Each stage per byte on one worker at 0, 4 and 8 rounds.
  std::vector<CpuRoundsPoint> preprocessRoundsCurve, postprocessRoundsCurve;
  /// 1, 2, 4, 8 workers, of the workers' mean time (the stage's span is that over
  /// the late-worker factor below; fitting the speed-up to the span as well would
  /// count the late worker twice).
  std::vector<WorkerSpeedup> speedup;
  /// 2, 4, 8 workers: the stages' summed spans over their workers' summed mean times,
  /// over every batch of every repetition, so a repetition whose slow worker kept
  /// the stages long weighs by the time it cost (a median of runs would drop it).
  std::vector<LateWorkerPoint> lateWorker;
};

/// Runs the fitting configuration on `measured`, `reps` times each (median): on one
/// worker at 0, 4 and 8 rounds (config/ModelWork.h), which gives each stage's cost
/// by rounds (a round costs more above 4), and at 2 rounds on 1, 2, 4 and 8 workers
/// for the speed-up of the workers' mean time and the late-worker factor. Returns the
/// profile's CPU fields. Throws std::runtime_error when a run fails.
CpuStageResult fitCpuStages(Backend& measured, int reps, const std::function<void(const std::string&)>& log = {});

}  // namespace pipescope
