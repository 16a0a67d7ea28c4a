// The recorder's periodic CUPTI flush: the simulator charges the submit thread for it
// at the first retired batch once the interval has passed since the run's first GPU
// op, the trace reader finds it again, and the host overhead fit measures it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "HandBuiltTraceTestSupport.h"
#include "ProfileFieldTestSupport.h"
#include "config/RecorderFlush.h"
#include "sim/DeviceProfile.h"
#include "sim/FitRuns.h"
#include "sim/HostOverheadFit.h"
#include "sim/RecorderFlushFit.h"
#include "sim/SimulatorBackend.h"
#include "sim/Validation.h"
#include "trace/Trace.h"

namespace pipescope {
namespace {

DeviceProfile h200() { return *builtinProfile("h200"); }

/// One simulated run of `c` with `p`: its makespan, and its flush as the trace shows it.
RecorderFlushReading simulatedFlush(const DeviceProfile& p, const PipelineConfig& c, double* makespanNs) {
  auto sim = makeSimulatorBackend(p);
  std::string failure;
  RecorderFlushReading r;
  *makespanNs = measureMakespanNs(*sim, c, failure, nullptr, [&](const Trace& t) { r = readRecorderFlush(t); });
  EXPECT_TRUE(failure.empty()) << failure;
  return r;
}

TEST(RecorderFlush, TheFirstRetireAfterTheIntervalPaysEveryOpIssuedSoFar) {
  const PipelineConfig c = recorderFlushConfig();
  DeviceProfile p = h200();
  p.recorderFlushNsPerOp = 1000;
  double makespan = 0, without = 0;
  const RecorderFlushReading r = simulatedFlush(p, c, &makespan);
  p.recorderFlushNsPerOp = 0;
  const RecorderFlushReading none = simulatedFlush(p, c, &without);
  ASSERT_GT(without, 1.2 * kRecorderFlushIntervalNs) << "the run must pass the first flush";
  ASSERT_TRUE(r.found);
  // Due 100 ms after the first op: the next retire, a batch later at most.
  EXPECT_GE(r.atNs, double(kRecorderFlushIntervalNs));
  EXPECT_LT(r.atNs, kRecorderFlushIntervalNs + 0.01 * without);
  // 18 GPU ops a batch (8 + 8 chunks, 2 kernels): thousands issued by then, 1 us each.
  EXPECT_GT(r.ops, 5000u);
  EXPECT_NEAR(r.stallNs - r.baselineNs, 1000.0 * double(r.ops), 0.02 * 1000.0 * double(r.ops));
  EXPECT_NEAR(r.nsPerOp, 1000, 20);
  // Without the field no retire stands out: the longest is an ordinary one.
  EXPECT_LT(none.nsPerOp, 5);
  // The run is longer by at least that first flush (later ones add their own ops).
  EXPECT_GT(makespan - without, 0.9 * 1000.0 * double(r.ops));
}

TEST(RecorderFlush, ARunShorterThanTheIntervalNeverPaysIt) {
  const PipelineConfig c = hostOverheadConfigs()[1];  // 300 batches: tens of ms
  DeviceProfile p = h200();
  double with = 0, without = 0;
  p.recorderFlushNsPerOp = 5000;
  const RecorderFlushReading r = simulatedFlush(p, c, &with);
  p.recorderFlushNsPerOp = 0;
  simulatedFlush(p, c, &without);
  ASSERT_LT(without, double(kRecorderFlushIntervalNs));
  EXPECT_FALSE(r.found);
  EXPECT_DOUBLE_EQ(with, without);
}

TEST(RecorderFlush, TheHostOverheadFitMeasuresIt) {
  DeviceProfile truth = h200();
  truth.hostOpOverheadNs = 600;
  truth.recorderFlushNsPerOp = 800;
  auto measured = makeSimulatorBackend(truth);
  std::vector<std::string> lines;
  const HostOverheadResult r = fitHostOverhead(*measured, h200(), 1, [&](const std::string& l) { lines.push_back(l); });
  EXPECT_NEAR(r.recorderFlushNsPerOp, 800, 16);
  EXPECT_GT(r.flushOps, 5000u);
  EXPECT_NEAR(r.flushRunPredictedNs / r.flushRunMeasuredNs, 1.0, 0.02);
  DeviceProfile fitted = h200();
  applyHostOverhead(fitted, r);
  EXPECT_EQ(fitted.recorderFlushNsPerOp, r.recorderFlushNsPerOp);
  bool logged = false;
  for (const std::string& l : lines) logged = logged || l.find("the recorder's CUPTI flush (a run of 3500") == 0;
  EXPECT_TRUE(logged);
}

TEST(RecorderFlush, TheReaderTakesTheFirstFlushCountedFromTheFirstCall) {
  Trace trace;
  const std::uint16_t submit = trace.lane(LaneKind::HostSubmit, 0, "submit");
  const std::uint16_t stream = trace.lane(LaneKind::Stream, 0, "stream 0");
  auto add = [&](OpKind kind, std::uint16_t lane, const char* name, std::int64_t start, std::int64_t end,
                 std::uint32_t correlation) {
    simtest::appendOp(trace, kind, lane, name, kNoBatch, start, end, correlation);
  };
  // A GPU op left from before the run (50 ms ahead of its first call) must not move
  // the interval's start.
  add(OpKind::Kernel, stream, "model", 0, 1000, 0);
  // Batches every 100 us from 50 ms: a launch (its kernel), then the sync retiring it,
  // the next launch 70 us after the sync; 2 ms after the first sync past 150 ms (the
  // flush) and 3 ms after one at 250 ms (a later, longer flush: not the first).
  std::uint32_t id = 0;
  std::int64_t t = 50'000'000;
  while (t < 300'000'000) {
    add(OpKind::ApiCall, submit, "cudaLaunchKernel", t, t + 10'000, ++id);
    add(OpKind::Kernel, stream, "model", t, t + 20'000, id);
    add(OpKind::HostSync, submit, "cudaEventSynchronize", t + 10'000, t + 30'000, 0);
    const std::int64_t syncEnd = t + 30'000;
    std::int64_t next = syncEnd + 1'000;
    if (syncEnd >= 150'000'000 && syncEnd < 150'100'000) next = syncEnd + 2'000'000;
    if (syncEnd >= 250'000'000 && syncEnd < 250'100'000) next = syncEnd + 3'000'000;
    t = std::max(t + 100'000, next);
  }
  trace.ops().publish();
  const RecorderFlushReading r = readRecorderFlush(trace);
  ASSERT_TRUE(r.found);
  EXPECT_DOUBLE_EQ(r.stallNs, 2'000'000);
  EXPECT_DOUBLE_EQ(r.baselineNs, 70'000);  // the median gap after a sync: the rest of its 100 us batch
  EXPECT_EQ(r.ops, 1001u);                 // the kernels issued from 50 ms to 150 ms, not the stray one
  EXPECT_DOUBLE_EQ(r.atNs, 100'030'000);
  EXPECT_DOUBLE_EQ(r.nsPerOp, (2'000'000.0 - 70'000.0) / 1001.0);
}

TEST(RecorderFlush, TheProfileFieldIsOptionalAndBounded) {
  simtest::expectOptionalProfileNumber("recorderFlushNsPerOp", &DeviceProfile::recorderFlushNsPerOp, h200(), 850.0,
                                       1e6);
}

}  // namespace
}  // namespace pipescope
