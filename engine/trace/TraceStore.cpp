#include "trace/TraceStore.h"

#include <algorithm>

namespace pipescope {

TraceStore::TraceStore(std::uint64_t maxOps) : maxOps_(maxOps) {}

void TraceStore::startChunk() {
  auto chunk = allocator_.allocate();
  current_ = chunk.get();
  std::lock_guard lock(chunksMutex_);
  chunks_.push_back(std::move(chunk));
  // Keep at least two chunks so the window never drops what is being published.
  if (maxOps_ > 0) {
    const std::size_t keepChunks = std::max<std::size_t>(2, (maxOps_ + kChunkOps - 1) / kChunkOps + 1);
    const std::uint64_t retain = retainFrom_.load(std::memory_order_acquire);
    while (chunks_.size() > keepChunks && first_ + kChunkOps <= retain) {
      chunks_.erase(chunks_.begin());
      first_ += kChunkOps;
    }
  }
}

void TraceStore::publish() { published_.store(written_, std::memory_order_release); }

TraceView TraceStore::snapshot() const {
  const std::uint64_t end = published_.load(std::memory_order_acquire);
  std::lock_guard lock(chunksMutex_);
  std::vector<std::shared_ptr<const Chunk>> chunks(chunks_.begin(), chunks_.end());
  const std::uint64_t begin = std::min(first_, end);
  return TraceView(std::move(chunks), first_, begin, end);
}

std::uint64_t TraceStore::droppedCount() const {
  std::lock_guard lock(chunksMutex_);
  return first_;
}

}  // namespace pipescope
