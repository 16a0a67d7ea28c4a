// Wait causes of a very large trace, analysed a window of ops at a time: the same
// segments for every op and the same summary as one analysis of the whole trace,
// while an analysis holds only the ops of its window.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "SimulatorTestSupport.h"
#include "analysis/WaitAnalysis.h"
#include "analysis/WaitSummary.h"
#include "analysis/WaitWindows.h"
#include "config/Presets.h"

namespace pipescope {
namespace {

// A segment with global op indices (analyses of different windows number ops from
// different first ops).
using GlobalSegment = std::tuple<std::int64_t, std::int64_t, std::uint64_t, std::uint64_t, WaitCause, bool>;

std::vector<GlobalSegment> globalSegments(const WaitAnalysis& a, std::uint64_t op) {
  std::vector<GlobalSegment> out;
  for (const WaitSegment& s : a.segmentsOf(op))
    out.emplace_back(s.begin, s.end, a.globalOp(s), a.globalBlocker(s).value_or(~std::uint64_t(0)), s.cause,
                     s.underStream);
  return out;
}

void expectSameSummary(const WaitSummary& a, const WaitSummary& b) {
  EXPECT_EQ(a.waitNs, b.waitNs);
  EXPECT_EQ(a.execNs, b.execNs);
  ASSERT_EQ(a.kinds.size(), b.kinds.size());
  for (std::size_t k = 0; k < a.kinds.size(); ++k) {
    EXPECT_EQ(a.kinds[k].kind, b.kinds[k].kind);
    EXPECT_EQ(a.kinds[k].ops, b.kinds[k].ops);
    EXPECT_EQ(a.kinds[k].waitNs, b.kinds[k].waitNs);
    EXPECT_EQ(a.kinds[k].engineName, b.kinds[k].engineName);
    for (int c = 0; c < kWaitCauseCount; ++c) {
      const DominantBlocker &x = a.kinds[k].blockers[std::size_t(c)], &y = b.kinds[k].blockers[std::size_t(c)];
      EXPECT_EQ(std::tie(x.known, x.kind, x.relation, x.ns), std::tie(y.known, y.kind, y.relation, y.ns));
    }
  }
  EXPECT_EQ(describeSummary(a), describeSummary(b));
}

class WaitWindows : public ::testing::TestWithParam<const char*> {};

TEST_P(WaitWindows, WindowsGiveEveryOpTheSegmentsOfTheWholeAnalysis) {
  PipelineConfig c = findPreset(GetParam())->config;
  c.batchCount = 200;
  const auto run = simtest::runSim(c, simtest::h200());
  const TraceView ops = run.trace->ops().snapshot();
  ASSERT_GT(ops.size(), 1000u);
  const WaitAnalysis whole = analyzeWaits(ops, run.lanes);
  const WaitSummary wholeSummary = summarizeWaits(whole, ops, run.lanes);
  ASSERT_GT(wholeSummary.totalWaitNs(), 0.0);

  // Windows far smaller than the trace, so most ops sit near an edge of one.
  const std::uint64_t window = 97, context = 512;
  std::size_t compared = 0;
  for (std::uint64_t at = ops.begin(); at < ops.end(); at += window) {
    const std::uint64_t to = std::min(ops.end(), at + window);
    const WaitAnalysis part = analyzeWaitsInWindow(ops, run.lanes, at, to, context);
    EXPECT_EQ(part.coveredBegin(), at);
    EXPECT_EQ(part.coveredEnd(), to);
    for (const WaitSegment& s : part.segments()) {
      EXPECT_GE(part.globalOp(s), at);
      EXPECT_LT(part.globalOp(s), to);
    }
    for (std::uint64_t op = at; op < to; ++op) {
      ASSERT_EQ(globalSegments(part, op), globalSegments(whole, op)) << "op " << op;
      compared += part.segmentsOf(op).size();
    }
    EXPECT_TRUE(part.segmentsOf(to).empty());
    EXPECT_FALSE(part.covers(to));
  }
  EXPECT_EQ(compared, whole.segments().size());
  expectSameSummary(summarizeWaitsByWindow(ops, run.lanes, window, context), wholeSummary);
}

INSTANTIATE_TEST_SUITE_P(Presets, WaitWindows, ::testing::Values("naive", "pinned", "multi-stream", "cpu-bound"));

TEST(WaitWindowsMemory, AWindowsAnalysisHoldsItsOwnOpsOnly) {
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchCount = 2000;  // 20 k ops
  const auto run = simtest::runSim(c, simtest::h200());
  const TraceView ops = run.trace->ops().snapshot();
  const WaitAnalysis whole = analyzeWaits(ops, run.lanes);
  const std::uint64_t window = 1000, context = 100;
  const WaitAnalysis part = analyzeWaitsInWindow(ops, run.lanes, ops.begin() + 5000, ops.begin() + 5000 + window,
                                                 context);
  // Per-op arrays and segments of the window and its context, not of the trace.
  const double perWindowOp = double(part.memoryBytes()) / double(window);
  const double perTraceOp = double(whole.memoryBytes()) / double(ops.size());
  EXPECT_LT(double(part.memoryBytes()), 0.1 * double(whole.memoryBytes()));
  EXPECT_LT(perWindowOp, 2 * perTraceOp);
}

TEST(WaitWindowsMemory, OverviewOfAWholeSizedTraceIsTheWholeAnalysis) {
  const auto run = simtest::runSim(findPreset("multi-stream")->config, simtest::h200());
  const TraceView ops = run.trace->ops().snapshot();
  const WaitOverview o = overviewWaits(ops, run.lanes, 0);
  const WaitAnalysis whole = analyzeWaits(ops, run.lanes);
  EXPECT_EQ(o.analysis.segments(), whole.segments());
  expectSameSummary(o.summary, summarizeWaits(whole, ops, run.lanes));
}

}  // namespace
}  // namespace pipescope
