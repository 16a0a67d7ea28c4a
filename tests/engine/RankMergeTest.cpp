// Merging ranks copies each rank's ops on its own thread and interns the names after:
// the merged trace must be the one a copy of one rank after the other gives (every op
// on its rank's clock and lanes, names numbered in rank order and order of first use).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "io/TraceFiles.h"
#include "ranks/RankFiles.h"
#include "ranks/RankMerge.h"
#include "ranks/RankParallel.h"

namespace pipescope {
namespace {

TEST(RankParallel, RunsEveryTaskOnceAndRethrowsAfterAllRan) {
  std::vector<std::atomic<int>> runs(37);
  forEachRankInParallel(runs.size(), [&](std::size_t i) { ++runs[i]; });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);

  std::atomic<int> ran{0};
  EXPECT_THROW(forEachRankInParallel(8,
                                     [&](std::size_t i) {
                                       ++ran;
                                       if (i == 3) throw std::runtime_error("rank 3 failed");
                                     }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 8);
  forEachRankInParallel(0, [](std::size_t) { FAIL() << "no task to run"; });
}

std::string nameText(const std::vector<std::string>& names, const Op& op) {
  return op.name != 0 && op.name < names.size() ? names[op.name] : std::string(toString(op.kind));
}

TEST(RankMerge, IsTheRanksCopiedOneAfterTheOtherOnOneClock) {
  const std::string dir = std::string(PIPESCOPE_FIXTURES_DIR) + "/ddp/ddp-w2-slowed";
  const RankSet set = loadRankFiles(rankFilesAt(dir));
  ASSERT_EQ(set.ranks.size(), 2u);
  const auto merged = mergeRanks(set, dir);
  const auto infos = merged->ranks();
  ASSERT_EQ(infos.size(), 2u);

  // The names a sequential copy interns: each rank's, in order of first use, once.
  std::vector<std::string> expectedNames;
  std::set<std::string> seen;
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  for (const auto& r : infos) origin = std::min(origin, r.clockOriginNs);
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  for (std::size_t r = 0; r < 2; ++r) {
    const auto names = set.ranks[r]->names();
    const std::int64_t shift = infos[r].clockOriginNs - origin + infos[r].clockOffsetNs;
    set.ranks[r]->ops().snapshot().forEach([&](const Op& op) {
      first = std::min(first, std::min(op.submit, op.start) + shift);
      const std::string text = nameText(names, op);
      if (op.name != 0 && text != toString(op.kind) && seen.insert(text).second) expectedNames.push_back(text);
    });
  }
  const auto mergedNames = merged->names();
  ASSERT_GE(mergedNames.size(), expectedNames.size() + 1);
  EXPECT_EQ(
      std::vector<std::string>(mergedNames.begin() + 1, mergedNames.begin() + 1 + std::ptrdiff_t(expectedNames.size())),
      expectedNames);

  // Every op of every rank, on the merged clock, with its name and lane, exactly once.
  using Key = std::tuple<int, std::int64_t, std::int64_t, std::int64_t, int, std::string, std::string>;
  std::multiset<Key> expected, got;
  for (std::size_t r = 0; r < 2; ++r) {
    const auto names = set.ranks[r]->names();
    const auto lanes = set.ranks[r]->lanes();
    const std::int64_t shift = infos[r].clockOriginNs - origin + infos[r].clockOffsetNs - first;
    set.ranks[r]->ops().snapshot().forEach([&](const Op& op) {
      expected.emplace(int(r), op.submit + shift, op.start + shift, op.end + shift, int(op.kind), nameText(names, op),
                       op.lane < lanes.size() ? lanes[op.lane].name : "");
    });
  }
  const auto lanes = merged->lanes();
  std::int64_t lastStart = std::numeric_limits<std::int64_t>::min();
  bool inStartOrder = true;
  merged->ops().snapshot().forEach([&](const Op& op) {
    ASSERT_LT(op.lane, lanes.size());
    got.emplace(lanes[op.lane].device, op.submit, op.start, op.end, int(op.kind), nameText(mergedNames, op),
                lanes[op.lane].name);
    inStartOrder = inStartOrder && op.start >= lastStart;
    lastStart = op.start;
  });
  EXPECT_TRUE(inStartOrder);
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

}  // namespace
}  // namespace pipescope
