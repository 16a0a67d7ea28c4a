#pragma once
// Turns a full chunk of ops into a PackedOpChunk (the writer thread of a TraceStore
// does this once per chunk). Keeps its scratch tables between chunks, so packing
// allocates only the packed chunk itself.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "trace/OpChunkAllocator.h"
#include "trace/PackedOpChunk.h"

namespace pipescope {

class OpChunkPacker {
 public:
  /// Packs ops[0, PackedOpChunk::kOps).
  std::shared_ptr<const PackedOpChunk> pack(const Op* ops);

 private:
  static constexpr std::size_t kSlots = 2 * PackedOpChunk::kOps;  // shapes per chunk <= kOps: load <= 1/2
  std::uint16_t shapeOf(const Op& op);

  ChunkAllocator<PackedOpChunk> allocator_;
  std::vector<OpShape> shapes_;                 // this chunk's shapes so far
  std::array<std::uint16_t, kSlots> slots_{};  // hash table: shape index + 1, 0 = free
};

}  // namespace pipescope
