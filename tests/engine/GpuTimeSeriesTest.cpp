// The chart series of each GPU in a run over several GPUs, on hand-built traces whose
// figures are worked out below: per-GPU throughput in data parallel (adding up to the
// run's own), busy share only where every batch runs on every GPU (pipeline).
#include <gtest/gtest.h>

#include <memory>

#include "MetricsTestTraces.h"
#include "metrics/GpuTimeSeries.h"

namespace pipescope {
namespace {

struct TwoGpus {
  std::unique_ptr<Trace> trace = std::make_unique<Trace>();
  std::uint16_t stream[2] = {}, compute[2] = {}, worker = 0;

  explicit TwoGpus(ParallelMode mode) {
    PipelineConfig c;
    c.devices = {0, 1};
    c.parallel = mode;
    c.batchSamples = 8;
    trace->setConfig(c);
    worker = trace->lane(LaneKind::HostWorker, 0, "CPU worker 0");
    for (int g = 0; g < 2; ++g) {
      stream[g] = trace->lane(LaneKind::Stream, 0, g, "GPU" + std::to_string(g) + " stream 0");
      compute[g] = trace->lane(LaneKind::ComputeEngine, 0, g, "GPU" + std::to_string(g) + " compute engine");
    }
  }
  void add(OpKind kind, std::uint16_t lane, std::uint16_t engine, std::int32_t batch, std::int64_t s, std::int64_t e) {
    Op op;
    op.kind = kind;
    op.lane = lane;
    op.engineLane = engine;
    op.batch = batch;
    op.submit = op.ready = op.start = s;
    op.end = e;
    trace->ops().append(op);
  }
  void kernel(int gpu, std::int32_t batch, std::int64_t s, std::int64_t e) {
    add(OpKind::Kernel, stream[gpu], compute[gpu], batch, s, e);
  }
  const Trace& done() {
    trace->ops().publish();
    return *trace;
  }
};

// Data parallel, 2 GPUs (2 batches a step). GPU0 runs batches 0, 2, 4 in [0,20),
// [20,40), [40,60); GPU1 runs batch 1 in [10,60), its CPU preprocessing [0,5) on a
// shared host lane. Completions 20, 40, 60, 60: intervals (0,40] with batches 0 and 2,
// (40,60] with 4 and 1.
TEST(GpuTimeSeries, DataParallelThroughputPerGpuAddsUpToTheTotal) {
  TwoGpus t(ParallelMode::Data);
  t.kernel(0, 0, 0, 20);
  t.kernel(0, 2, 20, 40);
  t.kernel(0, 4, 40, 60);
  t.add(OpKind::Preprocess, t.worker, kNoLane, 1, 0, 5);
  t.kernel(1, 1, 10, 60);
  const TimeSeries ts = computeTimeSeries(t.done(), 0, 60);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts.batches, (std::vector<int>{2, 2}));
  EXPECT_FALSE(ts.batchesSpanGpus);
  ASSERT_EQ(ts.gpus.size(), 2u);
  EXPECT_EQ(ts.gpus[0].name, "GPU 0");
  EXPECT_EQ(ts.gpus[1].name, "GPU 1");
  EXPECT_EQ(ts.gpus[1].device, 1);
  EXPECT_EQ(ts.gpus[0].batches, (std::vector<int>{2, 1}));
  EXPECT_EQ(ts.gpus[1].batches, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(ts.gpus[0].batchesPerSec[0], 2 / 40e-9);
  EXPECT_DOUBLE_EQ(ts.gpus[1].batchesPerSec[0], 0.0);
  EXPECT_DOUBLE_EQ(ts.gpus[0].batchesPerSec[1], 1 / 20e-9);
  EXPECT_DOUBLE_EQ(ts.gpus[1].samplesPerSec[1], 8 / 20e-9);
  for (std::size_t i = 0; i < ts.size(); ++i)
    EXPECT_DOUBLE_EQ(ts.gpus[0].samplesPerSec[i] + ts.gpus[1].samplesPerSec[i], ts.samplesPerSec[i]);
  // Each GPU's own kernels: GPU0 busy throughout; GPU1 from 10 on.
  EXPECT_EQ(ts.gpus[0].computeBusy, (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(ts.gpus[1].computeBusy, (std::vector<double>{30.0 / 40, 1.0}));
}

// Pipeline parallel, stage k on GPU k: batch 0 on GPU0 [0,30), its activations copied
// [30,35), on GPU1 [35,65); batch 1 on GPU0 [30,60), on GPU1 [65,95). Completions 65
// and 95: intervals (0,65], (65,95].
TEST(GpuTimeSeries, PipelineStagesGiveBusyShareOnly) {
  TwoGpus t(ParallelMode::Pipeline);
  t.kernel(0, 0, 0, 30);
  t.add(OpKind::PeerCopy, t.stream[0], kNoLane, 0, 30, 35);
  t.kernel(1, 0, 35, 65);
  t.kernel(0, 1, 30, 60);
  t.kernel(1, 1, 65, 95);
  const TimeSeries ts = computeTimeSeries(t.done(), 0, 95);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_TRUE(ts.batchesSpanGpus);
  ASSERT_EQ(ts.gpus.size(), 2u);
  for (const GpuSeries& g : ts.gpus) {
    EXPECT_TRUE(g.batches.empty());
    EXPECT_TRUE(g.batchesPerSec.empty());
  }
  // The bubble: GPU1 idle while GPU0 fills the pipeline, GPU0 idle while it drains.
  EXPECT_EQ(ts.gpus[0].computeBusy, (std::vector<double>{60.0 / 65, 0.0}));
  EXPECT_EQ(ts.gpus[1].computeBusy, (std::vector<double>{30.0 / 65, 1.0}));
}

TEST(GpuTimeSeries, WindowCountsOnlyItsOwnCompletions) {
  TwoGpus t(ParallelMode::Data);
  for (int i = 0; i < 4; ++i) {
    t.kernel(0, 2 * i, 20 * i, 20 * i + 20);
    t.kernel(1, 2 * i + 1, 20 * i, 20 * i + 20);
  }
  // Completions at 20, 40, 60, 80 (two batches each); the window (30, 70] starts at
  // the completion 20 and holds those at 40 and 60: intervals (20,40], (40,60].
  const TimeSeries ts = computeTimeSeries(t.done(), 30, 70);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts.startNs, (std::vector<std::int64_t>{20, 40}));
  EXPECT_EQ(ts.gpus[0].batches, (std::vector<int>{1, 1}));
  EXPECT_EQ(ts.gpus[1].batches, (std::vector<int>{1, 1}));
}

TEST(GpuTimeSeries, OneGpuHasNoGpuSeries) {
  testing::TraceBuilder b;
  b.h2d(0, 0, 10, 100).kernel(0, 10, 30).d2h(0, 30, 40, 50);
  b.h2d(1, 10, 20, 100).kernel(1, 30, 50).d2h(1, 50, 60, 50);
  const TimeSeries ts = computeTimeSeries(b.done(2), 0, 60);
  EXPECT_EQ(ts.size(), 2u);
  EXPECT_TRUE(ts.gpus.empty());
  EXPECT_FALSE(ts.batchesSpanGpus);
}

TEST(GpuTimeSeries, NamesFollowTheTimelinesGroupHeaders) {
  EXPECT_EQ(gpuSeriesName(3, {}), "GPU 3");
  RankInfo r;
  r.rank = 5;
  r.device = 1;
  EXPECT_EQ(gpuSeriesName(1, {r}), "Rank 5");
  EXPECT_EQ(gpuSeriesName(0, {r}), "GPU 0");
}

TEST(GpuTimeSeries, EmptySeriesGetsNoGpuSeries) {
  TwoGpus t(ParallelMode::Data);
  t.kernel(0, 0, 0, 20);
  TimeSeries ts;
  addGpuSeries(ts, t.done().ops().snapshot(), t.trace->lanes(), {});
  EXPECT_TRUE(ts.gpus.empty());
}

}  // namespace
}  // namespace pipescope
