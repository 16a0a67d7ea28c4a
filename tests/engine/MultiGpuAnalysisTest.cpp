// The analysis of runs over several GPUs on the simulator's hand-computed timelines
// (SimulatorMultiGpuTest): the two communication wait causes, the scaling estimate and
// the advice that predicts more buckets, more micro-batches or fewer GPUs.
#include <gtest/gtest.h>

#include "SimulatorTestSupport.h"
#include "analysis/Advice.h"
#include "analysis/RunAnalysis.h"
#include "analysis/ScalingEstimate.h"
#include "analysis/WaitAnalysis.h"
#include "metrics/Metrics.h"

namespace pipescope {
namespace {

DeviceProfile roundLinks() {
  DeviceProfile p = simtest::roundProfile();
  p.peerGBps = 2.0;
  p.peerLatencyNs = 0;
  p.allreduceBusGBps = 1.0;
  p.allreduceCurveGpus = 2;
  p.allreduceStepLatencyNs = 0;
  p.collectiveSmShare = 0;
  return p;
}

PipelineConfig pipelineCase() {
  PipelineConfig c = simtest::roundConfig(1000, 1);
  c.devices = {0, 1};
  c.parallel = ParallelMode::Pipeline;
  c.batchSamples = 3;
  c.microBatches = 3;
  c.modelFlopsPerByte = 4.0;
  c.activationBytes = 2000;
  return c;
}

/// The index in `r.ops` of the `n`-th op of `kind` on GPU `device`'s stream lanes, by start.
std::uint64_t nth(const simtest::SimRun& r, OpKind kind, int device, int n) {
  std::vector<std::pair<std::int64_t, std::uint64_t>> found;
  for (std::uint64_t i = 0; i < r.ops.size(); ++i) {
    const Op& op = r.ops[i];
    if (op.kind == kind && op.lane < r.lanes.size() && r.lanes[op.lane].device == device &&
        r.lanes[op.lane].kind == LaneKind::Stream)
      found.emplace_back(op.start, i);
  }
  std::sort(found.begin(), found.end());
  return found.at(std::size_t(n)).second;
}

TEST(MultiGpuWaits, AStageWaitsForItsPeersActivation) {
  const auto r = simtest::runSim(pipelineCase(), roundLinks());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  const TraceView view = r.trace->ops().snapshot();
  const WaitAnalysis w = analyzeWaits(view, r.lanes);
  // GPU 1's second stage-1 kernel: its stream idle from 5000 (the D2H before it) until
  // the second micro-batch's activations arrive at 6000.
  const std::uint64_t k = nth(r, OpKind::Kernel, 1, 1);
  EXPECT_EQ(w.waitNs(k, WaitCause::PeerActivation), 1000);
  const auto segs = w.segmentsOf(k);
  ASSERT_FALSE(segs.empty());
  const WaitSegment& last = segs.back();
  EXPECT_EQ(last.cause, WaitCause::PeerActivation);
  ASSERT_TRUE(w.globalBlocker(last));
  EXPECT_EQ(*w.globalBlocker(last), nth(r, OpKind::PeerCopy, 0, 1));
  const std::string text = describeWait(w, view, r.lanes, k, r.trace->names());
  EXPECT_NE(text.find("for a peer's activation"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU0→GPU1 NVLink"), std::string::npos) << text;
  // The first stage-1 kernel waits from the start for the first hand-off: the bubble.
  EXPECT_EQ(w.waitNs(nth(r, OpKind::Kernel, 1, 0), WaitCause::PeerActivation), 3000);
}

TEST(MultiGpuWaits, AStepWaitsForTheCollective) {
  // Two streams: step 1's H2D runs early (1000-2000), its kernel then waits for step
  // 0's all-reduce (5000-7000) on its GPU.
  PipelineConfig c = simtest::roundConfig(1000, 4);
  c.devices = {0, 1};
  c.streams = 2;
  c.modelFlopsPerByte = 8.0;
  c.allreduceBytes = 2000;
  c.buckets = 0;
  const auto r = simtest::runSim(c, roundLinks());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  const WaitAnalysis w = analyzeWaits(r.trace->ops().snapshot(), r.lanes);
  const std::uint64_t k = nth(r, OpKind::Kernel, 0, 1);
  EXPECT_EQ(r.ops[k].start, 7000);
  EXPECT_EQ(w.waitNs(k, WaitCause::CollectiveWait), 5000);
  const WaitSummary summary = summarizeWaits(w, r.trace->ops().snapshot(), r.lanes);
  EXPECT_GT(summary.share(WaitCause::CollectiveWait), 0.0);
  bool said = false;
  for (const auto& s : describeSummary(summary)) said = said || s.find("waited for the collective") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(MultiGpuScaling, ThroughputOverNTimesOneGpu) {
  // Two GPUs without communication, one stream each: each GPU runs its half of the
  // batches as one GPU runs them all, so twice the throughput: efficiency 100%.
  PipelineConfig c = simtest::roundConfig(1000, 8);
  c.devices = {0, 1};
  const auto r = simtest::runSim(c, roundLinks());
  const Metrics m = computeMetrics(*r.trace);
  const auto s = estimateScaling(c, m.samplesPerSec, true, roundLinks());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->gpus, 2);
  // One GPU: 8 batches in 3000 + 7 x 3000 ns (one stream); two: 4 each in 12000.
  EXPECT_NEAR(s->efficiency, 1.0, 1e-9);
  EXPECT_NE(s->sentence.find("simulated too"), std::string::npos) << s->sentence;
  EXPECT_FALSE(estimateScaling(simtest::roundConfig(1000, 8), m.samplesPerSec, true, roundLinks()));
  EXPECT_EQ(oneGpuConfig(pipelineCase()).gpuCount(), 1);
  EXPECT_TRUE(validate(oneGpuConfig(pipelineCase())).empty());
}

TEST(MultiGpuAdvice, PredictsMoreBucketsMoreMicroBatchesAndFewerGpus) {
  {
    PipelineConfig c = simtest::roundConfig(1000, 8);
    c.devices = {0, 1};
    c.streams = 2;
    c.modelFlopsPerByte = 8.0;
    c.allreduceBytes = 4000;
    c.buckets = 0;
    AdviceInput in;
    in.config = c;
    in.profile = roundLinks();
    const AdviceResult a = advise(in);
    ASSERT_TRUE(a.error.empty()) << a.error;
    const auto it = std::find_if(a.items.begin(), a.items.end(),
                                 [](const AdviceItem& i) { return i.kind == AdviceKind::MoreBuckets; });
    ASSERT_NE(it, a.items.end());
    EXPECT_GT(it->speedup, 1.03);
    EXPECT_GT(it->config.buckets, 1);
  }
  {
    PipelineConfig c = pipelineCase();
    c.batchSamples = 16;
    c.batchCount = 4;
    c.microBatches = 2;
    AdviceInput in;
    in.config = c;
    in.profile = roundLinks();
    const AdviceResult a = advise(in);
    const auto it = std::find_if(a.items.begin(), a.items.end(),
                                 [](const AdviceItem& i) { return i.kind == AdviceKind::MoreMicroBatches; });
    ASSERT_NE(it, a.items.end());
    EXPECT_GT(it->speedup, 1.03);
  }
  {
    // Four GPUs whose all-reduce dwarfs their kernels: two would do more per GPU.
    PipelineConfig c = simtest::roundConfig(1000, 8);
    c.devices = {0, 1, 2, 3};
    c.allreduceBytes = 64000;
    DeviceProfile p = roundLinks();
    p.allreduceStepLatencyNs = 20000;
    AdviceInput in;
    in.config = c;
    in.profile = p;
    const AdviceResult a = advise(in);
    const auto it = std::find_if(a.items.begin(), a.items.end(),
                                 [](const AdviceItem& i) { return i.kind == AdviceKind::FewerGpus; });
    ASSERT_NE(it, a.items.end());
    ASSERT_TRUE(it->perGpuSpeedup);
    EXPECT_GT(*it->perGpuSpeedup, 1.15);
    EXPECT_EQ(it->config.gpuCount(), 2);
    EXPECT_NE(it->sentence.find("per GPU"), std::string::npos) << it->sentence;
  }
}

}  // namespace
}  // namespace pipescope
