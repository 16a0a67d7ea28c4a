#pragma once
// The chart series of each GPU in a run over several GPUs: its throughput (data
// parallel, where each batch runs on one GPU) and its compute engine's busy share,
// on the intervals of the run's own series so the GPUs' points line up with the total.
#include <string>
#include <vector>

#include "metrics/TimeSeries.h"
#include "trace/Lane.h"
#include "trace/RankInfo.h"

namespace pipescope {

/// What the timeline's group header calls `device`: "GPU 1", or for a rank of a
/// merged job "Rank 2" (every rank numbers its own GPU 0).
std::string gpuSeriesName(int device, const std::vector<RankInfo>& ranks);

/// Fills ts.gpus (one per GPU the lanes name, 0 .. gpuCountOf(lanes) - 1) and
/// ts.batchesSpanGpus from `ops`, the ops `ts` was computed from. A batch belongs to the
/// GPU its GPU work (copies, kernels, collectives; not peer copies) ran on and counts
/// where it completes, as TimeSeries::batches counts it; a batch with GPU work on
/// several GPUs (pipeline parallel, merged ranks) sets batchesSpanGpus, whose GPU series then hold no
/// throughput. Does nothing to an empty series.
void addGpuSeries(TimeSeries& ts, const TraceView& ops, const std::vector<Lane>& lanes,
                  const std::vector<RankInfo>& ranks);

}  // namespace pipescope
