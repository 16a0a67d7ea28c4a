#pragma once
// Hands out TraceStore chunks. A large trace takes its chunks from 2 MiB slabs that
// the kernel is asked to back with transparent huge pages: filling a fresh trace
// otherwise costs one page fault per 4 KiB, which on the development VM took as much
// CPU time as the whole simulation (about 16 k faults per million ops). The first
// few chunks are allocated one by one, so small traces (tests, sweeps of short runs)
// never hold a whole slab.
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>

#include "trace/OpChunk.h"

namespace pipescope {

namespace detail {
inline constexpr std::size_t kChunkSlabBytes = std::size_t(2) << 20;
/// A 2 MiB-aligned slab of kChunkSlabBytes, advised to use huge pages; freed with its last owner.
std::shared_ptr<std::byte> newChunkSlab();
}  // namespace detail

/// Chunk is default-constructed in place; a chunk shares its slab's ownership, so the
/// slab is freed with the last chunk carved from it, whoever holds that one.
template <typename Chunk>
class ChunkAllocator {
 public:
  std::shared_ptr<Chunk> allocate() {
    if (allocated_++ < kSingleChunks) return std::make_shared<Chunk>();
    if (usedInSlab_ == kChunksPerSlab) {
      slab_ = detail::newChunkSlab();
      usedInSlab_ = 0;
    }
    auto* chunk = ::new (static_cast<void*>(slab_.get() + usedInSlab_++ * sizeof(Chunk))) Chunk;
    if constexpr (std::is_trivially_destructible_v<Chunk>) {
      // Aliasing: nothing to run when the chunk goes, only the slab to release.
      return std::shared_ptr<Chunk>(slab_, chunk);
    } else {
      return std::shared_ptr<Chunk>(chunk, [slab = slab_](Chunk* c) { c->~Chunk(); });
    }
  }

 private:
  static constexpr std::size_t kChunksPerSlab = detail::kChunkSlabBytes / sizeof(Chunk);
  static_assert(kChunksPerSlab >= 1 && alignof(Chunk) <= 4096);
  static constexpr std::size_t kSingleChunks = 4;

  std::size_t allocated_ = 0;
  std::shared_ptr<std::byte> slab_;  // the slab being carved up
  std::size_t usedInSlab_ = kChunksPerSlab;
};

using OpChunkAllocator = ChunkAllocator<OpChunk>;

}  // namespace pipescope
