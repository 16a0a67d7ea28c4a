#pragma once
// The collectives (NCCL kernels) of each rank, and the same call found on every
// rank. Ranks of a job issue the same collectives in the same order on each process
// group (NCCL requires it), so the k-th collective of a group on one rank is the k-th
// on every other; each group runs on its own NCCL stream. The kernel that started
// last is the rank the others waited for; the kernels end together (all but a rooted
// call's root, which may leave once it has sent).
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
  int channel = 0;         ///< the rank's NCCL stream (its process group), numbered by first use
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

/// The calls found on every rank, matched by order on each channel: the k-th call of a
/// channel on the first rank is the (k + shift)-th on another. Ranks start and stop
/// recording at slightly different points, so each rank's shift is the one under which
/// the calls' types and sizes agree (at least `kMinTypeAgreement` of the pairs) and,
/// among those, their ends lie nearest (median): the pattern of a step repeats, and
/// the time tells one step from the next. Pairs whose types differ are left out. In the
/// first rank's start order.
inline constexpr double kMinTypeAgreement = 0.9;
/// How many calls a rank's recording may begin earlier or later than the first rank's.
inline constexpr std::size_t kMaxCollectiveShift = 64;
CollectiveMatch matchCollectives(const std::vector<std::vector<CollectiveCall>>& perRank);

/// Broadcast, Reduce, Gather, Scatter: the root may leave before the others.
bool isRootedCollective(const std::string& type);

}  // namespace pipescope
