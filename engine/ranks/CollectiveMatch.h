#pragma once
// The collectives (NCCL kernels) of each rank, and the same call found on every
// rank. Ranks of a job issue the same collectives in the same order (NCCL requires
// it), so the k-th collective of one rank is the k-th of every other; its kernels
// end together (the data is only complete when every rank has sent its part), and
// the one that started last is the rank the others waited for.
#include <cstdint>
#include <string>
#include <vector>

#include "trace/Trace.h"

namespace pipescope {

struct CollectiveCall {
  std::int64_t start = 0;  ///< ns on the trace's time base (plus the caller's shift)
  std::int64_t end = 0;
  std::string type;        ///< "AllReduce", "Broadcast", "ReduceScatter", ...
  std::int32_t batch = kNoBatch;
  std::uint64_t bytes = 0;
};

/// The collective kernel's type from its name: "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)"
/// and "ncclKernel_AllReduce_RING_LL_Sum_float(...)" give "AllReduce"; empty for a name
/// that is not an NCCL kernel.
std::string collectiveType(const std::string& kernelName);

/// A rank's collectives in start order: GPU ops of kind Collective, and kernels whose
/// name is an NCCL kernel's. `shiftNs` is added to their times. `device` >= 0 keeps
/// only ops on lanes of that device (a merged trace), -1 takes all.
std::vector<CollectiveCall> collectiveCalls(const Trace& trace, std::int64_t shiftNs = 0, int device = -1);

struct MatchedCollective {
  std::string type;
  std::vector<std::int64_t> start;  ///< per rank
  std::vector<std::int64_t> end;
  std::vector<std::int32_t> batch;
  std::uint64_t bytes = 0;          ///< the first rank's figure
};

struct CollectiveMatch {
  std::vector<MatchedCollective> calls;
  /// Empty when every call of every rank was matched; else how many were, and why not more.
  std::string note;
};

/// The calls found on every rank: for each call of the first rank, the call of the
/// same type on every other rank whose end is nearest, within `windowNs` (each call
/// used once), in the first rank's start order. Ranks start and stop recording at
/// slightly different points, so positions in the traces do not line up; ends do.
inline constexpr std::int64_t kCollectiveMatchWindowNs = 1'000'000;
CollectiveMatch matchCollectives(const std::vector<std::vector<CollectiveCall>>& perRank,
                                 std::int64_t windowNs = kCollectiveMatchWindowNs);

}  // namespace pipescope
