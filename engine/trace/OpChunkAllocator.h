#pragma once
// Hands out TraceStore chunks. A large trace takes its chunks from 2 MiB slabs that
// the kernel is asked to back with transparent huge pages: filling a fresh trace
// otherwise costs one page fault per 4 KiB, which on the development VM took as much
// CPU time as the whole simulation (about 16 k faults per million ops). The first
// few chunks are allocated one by one, so small traces (tests, sweeps of short runs)
// never hold a whole slab.
#include <cstddef>
#include <memory>

#include "trace/OpChunk.h"

namespace pipescope {

class OpChunkAllocator {
 public:
  std::shared_ptr<OpChunk> allocate();

 private:
  static constexpr std::size_t kSlabBytes = std::size_t(2) << 20;
  static constexpr std::size_t kChunksPerSlab = kSlabBytes / sizeof(OpChunk);
  static_assert(kChunksPerSlab >= 1 && kSlabBytes % sizeof(OpChunk) == 0);
  static constexpr std::size_t kSingleChunks = 4;

  static std::shared_ptr<std::byte> newSlab();

  std::size_t allocated_ = 0;
  std::shared_ptr<std::byte> slab_;  // the slab being carved up
  std::size_t usedInSlab_ = kChunksPerSlab;
};

}  // namespace pipescope
