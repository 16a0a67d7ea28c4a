// The CUDA recorder's stream-order fitting (cuda/OpRecorderOrder.h), checked on the
// CPU: the case that made CudaBackendTest.ManagedPrefetchKeepsStreamOrder flake on an
// H100 (two event-timed prefetches in a row whose event clock ran a few µs ahead of
// CUPTI's) must come out with no two ops of the stream overlapping.
#include <gtest/gtest.h>

#include "cuda/OpRecorderOrder.h"

namespace pipescope::cuda {
namespace {

Op op(std::int64_t start, std::int64_t end) {
  Op o;
  o.submit = o.ready = start - 10;
  o.start = start;
  o.end = end;
  return o;
}

void expectInOrder(const std::vector<Op>& ops, std::int64_t lo, std::int64_t hi) {
  std::int64_t cursor = lo;
  for (const Op& o : ops) {
    EXPECT_GE(o.start, cursor);
    EXPECT_LE(o.start, o.end);
    EXPECT_LE(o.ready, o.start);
    EXPECT_LE(o.submit, o.ready);
    cursor = o.end;
  }
  EXPECT_LE(cursor, hi);
}

TEST(OpRecorderOrder, TwoPrefetchesRunningAheadFitBeforeTheNextKernel) {
  // Kernel A ended at 1000; prefetch-out (event clock +5 µs) and prefetch-in of the next
  // batch; kernel B (CUPTI) starts at 3000. Before the fix, the second prefetch was
  // squeezed to the end of the first (3004) and B overlapped the first by 4 µs.
  std::vector<Op> held{op(1200, 3004), op(3004, 5000)};
  fitBetween(held, 1000, 3000);
  expectInOrder(held, 1000, 3000);
  EXPECT_EQ(held[0].start, 1200);  // untouched where nothing overlaps
  EXPECT_EQ(held[1].end, 3000);
}

TEST(OpRecorderOrder, OpsEarlierThanThePreviousOneMoveAfterIt) {
  std::vector<Op> held{op(900, 1500)};
  fitBetween(held, 1000, 5000);
  expectInOrder(held, 1000, 5000);
  EXPECT_EQ(held[0].start, 1000);
  EXPECT_EQ(held[0].end, 1500);
}

TEST(OpRecorderOrder, NoRoomLeavesZeroLengthOpsAtTheBoundary) {
  std::vector<Op> held{op(100, 200), op(200, 300), op(300, 400)};
  fitBetween(held, 1000, 900);  // hi < lo: treated as lo
  expectInOrder(held, 1000, 1000);
  for (const Op& o : held) EXPECT_EQ(o.start, 1000);
}

TEST(OpRecorderOrder, RandomRunsNeverOverlap) {
  std::uint64_t seed = 12345;
  auto next = [&](std::int64_t range) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return std::int64_t((seed >> 33) % std::uint64_t(range));
  };
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<Op> held;
    const int n = 1 + int(next(5));
    for (int i = 0; i < n; ++i) {
      const std::int64_t s = next(10'000);
      held.push_back(op(s, s + next(3000)));
    }
    const std::int64_t lo = next(5000), hi = lo + next(8000) - 1000;
    fitBetween(held, lo, hi);
    expectInOrder(held, lo, std::max(lo, hi));
  }
}

TEST(OpRecorderOrder, StartAfterMovesAnOverlappingOp) {
  Op o = op(100, 200);
  startAfter(o, 150);
  EXPECT_EQ(o.start, 150);
  EXPECT_EQ(o.end, 200);
  EXPECT_LE(o.ready, o.start);
  Op inside = op(100, 120);
  startAfter(inside, 150);
  EXPECT_EQ(inside.start, 150);
  EXPECT_EQ(inside.end, 150);
}

}  // namespace
}  // namespace pipescope::cuda
