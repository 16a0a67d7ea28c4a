#include "trace/OpChunkAllocator.h"

#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace pipescope::detail {

std::shared_ptr<std::byte> newChunkSlab() {
  void* p = std::aligned_alloc(kChunkSlabBytes, kChunkSlabBytes);  // huge pages need 2 MiB alignment
  if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Only a hint: where transparent huge pages are off, this fails and nothing changes.
  (void)madvise(p, kChunkSlabBytes, MADV_HUGEPAGE);
#endif
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* b) { std::free(b); });
}

}  // namespace pipescope::detail
