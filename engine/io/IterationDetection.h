#pragma once
// Finds the iterations of an imported trace and makes each one a batch (Op::batch),
// so a PyTorch profiler trace gets the analysis a pipescope run gets: per-batch stage
// times, the ideal bound, limits, wait causes (docs/analysis.md, "Imported traces").
//
// Where iterations come from, in this order:
// 1. a named marker (--iteration-marker NAME, the Open dialog's field): every user
//    range with that name starts an iteration (host ranges, else GPU ranges);
// 2. ProfilerStep#N ranges (torch.profiler with a schedule, prof.step());
// 3. a repeating sequence of user ranges (record_function / NVTX) on one host thread,
//    e.g. cpu_to_gpu, normalization, model, gpu_to_cpu: the first range of the period
//    starts an iteration;
// 4. the same on the GPU side (gpu_user_annotation ranges per stream) when the host
//    has none.
// Host ops belong to the iteration whose window [marker start, next marker start)
// holds their start (ProfilerStep: the step's own range). GPU ops belong to the
// iteration of the CUDA runtime call that launched them (correlation id), else, with
// GPU-side markers, to the latest marker of their stream, else to the host window
// their start falls in.
#include <string>
#include <vector>

#include "trace/Op.h"
#include "trace/Trace.h"

namespace pipescope {

struct IterationOptions {
  std::string marker;  ///< empty: detect; else the name of the range that starts an iteration
};

/// Sets Op::batch on `ops` (any order) and returns what was found. `names` is the
/// trace's names table (Op::name indexes it). With no iteration found every batch is
/// kNoBatch and IterationInfo::why says why, and what to do.
IterationInfo assignIterations(std::vector<Op>& ops, const std::vector<std::string>& names,
                               const IterationOptions& options);

}  // namespace pipescope
