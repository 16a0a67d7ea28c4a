// Hand-computed timelines on a device with round numbers (simtest::roundProfile).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "SimulatorTestSupport.h"
#include "sim/GpuModel.h"
#include "sim/StageCosts.h"

namespace pipescope {
namespace {

using simtest::roundConfig;
using simtest::roundProfile;
using simtest::runSim;

using simtest::Span;
using simtest::spans;

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
  p.mappedWriteGBps = 0.5;
  const auto r = runSim(c, p);
  EXPECT_TRUE(r.of(OpKind::CopyH2D).empty());
  EXPECT_TRUE(r.of(OpKind::CopyD2H).empty());
  // The one kernel reads 1000 bytes at 1 byte/ns while it writes 1000 bytes at 0.5
  // byte/ns: the link is full duplex, so the slower direction sets its time.
  for (const Op& k : r.of(OpKind::Kernel)) {
    EXPECT_EQ(k.duration(), 2000);
    EXPECT_TRUE(k.flags & kOpMapped);
  }
  // Both directions at once share the duplex rate: 2000 bytes at 1.2 byte/ns (1667 ns)
  // leave the write's 2000 ns in charge; at 0.8 byte/ns they take 2500 ns.
  p.mappedDuplexGBps = 1.2;
  EXPECT_EQ(runSim(c, p).of(OpKind::Kernel).front().duration(), 2000);
  p.mappedDuplexGBps = 0.8;
  EXPECT_EQ(runSim(c, p).of(OpKind::Kernel).front().duration(), 2500);
  // With the normalize kernel in front, it reads the input (1000 ns) and the model
  // kernel writes the output (2000 ns): no kernel does both, the duplex rate is moot.
  c.normalizeKernel = true;
  const auto two = runSim(c, p).of(OpKind::Kernel);
  ASSERT_EQ(two.size(), 4u);
  EXPECT_EQ(two[0].duration(), 1000);
  EXPECT_EQ(two[1].duration(), 2000);
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
  p.deviceMemoryGBps = 1.0;
  PipelineConfig c = roundConfig(1000, 1);
  c.normalizeKernel = true;  // a kernel behind a kernel: same engine, no dependency latency
  const auto r = runSim(c, p);
  // H2D 0-1000; normalize (reads and writes 1000 bytes at 1 byte/ns) 1050-3050; the
  // model kernel (reads 1000, writes 1000: memory-bound over its 1000 ns of flops)
  // 3050-5050; D2H 5100-6100.
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{0, 1000}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{1050, 3050}, {3050, 5050}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyD2H)), (std::vector<Span>{{5100, 6100}}));
}

TEST(SimulatorTiming, EveryKernelCostsItsFixedPart) {
  DeviceProfile p = roundProfile();
  p.kernelFixedNs = 30;
  p.deviceMemoryGBps = 1.0;
  PipelineConfig c = roundConfig(1000, 1);
  c.normalizeKernel = true;
  const auto r = runSim(c, p);
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{1000, 3030}, {3030, 5060}}));
  EXPECT_EQ(r.makespan(), 6060);
}

TEST(SimulatorTiming, ALongSyncWakesUpSlowerThanAShortOne) {
  DeviceProfile p = roundProfile();
  p.syncWakeNs = 10;
  p.syncSleepWakeNs = 100;
  p.syncSleepAfterNs = 2000;
  PipelineConfig c = roundConfig(1000, 2);
  c.mode = TransferMode::Blocking;
  c.modelFlopsPerByte = 6.0;  // a 3000 ns kernel (6 flops/byte at 2 flops/ns): the host sleeps through it
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

/// A host waking up in 10 ns after a short wait and in 100 after one beyond 2000 ns.
DeviceProfile slowWakingHost() {
  DeviceProfile p = roundProfile();
  p.syncWakeNs = 10;
  p.syncSleepWakeNs = 100;
  p.syncSleepAfterNs = 2000;
  return p;
}

/// Blocking, 2 batches of 1000 bytes, a 3000 ns kernel.
PipelineConfig blockingCopiesCase() {
  PipelineConfig c = roundConfig(1000, 2);
  c.mode = TransferMode::Blocking;
  c.modelFlopsPerByte = 6.0;
  return c;
}

TEST(SimulatorTiming, ABlockingCopyOnAHostWhoseDriverSleepsInItWakesUpSlowly) {
  DeviceProfile p = slowWakingHost();
  p.memcpySyncSleeps = true;
  PipelineConfig c = blockingCopiesCase();
  // Batch 0: the H2D copy 0-1000 waited only 1000, yet the thread slept in the call:
  // slow wake-up to 1100; kernel 1100-4100 (its own sync needs no copy), copy back
  // 4100-5100, slow wake-up to 5200.
  const auto sync = runSim(c, p).of(OpKind::HostSync);
  ASSERT_GE(sync.size(), 2u);
  EXPECT_EQ(spans({sync[0], sync[1]}), (std::vector<Span>{{0, 1100}, {1100, 5200}}));
  // With yield sync the driver spins in the call: the flag changes nothing.
  c.sync = SyncMode::Yield;
  const auto yield = runSim(c, p).of(OpKind::HostSync);
  p.memcpySyncSleeps = false;
  const auto yieldPlain = runSim(c, p).of(OpKind::HostSync);
  ASSERT_EQ(yield.size(), yieldPlain.size());
  EXPECT_EQ(spans(yield), spans(yieldPlain));
}

TEST(SimulatorTiming, OnlyPageableBlockingCopiesSleepWhenOnlyTheStagingPathDoes) {
  DeviceProfile p = slowWakingHost();
  p.pageableMemcpySyncSleeps = true;
  PipelineConfig c = blockingCopiesCase();
  // Pinned: the pinned path does not sleep. H2D 0-1000, fast wake-up to 1010; kernel
  // 1010-4010, copy back 4010-5010, after a 4000 ns wait: the slow wake-up, to 5110.
  auto sync = runSim(c, p).of(OpKind::HostSync);
  ASSERT_GE(sync.size(), 2u);
  EXPECT_EQ(spans({sync[0], sync[1]}), (std::vector<Span>{{0, 1010}, {1010, 5110}}));
  // Pageable (0.5 byte/ns: 2000 ns a copy): the H2D call stages the bytes (0-2000) and
  // returns, as CUDA's pageable H2D copies do; its DMA runs at the pinned rate
  // (2000-3000), the kernel 3000-6000, the copy back 6000-8000 after a wait that began
  // at 2000 and ends in the slow wake-up, at 8100. The H2D waits for nothing.
  c.memory = HostMemory::Pageable;
  const auto r = runSim(c, p);
  sync = r.of(OpKind::HostSync);
  ASSERT_GE(sync.size(), 2u);
  EXPECT_EQ(spans({sync[0], sync[1]}), (std::vector<Span>{{2000, 8100}, {10100, 16200}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)).front(), (Span{2000, 3000}));
  EXPECT_EQ(sync.size(), std::size_t(c.batchCount));  // one wait a batch: the copy back's
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

TEST(SimulatorTiming, CublasPresetsRunTheirGemmLayersAndAHeadKernel) {
  DeviceProfile p = roundProfile();
  p.lightGemmCurve = {{128, 500}, {1024, 2000}};
  p.lightGemmCallNs = 100;
  p.kernelFixedNs = 10;
  EXPECT_DOUBLE_EQ(gemmLayerNs(p, ModelPreset::Light, 128), 500);
  EXPECT_DOUBLE_EQ(gemmLayerNs(p, ModelPreset::Light, 64), 500);  // below the curve: its smallest time
  EXPECT_NEAR(gemmLayerNs(p, ModelPreset::Light, 512), 500 * std::pow(4.0, 2.0 / 3.0), 1e-9);  // log-log
  EXPECT_DOUBLE_EQ(gemmLayerNs(p, ModelPreset::Light, 2048), 4000);  // beyond: in proportion to the rows
  // Without a curve: flops at gemmTflops (2 x rows x 1024 x 1024 for the heavy preset).
  p.gemmTflops = 1;  // 1000 flops per ns
  EXPECT_DOUBLE_EQ(gemmLayerNs(p, ModelPreset::Heavy, 1), 10 + 2.0 * 1024 * 1024 / 1000);

  PipelineConfig c = roundConfig(128 * 128 * 4, 1);  // 128 rows of the light preset's 128 floats
  c.model = ModelPreset::Light;
  const auto r = runSim(c, p);
  const auto kernels = r.of(OpKind::Kernel);
  ASSERT_EQ(kernels.size(), 9u);  // 8 GEMM layers, then the head kernel
  for (std::size_t k = 0; k < 8; ++k) {
    EXPECT_EQ(kernels[k].duration(), 500) << k;
    EXPECT_EQ(kernels[k].bytes, 65536u);
  }
  EXPECT_EQ(kernels[8].duration(), 10);  // fixed part; its bytes take no time on this device
  int gemmCalls = 0;
  for (const Op& op : r.of(OpKind::ApiCall)) gemmCalls += op.duration() == 100 ? 1 : 0;
  EXPECT_EQ(gemmCalls, 8);
}

TEST(SimulatorTiming, ManagedPagesAreFaultedOverWhereTheyAreTouched) {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};  // effective rates, fault handling included
  p.managedCpuFaultCurve = {{100, 0.1}, {1000, 0.5}};
  PipelineConfig c = roundConfig(1000, 3);
  c.memory = HostMemory::Managed;
  c.postprocessOpsPerByte = 1.0;  // one round per byte: 1000 ns
  const auto r = runSim(c, p);
  EXPECT_TRUE(r.of(OpKind::CopyH2D).empty());
  EXPECT_TRUE(r.of(OpKind::CopyD2H).empty());
  // Each batch in flight has its own managed buffers (two host slots per stream, as
  // the CUDA backend allocates). Batches 0 and 1: the model kernel faults in the
  // input (1000) and the output (1000), both on the host since allocation: 0-3000,
  // 3000-6000. Batch 2 reuses batch 0's buffers, so batch 0 is retired first: its
  // postprocessing faults the output back (1000 / 0.5) before its 1000 ns of work,
  // 3000-6000. Batch 2's input stayed on the device, its output did not: 6000-8000.
  // Then batch 1 (6000-9000) and batch 2 (9000-12000) are postprocessed.
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{0, 3000}, {3000, 6000}, {6000, 8000}}));
  EXPECT_EQ(spans(r.of(OpKind::Postprocess)), (std::vector<Span>{{3000, 6000}, {6000, 9000}, {9000, 12000}}));
  EXPECT_EQ(r.makespan(), 12000);
}

TEST(SimulatorTiming, PreprocessingWritesPagesTheDeviceHoldsAtTheWriteFaultRate) {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};     // 1000 B: 1000 ns
  p.managedCpuFaultCurve = {{1000, 0.5}};     // reading them back: 2000 ns
  p.managedCpuWriteFaultCurve = {{1000, 0.25}};  // writing them: 4000 ns
  PipelineConfig c = roundConfig(1000, 3);
  c.memory = HostMemory::Managed;
  c.preprocessOpsPerByte = 1.0;  // one round per byte: 1000 ns
  const auto r = runSim(c, p);
  // Batches 0 and 1 preprocess fresh host pages (0-1000, 1000-2000); their kernels
  // fault in input and output (1000 + 1000 + 1000 of work): 1000-4000, 4000-7000.
  // Batch 2 reuses batch 0's buffers once batch 0 is done (4000): its input lives on
  // the device, so preprocessing writes it back at the write rate, 4000 + 1000 of
  // work: 4000-9000 (the read curve would have made it 4000-7000). Its kernel faults
  // the input in again (the output stayed on the device): 9000-11000.
  EXPECT_EQ(spans(r.of(OpKind::Preprocess)), (std::vector<Span>{{0, 1000}, {1000, 2000}, {4000, 9000}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{1000, 4000}, {4000, 7000}, {9000, 11000}}));
  EXPECT_EQ(r.makespan(), 11000);
  // Without a write curve the read curve stands in.
  p.managedCpuWriteFaultCurve.clear();
  const auto read = runSim(c, p);
  EXPECT_EQ(spans(read.of(OpKind::Preprocess)).back(), (Span{4000, 7000}));
}

TEST(SimulatorTiming, APrefetchMovesOnlyPagesThatAreNotThereYet) {
  const DeviceProfile p = simtest::roundManagedProfile();
  PipelineConfig c = roundConfig(1000, 3);
  c.memory = HostMemory::ManagedPrefetch;
  const auto r = runSim(c, p);
  // Batch 0: prefetch in 1000 / 0.5; the kernel faults in the output the host touched
  // at allocation (1000 + 1000); prefetch out 1000 / 0.25. Batch 1 has buffers of its
  // own (two host slots per stream): the same again, behind batch 0 in the stream.
  // Batch 2 reuses batch 0's: the input is still on the device (a 1 ns no-op), the
  // output went back to the host: faulted again.
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{0, 2000}, {8000, 10000}, {16000, 16001}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{2000, 4000}, {10000, 12000}, {16001, 18001}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyD2H)), (std::vector<Span>{{4000, 8000}, {12000, 16000}, {18001, 22001}}));
}

TEST(SimulatorTiming, CpuStagesRunWholeRoundsPlusTheirPerByteCost) {
  DeviceProfile p = roundProfile();
  p.cpuPreprocessNsPerByte = 0.5;
  p.cpuPostprocessNsPerByte = 0.25;
  PipelineConfig c = roundConfig(1000, 1);
  c.preprocessOpsPerByte = 0.4;   // rounds to 0 rounds: generating the samples only
  c.postprocessOpsPerByte = 1.6;  // 2 rounds
  c.roiFraction = 0.5;            // postprocessing reads what came back: 500 bytes
  const auto r = runSim(c, p);
  EXPECT_EQ(r.of(OpKind::Preprocess).at(0).duration(), 500);
  EXPECT_EQ(r.of(OpKind::Postprocess).at(0).duration(), 500 * (0.25 + 2));
  EXPECT_EQ(r.of(OpKind::Postprocess).at(0).bytes, 500u);
}

TEST(SimulatorTiming, EachCpuStageHasItsOwnCostPerRound) {
  DeviceProfile p = roundProfile();
  p.cpuPreprocessNsPerByte = 0.5;
  p.cpuPostprocessNsPerByte = 0.25;
  p.cpuPreprocessNsPerOp = 3;  // per round-byte; cpuNsPerOp (1) applies to neither
  p.cpuPostprocessNsPerOp = 0.5;
  PipelineConfig c = roundConfig(1000, 1);
  c.preprocessOpsPerByte = 2;   // 1000 x (0.5 + 2 x 3) = 6500
  c.postprocessOpsPerByte = 2;  // 1000 x (0.25 + 2 x 0.5) = 1250
  const auto r = runSim(c, p);
  EXPECT_EQ(r.of(OpKind::Preprocess).at(0).duration(), 6500);
  EXPECT_EQ(r.of(OpKind::Postprocess).at(0).duration(), 1250);
  p.cpuPreprocessNsPerOp = 0;  // not calibrated apart: the mean cost per round
  const auto mean = runSim(c, p);
  EXPECT_EQ(mean.of(OpKind::Preprocess).at(0).duration(), 1000 * (0.5 + 2 * p.cpuNsPerOp));
}

TEST(SimulatorTiming, ACopyBehindACopyOnTheSameEnginePaysNoDependencyLatency) {
  // D2H then H2D queued in one stream: two engines apart on a device with two copy
  // engines (the front end resolves the dependency), one engine on a legacy device.
  for (int engines : {2, 1}) {
    DeviceProfile p = roundProfile();
    p.copyEngines = engines;
    p.streamDependencyNs = 50;
    GpuModel gpu(p);
    const auto d2h = gpu.submit({OpKind::CopyD2H, 0, EngineId::D2H, 1000, 1.0}, 0);
    const auto h2d = gpu.submit({OpKind::CopyH2D, 0, EngineId::H2D, 1000, 1.0}, 0);
    gpu.runAll();
    EXPECT_EQ(gpu.op(d2h).end, 1000) << engines;
    EXPECT_EQ(gpu.op(h2d).start, engines == 2 ? 1050 : 1000) << engines << " copy engine(s)";
  }
}

TEST(SimulatorTiming, PageableCopiesRotatingOverHostSlotsTakeTheRotatingRate) {
  // 1000 B copies: the same buffer again at 0.5 B/ns (2000 ns), rotating at 0.25 B/ns
  // (4000 ns).
  DeviceProfile p = roundProfile();
  p.h2dPageableRotatingCurve = {{1000, 0.25}};
  p.d2hPageableRotatingCurve = {{1000, 0.25}};
  PipelineConfig c = roundConfig(1000, 2);
  c.memory = HostMemory::Pageable;
  auto durations = [](const std::vector<Op>& ops) {
    std::vector<std::int64_t> d;
    for (const Op& op : ops) d.push_back(op.end - op.start);
    return d;
  };
  c.mode = TransferMode::Blocking;  // one host slot: the same buffer every batch
  auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // A blocking H2D stages the bytes inside its call (the same-buffer rate) and its DMA
  // moves them at the pinned rate; the D2H copies at the pageable rate.
  EXPECT_EQ(durations(r.callsOf(r.of(OpKind::CopyH2D))), (std::vector<std::int64_t>{2000, 2000}));
  EXPECT_EQ(durations(r.of(OpKind::CopyH2D)), (std::vector<std::int64_t>{1000, 1000}));
  EXPECT_EQ(durations(r.of(OpKind::CopyD2H)), (std::vector<std::int64_t>{2000, 2000}));
  c.mode = TransferMode::Async;  // one stream, two host slots used in turn
  r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(durations(r.of(OpKind::CopyH2D)), (std::vector<std::int64_t>{4000, 4000}));
  EXPECT_EQ(durations(r.of(OpKind::CopyD2H)), (std::vector<std::int64_t>{4000, 4000}));
  // Pinned copies are DMA, with no staging memcpy through the CPU: no rotating rate.
  c.memory = HostMemory::Pinned;
  r = runSim(c, p);
  EXPECT_EQ(durations(r.of(OpKind::CopyH2D)), (std::vector<std::int64_t>{1000, 1000}));
}

TEST(SimulatorTiming, PageableAsyncCopiesStageOnTheHostInsideTheCall) {
  // 1000 B each way on one stream. The H2D call stages at 0.25 B/ns (0-4000), then
  // the DMA runs at the pinned 1 B/ns (4000-5000), the kernel after it (5000-6000).
  // The D2H call (at 4000) waits for its DMA (6000-7000) and wakes up 100 ns later,
  // then copies out of the staging buffer at 0.5 B/ns (7100-9100).
  DeviceProfile p = roundProfile();
  p.syncWakeNs = p.spinSyncWakeNs = p.yieldSyncWakeNs = 100;
  p.h2dPageableStagingCurve = {{1000, 0.25}};
  p.d2hPageableStagingCurve = {{1000, 0.5}};
  PipelineConfig c = roundConfig(1000, 1);
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pageable;
  auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{4000, 5000}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{5000, 6000}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyD2H)), (std::vector<Span>{{6000, 7000}}));
  const auto calls = spans(r.of(OpKind::ApiCall));
  EXPECT_NE(std::find(calls.begin(), calls.end(), Span{0, 4000}), calls.end());
  EXPECT_NE(std::find(calls.begin(), calls.end(), Span{7100, 9100}), calls.end());
  const auto waits = spans(r.of(OpKind::HostSync));
  ASSERT_FALSE(waits.empty());
  EXPECT_EQ(waits.front(), (Span{4000, 7100}));

  // Without the staging curves (older profiles) the engine copies at the pageable
  // rate (0.5 B/ns) and the host waits for each copy.
  p.h2dPageableStagingCurve.clear();
  p.d2hPageableStagingCurve.clear();
  r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{0, 2000}}));
  EXPECT_EQ(r.of(OpKind::HostSync).front().start, 0);
  EXPECT_EQ(r.of(OpKind::HostSync).front().end, 2100);

  // A blocking cudaMemcpy keeps its own measured curves: the H2D stages at the blocking
  // pageable rate (0.5 B/ns) inside its call (0-2000), then its DMA runs (2000-3000).
  p.h2dPageableStagingCurve = {{1000, 0.25}};
  p.d2hPageableStagingCurve = {{1000, 0.5}};
  c.mode = TransferMode::Blocking;
  r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{2000, 3000}}));
  EXPECT_EQ(spans(r.callsOf(r.of(OpKind::CopyH2D))), (std::vector<Span>{{0, 2000}}));
}

TEST(SimulatorTiming, APageableCopyOverOneMebibyteStartsItsDmaAfterTheFirstStagedMebibyte) {
  // 4 MiB H2D from pageable memory, staged at 0.5 B/ns (8 388 608 ns in the call). The
  // DMA starts once the first MiB is staged (2 097 152 ns) and ends after the call, by
  // the last MiB's DMA at the pinned 1 B/ns (1 048 576 ns): 8 388 608 + 1 048 576.
  // CUPTI's one record spans it all, the call shows in two parts around the submit.
  DeviceProfile p = roundProfile();
  p.h2dPageableStagingCurve = {{1000, 0.5}};
  p.d2hPageableStagingCurve = {{1000, 0.5}};
  PipelineConfig c = roundConfig(4u << 20, 1);
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pageable;
  auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{2097152, 8388608 + 1048576}}));
  const auto calls = spans(r.of(OpKind::ApiCall));
  EXPECT_NE(std::find(calls.begin(), calls.end(), Span{0, 2097152}), calls.end());
  EXPECT_NE(std::find(calls.begin(), calls.end(), Span{2097152, 8388608}), calls.end());
  // The same in a blocking cudaMemcpy (the blocking pageable curve's rate).
  p.h2dPageableCurve = {{1000, 0.5}};
  c.mode = TransferMode::Blocking;
  r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{2097152, 8388608 + 1048576}}));
  // At one MiB or less the DMA starts after the call.
  c = roundConfig(1u << 20, 1);
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pageable;
  r = runSim(c, p);
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{2097152, 2097152 + 1048576}}));
}

TEST(SimulatorTiming, ChunksOfOnePageableSlotAreNoWarmerThanTheWholeBatch) {
  // Blocking, one host slot, 1000 B in two 500 B chunks. The same-buffer curve: 0.5 B/ns
  // at 500 B (warm), 0.25 at 1000 B. Each chunk comes back only after the other, a
  // 1000 B footprint: 2000 ns each, not 1000.
  DeviceProfile p = roundProfile();
  p.h2dPageableCurve = {{500, 0.5}, {1000, 0.25}};
  PipelineConfig c = roundConfig(1000, 1);
  c.mode = TransferMode::Blocking;
  c.memory = HostMemory::Pageable;
  c.transferChunks = 2;
  auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // Each chunk's call stages it (2000 ns); its DMA follows at the pinned rate.
  EXPECT_EQ(spans(r.callsOf(r.of(OpKind::CopyH2D))), (std::vector<Span>{{0, 2000}, {2000, 4000}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{2000, 2500}, {4000, 4500}}));
  // One chunk of 500 B: its own size is its footprint, the warm rate.
  c.sampleBytes = 500;
  c.transferChunks = 1;
  r = runSim(c, p);
  EXPECT_EQ(spans(r.callsOf(r.of(OpKind::CopyH2D))), (std::vector<Span>{{0, 1000}}));
  // Pinned copies do not go through the CPU's caches: their own rate by chunk.
  EXPECT_DOUBLE_EQ(copyGBps(p, {.dir = CopyDirection::H2D, .footprintBytes = 1000}, 500), 1.0);
}

TEST(SimulatorTiming, TheGpuReadsInputThePreprocessingJustWroteAtTheCpuWrittenRate) {
  // 1000 B in: a plain pinned H2D copy at 1 B/ns takes 1000 ns, 0.5 B/ns for bytes the
  // CPU just wrote makes it 2000 ns; a mapped kernel reads at 1 B/ns, or 0.25 B/ns.
  DeviceProfile p = roundProfile();
  p.h2dPinnedCpuWrittenCurve = {{1000, 0.5}};
  p.mappedReadGBps = 1.0;
  p.mappedReadCpuWrittenCurve = {{1000, 0.25}};
  PipelineConfig c = roundConfig(1000, 1);
  c.mode = TransferMode::Blocking;
  auto h2dDuration = [&](const PipelineConfig& cfg) {
    const auto r = runSim(cfg, p);
    EXPECT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
    const auto ops = r.of(OpKind::CopyH2D);
    return ops.empty() ? std::int64_t(-1) : ops.front().end - ops.front().start;
  };
  EXPECT_EQ(h2dDuration(c), 1000);  // no preprocessing: nothing written just before
  c.preprocessOpsPerByte = 1;
  EXPECT_EQ(h2dDuration(c), 2000);
  // D2H copies and pageable copies keep their own rates.
  const auto r = runSim(c, p);
  EXPECT_EQ(r.of(OpKind::CopyD2H).front().end - r.of(OpKind::CopyD2H).front().start, 1000);

  c.memory = HostMemory::Mapped;  // the model kernel (1000 ns of flops) reads the input over PCIe
  const auto mapped = runSim(c, p);
  ASSERT_EQ(mapped.outcome.state, RunState::Finished) << mapped.outcome.message;
  const auto kernels = mapped.of(OpKind::Kernel);
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.front().end - kernels.front().start, 4000);
  c.preprocessOpsPerByte = 0;
  const auto plain = runSim(c, p).of(OpKind::Kernel);
  EXPECT_EQ(plain.front().end - plain.front().start, 1000);
}

TEST(SimulatorTiming, ACpuStageCostsItsRoundsCurveAtItsRoundCount) {
  // 1000 B per batch, one batch. Preprocessing per byte on one worker: 0.5 ns at 0
  // rounds, 1.5 at 4, 3.5 at 8 (a round costs 0.25 ns below 4 and 0.5 above).
  DeviceProfile p = roundProfile();
  p.cpuPreprocessRoundsCurve = {{0, 0.5}, {4, 1.5}, {8, 3.5}};
  p.cpuPostprocessRoundsCurve = {{0, 0.2}, {4, 1.0}};
  p.cpuWorkerSpeedup = {{1, 1.0}, {2, 2.0}};
  PipelineConfig c = roundConfig(1000, 1);
  c.mode = TransferMode::Blocking;
  auto stageNs = [&](const PipelineConfig& cfg, OpKind kind) {
    const auto r = runSim(cfg, p);
    EXPECT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
    const auto ops = r.of(kind);
    return ops.empty() ? std::int64_t(-1) : ops.front().end - ops.front().start;
  };
  c.preprocessOpsPerByte = 2;  // 2 rounds: 0.5 + 2 x 0.25 = 1.0 ns/B
  EXPECT_EQ(stageNs(c, OpKind::Preprocess), 1000);
  c.preprocessOpsPerByte = 6;  // 6 rounds: 1.5 + 2 x 0.5 = 2.5 ns/B
  EXPECT_EQ(stageNs(c, OpKind::Preprocess), 2500);
  c.preprocessOpsPerByte = 10;  // beyond the last point, along the last segment: 4.5 ns/B
  EXPECT_EQ(stageNs(c, OpKind::Preprocess), 4500);
  c.cpuWorkers = 2;  // two workers share it: 2250 ns each, side by side
  EXPECT_EQ(stageNs(c, OpKind::Preprocess), 2250);
  c.cpuWorkers = 1;
  c.postprocessOpsPerByte = 6;  // the post curve ends at 4: 1.0 + 2 x 0.2 = 1.4 ns/B
  EXPECT_EQ(stageNs(c, OpKind::Postprocess), 1400);
  // Without curves, the per-byte cost plus the rounds at the per-round cost.
  p.cpuPreprocessRoundsCurve.clear();
  p.cpuPreprocessNsPerByte = 0.5;
  p.cpuPreprocessNsPerOp = 0.25;
  c.preprocessOpsPerByte = 6;
  EXPECT_EQ(stageNs(c, OpKind::Preprocess), 2000);
}

TEST(SimulatorTiming, TheSubmitThreadHandsEachCpuStageOverAndIsWokenAfterIt) {
  // One blocking batch of 1000 B, preprocessing at 1 ns/B on one worker, a 400 ns
  // hand-off: the worker runs 200..1200 ns, the H2D call starts at 1400 ns.
  DeviceProfile p = roundProfile();
  p.cpuPreprocessRoundsCurve = {{0, 1.0}};
  p.cpuStageHandoff = {{1, 400}, {5, 800}};
  PipelineConfig c = roundConfig(1000, 1);
  c.mode = TransferMode::Blocking;
  c.preprocessOpsPerByte = 0.25;
  auto firstCallAfterStage = [&](const PipelineConfig& cfg, std::int64_t& stageStart, std::int64_t& stageEnd) {
    const auto r = runSim(cfg, p);
    EXPECT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
    const auto stage = r.of(OpKind::Preprocess);
    const auto calls = r.of(OpKind::ApiCall);
    if (stage.empty() || calls.empty()) return std::int64_t(-1);
    stageStart = stage.front().start;
    stageEnd = stage.front().end;
    return calls.front().start;
  };
  std::int64_t start = 0, end = 0;
  EXPECT_EQ(firstCallAfterStage(c, start, end), 1400);
  EXPECT_EQ(start, 200);
  EXPECT_EQ(end, 1200);
  // Three workers: a hand-off of 600 ns (linear between 1 and 5 workers), 1000 ns of
  // work at a speed-up of 3.
  c.cpuWorkers = 3;
  EXPECT_EQ(firstCallAfterStage(c, start, end), 300 + 333 + 300);
  EXPECT_EQ(start, 300);
  // Beyond the last point, that point's hand-off; no curve, none.
  c.cpuWorkers = 8;
  EXPECT_EQ(firstCallAfterStage(c, start, end), 400 + 125 + 400);
  p.cpuStageHandoff.clear();
  c.cpuWorkers = 1;
  EXPECT_EQ(firstCallAfterStage(c, start, end), 1000);
  EXPECT_EQ(start, 0);
}

TEST(SimulatorTiming, TheFirstCallAfterACpuStagePaysTheAfterStageCostOfItsBytes) {
  // Blocking batches of 1000 B, preprocessing at 1 ns/B on one worker, no hand-off;
  // after a 1000-byte stage the first call costs 300 ns more, after 1 MB 900 ns.
  DeviceProfile p = roundProfile();
  p.cpuPreprocessRoundsCurve = {{0, 1.0}};
  p.callAfterCpuStage = {{1000, 300}, {1000000, 900}};
  PipelineConfig c = roundConfig(1000, 2);
  c.mode = TransferMode::Blocking;
  c.preprocessOpsPerByte = 0.25;
  auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // Batch 0: stage 0..1000; the cudaMemcpy H2D call 1000..1300, its copy
  // 1300..2300; the launch (no extra: not the first call) at 2300, the kernel
  // 2300..3300; the D2H call at 3300, its copy 3300..4300. Batch 1's stage
  // 4300..5300, its H2D call 5300..5600 and copy 5600..6600.
  auto calls = r.of(OpKind::ApiCall);
  ASSERT_GE(calls.size(), 4u);
  EXPECT_EQ(calls[0].start, 1000);
  EXPECT_EQ(calls[0].end, 1300);
  EXPECT_EQ(calls[1].start, 2300);
  EXPECT_EQ(calls[1].end, 2300);
  EXPECT_EQ(calls[3].start, 5300);
  EXPECT_EQ(calls[3].end, 5600);
  auto h2d = r.of(OpKind::CopyH2D);
  ASSERT_EQ(h2d.size(), 2u);
  EXPECT_EQ(h2d[0].start, 1300);
  EXPECT_EQ(h2d[1].start, 5600);
  // 10 kB: a third of the way from 1000 to 1000000 in log(size): 500 ns.
  c = roundConfig(10000, 1);
  c.mode = TransferMode::Blocking;
  c.preprocessOpsPerByte = 0.25;
  r = runSim(c, p);
  calls = r.of(OpKind::ApiCall);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls[0].start, 10000);
  EXPECT_EQ(calls[0].end, 10500);
  // Flat beyond the curve's ends; no curve, no extra cost.
  c = roundConfig(100, 1);
  c.mode = TransferMode::Blocking;
  c.preprocessOpsPerByte = 0.25;
  calls = runSim(c, p).of(OpKind::ApiCall);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls[0].end - calls[0].start, 300);
  p.callAfterCpuStage.clear();
  calls = runSim(c, p).of(OpKind::ApiCall);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls[0].end - calls[0].start, 0);
}

TEST(SimulatorTiming, TheAfterStageCurveRoundTripsThroughJsonAndOldProfilesLeaveItEmpty) {
  DeviceProfile p = roundProfile();
  p.callAfterCpuStage = {{262144, 4000}, {8388608, 100000}};
  nlohmann::json j = profileToJson(p);
  EXPECT_EQ(profileFromJson(j).callAfterCpuStage, p.callAfterCpuStage);
  // A profile written before the field: none, and the first call costs what it did.
  j.erase("callAfterCpuStage");
  EXPECT_TRUE(profileFromJson(j).callAfterCpuStage.empty());
  EXPECT_TRUE(builtinProfile("h200")->callAfterCpuStage.empty());
  EXPECT_EQ(callAfterCpuStageNs(profileFromJson(j), 1 << 20), 0);
  j["callAfterCpuStage"] = nlohmann::json::array({{{"bytes", 4096}, {"ns", 10}}, {{"bytes", 1024}, {"ns", 20}}});
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);  // not sorted by size
}

TEST(SimulatorTiming, APrefetchOfPagesAlreadyOnTheDeviceTakesNoShareOfTheLink) {
  // Managed-prefetch on 2 streams, 1000 B batches: from the third batch on, the input
  // pages never left the device, so its prefetch to the GPU is a 1 ns no-op; each
  // prefetch to the CPU moves 1000 B at 0.01 B/ns = 100000 ns. The no-ops run beside
  // those long prefetches: a no-op claimed 1000 B / 1 ns against a 2 B/ns
  // bidirectional cap and slowed every prefetch beside it.
  DeviceProfile p = roundProfile();
  p.prefetchToDeviceCurve = {{1000, 0.01}};
  p.prefetchToHostCurve = {{1000, 0.01}};
  p.managedGpuFaultCurve = {{1000, 1.0}};
  PipelineConfig c = roundConfig(1000, 12);
  c.mode = TransferMode::Async;
  c.memory = HostMemory::ManagedPrefetch;
  c.streams = 2;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  int noOps = 0, out = 0;
  for (const Op& op : r.of(OpKind::CopyH2D)) noOps += op.end - op.start == 1;
  for (const Op& op : r.of(OpKind::CopyD2H)) {
    EXPECT_EQ(op.end - op.start, 100000) << "batch " << op.batch;
    ++out;
  }
  EXPECT_GE(noOps, 8);  // batches 4..11 reuse host slots whose input stayed on the GPU
  EXPECT_EQ(out, 12);
}

TEST(SimulatorTiming, ACopyEngineGoesOnWithTheStreamWhoseCopyItJustFinished) {
  // Stream 0 issues its copy in two chunks, stream 1 one copy in between: stream 1's
  // copy has waited longer when the first chunk ends, but the engine runs the second
  // chunk first, as every multi-stream chunked H100 trace shows.
  DeviceProfile p = roundProfile();
  GpuModel gpu(p);
  const auto a1 = gpu.submit({OpKind::CopyH2D, 0, EngineId::H2D, 1000, 1.0}, 0);
  const auto b = gpu.submit({OpKind::CopyH2D, 1, EngineId::H2D, 1000, 1.0}, 10);
  const auto a2 = gpu.submit({OpKind::CopyH2D, 0, EngineId::H2D, 1000, 1.0}, 20);
  gpu.runAll();
  EXPECT_EQ(gpu.op(a1).start, 0);
  EXPECT_EQ(gpu.op(a2).start, gpu.op(a1).end);
  EXPECT_EQ(gpu.op(b).start, gpu.op(a2).end);
}

}  // namespace
}  // namespace pipescope
