// Wait-cause attribution on hand-built traces (every cause where it must be and
// nowhere else) and on simulated runs of the presets.
#include <gtest/gtest.h>

#include <map>

#include "SimulatorTestSupport.h"
#include "WaitCauseTestTraces.h"
#include "analysis/WaitAnalysis.h"
#include "analysis/WaitSummary.h"
#include "config/Presets.h"

namespace pipescope {
namespace {

using namespace waittest;

std::map<WaitCause, std::int64_t> causeTotals(const WaitAnalysis& a) {
  std::map<WaitCause, std::int64_t> m;
  for (const auto& s : a.segments()) m[s.cause] += s.length();
  return m;
}

// Device-side causes: stream order, engine busy, device latency.
struct DeviceTrace {
  Trace trace;
  Lanes l{};
  // Global op indices.
  std::uint64_t a = 0, k = 0, b = 0, c = 0;
  DeviceTrace() {
    l = addLanes(trace);
    auto& ops = trace.ops();
    ops.append(gpu(OpKind::CopyH2D, 0, 0, l.stream0, l.h2d, 0, 0, 0, 100));          // a
    ops.append(gpu(OpKind::Kernel, 0, 0, l.stream0, l.compute, 10, 100, 100, 200));  // k: behind a in stream 0
    ops.append(gpu(OpKind::CopyH2D, 1, 1, l.stream1, l.h2d, 20, 20, 100, 150));      // b: H2D engine busy with a
    ops.append(
        gpu(OpKind::Kernel, 1, 1, l.stream1, l.compute, 30, 150, 210, 300));  // c: behind b, then k, then latency
    ops.publish();
    a = 0, k = 1, b = 2, c = 3;
  }
};

TEST(WaitCauses, DeviceSideCausesAppearWhereTheyMustAndNowhereElse) {
  DeviceTrace t;
  const WaitAnalysis w = analyzeWaits(t.trace);
  EXPECT_TRUE(w.segmentsOf(t.a).empty());

  auto ks = w.segmentsOf(t.k);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks[0], (WaitSegment{10, 100, 1, 0, WaitCause::StreamOrder, true}));

  auto bs = w.segmentsOf(t.b);
  ASSERT_EQ(bs.size(), 1u);
  EXPECT_EQ(bs[0], (WaitSegment{20, 100, 2, 0, WaitCause::EngineBusy, false}));

  auto cs = w.segmentsOf(t.c);
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0], (WaitSegment{30, 150, 3, 2, WaitCause::StreamOrder, true}));
  EXPECT_EQ(cs[1], (WaitSegment{150, 200, 3, 1, WaitCause::EngineBusy, false}));
  EXPECT_EQ(cs[2], (WaitSegment{200, 210, 3, WaitSegment::kNoOp, WaitCause::DeviceLatency, false}));

  const auto totals = causeTotals(w);
  EXPECT_EQ(totals.size(), 3u);
  EXPECT_EQ(totals.at(WaitCause::StreamOrder), 90 + 120);
  EXPECT_EQ(totals.at(WaitCause::EngineBusy), 80 + 50);
  EXPECT_EQ(totals.at(WaitCause::DeviceLatency), 10);
  EXPECT_EQ(w.waitNs(t.c), 180);
  EXPECT_EQ(w.waitNs(t.c, WaitCause::EngineBusy), 50);
}

TEST(WaitCauses, TooltipNamesTheEngineAndTheOpHoldingIt) {
  DeviceTrace t;
  const WaitAnalysis w = analyzeWaits(t.trace);
  const auto view = t.trace.ops().snapshot();
  const auto lanes = t.trace.lanes();
  EXPECT_EQ(describeWait(w, view, lanes, t.b),
            "waited 80 ns behind the H2D copy engine, busy with H2D of batch 0 (stream 0)");
  const std::string c = describeWait(w, view, lanes, t.c);
  EXPECT_NE(c.find("waited 180 ns:"), std::string::npos) << c;
  EXPECT_NE(c.find("behind H2D of batch 1 (stream 1) in its stream"), std::string::npos) << c;
  EXPECT_NE(c.find("behind the compute engine, busy with kernel of batch 0 (stream 0)"), std::string::npos) << c;
  EXPECT_EQ(describeWait(w, view, lanes, t.a), "");
}

TEST(WaitCauses, TooltipUsesOpNamesWhenGiven) {
  auto run = simtest::runSim(findPreset("async")->config, simtest::h200());
  const WaitAnalysis w = analyzeWaits(*run.trace);
  const auto view = run.trace->ops().snapshot();
  const auto names = run.trace->names();
  // The model kernel of batch 0 is queued behind the normalize kernel of the same batch.
  bool found = false;
  for (std::uint64_t i = view.begin(); i < view.end() && !found; ++i) {
    const Op& op = view.at(i);
    if (op.kind != OpKind::Kernel || op.batch != 0 || names[op.name] != "model") continue;
    const std::string text = describeWait(w, view, run.lanes, i, names);
    EXPECT_NE(text.find("behind kernel 'normalize' of batch 0 (stream 0) in its stream"), std::string::npos) << text;
    found = true;
  }
  EXPECT_TRUE(found);
}

TEST(WaitCauses, OverlayShowsOnlyTheGapsOfEachStreamInTimeOrder) {
  DeviceTrace t;
  const WaitAnalysis w = analyzeWaits(t.trace);
  std::vector<WaitSegment> s0, s1;
  w.forEachOverlaySegment(t.l.stream0, 0, 1000, [&](const WaitSegment& s) { s0.push_back(s); });
  w.forEachOverlaySegment(t.l.stream1, 0, 1000, [&](const WaitSegment& s) { s1.push_back(s); });
  EXPECT_TRUE(s0.empty());  // k waited only under a, which the lane already shows
  ASSERT_EQ(s1.size(), 3u);
  EXPECT_EQ(s1[0].cause, WaitCause::EngineBusy);  // b, before anything ran on stream 1
  EXPECT_EQ(s1[1].cause, WaitCause::EngineBusy);  // c, compute busy with k
  EXPECT_EQ(s1[2].cause, WaitCause::DeviceLatency);
  // A window that only touches the latency gap.
  std::vector<WaitSegment> window;
  w.forEachOverlaySegment(t.l.stream1, 205, 206, [&](const WaitSegment& s) { window.push_back(s); });
  ASSERT_EQ(window.size(), 1u);
  EXPECT_EQ(window[0].cause, WaitCause::DeviceLatency);
  EXPECT_TRUE(w.laneSegments(t.l.h2d).empty());
}

// Host-side causes: pageable staging, CPU work, host submit, host sync.
TEST(WaitCauses, HostSideCausesAppearWhereTheyMustAndNowhereElse) {
  Trace trace;
  const Lanes l = addLanes(trace);
  auto& ops = trace.ops();
  ops.append(host(OpKind::ApiCall, l.submit, 0, 10, kNoBatch, 1));                                   // 0 cudaMemcpy
  ops.append(gpu(OpKind::CopyH2D, 0, 0, l.stream0, l.h2d, 10, 10, 10, 110, kOpPageable, 1));         // 1 x, pageable
  ops.append(host(OpKind::HostSync, l.submit, 10, 115));                                             // 2 wait for x
  ops.append(host(OpKind::Preprocess, l.worker, 115, 215, 1));                                       // 3
  ops.append(host(OpKind::ApiCall, l.submit, 215, 220, kNoBatch, 2));                                // 4
  ops.append(gpu(OpKind::CopyH2D, 1, 0, l.stream0, l.h2d, 220, 220, 220, 300, kOpBlockingCall, 2));  // 5 y, pinned
  ops.append(host(OpKind::HostSync, l.submit, 220, 305));                                            // 6 wait for y
  ops.append(host(OpKind::ApiCall, l.submit, 305, 310, kNoBatch, 3));                                // 7 launch
  ops.append(gpu(OpKind::Kernel, 1, 0, l.stream0, l.compute, 310, 310, 310, 400, 0, 3));             // 8 z
  ops.publish();

  const WaitAnalysis w = analyzeWaits(trace);
  EXPECT_TRUE(w.segmentsOf(1).empty());
  auto ys = w.segmentsOf(5);
  ASSERT_EQ(ys.size(), 3u);
  EXPECT_EQ(ys[0], (WaitSegment{110, 115, 5, 1, WaitCause::PageableStaging, false}));
  EXPECT_EQ(ys[1], (WaitSegment{115, 215, 5, 3, WaitCause::HostCpuWork, false}));
  EXPECT_EQ(ys[2], (WaitSegment{215, 220, 5, WaitSegment::kNoOp, WaitCause::HostSubmit, false}));
  auto zs = w.segmentsOf(8);
  ASSERT_EQ(zs.size(), 2u);
  EXPECT_EQ(zs[0], (WaitSegment{300, 305, 8, 5, WaitCause::HostSync, false}));
  EXPECT_EQ(zs[1], (WaitSegment{305, 310, 8, WaitSegment::kNoOp, WaitCause::HostSubmit, false}));

  const auto totals = causeTotals(w);
  EXPECT_EQ(totals.size(), 4u);
  EXPECT_EQ(totals.count(WaitCause::StreamOrder), 0u);
  EXPECT_EQ(totals.count(WaitCause::EngineBusy), 0u);
  EXPECT_EQ(totals.count(WaitCause::DeviceLatency), 0u);
  for (std::uint64_t i : {0, 2, 3, 4, 6, 7}) EXPECT_TRUE(w.segmentsOf(i).empty()) << "host op " << i;

  const auto view = trace.ops().snapshot();
  const std::string text = describeWait(w, view, trace.lanes(), 5);
  EXPECT_NE(text.find("while the host ran CPU work (preprocess of batch 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("held by a pageable copy (H2D of batch 0 (stream 0))"), std::string::npos) << text;
}

// Imported traces: no lanes for streams or engines, ready == submit.
TEST(WaitCauses, ImportedTraceWithoutReadyTimesOrEngineLanes) {
  Trace trace;
  auto& ops = trace.ops();
  ops.append(gpu(OpKind::Kernel, kNoBatch, 7, kNoLane, kNoLane, 0, 0, 0, 100));      // k1
  ops.append(gpu(OpKind::Kernel, kNoBatch, 7, kNoLane, kNoLane, 10, 10, 100, 150));  // k2: behind k1 in stream 7
  ops.append(gpu(OpKind::Kernel, kNoBatch, 9, kNoLane, kNoLane, 0, 0, 150, 200));    // k3: compute busy
  ops.append(gpu(OpKind::CopyH2D, kNoBatch, 9, kNoLane, kNoLane, 0, 0, 0, 50));      // separate engine, no wait
  ops.publish();
  const WaitAnalysis w = analyzeWaits(trace);
  auto k2 = w.segmentsOf(1);
  ASSERT_EQ(k2.size(), 1u);
  EXPECT_EQ(k2[0].cause, WaitCause::StreamOrder);
  EXPECT_EQ(k2[0].begin, 10);
  EXPECT_EQ(k2[0].end, 100);
  auto k3 = w.segmentsOf(2);
  ASSERT_EQ(k3.size(), 3u);  // ordered in its stream after the copy: behind it, then the engine
  EXPECT_EQ(k3[0].cause, WaitCause::StreamOrder);
  EXPECT_EQ(k3[1], (WaitSegment{50, 100, 2, 0, WaitCause::EngineBusy, false}));
  EXPECT_EQ(k3[2], (WaitSegment{100, 150, 2, 1, WaitCause::EngineBusy, false}));
  EXPECT_TRUE(w.segmentsOf(3).empty());
}

TEST(WaitCauses, InconsistentOpsAreLeftUnexplainedWithoutCrashing) {
  Trace trace;
  auto& ops = trace.ops();
  ops.append(gpu(OpKind::Kernel, 0, 0, kNoLane, kNoLane, 100, 100, 50, 60));  // starts before it was submitted
  ops.append(gpu(OpKind::Kernel, 1, 0, kNoLane, kNoLane, 0, 0, 80, 70));      // ends before it starts
  ops.append(gpu(OpKind::Kernel, 2, 0, kNoLane, kNoLane, 0, 0, 90, 95));
  ops.publish();
  const WaitAnalysis w = analyzeWaits(trace);
  EXPECT_TRUE(w.segmentsOf(0).empty());
  EXPECT_TRUE(w.segmentsOf(1).empty());
  EXPECT_FALSE(w.segmentsOf(2).empty());
  EXPECT_TRUE(analyzeWaits(Trace().ops().snapshot(), {}).segments().empty());
}

// Simulated runs of the presets: the causes each one is about.
std::map<WaitCause, std::int64_t> simulatedCauses(const char* preset) {
  auto run = simtest::runSim(findPreset(preset)->config, simtest::h200());
  return causeTotals(analyzeWaits(*run.trace));
}

TEST(WaitCauses, SimulatedPresetsShowTheirCauses) {
  const auto naive = simulatedCauses("naive");
  EXPECT_GT(naive.count(WaitCause::PageableStaging), 0u);
  EXPECT_EQ(naive.count(WaitCause::EngineBusy), 0u);  // one op at a time: no engine is ever contended
  EXPECT_EQ(naive.count(WaitCause::HostCpuWork), 0u);

  const auto pinned = simulatedCauses("pinned");
  EXPECT_EQ(pinned.count(WaitCause::PageableStaging), 0u);
  EXPECT_GT(pinned.count(WaitCause::HostSync), 0u);

  const auto multi = simulatedCauses("multi-stream");
  EXPECT_GT(multi.count(WaitCause::EngineBusy), 0u);
  EXPECT_EQ(multi.count(WaitCause::PageableStaging), 0u);
  EXPECT_EQ(multi.count(WaitCause::HostCpuWork), 0u);

  const auto cpu = simulatedCauses("cpu-bound");
  ASSERT_GT(cpu.count(WaitCause::HostCpuWork), 0u);
  for (const auto& [cause, ns] : cpu) EXPECT_LE(ns, cpu.at(WaitCause::HostCpuWork)) << toString(cause);
}

TEST(WaitCauses, OverlaySegmentsOfASimulatedRunAreDisjointAndSorted) {
  auto run = simtest::runSim(findPreset("multi-stream")->config, simtest::h200());
  const WaitAnalysis w = analyzeWaits(*run.trace);
  std::size_t drawn = 0;
  for (const auto& lane : run.lanes) {
    if (lane.kind != LaneKind::Stream) continue;
    std::int64_t lastEnd = INT64_MIN;
    w.forEachOverlaySegment(lane.id, INT64_MIN, INT64_MAX, [&](const WaitSegment& s) {
      EXPECT_GE(s.begin, lastEnd);
      EXPECT_LT(s.begin, s.end);
      lastEnd = s.end;
      ++drawn;
    });
  }
  EXPECT_GT(drawn, 0u);
}

TEST(WaitSummary, SharesAndDominantBlockerComeFromTheSegments) {
  DeviceTrace t;
  const WaitAnalysis w = analyzeWaits(t.trace);
  const auto view = t.trace.ops().snapshot();
  const WaitSummary s = summarizeWaits(w, view, t.trace.lanes());
  const KindWaits* h2d = s.find(OpKind::CopyH2D);
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->ops, 2);
  EXPECT_DOUBLE_EQ(h2d->execNs, 150);
  EXPECT_DOUBLE_EQ(h2d->waitNs[std::size_t(WaitCause::EngineBusy)], 80);
  EXPECT_DOUBLE_EQ(h2d->share(WaitCause::EngineBusy), 80.0 / 230.0);
  EXPECT_EQ(h2d->engineName, "H2D copy engine");
  const DominantBlocker& b = h2d->blockers[std::size_t(WaitCause::EngineBusy)];
  EXPECT_TRUE(b.known);
  EXPECT_EQ(b.kind, OpKind::CopyH2D);
  EXPECT_EQ(b.relation, BatchRelation::PreviousBatch);
  const auto sentences = describeSummary(s);
  ASSERT_FALSE(sentences.empty());
  // 80 / 230 = 35%.
  bool found = false;
  for (const auto& line : sentences)
    found = found || line == "35% of H2D time waited on the H2D copy engine, mostly behind H2D of the previous batch.";
  EXPECT_TRUE(found) << sentences.front();
  EXPECT_DOUBLE_EQ(s.totalWaitNs(), 90 + 120 + 80 + 50 + 10);
}

}  // namespace
}  // namespace pipescope
