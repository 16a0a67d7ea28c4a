#pragma once
// The host's CUDA calls as a pipeline run's own trace shows them: what each kind of
// call took inside the pipeline, and the time between one call's end and the next
// call's start in the same batch (the measuring backend's own bookkeeping per op).
// Read straight from the trace, these need no fitting; the host overhead fit uses them.
#include "trace/Trace.h"

namespace pipescope {

struct PipelineCallTimes {
  double kernelLaunchNs = 0;  ///< median cudaLaunchKernel
  double memcpyAsyncNs = 0;   ///< median cudaMemcpyAsync (either direction)
  double eventRecordNs = 0;   ///< median cudaEventRecord
  double gemmCallNs = 0;      ///< median cublasSgemm (0 when the run made none)
  double gapNs = 0;           ///< median gap between consecutive calls of one batch
  int gaps = 0;               ///< how many gaps the median is of
  /// Lower quartile of the cudaEventSynchronize waits: what one costs when its batch
  /// is already done (in a host-bound run most are; 0 when the trace has none).
  double syncReturnNs = 0;
  /// Mean time from a cudaEventSynchronize's end to the next call, the slowest 5 %
  /// left out (a preempted thread): the backend retiring the batch it waited for.
  double retireGapNs = 0;
  int retireGaps = 0;  ///< how many such gaps
  /// Every figure was found (each call kind at least once, at least one gap).
  bool complete() const { return kernelLaunchNs > 0 && memcpyAsyncNs > 0 && eventRecordNs > 0 && gaps > 0; }
};

/// Reads the submitting threads' API calls of `trace` (published). Consecutive ops of
/// a submit lane count as a gap only when both are API calls of the same batch (or
/// both without one), so a host wait or a CPU stage between them is never taken for
/// bookkeeping; a cudaEventSynchronize followed by an API call gives a retire gap.
PipelineCallTimes readPipelineCallTimes(const Trace& trace);

}  // namespace pipescope
