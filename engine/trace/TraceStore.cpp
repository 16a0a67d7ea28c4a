#include "trace/TraceStore.h"

#include <algorithm>

namespace pipescope {

TraceStore::TraceStore(std::uint64_t maxOps) : maxOps_(maxOps) {}

void TraceStore::startChunk() {
  // Packing only reads the full chunk, as readers may be doing now; they keep reading
  // it until the packed copy replaces it below.
  std::shared_ptr<const PackedOpChunk> full = current_ ? packer_.pack(current_->ops) : nullptr;
  auto chunk = allocator_.allocate();
  current_ = chunk.get();
  std::lock_guard lock(chunksMutex_);
  if (full) packed_.push_back(std::move(full));
  open_ = std::move(chunk);
  // Keep at least two chunks so the window never drops what is being published.
  if (maxOps_ > 0) {
    const std::size_t keepChunks = std::max<std::size_t>(2, (maxOps_ + kChunkOps - 1) / kChunkOps + 1);
    const std::uint64_t retain = retainFrom_.load(std::memory_order_acquire);
    while (packed_.size() + 1 > keepChunks && first_ + kChunkOps <= retain) {
      packed_.erase(packed_.begin());
      first_ += kChunkOps;
    }
  }
}

void TraceStore::publish() { published_.store(written_, std::memory_order_release); }

TraceView TraceStore::snapshot() const {
  const std::uint64_t end = published_.load(std::memory_order_acquire);
  std::lock_guard lock(chunksMutex_);
  const std::uint64_t begin = std::min(first_, end);
  return TraceView(packed_, open_, first_, begin, end);
}

std::size_t TraceStore::memoryBytes() const {
  std::lock_guard lock(chunksMutex_);
  std::size_t bytes = sizeof(*this) + packed_.capacity() * sizeof(packed_[0]);
  for (const auto& c : packed_) bytes += c->memoryBytes();
  if (open_) bytes += sizeof(OpChunk);
  return bytes;
}

std::uint64_t TraceStore::droppedCount() const {
  std::lock_guard lock(chunksMutex_);
  return first_;
}

}  // namespace pipescope
