// The several-GPU figures of computeMetrics on hand-built traces (exposed and
// overlapped communication, links, bus bandwidth) and on simulated runs whose
// timelines SimulatorMultiGpuTest computes by hand (the ideal bound).
#include <gtest/gtest.h>

#include "SimulatorTestSupport.h"
#include "metrics/Metrics.h"

namespace pipescope {
namespace {

/// Two GPUs. GPU0: a kernel 0-100, an all-reduce 50-150 (half beside the kernel);
/// GPU1: a kernel 0-100, its all-reduce 100-150 (none beside it); the call as a whole
/// 100-150 moving 1000 bytes; a 4000-byte peer copy GPU0→GPU1 0-40.
std::unique_ptr<Trace> handBuilt() {
  auto t = std::make_unique<Trace>();
  PipelineConfig c;
  c.devices = {0, 1};
  c.allreduceBytes = 1000;
  c.batchCount = 2;
  t->setConfig(c);
  DeviceInfo d;
  d.backend = "simulator";
  DeviceInfo d1 = d;
  d1.ordinal = 1;
  t->setDevices({d, d1});
  std::uint16_t stream[2], comm[2], compute[2];
  for (int g = 0; g < 2; ++g) {
    stream[g] = t->lane(LaneKind::Stream, 0, g, "GPU" + std::to_string(g) + " stream 0");
    comm[g] = t->lane(LaneKind::Stream, 32, g, "GPU" + std::to_string(g) + " NCCL stream");
    compute[g] = t->lane(LaneKind::ComputeEngine, 0, g, "GPU" + std::to_string(g) + " compute engine");
  }
  const auto link = t->lane(LaneKind::PeerLink, 1, 0, "GPU0→GPU1 NVLink");
  const auto communicator = t->lane(LaneKind::Collective, 0, kSharedLane, "NCCL all-reduce");
  auto add = [&](OpKind kind, std::uint16_t lane, std::uint16_t engine, std::int64_t s, std::int64_t e,
                 std::uint64_t bytes, std::int32_t batch) {
    Op op;
    op.kind = kind;
    op.lane = lane;
    op.engineLane = engine;
    op.submit = op.ready = op.start = s;
    op.end = e;
    op.bytes = bytes;
    op.batch = batch;
    t->ops().append(op);
  };
  for (int g = 0; g < 2; ++g) add(OpKind::Kernel, stream[g], compute[g], 0, 100, 0, g);
  add(OpKind::Collective, comm[0], compute[0], 50, 150, 1000, 0);
  add(OpKind::Collective, comm[1], compute[1], 100, 150, 1000, 1);
  add(OpKind::Collective, communicator, kNoLane, 100, 150, 1000, kNoBatch);
  add(OpKind::PeerCopy, stream[0], link, 0, 40, 4000, 0);
  t->ops().publish();
  t->setCompletedBatches(2);
  return t;
}

TEST(MultiGpuMetrics, ExposedAndOverlappedCommunicationPerGpu) {
  const Metrics m = computeMetrics(*handBuilt());
  ASSERT_TRUE(m.multiGpu);
  const MultiGpuMetrics& g = *m.multiGpu;
  EXPECT_EQ(g.gpus, 2);
  ASSERT_EQ(g.perGpu.size(), 2u);
  // GPU0 communicates 0-40 (peer copy) and 50-150 (all-reduce): 140 ns, 90 of it beside
  // its kernel (0-40, 50-100), 50 exposed. GPU1: 100-150, all exposed.
  EXPECT_DOUBLE_EQ(g.perGpu[0].commNs, 140);
  EXPECT_DOUBLE_EQ(g.perGpu[0].overlappedCommNs, 90);
  EXPECT_DOUBLE_EQ(g.perGpu[0].exposedCommNs, 50);
  EXPECT_DOUBLE_EQ(g.perGpu[1].commNs, 50);
  EXPECT_DOUBLE_EQ(g.perGpu[1].exposedCommNs, 50);
  EXPECT_DOUBLE_EQ(g.perGpu[1].overlappedCommNs, 0);
  EXPECT_DOUBLE_EQ(g.exposedCommNs, 100);
  EXPECT_DOUBLE_EQ(g.commOverlap, 90.0 / 190.0);
  EXPECT_DOUBLE_EQ(g.exposedCommFraction, 50.0 / 150.0);
  EXPECT_DOUBLE_EQ(g.perGpu[0].computeBusy, 100.0 / 150.0);
  EXPECT_DOUBLE_EQ(g.perGpu[1].busy, 1.0);
  EXPECT_EQ(g.perGpu[1].name, "GPU1");
}

TEST(MultiGpuMetrics, LinksAndBusBandwidth) {
  const Metrics m = computeMetrics(*handBuilt());
  ASSERT_TRUE(m.multiGpu);
  const MultiGpuMetrics& g = *m.multiGpu;
  ASSERT_EQ(g.links.size(), 1u);
  EXPECT_EQ(g.links[0].from, 0);
  EXPECT_EQ(g.links[0].to, 1);
  EXPECT_DOUBLE_EQ(g.links[0].busyNs, 40);
  EXPECT_DOUBLE_EQ(g.links[0].gbpsBusy, 100.0);
  // One call of 1000 bytes in 50 ns over 2 GPUs: algbw 20 GB/s, x 2(n-1)/n = 20.
  EXPECT_EQ(g.collectives, 1);
  EXPECT_DOUBLE_EQ(g.allreduceBusGBps, 20.0);
}

TEST(MultiGpuMetrics, OneGpuTracesHaveNone) {
  const auto r = simtest::runSim(simtest::roundConfig(1000, 2), simtest::roundProfile());
  EXPECT_FALSE(computeMetrics(*r.trace).multiGpu);
}

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

PipelineConfig bucketCase(int buckets) {
  PipelineConfig c = simtest::roundConfig(1000, 4);
  c.devices = {0, 1};
  c.modelFlopsPerByte = 8.0;
  c.allreduceBytes = 2000;
  c.buckets = buckets;
  return c;
}

TEST(MultiGpuMetrics, TheBoundChainsKernelsAndAllReduce) {
  // One all-reduce after the kernels (SimulatorMultiGpu's timeline, 13000 ns): per step
  // kernels 4000 then all-reduce 2000, after a 1000 ns H2D: 1000 + 2 x 6000 = 13000.
  const auto r0 = simtest::runSim(bucketCase(0), roundLinks());
  ASSERT_EQ(r0.outcome.state, RunState::Finished) << r0.outcome.message;
  const Metrics m0 = computeMetrics(*r0.trace);
  ASSERT_TRUE(m0.multiGpu);
  EXPECT_DOUBLE_EQ(m0.makespanNs, 13000);
  EXPECT_DOUBLE_EQ(m0.idealBoundNs, 13000);
  EXPECT_NE(m0.multiGpu->critical.find("kernels and all-reduce"), std::string::npos) << m0.multiGpu->critical;
  // Every all-reduce is exposed: 2 steps x 2000 ns on each GPU.
  EXPECT_DOUBLE_EQ(m0.multiGpu->exposedCommNs, 2 * 2 * 2000.0);
  EXPECT_DOUBLE_EQ(m0.multiGpu->commOverlap, 0.0);
  // Two buckets: the chain is 4000 + 1000 per step, so 1000 + 2 x 5000 = 11000; the run
  // takes 12000 (its one stream makes the next H2D wait for the D2H).
  const auto r2 = simtest::runSim(bucketCase(2), roundLinks());
  const Metrics m2 = computeMetrics(*r2.trace);
  ASSERT_TRUE(m2.multiGpu);
  EXPECT_DOUBLE_EQ(m2.idealBoundNs, 11000);
  EXPECT_DOUBLE_EQ(m2.efficiency, 11000.0 / 12000.0);
  EXPECT_DOUBLE_EQ(m2.multiGpu->exposedCommNs, 2 * 2 * 1000.0);
  EXPECT_DOUBLE_EQ(m2.multiGpu->commOverlap, 0.5);
  EXPECT_DOUBLE_EQ(m2.multiGpu->allreduceBusGBps, 1.0);
}

TEST(MultiGpuMetrics, PipelineBoundAndBubble) {
  PipelineConfig c = simtest::roundConfig(1000, 1);
  c.devices = {0, 1};
  c.parallel = ParallelMode::Pipeline;
  c.batchSamples = 3;
  c.microBatches = 3;
  c.modelFlopsPerByte = 4.0;
  c.activationBytes = 2000;
  const auto r = simtest::runSim(c, roundLinks());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  const Metrics m = computeMetrics(*r.trace);
  ASSERT_TRUE(m.multiGpu);
  const MultiGpuMetrics& g = *m.multiGpu;
  EXPECT_TRUE(g.pipeline);
  // Per micro-batch: H2D, stage 0, hand-off, stage 1, D2H, 1000 ns each: a path of 5000
  // plus 2 more micro-batches x 1000.
  EXPECT_DOUBLE_EQ(m.idealBoundNs, 7000);
  EXPECT_DOUBLE_EQ(g.gpipeBubble, 1.0 / 4.0);
  EXPECT_DOUBLE_EQ(g.idleCompute, 1.0 - 3000.0 / 11000.0);
  ASSERT_EQ(g.links.size(), 1u);
  EXPECT_DOUBLE_EQ(g.links[0].busyNs, 3000);
  EXPECT_DOUBLE_EQ(g.links[0].gbpsBusy, 2.0);
}

}  // namespace
}  // namespace pipescope
