// LaneIndex (per-lane ops sorted by start, incremental, bounded windows) and the
// folding of narrow ops into marks.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "TimelineTestSupport.h"
#include "timeline/LaneIndex.h"
#include "timeline/TimelineRenderer.h"

using namespace pipescope;
using namespace pipescope::ui;

namespace {

Op opOn(std::uint16_t lane, std::int64_t start, std::int64_t end, std::uint16_t engineLane = kNoLane) {
  Op op;
  op.kind = OpKind::Kernel;
  op.submit = op.ready = op.start = start;
  op.end = end;
  op.lane = lane;
  op.engineLane = engineLane;
  return op;
}

// What the index must hold: every op of the view on the lane, sorted by start.
void expectMatchesBruteForce(const LaneIndex& index, const TraceView& view, std::uint16_t lane) {
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = view.begin(); i < view.end(); ++i)
    if (view.at(i).lane == lane || view.at(i).engineLane == lane) expected.push_back(i);
  std::stable_sort(expected.begin(), expected.end(),
                   [&](std::uint64_t a, std::uint64_t b) { return view.at(a).start < view.at(b).start; });
  const auto& got = index.lane(lane);
  ASSERT_EQ(got.size(), expected.size()) << "lane " << lane;
  std::int64_t running = INT64_MIN;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(view.at(got.op(i)).start, view.at(expected[i]).start) << i;
    running = std::max(running, view.at(got.op(i)).end);
    EXPECT_EQ(index.maxEndUpTo(lane, i), running) << i;
  }
}

}  // namespace

TEST(TimelineIndex, SortsOutOfOrderPublicationByStartAndIndexesEngineLanes) {
  Trace trace;
  const std::int64_t starts[] = {100, 50, 300, 200, 250, 10};
  for (std::int64_t s : starts) trace.ops().append(opOn(0, s, s + 40, 1));
  trace.ops().publish();
  LaneIndex index;
  index.update(trace.ops().snapshot());
  expectMatchesBruteForce(index, index.view(), 0);
  expectMatchesBruteForce(index, index.view(), 1);
  EXPECT_EQ(index.firstNs(), 10);
  EXPECT_EQ(index.lastNs(), 340);
  EXPECT_EQ(index.firstStartingAtOrAfter(0, 200), 3u);  // 10, 50, 100 | 200
  EXPECT_EQ(index.firstEndingAfter(0, 95), 2u);         // ends 50, 90 | 140
}

TEST(TimelineIndex, ExtendsIncrementallyAsOpsArePublished) {
  Trace trace;
  LaneIndex index;
  std::mt19937 rng(7);
  std::int64_t t = 0;
  for (int round = 0; round < 20; ++round) {
    for (int k = 0; k < 97; ++k) {
      t += 10;
      const std::int64_t jitter = std::int64_t(rng() % 50);  // late publication: starts go back a little
      trace.ops().append(opOn(std::uint16_t(rng() % 3), t - jitter, t - jitter + 5 + std::int64_t(rng() % 30)));
    }
    trace.ops().publish();
    index.update(trace.ops().snapshot());
  }
  for (std::uint16_t lane = 0; lane < 3; ++lane) expectMatchesBruteForce(index, index.view(), lane);
  EXPECT_GT(index.memoryBytes(), 20u * 97u * 8u);
}

// 8 bytes per entry (op offset, running max end offset), plus 56 bytes per block of 64
// and one partly used page per lane: a 100 M-op trace's index stays near 13 bytes per op.
TEST(TimelineIndex, CostsAboutEightBytesPerEntry) {
  Trace trace;
  constexpr std::size_t kOps = 200'000;
  for (std::size_t k = 0; k < kOps; ++k) {
    const auto t = std::int64_t(k) * 100;
    trace.ops().append(opOn(std::uint16_t(k % 4), t, t + 80, k % 2 ? std::uint16_t(4) : kNoLane));
  }
  trace.ops().publish();
  LaneIndex index;
  index.update(trace.ops().snapshot());
  const double entries = 1.5 * kOps;  // every op on its lane, every other one on lane 4 too
  EXPECT_LE(double(index.memoryBytes()) / entries, 10.0);  // 16-byte entries before, and vector slack
}

// An op of many seconds makes the running max end of the ops after it in its block
// too far from the block's anchor for 32 bits; those entries are recomputed from the
// block, and the searches that use them still agree with brute force.
TEST(TimelineIndex, RunningMaxEndStaysExactAfterAnOpOfManySeconds) {
  Trace trace;
  constexpr std::int64_t kSecond = 1'000'000'000;
  std::int64_t t = 0;
  for (int k = 0; k < 1000; ++k, t += 1000) {
    const std::int64_t len = k == 70 || k == 500 ? 9 * kSecond : k == 900 ? 5 * kSecond + 123 : 400;
    trace.ops().append(opOn(0, t, t + len));
  }
  trace.ops().publish();
  LaneIndex index;
  index.update(trace.ops().snapshot());
  expectMatchesBruteForce(index, index.view(), 0);
  EXPECT_EQ(index.lastNs(), 500 * 1000 + 9 * kSecond);
  EXPECT_EQ(index.firstEndingAfter(0, 500 * 1000 + 9 * kSecond - 1), 500u);
  EXPECT_EQ(index.firstEndingAfter(0, 70 * 1000 + 9 * kSecond), 500u);
  EXPECT_EQ(index.firstEndingAfter(0, 69 * 1000 + 400), 70u);
  EXPECT_EQ(index.maxEndIn(0, 71, 400), 399 * 1000 + 400);
}

TEST(TimelineIndex, DropsOpsThatLeaveABoundedWindow) {
  Trace trace(TraceStore::kChunkOps);  // keeps about two chunks
  LaneIndex index;
  std::int64_t t = 0;
  for (int round = 0; round < 10; ++round) {
    for (std::size_t k = 0; k < TraceStore::kChunkOps / 2 + 7; ++k, t += 10)
      trace.ops().append(opOn(std::uint16_t(k % 2), t, t + 8));
    trace.ops().publish();
    index.update(trace.ops().snapshot());
    const TraceView& v = index.view();
    for (std::uint16_t lane = 0; lane < 2; ++lane) expectMatchesBruteForce(index, v, lane);
    EXPECT_EQ(index.firstNs(), v.at(v.begin()).start);
  }
  EXPECT_GT(trace.ops().droppedCount(), 0u);
}

TEST(TimelineFolding, ManyTinyOpsBecomeFewMarksThatKeepTheirExtent) {
  Trace trace;
  // 10 groups of 1000 back-to-back 10 ns ops, groups 100 µs apart.
  for (int g = 0; g < 10; ++g)
    for (int k = 0; k < 1000; ++k) {
      const std::int64_t s = g * 100'000 + k * 10;
      trace.ops().append(opOn(0, s, s + 10));
    }
  trace.ops().publish();
  LaneIndex index;
  index.update(trace.ops().snapshot());
  const TimeAxis axis(0, 1'000'000, 1000);  // 1 µs per pixel: each op is 0.01 px
  const auto marks = buildMarks(index, 0, axis, 3.0);
  ASSERT_EQ(marks.size(), 10u);  // one fold per group
  for (int g = 0; g < 10; ++g) {
    EXPECT_EQ(marks[g].count, 1000u);
    EXPECT_EQ(marks[g].fromNs, g * 100'000);
    EXPECT_EQ(marks[g].toNs, g * 100'000 + 10'000);
    EXPECT_NEAR(marks[g].x0, axis.toX(std::int64_t(g * 100'000)), 1e-3);
    EXPECT_NEAR(marks[g].x1, axis.toX(std::int64_t(g * 100'000 + 10'000)), 1e-3);
  }
  // Zoomed in on one group, the ops are 10 px wide: each is its own mark.
  const auto zoomed = buildMarks(index, 0, TimeAxis(0, 1000, 1000), 3.0);
  EXPECT_EQ(zoomed.size(), 100u);
  for (const OpMark& m : zoomed) EXPECT_EQ(m.count, 1u);
}

TEST(TimelineFolding, AWideOpAmongNarrowOnesIsDrawnByItself) {
  Trace trace;
  for (int k = 0; k < 100; ++k) trace.ops().append(opOn(0, k * 10, k * 10 + 10));
  trace.ops().append(opOn(0, 1000, 500'000));  // wide
  for (int k = 0; k < 100; ++k) trace.ops().append(opOn(0, 500'000 + k * 10, 500'000 + k * 10 + 10));
  trace.ops().publish();
  LaneIndex index;
  index.update(trace.ops().snapshot());
  const auto marks = buildMarks(index, 0, TimeAxis(0, 1'000'000, 1000), 3.0);
  ASSERT_EQ(marks.size(), 3u);
  EXPECT_EQ(marks[0].count, 100u);
  EXPECT_EQ(marks[1].count, 1u);
  EXPECT_EQ(marks[1].fromNs, 1000);
  EXPECT_EQ(marks[1].toNs, 500'000);
  EXPECT_EQ(marks[2].count, 100u);
}

TEST(TimelineFolding, RandomLanesNeverLoseAnOpOrItsExtent) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    Trace trace;
    std::int64_t t = 0;
    const bool overlapping = trial % 2 == 1;
    for (int k = 0; k < 3000; ++k) {
      t += std::int64_t(rng() % (trial % 3 == 0 ? 2000 : 50));
      const std::int64_t len = rng() % 10 == 0 ? std::int64_t(rng() % 100'000) : std::int64_t(rng() % 40);
      trace.ops().append(opOn(0, t, t + len));
      if (!overlapping) t += len;
    }
    trace.ops().publish();
    LaneIndex index;
    index.update(trace.ops().snapshot());
    const TraceView& v = index.view();
    const std::int64_t span = std::max<std::int64_t>(100, index.lastNs() / (1 + trial % 4));
    const TimeAxis axis(index.lastNs() / 7, index.lastNs() / 7 + span, 900);
    const auto marks = buildMarks(index, 0, axis, 3.0);
    std::size_t visible = 0, represented = 0;
    for (const OpMark& m : marks) represented += m.count;
    for (std::uint64_t i = v.begin(); i < v.end(); ++i) {
      const Op& op = v.at(i);
      if (op.end <= axis.from() || op.start >= axis.to()) continue;
      ++visible;
      // Some mark covers the op's pixels.
      const double x0 = axis.toX(op.start), x1 = axis.toX(op.end);
      const bool covered = std::any_of(marks.begin(), marks.end(), [&](const OpMark& m) {
        return m.x0 <= x0 + 1e-3 && m.x1 >= x1 - 1e-3;
      });
      EXPECT_TRUE(covered) << "trial " << trial << " op " << i << " [" << op.start << ", " << op.end << ")";
    }
    EXPECT_GE(represented, visible);
    EXPECT_LE(marks.size(), visible);
    for (std::size_t k = 1; k < marks.size(); ++k) EXPECT_LE(marks[k - 1].x0, marks[k].x0);
  }
}

// Ops seconds apart (a sparse lane): the starts sampled in a block do not fit 32 bits
// of ns from its first start; finding ops by start still agrees with brute force.
TEST(TimelineIndex, FindsOpsByStartOnALaneWhoseOpsAreSecondsApart) {
  Trace trace;
  std::mt19937_64 rng(13);
  std::int64_t t = 0;
  for (int k = 0; k < 700; ++k) {
    t += k % 3 == 0 ? 1'000'000'000 + std::int64_t(rng() % 2'000'000'000) : std::int64_t(rng() % 1000);
    trace.ops().append(opOn(0, t, t + 10));
  }
  trace.ops().publish();
  LaneIndex index;
  index.update(trace.ops().snapshot());
  expectMatchesBruteForce(index, index.view(), 0);
  const auto& l = index.lane(0);
  const TraceView& v = index.view();
  for (int q = 0; q < 3000; ++q) {
    const std::size_t from = rng() % (l.size() + 1);
    const std::int64_t at = std::int64_t(rng() % std::uint64_t(t + 2));
    std::size_t want = from;
    while (want < l.size() && v.at(l.op(want)).start < at) ++want;
    ASSERT_EQ(index.firstStartingAtOrAfter(0, at, from), want) << "from " << from << " t " << at;
  }
}

TEST(TimelineIndex, BlockQueriesMatchBruteForceAcrossAppendsAndDrops) {
  std::mt19937 rng(7);
  Trace trace(3 * TraceStore::kChunkOps);  // a bounded window: old chunks are dropped
  LaneIndex index;
  std::int64_t t = 0;
  for (int round = 0; round < 6; ++round) {
    for (int k = 0; k < 3000; ++k) {
      t += std::int64_t(rng() % 30);
      const std::int64_t len = rng() % 50 == 0 ? 5000 + std::int64_t(rng() % 5000) : std::int64_t(rng() % 20);
      trace.ops().append(opOn(0, t, t + len));
    }
    trace.ops().publish();
    index.update(trace.ops().snapshot());
    const auto& l = index.lane(0);
    const TraceView& v = index.view();
    for (int q = 0; q < 200; ++q) {
      const std::size_t a = rng() % (l.size() + 1), b = a + rng() % (l.size() + 1 - a);
      const std::int64_t minDur = std::int64_t(rng() % 8000);
      std::size_t firstLong = b;
      std::int64_t maxEnd = INT64_MIN;
      for (std::size_t i = a; i < b; ++i) {
        const Op op = v.at(l.op(i));
        if (firstLong == b && op.end - op.start >= minDur) firstLong = i;
        maxEnd = std::max(maxEnd, op.end);
      }
      ASSERT_EQ(index.firstLastingAtLeast(0, a, b, minDur), firstLong) << round << " [" << a << ", " << b << ")";
      ASSERT_EQ(index.maxEndIn(0, a, b), maxEnd) << round << " [" << a << ", " << b << ")";
      const std::int64_t t0 = l.empty() ? 0 : v.at(l.op(0)).start + std::int64_t(rng() % std::uint64_t(t + 100));
      std::size_t firstAtOrAfter = a;
      while (firstAtOrAfter < l.size() && v.at(l.op(firstAtOrAfter)).start < t0) ++firstAtOrAfter;
      ASSERT_EQ(index.firstStartingAtOrAfter(0, t0, a), firstAtOrAfter) << round << " from " << a << " t " << t0;
    }
  }
  EXPECT_GT(trace.ops().droppedCount(), 0u);
}

TEST(TimelineFolding, EveryWideOpAmongThousandsOfNarrowOnesIsAMarkOfItsOwn) {
  std::mt19937 rng(11);
  Trace trace;
  std::int64_t t = 0;
  for (int k = 0; k < 200'000; ++k) {
    t += 1 + std::int64_t(rng() % 3);
    // Mostly 1-5 ns ops (thousands per pixel zoomed out), a few long ones.
    const std::int64_t len = rng() % 5000 == 0 ? 20'000 + std::int64_t(rng() % 50'000) : 1 + std::int64_t(rng() % 5);
    trace.ops().append(opOn(0, t, t + len));
  }
  trace.ops().publish();
  LaneIndex index;
  index.update(trace.ops().snapshot());
  const TimeAxis axis(0, index.lastNs(), 1000);
  const auto marks = buildMarks(index, 0, axis, 3.0);
  const TraceView& v = index.view();
  std::size_t wide = 0, represented = 0;
  for (const OpMark& m : marks) represented += m.count;
  EXPECT_EQ(represented, v.size());  // nothing lost, nothing counted twice
  for (std::uint64_t i = v.begin(); i < v.end(); ++i) {
    const Op& op = v.at(i);
    if (axis.toX(op.end) - axis.toX(op.start) < 3.0) continue;
    ++wide;
    EXPECT_TRUE(std::any_of(marks.begin(), marks.end(), [&](const OpMark& m) { return m.op == i && m.count == 1; }))
        << "wide op " << i;
  }
  EXPECT_GT(wide, 10u);
  EXPECT_LT(marks.size(), 2 * wide + 1000);  // folded: about one mark per pixel, not per op
}
