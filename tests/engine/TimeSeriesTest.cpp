// The chart series: intervals that end where batches complete (one per batch, or a
// group of batches for long runs), equal intervals where no batch completes, and
// in each the honest figure for that interval, worked out by hand below.
#include <gtest/gtest.h>

#include "MetricsTestTraces.h"
#include "metrics/TimeSeries.h"

using namespace pipescope;
using pipescope::testing::TraceBuilder;

namespace {

// Three batches through a pipeline (8 samples per batch):
//   batch 0: H2D [0,10) 100 B, kernel [10,30), D2H [30,40) 50 B   -> completes at 40
//   batch 1: H2D [10,20) 100 B, kernel [30,50), D2H [50,60) 50 B  -> completes at 60
//   batch 2: H2D [20,30) 100 B, kernel [50,70), D2H [70,80) 50 B  -> completes at 80
Trace& threeBatches(TraceBuilder& b) {
  for (int i = 0; i < 3; ++i) {
    const std::int64_t h = 10 * i, k = i == 0 ? 10 : 10 + 20 * i;
    b.h2d(i, h, h + 10, 100).kernel(i, k, k + 20).d2h(i, k + 20, k + 30, 50);
  }
  return b.done(3);
}

}  // namespace

TEST(TimeSeries, OnePointPerBatchWithEachIntervalsOwnFigures) {
  TraceBuilder b;
  Trace& t = threeBatches(b);
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 80);
  ASSERT_EQ(ts.size(), 3u);
  EXPECT_EQ(ts.batchesPerPoint, 1);
  EXPECT_EQ(ts.startNs, (std::vector<std::int64_t>{0, 40, 60}));
  EXPECT_EQ(ts.endNs, (std::vector<std::int64_t>{40, 60, 80}));
  EXPECT_EQ(ts.timeNs, (std::vector<double>{20, 50, 70}));
  EXPECT_EQ(ts.batches, (std::vector<int>{1, 1, 1}));
  // One batch over the interval's length: the first includes the pipeline's fill.
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[0], 1 / 40e-9);
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[1], 1 / 20e-9);
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[2], 1 / 20e-9);
  EXPECT_DOUBLE_EQ(ts.samplesPerSec[1], 8 / 20e-9);
  // Bytes moved in the interval over its length (GB/s = bytes/ns).
  EXPECT_DOUBLE_EQ(ts.h2dGBps[0], 300.0 / 40);
  EXPECT_DOUBLE_EQ(ts.h2dGBps[1], 0.0);
  EXPECT_DOUBLE_EQ(ts.d2hGBps[0], 50.0 / 40);
  EXPECT_DOUBLE_EQ(ts.d2hGBps[1], 50.0 / 20);
  EXPECT_DOUBLE_EQ(ts.d2hGBps[2], 50.0 / 20);
  // Busy time in the interval over its length; the kernels run back to back [10,70).
  EXPECT_DOUBLE_EQ(ts.h2dBusy[0], 30.0 / 40);
  EXPECT_DOUBLE_EQ(ts.computeBusy[0], 30.0 / 40);
  EXPECT_DOUBLE_EQ(ts.computeBusy[1], 1.0);
  EXPECT_DOUBLE_EQ(ts.computeBusy[2], 10.0 / 20);
  EXPECT_DOUBLE_EQ(ts.d2hBusy[0], 10.0 / 40);
  EXPECT_DOUBLE_EQ(ts.d2hBusy[1], 10.0 / 20);
  // Copies run beside the kernels during [10,40) and [50,60).
  EXPECT_DOUBLE_EQ(ts.overlap[0], 1.0);
  EXPECT_DOUBLE_EQ(ts.overlap[1], 10.0 / 20);
  EXPECT_DOUBLE_EQ(ts.overlap[2], 0.0);
}

// A live run: the work after the last completion belongs to a batch that has not
// completed; its point comes when it does, instead of a dip at the live edge.
TEST(TimeSeries, TimeAfterTheLastCompletionWaitsForItsBatch) {
  TraceBuilder b;
  Trace& t = threeBatches(b);
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 75);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts.toNs(), 60);
}

// Ten batches, one every 100 ns (kernel [100i, 100i+90)), at most 4 points: groups
// of ceil(10/4) = 3 batches, the last group holding what is left.
TEST(TimeSeries, LongRunsGroupConsecutiveBatches) {
  TraceBuilder b;
  for (int i = 0; i < 10; ++i) b.kernel(i, i * 100, i * 100 + 90);
  Trace& t = b.done(10);
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 990, 4);
  EXPECT_EQ(ts.batchesPerPoint, 3);
  EXPECT_EQ(ts.startNs, (std::vector<std::int64_t>{0, 290, 590, 890}));
  EXPECT_EQ(ts.endNs, (std::vector<std::int64_t>{290, 590, 890, 990}));
  EXPECT_EQ(ts.batches, (std::vector<int>{3, 3, 3, 1}));
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[0], 3 / 290e-9);
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[1], 3 / 300e-9);
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[3], 1 / 100e-9);
  EXPECT_DOUBLE_EQ(ts.computeBusy[1], 270.0 / 300);
}

TEST(TimeSeries, PointCountFollowsTheRun) {
  auto points = [](int batches) {
    TraceBuilder b;
    for (int i = 0; i < batches; ++i) b.kernel(i, i * 100, i * 100 + 90);
    Trace& t = b.done(batches);
    return computeTimeSeries(t.ops().snapshot(), t.config(), 0, std::int64_t(batches) * 100).size();
  };
  EXPECT_EQ(points(2), 2u);
  EXPECT_EQ(points(37), 37u);
  EXPECT_EQ(points(kSeriesPoints), std::size_t(kSeriesPoints));
  EXPECT_EQ(points(kSeriesPoints + 1), std::size_t(kSeriesPoints / 2 + 1));  // pairs
  const std::size_t many = points(5000);                                     // groups of 13
  EXPECT_GE(many, 100u);
  EXPECT_LE(many, std::size_t(kSeriesPoints));
  EXPECT_EQ(many, 385u);
}

// A chart that follows the timeline's zoom: intervals from the last completion
// before the visible range to the last completion in it.
TEST(TimeSeries, AVisibleRangeIsCutAtItsOwnCompletions) {
  TraceBuilder b;
  for (int i = 0; i < 10; ++i) b.kernel(i, i * 100, i * 100 + 90);
  Trace& t = b.done(10);
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 250, 650);
  EXPECT_EQ(ts.startNs, (std::vector<std::int64_t>{190, 290, 390, 490}));
  EXPECT_EQ(ts.endNs, (std::vector<std::int64_t>{290, 390, 490, 590}));
  for (double busy : ts.computeBusy) EXPECT_DOUBLE_EQ(busy, 0.9);
}

// Two streams finishing at the same instant: both batches count in one interval,
// never a zero-length one.
TEST(TimeSeries, BatchesCompletingTogetherShareTheirPoint) {
  TraceBuilder b;
  b.gpu(OpKind::Kernel, 0, 0, 50, 0, b.stream0).gpu(OpKind::Kernel, 1, 0, 50, 0, b.stream1).kernel(2, 50, 100);
  Trace& t = b.done(3);
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 100);
  EXPECT_EQ(ts.endNs, (std::vector<std::int64_t>{50, 100}));
  EXPECT_EQ(ts.batches, (std::vector<int>{2, 1}));
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[0], 2 / 50e-9);
}

// Data parallel over two GPUs: batches 0 and 1 (one per GPU) end 1 ns apart, then 2
// and 3. Cut at every completion the series would swing between 1e9 and 0.02e9
// batches/s; the points hold one step each.
TEST(TimeSeries, DataParallelStepsShareTheirPoint) {
  TraceBuilder b;
  b.kernel(0, 0, 50).kernel(1, 0, 51).kernel(2, 51, 100).kernel(3, 51, 101);
  Trace& t = b.done(4);
  PipelineConfig c = t.config();
  const TimeSeries perBatch = computeTimeSeries(t.ops().snapshot(), c, 0, 101);
  EXPECT_EQ(perBatch.size(), 4u);
  c.devices = {0, 1};
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), c, 0, 101);
  EXPECT_EQ(ts.batchesPerPoint, 2);
  EXPECT_EQ(ts.endNs, (std::vector<std::int64_t>{51, 101}));
  EXPECT_EQ(ts.batches, (std::vector<int>{2, 2}));
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[1], 2 / 50e-9);
  c.parallel = ParallelMode::Pipeline;  // one batch at a time leaves the last stage
  EXPECT_EQ(computeTimeSeries(t.ops().snapshot(), c, 0, 101).size(), 4u);
}

TEST(TimeSeries, WithoutBatchesTheRangeIsCutEqually) {
  TraceBuilder b;
  Trace& t = b.d2h(kNoBatch, 5, 25, 200).done();
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 30, 6);  // 3 intervals
  ASSERT_EQ(ts.size(), 3u);
  EXPECT_EQ(ts.batchesPerPoint, 0);
  EXPECT_EQ(ts.startNs, (std::vector<std::int64_t>{0, 10, 20}));
  // 10 bytes per ns, spread over the intervals the copy spans by the time in each.
  EXPECT_DOUBLE_EQ(ts.d2hGBps[0], 5.0);
  EXPECT_DOUBLE_EQ(ts.d2hGBps[1], 10.0);
  EXPECT_DOUBLE_EQ(ts.d2hGBps[2], 5.0);
  EXPECT_DOUBLE_EQ(ts.d2hBusy[0], 0.5);
  EXPECT_DOUBLE_EQ(ts.d2hBusy[1], 1.0);
  for (double r : ts.batchesPerSec) EXPECT_EQ(r, 0.0);
  // The default budget: kSeriesPoints / 2 equal intervals.
  EXPECT_EQ(computeTimeSeries(t.ops().snapshot(), t.config(), 0, 30'000).size(), std::size_t(kSeriesPoints / 2));
}

TEST(TimeSeries, OverlappingCopiesCountOnceInBusy) {
  TraceBuilder b;
  Trace& t =
      b.gpu(OpKind::CopyH2D, kNoBatch, 0, 10, 0, b.stream0).gpu(OpKind::CopyH2D, kNoBatch, 0, 10, 0, b.stream1).done();
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 10, 2);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_DOUBLE_EQ(ts.h2dBusy[0], 1.0);
}

TEST(TimeSeries, EmptyRangeGivesNoPoints) {
  TraceBuilder b;
  Trace& t = b.kernel(0, 0, 10).done(1);
  EXPECT_EQ(computeTimeSeries(t.ops().snapshot(), t.config(), 10, 10).size(), 0u);
  EXPECT_EQ(computeTimeSeries(t.ops().snapshot(), t.config(), 0, 10, 1).size(), 0u);
}

// Samples per second only where the batch size is known: an imported profile without
// a configuration has iterations per second, and no invented sample count.
TEST(TimeSeries, SamplesPerBatchComeFromTheTraceOrAreUnknown) {
  TraceBuilder withConfig;  // 8 samples per batch
  Trace& known = withConfig.kernel(0, 0, 10).kernel(1, 10, 20).done(2);
  TimeSeries ts = computeTimeSeries(known, 0, 20);
  EXPECT_EQ(ts.samplesPerBatch, 8);
  EXPECT_DOUBLE_EQ(ts.samplesPerSec[1], 8 / 10e-9);

  TraceBuilder imported(2, /*withConfig=*/false);
  Trace& unknown = imported.kernel(0, 0, 10).kernel(1, 10, 20).done(2);
  ts = computeTimeSeries(unknown, 0, 20);
  EXPECT_EQ(ts.samplesPerBatch, 0);
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[1], 1 / 10e-9);
  for (double s : ts.samplesPerSec) EXPECT_EQ(s, 0.0);
}
