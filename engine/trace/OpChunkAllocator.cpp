#include "trace/OpChunkAllocator.h"

#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace pipescope {

std::shared_ptr<std::byte> OpChunkAllocator::newSlab() {
  void* p = std::aligned_alloc(kSlabBytes, kSlabBytes);  // huge pages need 2 MiB alignment
  if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Only a hint: where transparent huge pages are off, this fails and nothing changes.
  (void)madvise(p, kSlabBytes, MADV_HUGEPAGE);
#endif
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* b) { std::free(b); });
}

std::shared_ptr<OpChunk> OpChunkAllocator::allocate() {
  if (allocated_++ < kSingleChunks) return std::make_shared<OpChunk>();
  if (usedInSlab_ == kChunksPerSlab) {
    slab_ = newSlab();
    usedInSlab_ = 0;
  }
  auto* chunk = ::new (static_cast<void*>(slab_.get() + usedInSlab_++ * sizeof(OpChunk))) OpChunk;
  // Aliasing: each chunk shares ownership of its slab, which is freed with its last
  // chunk (OpChunk is trivially destructible, so nothing else needs to run).
  return std::shared_ptr<OpChunk>(slab_, chunk);
}

}  // namespace pipescope
