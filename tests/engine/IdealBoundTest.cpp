// The ideal bound counts every resource (engines and the host) and stays below every
// makespan it is computed from: hand-computed bounds and hand-built traces.
#include <gtest/gtest.h>

#include "MetricsTestTraces.h"
#include "metrics/IdealBound.h"
#include "metrics/Metrics.h"

namespace pipescope {
namespace {

using testing::TraceBuilder;

StageTimes stages(double h, double k, double d, double pre = 0, double post = 0, double api = 0) {
  StageTimes t;
  t.h2dNs = h;
  t.kernelNs = k;
  t.d2hNs = d;
  t.preprocessNs = pre;
  t.postprocessNs = post;
  t.apiNs = api;
  return t;
}

TEST(IdealBound, WithoutHostWorkItIsTheClassicPipelineBound) {
  const StageTimes t = stages(10, 30, 5);
  const IdealBound b = computeIdealBound(t, t, 4, 2);
  EXPECT_DOUBLE_EQ(b.ns, 30 * 4 + 15);
  EXPECT_EQ(b.critical, CriticalResource::ComputeEngine);
  EXPECT_DOUBLE_EQ(b.ns, idealBound(10, 30, 5, 4, 2));
  const StageTimes none = stages(0, 0, 0);
  EXPECT_EQ(computeIdealBound(none, none, 4, 2).critical, CriticalResource::None);
  EXPECT_DOUBLE_EQ(computeIdealBound(none, none, 4, 2).ns, 0);
}

TEST(IdealBound, HostCriticalPipelineEndsWithOneBatchOnTheGpu) {
  // Preprocessing 10 and API calls 1 per batch, then H2D, kernel, D2H of 1 each: the
  // host issues batch after batch; the last one still crosses the GPU: 4 x 11 + 3.
  const StageTimes t = stages(1, 1, 1, 10, 0, 1);
  const IdealBound b = computeIdealBound(t, t, 4, 2);
  EXPECT_EQ(b.critical, CriticalResource::Host);
  EXPECT_DOUBLE_EQ(b.hostPerBatchNs, 11);
  EXPECT_DOUBLE_EQ(b.ns, 47);
}

TEST(IdealBound, PostprocessingCanOverlapTheLastBatchOnTheGpu) {
  // Postprocessing 10 per batch: the host may postprocess earlier batches while the
  // last one is on the GPU, so only its own work is certain: 4 x 10 (not 4 x 10 + 3).
  const StageTimes t = stages(1, 1, 1, 0, 10, 0);
  const IdealBound b = computeIdealBound(t, t, 4, 2);
  EXPECT_EQ(b.critical, CriticalResource::Host);
  EXPECT_DOUBLE_EQ(b.ns, 40);
}

TEST(IdealBound, HostWorkFillsTheEnginesBounds) {
  // H2D critical (3 per batch); the first batch's preprocessing (2) comes before any
  // copy, the last batch's postprocessing (1) after: 4 x 3 + 2 + 1 + 1 + 1.
  const StageTimes t = stages(3, 1, 1, 2, 1, 0);
  const IdealBound b = computeIdealBound(t, t, 4, 2);
  EXPECT_EQ(b.critical, CriticalResource::H2DEngine);
  EXPECT_DOUBLE_EQ(b.ns, 17);
}

TEST(IdealBound, FillUsesTheShortestBatchNotTheContendedMean) {
  // H2D occupied 3 per batch on average, but one batch copied in 2 (no D2H beside it).
  const IdealBound b = computeIdealBound(stages(3, 1, 3), stages(2, 1, 2), 4, 2);
  EXPECT_EQ(b.critical, CriticalResource::H2DEngine);  // ties with D2H: the direction listed first
  EXPECT_DOUBLE_EQ(b.ns, 4 * 3 + 1 + 2);
}

TEST(IdealBound, OneCopyEngineCarriesBothDirections) {
  const StageTimes t = stages(3, 1, 2);
  const IdealBound b = computeIdealBound(t, t, 4, 1);
  EXPECT_EQ(b.critical, CriticalResource::CopyEngine);
  EXPECT_DOUBLE_EQ(b.ns, 4 * 5 + 1);
}

// Both copy directions share the link: batch 0's H2D ran alone (10 ns), the later
// ones beside a D2H (12 ns each). The mean stage times as fill would put the bound
// above the run itself (efficiency 102%); the shortest batch's stages do not.
TEST(IdealBound, LinkContentionDoesNotLiftTheBoundAboveTheRun) {
  TraceBuilder b;
  b.h2d(0, 0, 10).kernel(0, 10, 20).d2h(0, 20, 32);
  b.h2d(1, 10, 22).kernel(1, 22, 32).d2h(1, 32, 44);
  b.h2d(2, 22, 34).kernel(2, 34, 44).d2h(2, 44, 54);
  const Metrics m = computeMetrics(b.done(3));
  EXPECT_DOUBLE_EQ(m.makespanNs, 54);
  const StageTimes& o = m.perBatchOccupancy;
  EXPECT_GT(idealBound(o.h2dNs, o.kernelNs, o.d2hNs, 3, 2), m.makespanNs);  // the mean as fill: 55.3
  EXPECT_DOUBLE_EQ(m.shortestBatch.h2dNs, 10);
  EXPECT_DOUBLE_EQ(m.shortestBatch.d2hNs, 10);
  EXPECT_DOUBLE_EQ(m.idealBoundNs, 34 + 10 + 10);
  EXPECT_LE(m.efficiency, 1.0);
}

// Two workers preprocess each batch side by side, then the submit thread issues it:
// the host works 10 (wall) + 1 (API) per batch, and the run is exactly at its bound.
TEST(IdealBound, HostBoundRunFromATraceIsAtItsBound) {
  TraceBuilder b;
  const std::uint16_t worker1 = b.addWorker(1);
  for (int i = 0; i < 2; ++i) {
    const std::int64_t t = 11 * i;
    b.host(OpKind::Preprocess, b.worker, i, t, t + 10).host(OpKind::Preprocess, worker1, i, t, t + 10);
    b.host(OpKind::ApiCall, b.submit, i, t + 10, t + 11);
    b.h2d(i, t + 11, t + 13).kernel(i, t + 13, t + 15).d2h(i, t + 15, t + 17);
  }
  const Metrics m = computeMetrics(b.done(2));
  EXPECT_DOUBLE_EQ(m.makespanNs, 28);
  EXPECT_DOUBLE_EQ(m.perBatch.preprocessNs, 20);           // both workers' shares summed
  EXPECT_DOUBLE_EQ(m.perBatchOccupancy.preprocessNs, 10);  // side by side: the wall time
  EXPECT_DOUBLE_EQ(m.perBatchOccupancy.apiNs, 1);
  EXPECT_DOUBLE_EQ(m.hostPerBatchNs, 11);
  EXPECT_EQ(m.critical, CriticalResource::Host);
  EXPECT_DOUBLE_EQ(m.idealBoundNs, 2 * 11 + 6);
  EXPECT_DOUBLE_EQ(m.efficiency, 1.0);
}

TEST(IdealBound, BlockingCopyWaitIsNotApiWork) {
  TraceBuilder b;
  b.host(OpKind::ApiCall, b.submit, 0, 0, 12).gpu(OpKind::CopyH2D, 0, 2, 12, 0, kNoLane, kOpBlockingCall);
  const Metrics m = computeMetrics(b.done(1));
  EXPECT_DOUBLE_EQ(m.perBatchOccupancy.apiNs, 2);  // the call's own 2 ns; the copy's 10 are the engine's
  EXPECT_DOUBLE_EQ(m.perBatch.apiNs, 12);
}

}  // namespace
}  // namespace pipescope
