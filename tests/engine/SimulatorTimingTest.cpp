// Hand-computed timelines on a device with round numbers (simtest::roundProfile).
#include <gtest/gtest.h>

#include "SimulatorTestSupport.h"
#include "sim/StageCosts.h"

namespace pipescope {
namespace {

using simtest::roundConfig;
using simtest::roundProfile;
using simtest::runSim;

struct Span {
  std::int64_t start, end;
  bool operator==(const Span&) const = default;
};
std::vector<Span> spans(const std::vector<Op>& ops) {
  std::vector<Span> s;
  for (const Op& op : ops) s.push_back({op.start, op.end});
  return s;
}

TEST(SimulatorTiming, OneStreamBlockingIsStrictlySequential) {
  PipelineConfig c = roundConfig(1000, 2);
  c.mode = TransferMode::Blocking;
  const auto r = runSim(c, roundProfile());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{0, 1000}, {3000, 4000}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{1000, 2000}, {4000, 5000}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyD2H)), (std::vector<Span>{{2000, 3000}, {5000, 6000}}));
  EXPECT_EQ(r.makespan(), 6000);
  EXPECT_EQ(r.trace->completedBatches(), 2);
}

TEST(SimulatorTiming, BlockingCopiesCostTheirCallAndWakeUp) {
  DeviceProfile p = roundProfile();
  p.memcpySyncCallNs = 10;
  p.kernelLaunchNs = 5;
  p.syncWakeNs = 100;
  PipelineConfig c = roundConfig(1000, 1);
  c.mode = TransferMode::Blocking;
  const auto r = runSim(c, p);
  // call 0-10, copy 10-1010, host back at 1110, launch 1110-1115, kernel 1115-2115,
  // call 1115-1125, copy back 2115-3115, host back at 3215.
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{10, 1010}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{1115, 2115}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyD2H)), (std::vector<Span>{{2115, 3115}}));
  EXPECT_EQ(spans(r.of(OpKind::HostSync)), (std::vector<Span>{{10, 1110}, {1125, 3215}}));
  for (const Op& op : r.gpuOps()) EXPECT_TRUE(op.flags & kOpBlockingCall || op.kind == OpKind::Kernel);
}

TEST(SimulatorTiming, TwoStreamsWithEqualStageTimesHaveAKnownMakespan) {
  PipelineConfig c = roundConfig(1000, 4);
  c.streams = 2;
  const auto r = runSim(c, roundProfile());
  // Batches 0,1 pipeline over 4 stage times; batch 2 reuses stream 0 once batch 0
  // is done (t=3000) and batch 3 once batch 1 is done (t=4000): 3 stage times per pair.
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{0, 1000}, {1000, 2000}, {3000, 4000}, {4000, 5000}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{1000, 2000}, {2000, 3000}, {4000, 5000}, {5000, 6000}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyD2H)), (std::vector<Span>{{2000, 3000}, {3000, 4000}, {5000, 6000}, {6000, 7000}}));
  EXPECT_EQ(r.makespan(), 7000);
}

TEST(SimulatorTiming, SimultaneousCopiesShareTheBidirectionalBandwidth) {
  PipelineConfig c = roundConfig(1000, 4);
  c.streams = 2;
  DeviceProfile p = roundProfile();
  p.bidirectionalGBps = 1.0;  // both directions together no faster than one
  const auto r = runSim(c, p);
  // H2D of batch 2 and D2H of batch 1 both start at 3000 and move at half speed.
  const auto h2d = r.of(OpKind::CopyH2D);
  const auto d2h = r.of(OpKind::CopyD2H);
  EXPECT_EQ(h2d[2].start, 3000);
  EXPECT_EQ(h2d[2].end, 5000);
  EXPECT_EQ(d2h[1].start, 3000);
  EXPECT_EQ(d2h[1].end, 5000);
  EXPECT_GT(r.makespan(), 7000);
}

TEST(SimulatorTiming, ResidentDataIsCopiedOncePerStream) {
  PipelineConfig c = roundConfig(1000, 6);
  c.streams = 2;
  c.residency = DataResidency::KeepResident;
  const auto r = runSim(c, roundProfile());
  EXPECT_EQ(r.of(OpKind::CopyH2D).size(), 2u);
  EXPECT_EQ(r.of(OpKind::CopyD2H).size(), 6u);
}

TEST(SimulatorTiming, RoiAndChunksShapeTheCopies) {
  PipelineConfig c = roundConfig(1000, 1);
  c.transferChunks = 4;
  c.roiFraction = 0.5;
  const auto r = runSim(c, roundProfile());
  const auto h2d = r.of(OpKind::CopyH2D);
  const auto d2h = r.of(OpKind::CopyD2H);
  ASSERT_EQ(h2d.size(), 4u);
  ASSERT_EQ(d2h.size(), 4u);
  for (const Op& op : h2d) EXPECT_EQ(op.bytes, 250u);
  std::uint64_t back = 0;
  for (const Op& op : d2h) back += op.bytes;
  EXPECT_EQ(back, 500u);
  EXPECT_EQ(h2d.back().end, 1000);
}

TEST(SimulatorTiming, MappedMemoryMakesNoCopies) {
  PipelineConfig c = roundConfig(1000, 2);
  c.memory = HostMemory::Mapped;
  DeviceProfile p = roundProfile();
  p.mappedReadGBps = 1.0;
  const auto r = runSim(c, p);
  EXPECT_TRUE(r.of(OpKind::CopyH2D).empty());
  EXPECT_TRUE(r.of(OpKind::CopyD2H).empty());
  // The kernel reads 1000 and writes 1000 bytes over the 1 byte/ns link.
  for (const Op& k : r.of(OpKind::Kernel)) {
    EXPECT_EQ(k.duration(), 2000);
    EXPECT_TRUE(k.flags & kOpMapped);
  }
}

TEST(SimulatorTiming, CpuStagesAreSplitOverWorkers) {
  PipelineConfig c = roundConfig(1000, 1);
  c.cpuWorkers = 4;
  c.preprocessOpsPerByte = 2.0;  // 2000 ns of work over 4 workers = 500 ns each
  const auto r = runSim(c, roundProfile());
  const auto pre = r.of(OpKind::Preprocess);
  ASSERT_EQ(pre.size(), 4u);
  for (const Op& op : pre) EXPECT_EQ(op.duration(), 500);
  EXPECT_EQ(r.of(OpKind::CopyH2D)[0].start, 500);
}

TEST(SimulatorTiming, StreamDependenciesDelayWorkOnAnotherEngineOnly) {
  DeviceProfile p = roundProfile();
  p.streamDependencyNs = 50;
  PipelineConfig c = roundConfig(1000, 1);
  c.normalizeKernel = true;  // a kernel behind a kernel: same engine, no dependency latency
  const auto r = runSim(c, p);
  // H2D 0-1000; normalize (2 bytes per byte at 1 byte/ns) 1050-3050; model 3050-4050;
  // D2H 4100-5100.
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{0, 1000}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{1050, 3050}, {3050, 4050}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyD2H)), (std::vector<Span>{{4100, 5100}}));
}

TEST(SimulatorTiming, EveryKernelCostsItsFixedPart) {
  DeviceProfile p = roundProfile();
  p.kernelFixedNs = 30;
  PipelineConfig c = roundConfig(1000, 1);
  c.normalizeKernel = true;
  const auto r = runSim(c, p);
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{1000, 3030}, {3030, 4060}}));
  EXPECT_EQ(r.makespan(), 5060);
}

TEST(SimulatorTiming, ALongSyncWakesUpSlowerThanAShortOne) {
  DeviceProfile p = roundProfile();
  p.syncWakeNs = 10;
  p.syncSleepWakeNs = 100;
  p.syncSleepAfterNs = 2000;
  PipelineConfig c = roundConfig(1000, 2);
  c.mode = TransferMode::Blocking;
  c.modelFlopsPerByte = 3.0;  // a 3000 ns kernel: the host sleeps through it
  const auto r = runSim(c, p);
  // Batch 0: H2D copy 0-1000 (wait 1000: fast wake-up to 1010), kernel 1010-4010,
  // copy back 4010-5010 (the host waited 4000 since 1010: slow wake-up to 5110).
  const auto sync = r.of(OpKind::HostSync);
  ASSERT_GE(sync.size(), 2u);
  EXPECT_EQ(spans({sync[0], sync[1]}), (std::vector<Span>{{0, 1010}, {1010, 5110}}));
  // Without a slow wake-up configured, every sync takes syncWakeNs.
  p.syncSleepWakeNs = 0;
  const auto fast = runSim(c, p).of(OpKind::HostSync);
  EXPECT_EQ(fast[1].end, 5020);
}

TEST(SimulatorTiming, BlockingSyncWakeUpFollowsTheWait) {
  DeviceProfile p = roundProfile();
  p.syncWakeNs = 10;
  EXPECT_EQ(blockingSyncWakeNs(p, 1e6), 10);
  p.syncSleepWakeNs = 40;
  p.syncSleepAfterNs = 500;
  EXPECT_EQ(blockingSyncWakeNs(p, 100), 10);
  EXPECT_EQ(blockingSyncWakeNs(p, 500), 10);
  EXPECT_EQ(blockingSyncWakeNs(p, 501), 40);
  EXPECT_EQ(blockingSyncWakeNs(p, -5), 10);  // the device was already done
}

}  // namespace
}  // namespace pipescope
