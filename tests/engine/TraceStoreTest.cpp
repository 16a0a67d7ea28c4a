#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "trace/Trace.h"
#include "trace/TraceStore.h"

using namespace pipescope;

namespace {
Op opAt(std::int64_t i) {
  Op op;
  op.submit = i;
  op.ready = i;
  op.start = i;
  op.end = i + 1;
  op.batch = static_cast<std::int32_t>(i);
  op.bytes = static_cast<std::uint64_t>(i) * 3;
  return op;
}
}  // namespace

TEST(TraceStore, AppendedOpsAreInvisibleUntilPublished) {
  TraceStore store;
  store.append(opAt(0));
  store.append(opAt(1));
  EXPECT_EQ(store.snapshot().size(), 0u);
  store.publish();
  const TraceView v = store.snapshot();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].batch, 1);
}

TEST(TraceStore, SpansManyChunksInOrder) {
  TraceStore store;
  const std::int64_t n = 3 * TraceStore::kChunkOps + 17;
  for (std::int64_t i = 0; i < n; ++i) store.append(opAt(i));
  store.publish();
  const TraceView v = store.snapshot();
  ASSERT_EQ(v.size(), std::uint64_t(n));
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(v[std::uint64_t(i)].start, i);
}

TEST(TraceStore, SnapshotStaysValidWhileWriterContinues) {
  TraceStore store;
  for (int i = 0; i < 10; ++i) store.append(opAt(i));
  store.publish();
  const TraceView before = store.snapshot();
  for (int i = 10; i < 20000; ++i) store.append(opAt(i));
  store.publish();
  EXPECT_EQ(before.size(), 10u);
  EXPECT_EQ(before[9].start, 9);
  EXPECT_EQ(store.snapshot().size(), 20000u);
}

TEST(TraceStore, BoundedWindowDropsWholeOldChunksAndKeepsGlobalIndices) {
  TraceStore store(2 * TraceStore::kChunkOps);
  const std::uint64_t n = 10 * TraceStore::kChunkOps + 5;
  for (std::uint64_t i = 0; i < n; ++i) store.append(opAt(std::int64_t(i)));
  store.publish();
  const TraceView v = store.snapshot();
  EXPECT_EQ(v.end(), n);
  EXPECT_GT(v.begin(), 0u);
  EXPECT_EQ(v.begin() % TraceStore::kChunkOps, 0u);
  EXPECT_LE(v.size(), 4 * TraceStore::kChunkOps);  // about the window, never the whole run
  EXPECT_GE(v.size(), 2 * TraceStore::kChunkOps);  // never less than asked for
  EXPECT_EQ(store.droppedCount(), v.begin());
  for (std::uint64_t i = v.begin(); i < v.end(); ++i) ASSERT_EQ(v.at(i).start, std::int64_t(i));
}

// A reader running beside the writer always sees a consistent prefix: every op it
// can see is complete and in order. Run under ThreadSanitizer in CI.
TEST(TraceStore, ConcurrentReaderSeesConsistentPrefix) {
  TraceStore store;
  const std::int64_t n = 200000;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (std::int64_t i = 0; i < n; ++i) {
      store.append(opAt(i));
      if (i % 97 == 0) store.publish();
    }
    store.publish();
    done = true;
  });
  std::uint64_t lastSize = 0;
  bool consistent = true;
  while (!done.load()) {
    const TraceView v = store.snapshot();
    if (v.size() < lastSize) consistent = false;
    lastSize = v.size();
    if (!v.empty()) {
      const Op& last = v[v.size() - 1];
      if (last.start != std::int64_t(v.size() - 1) || last.bytes != std::uint64_t(last.start) * 3) consistent = false;
    }
  }
  writer.join();
  EXPECT_TRUE(consistent);
  EXPECT_EQ(store.snapshot().size(), std::uint64_t(n));
}

TEST(Trace, LanesAreUniquePerKindAndIndex) {
  Trace t;
  const auto a = t.lane(LaneKind::Stream, 0, "stream 0");
  const auto b = t.lane(LaneKind::Stream, 1, "stream 1");
  const auto c = t.lane(LaneKind::Stream, 0, "stream 0");
  EXPECT_EQ(a, c);
  EXPECT_NE(a, b);
  EXPECT_EQ(t.lanes().size(), 2u);
  EXPECT_EQ(t.lanes()[b].name, "stream 1");
}

TEST(Trace, InternsNamesAndFallsBackToKindName) {
  Trace t;
  const auto n = t.internName("normalize");
  EXPECT_EQ(t.internName("normalize"), n);
  EXPECT_NE(n, 0);
  Op op;
  op.kind = OpKind::CopyH2D;
  EXPECT_EQ(t.opName(op), "H2D copy");
  op.name = n;
  EXPECT_EQ(t.opName(op), "normalize");
  EXPECT_EQ(t.internName(""), 0);
}
