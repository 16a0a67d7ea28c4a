#pragma once
// The unit of TraceStore storage: a fixed array of ops, filled front to back.
#include <cstddef>

#include "trace/Op.h"

namespace pipescope {

/// A new chunk's ops are left unconstructed: clearing 256 KB per chunk was a pass
/// over memory costing a tenth of the simulator's instructions, and TraceStore
/// constructs every slot (append) before publishing it to readers.
struct OpChunk {
  static constexpr std::size_t kOps = 4096;
  OpChunk() {}  // deliberately leaves ops unconstructed
  union {
    Op ops[kOps];
  };
};

}  // namespace pipescope
