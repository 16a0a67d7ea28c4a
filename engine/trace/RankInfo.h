#pragma once
// Which process of a distributed job a trace (or a part of a merged trace) came
// from, and how its clock was put on the common time base.
#include <cstdint>
#include <string>

namespace pipescope {

struct RankInfo {
  int rank = -1;            ///< the job's rank (distributedInfo.rank); -1: not a distributed job
  int worldSize = 0;        ///< distributedInfo.world_size; 0 unknown
  std::string backend;      ///< "nccl", "gloo", ...
  std::string groups;       ///< process groups, e.g. "default_pg [0, 1, 2, 3]"
  std::string source;       ///< the file it was read from
  /// The absolute time of this trace's time 0 on the file's own clock (ns; PyTorch:
  /// baseTimeNanoseconds + the first event's ts), so traces of one job share a base.
  std::int64_t clockOriginNs = 0;
  /// Merged traces: the correction added to this rank's times after the time bases
  /// (from the collectives); 0 when none was applied.
  std::int64_t clockOffsetNs = 0;
  std::string alignment;    ///< how the clock was aligned, or why it could not be
  int device = -1;          ///< merged traces: the device (Trace::devices index) of its GPU
  bool operator==(const RankInfo&) const = default;
};

}  // namespace pipescope
