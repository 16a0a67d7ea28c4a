#pragma once
// What a rank's GPU op counts as in the rank analysis (HTA's categories): computation,
// communication or memory traffic. One rule for every figure that splits a rank's time.
#include <string>

#include "ranks/CollectiveMatch.h"
#include "trace/Trace.h"

namespace pipescope {

enum class RankWork { None, Compute, Communication, Memory };

/// `op` on `lane`, with its name from the trace's name table.
inline RankWork rankWorkOf(const Op& op, const Lane& lane, const std::string& name) {
  if (!isGpuKind(op.kind) || lane.kind == LaneKind::Collective) return RankWork::None;
  if (isCommunicationKind(op.kind) || (op.kind == OpKind::Kernel && !collectiveType(name).empty()))
    return RankWork::Communication;
  // Device-to-device copies are imported as kernels (they run on the SMs), but HTA
  // and users count them as memory traffic, not computation.
  const bool copyOnSms = name.rfind("Memcpy", 0) == 0 || name.rfind("Memset", 0) == 0;
  return op.kind == OpKind::Kernel && !copyOnSms ? RankWork::Compute : RankWork::Memory;
}

}  // namespace pipescope
