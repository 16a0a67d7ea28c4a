// computeMetrics and computeTimeSeries stream over the ops (a sweep in start order, a
// compact per-batch table); these tests hold them to the figures of the interval-list
// computations they replaced (MetricsByIntervalsReference.cpp,
// TimeSeriesByIntervalsReference.cpp), exactly, on simulated runs of every
// preset, several GPUs, imported PyTorch traces, windows, stores far out of time
// order, and the edge cases (no ops, one op, batches with seconds of work).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "MetricsByIntervalsReference.h"
#include "MetricsTestTraces.h"
#include "SimulatorTestSupport.h"
#include "TimeSeriesByIntervalsReference.h"
#include "config/Presets.h"
#include "io/TraceFiles.h"
#include "metrics/BatchStageTable.h"
#include "metrics/Metrics.h"
#include "metrics/TimeSeries.h"
#include "ranks/RankMerge.h"

namespace pipescope {
namespace {

void expectSameStages(const StageTimes& a, const StageTimes& b, const std::string& what) {
  EXPECT_EQ(a.h2dNs, b.h2dNs) << what;
  EXPECT_EQ(a.kernelNs, b.kernelNs) << what;
  EXPECT_EQ(a.d2hNs, b.d2hNs) << what;
  EXPECT_EQ(a.preprocessNs, b.preprocessNs) << what;
  EXPECT_EQ(a.postprocessNs, b.postprocessNs) << what;
  EXPECT_EQ(a.apiNs, b.apiNs) << what;
}

// Every figure, compared exactly: both add whole nanoseconds, so not even rounding differs.
void expectSameMetrics(const Metrics& a, const Metrics& b, const std::string& what) {
  EXPECT_EQ(a.batches, b.batches) << what;
  EXPECT_EQ(a.samples, b.samples) << what;
  EXPECT_EQ(a.ops, b.ops) << what;
  EXPECT_EQ(a.firstNs, b.firstNs) << what;
  EXPECT_EQ(a.lastNs, b.lastNs) << what;
  EXPECT_EQ(a.makespanNs, b.makespanNs) << what;
  EXPECT_EQ(a.batchesPerSec, b.batchesPerSec) << what;
  EXPECT_EQ(a.samplesPerSec, b.samplesPerSec) << what;
  EXPECT_EQ(a.h2dBytes, b.h2dBytes) << what;
  EXPECT_EQ(a.d2hBytes, b.d2hBytes) << what;
  EXPECT_EQ(a.h2dBusyNs, b.h2dBusyNs) << what;
  EXPECT_EQ(a.d2hBusyNs, b.d2hBusyNs) << what;
  EXPECT_EQ(a.h2dGBpsBusy, b.h2dGBpsBusy) << what;
  EXPECT_EQ(a.h2dGBpsWall, b.h2dGBpsWall) << what;
  EXPECT_EQ(a.d2hGBpsBusy, b.d2hGBpsBusy) << what;
  EXPECT_EQ(a.d2hGBpsWall, b.d2hGBpsWall) << what;
  ASSERT_EQ(a.lanes.size(), b.lanes.size()) << what;
  for (std::size_t i = 0; i < a.lanes.size(); ++i) {
    EXPECT_EQ(a.lanes[i].lane, b.lanes[i].lane) << what;
    EXPECT_EQ(a.lanes[i].busyNs, b.lanes[i].busyNs) << what << ", lane " << a.lanes[i].name;
    EXPECT_EQ(a.lanes[i].fraction, b.lanes[i].fraction) << what << ", lane " << a.lanes[i].name;
  }
  EXPECT_EQ(a.computeBusy, b.computeBusy) << what;
  EXPECT_EQ(a.h2dBusy, b.h2dBusy) << what;
  EXPECT_EQ(a.d2hBusy, b.d2hBusy) << what;
  EXPECT_EQ(a.copyBusy, b.copyBusy) << what;
  EXPECT_EQ(a.submitThreadBusy, b.submitThreadBusy) << what;
  EXPECT_EQ(a.workersBusy, b.workersBusy) << what;
  EXPECT_EQ(a.gpuIdle, b.gpuIdle) << what;
  EXPECT_EQ(a.computeOverlappedByCopy, b.computeOverlappedByCopy) << what;
  EXPECT_EQ(a.copyOverlappedByCompute, b.copyOverlappedByCompute) << what;
  expectSameStages(a.perBatch, b.perBatch, what + ", per batch");
  expectSameStages(a.perBatchOccupancy, b.perBatchOccupancy, what + ", occupancy");
  expectSameStages(a.shortestBatch, b.shortestBatch, what + ", shortest batch");
  EXPECT_EQ(a.copyEngines, b.copyEngines) << what;
  EXPECT_EQ(a.idealBoundNs, b.idealBoundNs) << what;
  EXPECT_EQ(a.critical, b.critical) << what;
  EXPECT_EQ(a.hostPerBatchNs, b.hostPerBatchNs) << what;
  EXPECT_EQ(a.efficiency, b.efficiency) << what;
  EXPECT_EQ(a.bottleneck, b.bottleneck) << what;
  EXPECT_EQ(a.bottleneckSentence, b.bottleneckSentence) << what;
  ASSERT_EQ(a.multiGpu.has_value(), b.multiGpu.has_value()) << what;
  if (a.multiGpu) {
    EXPECT_EQ(a.multiGpu->idealBoundNs, b.multiGpu->idealBoundNs) << what;
    EXPECT_EQ(a.multiGpu->commNs, b.multiGpu->commNs) << what;
    ASSERT_EQ(a.multiGpu->perGpu.size(), b.multiGpu->perGpu.size()) << what;
    for (std::size_t g = 0; g < a.multiGpu->perGpu.size(); ++g)
      EXPECT_EQ(a.multiGpu->perGpu[g].busy, b.multiGpu->perGpu[g].busy) << what;
  }
}

// Every point of every series, exactly, at the charts' resolution and at a coarse one
// (several batches per point).
void expectSameSeries(const Trace& trace, std::int64_t fromNs, std::int64_t toNs, const std::string& what) {
  const TraceView ops = trace.ops().snapshot();
  for (int points : {kSeriesPoints, 7}) {
    const TimeSeries a = computeTimeSeries(ops, 8, fromNs, toNs, points, 1);
    const TimeSeries b = reference::computeTimeSeriesByIntervals(ops, 8, fromNs, toNs, points, 1);
    const std::string w = what + ", series of " + std::to_string(points) + " points";
    EXPECT_EQ(a.startNs, b.startNs) << w;
    EXPECT_EQ(a.endNs, b.endNs) << w;
    EXPECT_EQ(a.batches, b.batches) << w;
    EXPECT_EQ(a.batchesPerPoint, b.batchesPerPoint) << w;
    EXPECT_EQ(a.batchesPerSec, b.batchesPerSec) << w;
    EXPECT_EQ(a.h2dGBps, b.h2dGBps) << w;
    EXPECT_EQ(a.d2hGBps, b.d2hGBps) << w;
    EXPECT_EQ(a.computeBusy, b.computeBusy) << w;
    EXPECT_EQ(a.h2dBusy, b.h2dBusy) << w;
    EXPECT_EQ(a.d2hBusy, b.d2hBusy) << w;
    EXPECT_EQ(a.overlap, b.overlap) << w;
  }
}

MetricsInput inputOf(const Trace& trace) {
  MetricsInput in;
  in.ops = trace.ops().snapshot();
  in.lanes = trace.lanes();
  if (!trace.configHistory().empty()) in.config = trace.config();
  in.device = trace.device();
  in.devices = trace.devices();
  in.ranks = trace.ranks();
  in.samplesPerBatch = trace.iterations().samplesPerIteration;
  in.completedBatches = trace.completedBatches();
  return in;
}

// The whole trace, and windows that cut ops in two (all three, or the middle one
// where the trace is slow to make), counting batches both ways.
void expectSameOnWindows(const Trace& trace, const std::string& what, bool everyWindow = true) {
  MetricsInput in = inputOf(trace);
  expectSameMetrics(computeMetrics(in), reference::computeMetricsByIntervals(in), what);
  const Metrics whole = computeMetrics(in);
  expectSameSeries(trace, 0, whole.lastNs, what);
  if (whole.makespanNs <= 0) return;
  const std::int64_t span = whole.lastNs - whole.firstNs;
  for (const auto& [from, to] : {std::pair{0.31, 0.69}, std::pair{0.0, 0.37}, std::pair{0.5, 1.2}}) {
    if (!everyWindow && from != 0.31) break;
    in.fromNs = whole.firstNs + std::int64_t(double(span) * from);
    in.toNs = whole.firstNs + std::int64_t(double(span) * to);
    expectSameSeries(trace, in.fromNs, in.toNs, what + ", window");
    for (std::int64_t completed : {std::int64_t(0), trace.completedBatches()}) {
      in.completedBatches = completed;
      expectSameMetrics(computeMetrics(in), reference::computeMetricsByIntervals(in),
                        what + ", window " + std::to_string(from) + "-" + std::to_string(to) +
                            (completed ? ", batches given" : ", batches counted"));
    }
  }
}

TEST(MetricsStreaming, EveryPresetMatchesTheIntervalComputation) {
  for (const Preset& p : builtinPresets()) {
    PipelineConfig c = p.config;
    c.batchCount = 24;
    simtest::SimRun run = simtest::runSim(c, simtest::h200());
    SCOPED_TRACE(p.name);
    ASSERT_GT(run.ops.size(), 0u);
    expectSameOnWindows(*run.trace, p.name);
  }
}

TEST(MetricsStreaming, SeveralBlocksOfOpsMatch) {
  // More ops than one sweep block (4096), so ops are held back across blocks.
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchCount = 1300;
  simtest::SimRun run = simtest::runSim(c, simtest::h200());
  ASSERT_GT(run.ops.size(), 3 * 4096u);
  expectSameOnWindows(*run.trace, "multi-stream, 1300 batches");
}

TEST(MetricsStreaming, SeveralGpusMatch) {
  PipelineConfig data = findPreset("multi-stream")->config;
  data.batchCount = 16;
  data.devices = {0, 1, 2, 3};
  data.allreduceBytes = 8 << 20;
  data.buckets = 2;
  PipelineConfig pipeline = data;
  pipeline.devices = {0, 1};
  pipeline.parallel = ParallelMode::Pipeline;
  pipeline.allreduceBytes = 0;
  pipeline.activationBytes = 1 << 20;
  pipeline.microBatches = 4;
  for (const PipelineConfig& c : {data, pipeline}) {
    simtest::SimRun run = simtest::runSim(c, simtest::h200());
    ASSERT_EQ(run.outcome.state, RunState::Finished) << run.outcome.message;
    const Metrics m = computeMetrics(*run.trace);
    ASSERT_TRUE(m.multiGpu.has_value());
    expectSameOnWindows(*run.trace, c.isPipelineParallel() ? "pipeline, 2 GPUs" : "data, 4 GPUs");
  }
}

TEST(MetricsStreaming, ImportedPyTorchTracesMatch) {
  // Two of the fixtures (the largest would double the test's time under the sanitizers).
  for (const char* file : {"pytorch-h100-record-shapes.json.gz", "pytorch-profiler-resnet18-pinned-2streams.json.gz"}) {
    const auto trace = loadTraceFile(std::string(PIPESCOPE_FIXTURES_DIR) + "/" + file, ImportOptions{});
    ASSERT_TRUE(trace) << file;
    ASSERT_GT(trace->ops().publishedCount(), 0u) << file;
    expectSameOnWindows(*trace, file, false);
  }
  const auto ranks = loadRanks({std::string(PIPESCOPE_FIXTURES_DIR) + "/ddp/ddp-w2-slowed"});
  ASSERT_TRUE(ranks);
  expectSameOnWindows(*ranks, "ddp-w2-slowed (2 ranks merged)", false);
}

TEST(MetricsStreaming, StoreFarOutOfTimeOrderMatches) {
  // Imports and merges may append lane by lane or in any order: the sweep holds back
  // what the store gives early, so the figures cannot depend on the order.
  PipelineConfig c = findPreset("cpu-bound")->config;
  c.batchCount = 600;
  simtest::SimRun run = simtest::runSim(c, simtest::h200());
  for (const char* order : {"reversed", "by lane", "shuffled"}) {
    std::vector<Op> ops = run.ops;
    if (std::string(order) == "reversed") std::reverse(ops.begin(), ops.end());
    if (std::string(order) == "by lane")
      std::stable_sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.lane < b.lane; });
    if (std::string(order) == "shuffled") std::shuffle(ops.begin(), ops.end(), std::mt19937(29));
    Trace trace;
    trace.setConfig(c);
    for (const Lane& l : run.lanes) trace.lane(l.kind, l.index, l.device, l.name);
    for (const Op& op : ops) trace.ops().append(op);
    trace.ops().publish();
    trace.setCompletedBatches(run.trace->completedBatches());
    expectSameOnWindows(trace, order);
    // And the same figures as the run's own store.
    expectSameMetrics(computeMetrics(trace), computeMetrics(*run.trace), std::string(order) + " vs recorded");
  }
}

TEST(MetricsStreaming, EmptyAndOneOpTracesMatch) {
  testing::TraceBuilder empty;
  expectSameOnWindows(empty.done(), "no ops");
  testing::TraceBuilder one;
  one.gpu(OpKind::Kernel, 0, 100, 350);
  expectSameOnWindows(one.done(), "one kernel");
  const Metrics m = computeMetrics(one.done());
  EXPECT_EQ(m.ops, 1);
  EXPECT_EQ(m.computeBusy, 1.0);
  testing::TraceBuilder zero;
  zero.gpu(OpKind::CopyH2D, 0, 100, 100, 4096);
  expectSameOnWindows(zero.done(), "one copy of no duration");
}

TEST(MetricsStreaming, LongBatchesAndScatteredBatchIdsMatch) {
  // A batch with more than 2^32 ns of one stage, and ids far apart (several pages of
  // the batch table, one of them negative but not kNoBatch).
  testing::TraceBuilder b;
  b.gpu(OpKind::Kernel, 0, 0, 3'000'000'000, 0, b.stream0)
      .gpu(OpKind::Kernel, 0, 3'000'000'000, 6'000'000'000, 0, b.stream0)
      .gpu(OpKind::CopyH2D, 70'000, 100, 900, 800, b.stream1)
      .gpu(OpKind::Kernel, 70'000, 1000, 5000, 0, b.stream1)
      .gpu(OpKind::Kernel, -7, 6'000'000'000, 6'000'000'100, 0, b.stream1)
      .gpu(OpKind::CopyD2H, 2'000'000'000, 6'000'000'100, 6'000'000'400, 300, b.stream1);
  expectSameOnWindows(b.done(), "long and scattered batches");
  EXPECT_EQ(computeMetrics(b.done()).shortestBatch.kernelNs, 0.0);  // the D2H-only batch
}

TEST(BatchStageTable, KeepsSumsPastThirtyTwoBitsAndCountsEachBatchOnce) {
  BatchStageTable t(true);
  t.touch(5, 100);
  t.add(5, BatchStageTable::Kernel, 4'000'000'000);
  t.add(5, BatchStageTable::Kernel, 4'000'000'000);  // 8e9: past 32 bits
  t.touch(5, 50);
  t.touch(1 << 20, 300);
  t.add(1 << 20, BatchStageTable::Kernel, 9'000'000'000);
  t.raise(1 << 20, BatchStageTable::Preprocess, 7);
  t.raise(1 << 20, BatchStageTable::Preprocess, 3);
  EXPECT_EQ(t.count(), 2);
  EXPECT_EQ(t.countEndingIn(0, 100), 1);
  EXPECT_EQ(t.countEndingIn(100, 300), 1);
  const StageTimes s = t.shortest();
  EXPECT_EQ(s.kernelNs, 8e9);
  EXPECT_EQ(s.preprocessNs, 0.0);
  BatchStageTable u(false);
  u.touch(1 << 20, 0);
  u.raise(1 << 20, BatchStageTable::Preprocess, 7);
  u.raise(1 << 20, BatchStageTable::Preprocess, 3);
  EXPECT_EQ(u.shortest().preprocessNs, 7.0);
}

}  // namespace
}  // namespace pipescope
