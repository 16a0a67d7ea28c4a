#include <gtest/gtest.h>

#include "MetricsTestTraces.h"
#include "metrics/TimeSeries.h"

using namespace pipescope;
using pipescope::testing::TraceBuilder;

TEST(TimeSeries, BinWidthIsAReadableStep) {
  EXPECT_EQ(readableBinWidth(1000, 200), 5);
  EXPECT_EQ(readableBinWidth(1000, 3), 500);     // 334 needed
  EXPECT_EQ(readableBinWidth(1000, 1000), 1);
  EXPECT_EQ(readableBinWidth(25'000'000, 200), 200'000);  // 125 µs needed -> 200 µs
  EXPECT_EQ(readableBinWidth(10, 100), 1);       // never below 1 ns
}

TEST(TimeSeries, EmptyRangeGivesNoBins) {
  TraceBuilder b;
  Trace& t = b.kernel(0, 0, 10).done(1);
  EXPECT_EQ(computeTimeSeries(t.ops().snapshot(), t.config(), 10, 10).size(), 0u);
  EXPECT_EQ(computeTimeSeries(t.ops().snapshot(), t.config(), 0, 10, 0).size(), 0u);
}

TEST(TimeSeries, BinsHoldBusyBandwidthOverlapAndThroughput) {
  TraceBuilder b;  // 8 samples per batch
  // H2D [0,10) 100 bytes, kernel [5,15), batch 0 complete at 15.
  Trace& t = b.h2d(0, 0, 10, 100).kernel(0, 5, 15).done(1);
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 20, 2);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts.binNs, 10);
  EXPECT_DOUBLE_EQ(ts.timeNs[0], 5.0);
  EXPECT_DOUBLE_EQ(ts.timeNs[1], 15.0);
  EXPECT_DOUBLE_EQ(ts.h2dBusy[0], 1.0);
  EXPECT_DOUBLE_EQ(ts.h2dBusy[1], 0.0);
  EXPECT_DOUBLE_EQ(ts.computeBusy[0], 0.5);
  EXPECT_DOUBLE_EQ(ts.computeBusy[1], 0.5);
  EXPECT_DOUBLE_EQ(ts.overlap[0], 1.0);  // the kernel's 5 ns in bin 0 all ran beside the copy
  EXPECT_DOUBLE_EQ(ts.overlap[1], 0.0);
  EXPECT_DOUBLE_EQ(ts.h2dGBps[0], 10.0);  // 100 bytes in 10 ns
  EXPECT_DOUBLE_EQ(ts.h2dGBps[1], 0.0);
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[0], 0.0);
  EXPECT_DOUBLE_EQ(ts.batchesPerSec[1], 1.0 / 10e-9);
  EXPECT_DOUBLE_EQ(ts.samplesPerSec[1], 8.0 / 10e-9);
}

TEST(TimeSeries, TheLastBinCountsOnlyTheTimeItCoversAndASliverIsLeftOut) {
  TraceBuilder b;  // a copy busy the whole time, 1 byte per ns
  Trace& t = b.h2d(0, 0, 100, 100).done(1);
  // 0..75 in bins of 20: the last bin covers 60..75, 15 of its 20 ns.
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 75, 4);
  ASSERT_EQ(ts.binNs, 20);
  ASSERT_EQ(ts.size(), 4u);
  EXPECT_DOUBLE_EQ(ts.h2dBusy[3], 1.0);  // not 0.75: the copy ran all the time there was
  EXPECT_DOUBLE_EQ(ts.h2dGBps[3], 1.0);
  EXPECT_DOUBLE_EQ(ts.timeNs[3], 67.5);
  // 0..62: the last bin would cover 2 of 20 ns; it is left out, nothing dips.
  const TimeSeries cut = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 62, 4);
  ASSERT_EQ(cut.binNs, 20);
  ASSERT_EQ(cut.size(), 3u);
  for (double busy : cut.h2dBusy) EXPECT_DOUBLE_EQ(busy, 1.0);
}

TEST(TimeSeries, CopySpanningBinsIsSpreadByTime) {
  TraceBuilder b;
  Trace& t = b.d2h(0, 5, 25, 200).done(1);
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 30, 3);
  ASSERT_EQ(ts.size(), 3u);
  // 10 bytes per ns: 50 bytes in bin 0, 100 in bin 1, 50 in bin 2.
  EXPECT_DOUBLE_EQ(ts.d2hGBps[0], 5.0);
  EXPECT_DOUBLE_EQ(ts.d2hGBps[1], 10.0);
  EXPECT_DOUBLE_EQ(ts.d2hGBps[2], 5.0);
  EXPECT_DOUBLE_EQ(ts.d2hBusy[0], 0.5);
  EXPECT_DOUBLE_EQ(ts.d2hBusy[1], 1.0);
}

TEST(TimeSeries, OverlappingCopiesCountOnceInBusy) {
  TraceBuilder b;
  Trace& t = b.gpu(OpKind::CopyH2D, 0, 0, 10, 0, b.stream0).gpu(OpKind::CopyH2D, 1, 0, 10, 0, b.stream1).done(2);
  const TimeSeries ts = computeTimeSeries(t.ops().snapshot(), t.config(), 0, 10, 1);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_DOUBLE_EQ(ts.h2dBusy[0], 1.0);
}

// A steady pipeline completing one batch every 1000 ns: with 200 bins over 40 µs a
// bin (200 ns) is shorter than a batch period and most bins hold no completion, so
// the throughput curve is all spikes. The batch-period floor makes every full bin
// hold the same number of completions.
TEST(TimeSeries, BinsSpanSeveralBatchPeriodsSoThroughputIsSmooth) {
  TraceBuilder b;
  for (int i = 0; i < 40; ++i) b.kernel(i, i * 1000, i * 1000 + 900);
  Trace& t = b.done(40);
  const TraceView ops = t.ops().snapshot();
  EXPECT_DOUBLE_EQ(meanBatchPeriodNs(ops), 1000.0);

  const TimeSeries spiky = computeTimeSeries(ops, t.config(), 0, 40'000, 200, 0);
  EXPECT_EQ(spiky.binNs, 200);

  const TimeSeries ts = computeTimeSeries(ops, t.config(), 0, 40'000, 200);
  EXPECT_GE(ts.binNs, kMinBatchPeriodsPerBin * 1000);
  EXPECT_EQ(ts.binNs, 5000);  // 4 periods rounded up to a readable step
  ASSERT_EQ(ts.size(), 8u);
  for (std::size_t i = 0; i < ts.size(); ++i)
    EXPECT_DOUBLE_EQ(ts.batchesPerSec[i], 5.0 / 5000e-9) << "bin " << i;
}

TEST(TimeSeries, BatchPeriodNeedsTwoBatches) {
  TraceBuilder b;
  Trace& t = b.kernel(0, 0, 10).done(1);
  EXPECT_DOUBLE_EQ(meanBatchPeriodNs(t.ops().snapshot()), 0.0);
}
