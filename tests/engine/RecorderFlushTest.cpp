// The recorder's periodic CUPTI flush: the simulator charges the submit thread for it
// at the first retired batch once the interval has passed since the run's first GPU
// op, the trace reader finds it again, and the host overhead fit measures it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ProfileFieldTestSupport.h"
#include "config/RecorderFlush.h"
#include "sim/DeviceProfile.h"
#include "sim/FitRuns.h"
#include "sim/HostOverheadFit.h"
#include "sim/RecorderFlushFit.h"
#include "sim/SimulatorBackend.h"
#include "sim/Validation.h"

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

TEST(RecorderFlush, TheProfileFieldIsOptionalAndBounded) {
  simtest::expectOptionalProfileNumber("recorderFlushNsPerOp", &DeviceProfile::recorderFlushNsPerOp, h200(), 850.0,
                                       1e6);
}

}  // namespace
}  // namespace pipescope
