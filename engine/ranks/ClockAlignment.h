#pragma once
// Puts the ranks of a job on one clock. First the traces' own time bases (PyTorch:
// baseTimeNanoseconds + ts, the host's clock), then a correction from the
// collectives themselves: the same NCCL call ends within microseconds on every rank,
// so the median difference of their end times is the offset between two clocks (a
// rooted call's root may leave early: broadcasts and reduces are left out when the
// other calls suffice).
// A rank whose collectives do not end together under any one offset is reported and
// left on its own time base, never silently shifted.
#include <cstdint>
#include <string>
#include <vector>

#include "ranks/CollectiveMatch.h"

namespace pipescope {

struct RankClock {
  std::int64_t offsetNs = 0;    ///< added to the rank's times (0 when not aligned)
  std::int64_t residualNs = 0;  ///< median |end difference| left after the offset
  std::size_t collectives = 0;  ///< matched calls the offset came from
  bool aligned = false;         ///< the offset was found and applied (the reference rank: true)
  std::string note;             ///< one sentence for the rank's header and the CLI
};

/// Collectives must end within this of each other after the offset (median), else the
/// rank's clock is not trusted: NCCL's end skew on one host is a few microseconds.
inline constexpr std::int64_t kMaxAlignmentResidualNs = 50'000;
/// Fewer matched collectives than this give no offset.
inline constexpr std::size_t kMinAlignmentCollectives = 3;

/// One entry per rank position of `match` (`rankCount` of them); the first rank is the
/// reference (offset 0).
std::vector<RankClock> alignClocks(const CollectiveMatch& match, std::size_t rankCount);

}  // namespace pipescope
