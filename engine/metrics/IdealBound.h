#pragma once
// The ideal bound: the shortest makespan the run's own resources allow
// (docs/analysis.md, "Ideal bound and efficiency").
//
// Every resource the pipeline needs gives a lower bound of its own: the work it does
// for all N batches, plus the part of one batch that must run before its first work
// and after its last. The ideal bound is the largest of these, and that resource is
// the critical one. Resources: the H2D and D2H copy engines (one shared engine on
// devices with a single copy engine), the compute engine, and the host, which runs
// the CPU stages (fork-join over the workers) and the submit thread's API calls
// one after another.
//
// Work per batch is each resource's occupancy (the union of its ops / N), so ops of
// one stage that ran side by side count once; the fill before and after uses the
// shortest stage times any batch had, so the bound stays below every makespan it is
// computed from: efficiency = bound / makespan cannot exceed 100 % by construction.
#include <cstdint>
#include <string_view>

namespace pipescope {

/// Per-batch times of the pipeline's stages, in the order a batch passes through them.
struct StageTimes {
  double h2dNs = 0;
  double kernelNs = 0;
  double d2hNs = 0;
  double preprocessNs = 0;
  double postprocessNs = 0;
  double apiNs = 0;  ///< the submit thread's CUDA API calls (blocking copy waits excluded)
};

/// The resource whose lower bound is the ideal bound.
enum class CriticalResource : std::uint8_t { H2DEngine, D2HEngine, CopyEngine, ComputeEngine, Host, None };
/// "the H2D copy engine", "the D2H copy engine", "the copy engine", "the compute engine", "the host", "nothing".
std::string_view toString(CriticalResource r);

struct IdealBound {
  double ns = 0;  ///< 0 for no batches or no work
  CriticalResource critical = CriticalResource::None;
  double hostPerBatchNs = 0;  ///< the host's work per batch: CPU stages (wall time over the workers) + API calls
};

/// `work`: each resource's occupancy per batch; `fill`: the shortest time any one batch
/// spent in each stage (apiNs unused). With identical batches and no host work this is
/// the classic max(h,k,d)·N + (h+k+d − max), or max(h+d,k)·N + ... for one copy engine.
IdealBound computeIdealBound(const StageTimes& work, const StageTimes& fill, std::int64_t batches, int copyEngines);

}  // namespace pipescope
