#pragma once
// Append-only op storage shared by one writer (the engine thread) and readers (the
// UI, the CLI's progress line). The writer fills fixed-size chunks and makes them
// visible with publish(); a reader takes a snapshot, which holds the chunks alive
// and never blocks the writer for longer than a vector copy of chunk pointers.
// A bounded window drops whole chunks from the front; op indices stay global so a
// reader can tell what it missed.
//
// Only the chunk being filled holds whole Ops (64 bytes each). Once full, the writer
// packs it (PackedOpChunk, about 24 bytes per op) and swaps the packed copy in; a
// snapshot taken before keeps the whole chunk alive, one taken after sees the packed
// one: the same ops either way. Readers get ops by value (TraceView::at).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "trace/Op.h"
#include "trace/OpChunk.h"
#include "trace/OpChunkAllocator.h"
#include "trace/OpChunkPacker.h"
#include "trace/PackedOpChunk.h"

namespace pipescope {

class TraceView;

class TraceStore {
 public:
  static constexpr std::size_t kChunkOps = OpChunk::kOps;
  static_assert(PackedOpChunk::kOps == kChunkOps);

  /// maxOps = 0 keeps everything; otherwise old chunks are dropped to stay near it.
  explicit TraceStore(std::uint64_t maxOps = 0);
  TraceStore(const TraceStore&) = delete;
  TraceStore& operator=(const TraceStore&) = delete;

  // --- writer side (one thread) ---
  /// Inline: the simulator appends about ten ops per batch.
  void append(const Op& op) {
    const auto slot = std::size_t(written_ % kChunkOps);
    if (slot == 0) startChunk();
    // Placement new starts the op's lifetime in the unconstructed slot (see OpChunk).
    // Writing needs no lock: readers only touch indices below published_.
    ::new (static_cast<void*>(&current_->ops[slot])) Op(op);
    ++written_;
  }
  /// Makes every appended op visible to readers (call per batch, not per op).
  void publish();

  /// Any thread: the bounded window keeps every op from `index` on, whatever maxOps
  /// says, until a later call moves the mark on. A streaming writer (TraceStreamWriter)
  /// calls it with the first op it has not yet written, so the window never drops an
  /// op before it reached the disk; memory stays bounded while the writer keeps up.
  /// retainFrom(kRetainNone) lifts the mark.
  static constexpr std::uint64_t kRetainNone = ~std::uint64_t(0);
  void retainFrom(std::uint64_t index) const { retainFrom_.store(index, std::memory_order_release); }

  // --- reader side (any thread) ---
  /// Ops [firstIndex, publishedCount) as of now.
  TraceView snapshot() const;
  std::uint64_t publishedCount() const { return published_.load(std::memory_order_acquire); }
  /// Ops dropped from the front by the bounded window.
  std::uint64_t droppedCount() const;
  std::uint64_t maxOps() const { return maxOps_; }
  /// Bytes held by the chunks the store keeps now (the memory-per-op figure).
  std::size_t memoryBytes() const;

 private:
  void startChunk();

  std::uint64_t maxOps_;
  OpChunkAllocator allocator_;  // writer-only
  OpChunkPacker packer_;        // writer-only
  mutable std::mutex chunksMutex_;  // guards packed_, open_ and first_ (changed once per chunk)
  std::vector<std::shared_ptr<const PackedOpChunk>> packed_;  // full chunks, oldest first
  std::shared_ptr<const OpChunk> open_;                       // the chunk being filled, after them
  std::uint64_t first_ = 0;  // global index of the first op of packed_ (or open_ when none)
  std::uint64_t written_ = 0;  // writer-only
  OpChunk* current_ = nullptr;  // writer-only: the chunk being filled
  std::atomic<std::uint64_t> published_{0};
  mutable std::atomic<std::uint64_t> retainFrom_{kRetainNone};  // a reader-side mark
};

/// An immutable, cheap-to-copy window of ops [begin, end) in global indices. Ops are
/// decoded on access and returned by value.
class TraceView {
 public:
  TraceView() = default;
  /// `packed` chunks, then `open` (may be null), hold ops from global index chunkBase on.
  TraceView(std::vector<std::shared_ptr<const PackedOpChunk>> packed, std::shared_ptr<const OpChunk> open,
            std::uint64_t chunkBase, std::uint64_t begin, std::uint64_t end)
      : packed_(std::move(packed)), open_(std::move(open)), chunkBase_(chunkBase), begin_(begin), end_(end) {}

  std::uint64_t begin() const { return begin_; }
  std::uint64_t end() const { return end_; }
  std::uint64_t size() const { return end_ - begin_; }
  bool empty() const { return begin_ == end_; }
  /// Op by global index; must be in [begin(), end()).
  Op at(std::uint64_t globalIndex) const {
    const std::uint64_t rel = globalIndex - chunkBase_;
    const std::size_t chunk = std::size_t(rel / TraceStore::kChunkOps), slot = std::size_t(rel % TraceStore::kChunkOps);
    if (chunk < packed_.size()) return packed_[chunk]->op(slot);
    return open_->ops[slot];
  }
  /// Op by position in the view, 0-based.
  Op operator[](std::uint64_t i) const { return at(begin_ + i); }

  template <typename F>
  void forEach(F&& f) const {
    for (std::uint64_t i = begin_; i < end_; ++i) f(at(i));
  }

 private:
  std::vector<std::shared_ptr<const PackedOpChunk>> packed_;
  std::shared_ptr<const OpChunk> open_;
  std::uint64_t chunkBase_ = 0;
  std::uint64_t begin_ = 0;
  std::uint64_t end_ = 0;
};

}  // namespace pipescope
