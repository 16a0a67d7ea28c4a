#include <gtest/gtest.h>

#include "MetricsTestTraces.h"
#include "metrics/Metrics.h"

using namespace pipescope;
using pipescope::testing::TraceBuilder;

namespace {

// Two batches, h = k = d = 10 ns, perfectly pipelined on two copy engines:
//   H2D  [0,10) [10,20)
//   K         [10,20) [20,30)
//   D2H              [20,30) [30,40)
Trace& pipelined(TraceBuilder& b) {
  return b.h2d(0, 0, 10, 1000)
      .kernel(0, 10, 20)
      .d2h(0, 20, 30, 500)
      .h2d(1, 10, 20, 1000)
      .kernel(1, 20, 30)
      .d2h(1, 30, 40, 500)
      .done(2);
}

const LaneBusy& laneBusy(const Metrics& m, std::uint16_t lane) {
  for (const auto& l : m.lanes)
    if (l.lane == lane) return l;
  static const LaneBusy none;
  ADD_FAILURE() << "lane " << lane << " missing";
  return none;
}

}  // namespace

TEST(UnionLength, MergesOverlapsAndIgnoresEmptyIntervals) {
  EXPECT_DOUBLE_EQ(unionLength({}), 0.0);
  EXPECT_DOUBLE_EQ(unionLength({{0, 10}, {5, 15}}), 15.0);
  EXPECT_DOUBLE_EQ(unionLength({{20, 30}, {0, 10}, {10, 20}}), 30.0);  // touching, out of order
  EXPECT_DOUBLE_EQ(unionLength({{0, 100}, {10, 20}, {30, 40}}), 100.0);  // nested
  EXPECT_DOUBLE_EQ(unionLength({{5, 5}, {9, 3}, {0, 2}}), 2.0);          // empty and reversed
}

TEST(IdealBound, TwoCopyEnginesFollowsTheSlowestStage) {
  // max(10,30,5)*4 + (10+30+5-30)
  EXPECT_DOUBLE_EQ(idealBound(10, 30, 5, 4, 2), 135.0);
  EXPECT_DOUBLE_EQ(idealBound(10, 10, 10, 2, 2), 40.0);
  EXPECT_DOUBLE_EQ(idealBound(10, 10, 10, 1, 2), 30.0);  // one batch: stages in sequence
}

TEST(IdealBound, OneCopyEngineSerialisesBothDirections) {
  // max(10+10, 10)*2 + (30-20)
  EXPECT_DOUBLE_EQ(idealBound(10, 10, 10, 2, 1), 50.0);
  // max(2+3, 20)*3 + (25-20)
  EXPECT_DOUBLE_EQ(idealBound(2, 20, 3, 3, 1), 65.0);
}

TEST(IdealBound, NoBatchesHasNoBound) { EXPECT_DOUBLE_EQ(idealBound(10, 10, 10, 0, 2), 0.0); }

TEST(Metrics, PipelinedRunMatchesHandComputedFigures) {
  TraceBuilder b;
  const Metrics m = computeMetrics(pipelined(b));
  EXPECT_EQ(m.ops, 6);
  EXPECT_EQ(m.batches, 2);
  EXPECT_EQ(m.samples, 16);
  EXPECT_EQ(m.firstNs, 0);
  EXPECT_EQ(m.lastNs, 40);
  EXPECT_DOUBLE_EQ(m.makespanNs, 40.0);
  EXPECT_DOUBLE_EQ(m.batchesPerSec, 2 / 40e-9);
  EXPECT_DOUBLE_EQ(m.samplesPerSec, 16 / 40e-9);

  EXPECT_DOUBLE_EQ(m.h2dBusy, 0.5);
  EXPECT_DOUBLE_EQ(m.computeBusy, 0.5);
  EXPECT_DOUBLE_EQ(m.d2hBusy, 0.5);
  EXPECT_DOUBLE_EQ(m.copyBusy, 1.0);
  EXPECT_DOUBLE_EQ(m.gpuIdle, 0.0);
  // Kernels [10,30) always have a copy beside them; copies [0,40) have a kernel half the time.
  EXPECT_DOUBLE_EQ(m.computeOverlappedByCopy, 1.0);
  EXPECT_DOUBLE_EQ(m.copyOverlappedByCompute, 0.5);

  EXPECT_DOUBLE_EQ(m.perBatch.h2dNs, 10.0);
  EXPECT_DOUBLE_EQ(m.perBatch.kernelNs, 10.0);
  EXPECT_DOUBLE_EQ(m.perBatch.d2hNs, 10.0);
  EXPECT_EQ(m.copyEngines, 2);
  EXPECT_DOUBLE_EQ(m.idealBoundNs, 40.0);
  EXPECT_DOUBLE_EQ(m.efficiency, 1.0);
}

TEST(Metrics, BandwidthIsReportedOverBusyAndOverWallTime) {
  TraceBuilder b;
  const Metrics m = computeMetrics(pipelined(b));
  EXPECT_EQ(m.h2dBytes, 2000u);
  EXPECT_EQ(m.d2hBytes, 1000u);
  EXPECT_DOUBLE_EQ(m.h2dBusyNs, 20.0);
  EXPECT_DOUBLE_EQ(m.d2hBusyNs, 20.0);
  // 1 byte/ns = 1 GB/s.
  EXPECT_DOUBLE_EQ(m.h2dGBpsBusy, 100.0);
  EXPECT_DOUBLE_EQ(m.h2dGBpsWall, 50.0);
  EXPECT_DOUBLE_EQ(m.d2hGBpsBusy, 50.0);
  EXPECT_DOUBLE_EQ(m.d2hGBpsWall, 25.0);
}

TEST(Metrics, OneCopyEngineDeviceUsesTheSerialisedBound) {
  TraceBuilder b(1);
  const Metrics m = computeMetrics(pipelined(b));
  EXPECT_EQ(m.copyEngines, 1);
  EXPECT_DOUBLE_EQ(m.idealBoundNs, 50.0);
  EXPECT_DOUBLE_EQ(m.efficiency, 50.0 / 40.0);
}

TEST(Metrics, CopyEngineCountComesFromLanesWhenTheDeviceDoesNotSayIt) {
  DeviceInfo unknown;
  EXPECT_EQ(effectiveCopyEngines(unknown, {Lane{0, LaneKind::CopyEngine, "copy", 0}}), 1);
  EXPECT_EQ(effectiveCopyEngines(unknown, {Lane{0, LaneKind::CopyEngineH2D, "h2d", 0}}), 2);
  DeviceInfo h200;
  h200.copyEngines = 3;
  EXPECT_EQ(effectiveCopyEngines(h200, {}), 2);
}

TEST(Metrics, BusyIsTheUnionAndAnOpOnTwoLanesCountsOnce) {
  TraceBuilder b;
  // Two H2D copies overlapping in time from two streams, same engine lane.
  b.gpu(OpKind::CopyH2D, 0, 0, 10, 100, b.stream0).gpu(OpKind::CopyH2D, 1, 5, 15, 100, b.stream1).kernel(0, 15, 20);
  const Metrics m = computeMetrics(b.done(2));
  EXPECT_DOUBLE_EQ(m.h2dBusyNs, 15.0);
  EXPECT_DOUBLE_EQ(m.h2dBusy, 15.0 / 20.0);
  EXPECT_DOUBLE_EQ(laneBusy(m, b.h2dEngine).busyNs, 15.0);
  EXPECT_DOUBLE_EQ(laneBusy(m, b.stream1).busyNs, 10.0);
  // stream 0 holds the first copy and the kernel: 10 + 5.
  EXPECT_DOUBLE_EQ(laneBusy(m, b.stream0).busyNs, 15.0);
  EXPECT_DOUBLE_EQ(laneBusy(m, b.compute).fraction, 5.0 / 20.0);
  EXPECT_EQ(m.h2dBytes, 200u);
  EXPECT_DOUBLE_EQ(m.perBatch.h2dNs, 10.0);  // (10 + 10) / 2 batches: durations, not busy time
}

TEST(Metrics, OverlapIsMeasuredBothWays) {
  TraceBuilder b;
  // Kernel [0,40); H2D [30,50): 10 ns together.
  b.kernel(0, 0, 40).h2d(1, 30, 50);
  const Metrics m = computeMetrics(b.done(2));
  EXPECT_DOUBLE_EQ(m.computeOverlappedByCopy, 10.0 / 40.0);
  EXPECT_DOUBLE_EQ(m.copyOverlappedByCompute, 10.0 / 20.0);
}

TEST(Metrics, HostSyncAndBlockingCopyWaitsAreNotHostWork) {
  TraceBuilder b;
  b.host(OpKind::ApiCall, b.submit, 0, 0, 100)  // blocking cudaMemcpy call
      .gpu(OpKind::CopyH2D, 0, 10, 90, 100, kNoLane, kOpBlockingCall)
      .host(OpKind::HostSync, b.submit, 0, 100, 200)
      .kernel(0, 100, 200);
  const Metrics m = computeMetrics(b.done(1));
  // 100 ns in the call minus the 80 ns its copy ran; the sync is waiting.
  EXPECT_DOUBLE_EQ(laneBusy(m, b.submit).busyNs, 20.0);
  EXPECT_DOUBLE_EQ(m.submitThreadBusy, 20.0 / 200.0);
}

TEST(Metrics, CopyBoundRunNamesTheBusyCopyEngine) {
  TraceBuilder b;
  for (int i = 0; i < 4; ++i)
    b.h2d(i, 30 * i, 30 * i + 30).kernel(i, 30 * i + 30, 30 * i + 40).d2h(i, 30 * i + 40, 30 * i + 45);
  const Metrics m = computeMetrics(b.done(4));
  EXPECT_DOUBLE_EQ(m.makespanNs, 135.0);
  EXPECT_DOUBLE_EQ(m.idealBoundNs, 135.0);
  EXPECT_EQ(m.bottleneck, Bottleneck::CopyBound);
  EXPECT_EQ(m.bottleneckSentence,
            "Copy-bound: the H2D copy engine is busy 89% of the time while kernels run 30%; faster or fewer copies "
            "would help most.");
}

TEST(Metrics, CopyBoundWithPageableCopiesSuggestsPinnedMemory) {
  TraceBuilder b;
  b.gpu(OpKind::CopyH2D, 0, 0, 90, 100, kNoLane, kOpPageable).kernel(0, 90, 100);
  const Metrics m = computeMetrics(b.done(1));
  EXPECT_EQ(m.bottleneck, Bottleneck::CopyBound);
  EXPECT_NE(m.bottleneckSentence.find("pinned host memory"), std::string::npos) << m.bottleneckSentence;
}

TEST(Metrics, ComputeBoundRunSaysHowBusyTheCopiesAre) {
  TraceBuilder b;
  for (int i = 0; i < 4; ++i)
    b.h2d(i, 10 * i, 10 * i + 10).kernel(i, 10 + 30 * i, 40 + 30 * i).d2h(i, 40 + 30 * i, 45 + 30 * i);
  const Metrics m = computeMetrics(b.done(4));
  EXPECT_DOUBLE_EQ(m.makespanNs, 135.0);
  EXPECT_DOUBLE_EQ(m.idealBoundNs, 135.0);
  EXPECT_EQ(m.bottleneck, Bottleneck::ComputeBound);
  EXPECT_EQ(m.bottleneckSentence,
            "Compute-bound: kernels run 89% of the time while the busiest copy engine (H2D) is busy 30%; a cheaper "
            "model or a faster GPU would help most.");
}

TEST(Metrics, HostBoundRunNamesTheWorker) {
  TraceBuilder b;
  b.host(OpKind::Preprocess, b.worker, 0, 0, 50)
      .host(OpKind::Preprocess, b.worker, 1, 50, 100)
      .h2d(0, 50, 55)
      .kernel(0, 55, 60)
      .d2h(0, 60, 65)
      .h2d(1, 100, 105)
      .kernel(1, 105, 110)
      .d2h(1, 110, 115);
  const Metrics m = computeMetrics(b.done(2));
  EXPECT_DOUBLE_EQ(m.workersBusy, 100.0 / 115.0);
  EXPECT_DOUBLE_EQ(m.perBatch.preprocessNs, 50.0);
  EXPECT_EQ(m.bottleneck, Bottleneck::HostBound);
  EXPECT_EQ(m.bottleneckSentence,
            "Host-bound: CPU worker 0 is busy 87% of the time with CPU work while kernels run 9%; more CPU workers or "
            "less CPU work per batch would help most.");
}

TEST(Metrics, HostBoundByApiCallsSuggestsFewerLargerOperations) {
  TraceBuilder b;
  for (int i = 0; i < 10; ++i) b.host(OpKind::ApiCall, b.submit, 0, 10 * i, 10 * i + 9);
  b.kernel(0, 95, 100);
  const Metrics m = computeMetrics(b.done(1));
  EXPECT_EQ(m.bottleneck, Bottleneck::HostBound);
  EXPECT_NE(m.bottleneckSentence.find("the submit thread is busy 90% of the time in CUDA API calls"),
            std::string::npos)
      << m.bottleneckSentence;
}

TEST(Metrics, SerialisedBlockingRunIsLatencyBound) {
  TraceBuilder b;
  b.h2d(0, 0, 10).kernel(0, 10, 20).d2h(0, 20, 30).h2d(1, 40, 50).kernel(1, 50, 60).d2h(1, 60, 70);
  Trace& t = b.done(2);
  PipelineConfig c = t.config();
  c.mode = TransferMode::Blocking;
  t.setConfig(c);
  const Metrics m = computeMetrics(t);
  EXPECT_DOUBLE_EQ(m.gpuIdle, 10.0 / 70.0);
  EXPECT_DOUBLE_EQ(m.idealBoundNs, 40.0);
  EXPECT_DOUBLE_EQ(m.efficiency, 40.0 / 70.0);
  EXPECT_EQ(m.bottleneck, Bottleneck::LatencyBound);
  EXPECT_EQ(m.bottleneckSentence,
            "Latency-bound: nothing is busy more than 29% of the time (H2D 29%, kernels 29%, D2H 29%) and kernels have "
            "a copy beside them only 0% of the time; the stages wait for each other, so async copies and several "
            "streams would let them overlap.");
}

TEST(Metrics, LatencyBoundRunWithAnIdleGpuSaysSo) {
  TraceBuilder b;
  // Short kernels far apart: the GPU waits on the host's round trips.
  b.kernel(0, 0, 10).kernel(1, 50, 60).kernel(2, 100, 110);
  Trace& t = b.done(3);
  PipelineConfig c = t.config();
  c.streams = 4;  // already several streams: the advice is about latency per batch
  t.setConfig(c);
  const Metrics m = computeMetrics(t);
  EXPECT_EQ(m.bottleneck, Bottleneck::LatencyBound);
  EXPECT_DOUBLE_EQ(m.gpuIdle, 80.0 / 110.0);
  EXPECT_NE(m.bottleneckSentence.find("the GPU is idle 73% of the time"), std::string::npos) << m.bottleneckSentence;
  EXPECT_NE(m.bottleneckSentence.find("larger batches or more streams"), std::string::npos) << m.bottleneckSentence;
}

TEST(Metrics, EmptyTraceGivesZerosAndNoVerdict) {
  TraceBuilder b;
  const Metrics m = computeMetrics(b.done());
  EXPECT_EQ(m.ops, 0);
  EXPECT_EQ(m.batches, 0);
  EXPECT_DOUBLE_EQ(m.makespanNs, 0.0);
  EXPECT_DOUBLE_EQ(m.batchesPerSec, 0.0);
  EXPECT_DOUBLE_EQ(m.h2dGBpsBusy, 0.0);
  EXPECT_DOUBLE_EQ(m.efficiency, 0.0);
  EXPECT_EQ(m.bottleneck, Bottleneck::Unknown);
  EXPECT_FALSE(m.bottleneckSentence.empty());
}

TEST(Metrics, ZeroMakespanDividesByNothing) {
  TraceBuilder b;
  b.h2d(0, 5, 5, 100).kernel(0, 5, 5);
  const Metrics m = computeMetrics(b.done(1));
  EXPECT_EQ(m.ops, 2);
  EXPECT_DOUBLE_EQ(m.makespanNs, 0.0);
  EXPECT_DOUBLE_EQ(m.h2dGBpsBusy, 0.0);
  EXPECT_DOUBLE_EQ(m.h2dGBpsWall, 0.0);
  EXPECT_DOUBLE_EQ(m.computeBusy, 0.0);
  EXPECT_DOUBLE_EQ(m.efficiency, 0.0);
  EXPECT_EQ(m.bottleneck, Bottleneck::Unknown);
}

TEST(Metrics, MappedRunWithoutCopiesIsComputeBound) {
  TraceBuilder b;
  b.kernel(0, 0, 10).kernel(1, 10, 20).kernel(2, 20, 30);
  const Metrics m = computeMetrics(b.done(3));
  EXPECT_EQ(m.h2dBytes, 0u);
  EXPECT_DOUBLE_EQ(m.h2dGBpsBusy, 0.0);
  EXPECT_DOUBLE_EQ(m.computeOverlappedByCopy, 0.0);
  EXPECT_DOUBLE_EQ(m.copyOverlappedByCompute, 0.0);
  EXPECT_DOUBLE_EQ(m.idealBoundNs, 30.0);
  EXPECT_EQ(m.bottleneck, Bottleneck::ComputeBound);
  EXPECT_EQ(m.bottleneckSentence,
            "Compute-bound: kernels run 100% of the time while no copies run; a cheaper model or a faster GPU would "
            "help most.");
}

TEST(Metrics, TraceWithoutConfigCountsBatchesFromOpsAndLeavesSamplesUnknown) {
  TraceBuilder b(0, false);
  b.h2d(0, 0, 10).kernel(0, 10, 20).h2d(1, 10, 20).kernel(1, 20, 30).h2d(7, 30, 40);
  const Metrics m = computeMetrics(b.done());  // no completed count recorded
  EXPECT_EQ(m.batches, 3);
  EXPECT_EQ(m.samples, 0);
  EXPECT_DOUBLE_EQ(m.samplesPerSec, 0.0);
  EXPECT_EQ(m.copyEngines, 2);
}

TEST(Metrics, AnnotationsAndInconsistentOpsAreIgnored) {
  TraceBuilder b;
  b.host(OpKind::Annotation, b.submit, kNoBatch, -100, 1000).kernel(0, 0, 10).kernel(0, 50, 20);  // end < start
  const Metrics m = computeMetrics(b.done(1));
  EXPECT_EQ(m.ops, 1);
  EXPECT_DOUBLE_EQ(m.makespanNs, 10.0);
}

TEST(Metrics, WindowClipsOpsAndProratesBytes) {
  TraceBuilder b;
  b.h2d(0, 0, 100, 1000).kernel(0, 100, 120).h2d(1, 120, 140, 200);
  Trace& t = b.done(2);
  const Metrics m = computeMetrics(t, 50, 110);
  EXPECT_EQ(m.firstNs, 50);
  EXPECT_EQ(m.lastNs, 110);
  EXPECT_DOUBLE_EQ(m.h2dBusyNs, 50.0);
  EXPECT_EQ(m.h2dBytes, 500u);
  EXPECT_DOUBLE_EQ(m.computeBusy, 10.0 / 60.0);
  EXPECT_EQ(m.batches, 0);  // batch 0 ends at 120, outside the window
  const Metrics all = computeMetrics(t, 0, 140);
  EXPECT_EQ(all.batches, 2);
  EXPECT_EQ(all.h2dBytes, 1200u);
}

TEST(Metrics, BottleneckNamesAreStable) {
  EXPECT_EQ(toString(Bottleneck::CopyBound), "copy-bound");
  EXPECT_EQ(toString(Bottleneck::ComputeBound), "compute-bound");
  EXPECT_EQ(toString(Bottleneck::HostBound), "host-bound");
  EXPECT_EQ(toString(Bottleneck::LatencyBound), "latency-bound");
}

// Kernels of two streams that share the SMs at their tails (a real GPU does this)
// each run longer than alone: the bound must use how long the compute engine was
// occupied, not the summed durations, or it would exceed the measured makespan.
TEST(Metrics, BoundUsesEngineOccupancyWhenOpsOfOneStageOverlap) {
  TraceBuilder b;
  b.gpu(OpKind::Kernel, 0, 0, 100, 0, b.stream0).gpu(OpKind::Kernel, 1, 50, 150, 0, b.stream1);
  const Metrics m = computeMetrics(b.done(2));
  EXPECT_DOUBLE_EQ(m.perBatch.kernelNs, 100.0);            // mean duration: 200 ns over 2 batches
  EXPECT_DOUBLE_EQ(m.perBatchOccupancy.kernelNs, 75.0);    // union 150 ns over 2 batches
  EXPECT_DOUBLE_EQ(m.idealBoundNs, idealBound(0, 75, 0, 2, 2));
  EXPECT_LE(m.idealBoundNs, m.makespanNs);
}

TEST(Metrics, OccupancyEqualsDurationWhenAnEngineRunsOneOpAtATime) {
  TraceBuilder b;
  b.h2d(0, 0, 10).kernel(0, 10, 30).d2h(0, 30, 35).h2d(1, 10, 20).kernel(1, 30, 50).d2h(1, 50, 55);
  const Metrics m = computeMetrics(b.done(2));
  EXPECT_DOUBLE_EQ(m.perBatchOccupancy.h2dNs, m.perBatch.h2dNs);
  EXPECT_DOUBLE_EQ(m.perBatchOccupancy.kernelNs, m.perBatch.kernelNs);
  EXPECT_DOUBLE_EQ(m.perBatchOccupancy.d2hNs, m.perBatch.d2hNs);
}
