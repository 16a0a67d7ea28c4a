// Chunks carved from shared huge-page slabs: distinct, aligned, and alive for as long
// as anyone holds them (ASan, run in CI, catches a slab freed too early).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "trace/OpChunkAllocator.h"
#include "trace/TraceStore.h"

namespace pipescope {
namespace {

Op opAt(std::uint64_t i) {
  Op op;
  op.start = std::int64_t(i);
  op.end = std::int64_t(i) + 1;
  op.bytes = i * 7;
  return op;
}

TEST(OpChunkAllocator, ChunksAreDistinctAlignedAndDoNotOverlap) {
  OpChunkAllocator allocator;
  std::vector<std::shared_ptr<OpChunk>> chunks;
  std::set<std::uintptr_t> starts;
  for (int i = 0; i < 21; ++i) {  // the single chunks, then several slabs
    chunks.push_back(allocator.allocate());
    const auto p = reinterpret_cast<std::uintptr_t>(chunks.back().get());
    EXPECT_EQ(p % alignof(OpChunk), 0u);
    starts.insert(p);
  }
  ASSERT_EQ(starts.size(), chunks.size());
  for (auto it = starts.begin(); std::next(it) != starts.end(); ++it) EXPECT_GE(*std::next(it) - *it, sizeof(OpChunk));
}

TEST(OpChunkAllocator, AChunkOutlivesTheAllocatorAndItsSlabNeighbours) {
  std::shared_ptr<OpChunk> kept;
  {
    OpChunkAllocator allocator;
    std::vector<std::shared_ptr<OpChunk>> others;
    for (int i = 0; i < 10; ++i) others.push_back(allocator.allocate());
    kept = allocator.allocate();  // from a slab shared with chunks dropped below
    for (std::size_t i = 0; i < OpChunk::kOps; ++i) ::new (static_cast<void*>(&kept->ops[i])) Op(opAt(i));
  }
  for (std::size_t i = 0; i < OpChunk::kOps; ++i) ASSERT_EQ(kept->ops[i], opAt(i));
}

TEST(OpChunkAllocator, BoundedStoreKeepsASnapshotsChunksAfterDroppingThem) {
  TraceStore store(2 * TraceStore::kChunkOps);
  const std::uint64_t first = 20 * TraceStore::kChunkOps;
  for (std::uint64_t i = 0; i < first; ++i) store.append(opAt(i));
  store.publish();
  const TraceView held = store.snapshot();
  // Write far past the window: every slab the snapshot points into is dropped by the store.
  for (std::uint64_t i = first; i < 3 * first; ++i) store.append(opAt(i));
  store.publish();
  ASSERT_FALSE(held.empty());
  for (std::uint64_t i = held.begin(); i < held.end(); ++i) ASSERT_EQ(held.at(i), opAt(i));
  const TraceView now = store.snapshot();
  EXPECT_GT(now.begin(), held.end());
  for (std::uint64_t i = now.begin(); i < now.end(); ++i) ASSERT_EQ(now.at(i), opAt(i));
}

}  // namespace
}  // namespace pipescope
