// Hand-computed timelines of the simulator over several GPUs (data parallel with
// and without a bucketed all-reduce, GPipe pipeline stages), on a device with round
// numbers, and the peer-link and all-reduce cost model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "SimulatorTestSupport.h"
#include "sim/GpuModel.h"
#include "sim/InterconnectCosts.h"
#include "sim/StageCosts.h"

namespace pipescope {
namespace {

using simtest::roundConfig;
using simtest::roundProfile;
using simtest::runSim;

using simtest::Span;

/// roundProfile() with links of round numbers: a peer copy moves 2 bytes per ns, an
/// all-reduce over 2 GPUs of B bytes takes B ns (bus bandwidth 1 GB/s), nothing fixed.
DeviceProfile roundLinks() {
  DeviceProfile p = roundProfile();
  p.peerAccess = true;
  p.peerGBps = 2.0;
  p.peerLatencyNs = 0;
  p.allreduceBusGBps = 1.0;
  p.allreduceCurveGpus = 2;
  p.allreduceStepLatencyNs = 0;
  p.collectiveSmShare = 0;
  return p;
}

/// The spans of `kind`'s ops on GPU `device` (by their lane), in start order.
std::vector<Span> spansOn(const simtest::SimRun& r, OpKind kind, int device) {
  std::vector<Span> s;
  for (const Op& op : r.of(kind))
    if (op.lane < r.lanes.size() && r.lanes[op.lane].device == device) s.push_back({op.start, op.end});
  return s;
}

PipelineConfig dataParallel(int gpus, std::uint64_t bytes, int batches) {
  PipelineConfig c = roundConfig(bytes, batches);
  for (int g = 0; g < gpus; ++g) c.devices.push_back(g);
  return c;
}

TEST(SimulatorMultiGpu, DataParallelDealsBatchesAcrossGpus) {
  // Two GPUs, one stream each: batch 0 and 2 on GPU 0, 1 and 3 on GPU 1; each GPU runs
  // its two batches back to back, the GPUs side by side.
  const auto r = runSim(dataParallel(2, 1000, 4), roundLinks());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  for (int g = 0; g < 2; ++g) {
    SCOPED_TRACE(g);
    EXPECT_EQ(spansOn(r, OpKind::CopyH2D, g), (std::vector<Span>{{0, 1000}, {3000, 4000}}));
    EXPECT_EQ(spansOn(r, OpKind::Kernel, g), (std::vector<Span>{{1000, 2000}, {4000, 5000}}));
    EXPECT_EQ(spansOn(r, OpKind::CopyD2H, g), (std::vector<Span>{{2000, 3000}, {5000, 6000}}));
  }
  for (const Op& op : r.of(OpKind::Kernel)) EXPECT_EQ(r.lanes[op.lane].device, op.batch % 2);
  EXPECT_EQ(r.makespan(), 6000);
  EXPECT_EQ(r.trace->completedBatches(), 4);
  EXPECT_TRUE(r.of(OpKind::Collective).empty());
  EXPECT_EQ(r.trace->deviceCount(), 2u);
  EXPECT_EQ(r.trace->devices()[1].ordinal, 1);
}

/// 2 GPUs, 2 steps of 1000-byte batches, a 4000 ns model kernel, 2000 bytes all-reduced.
PipelineConfig bucketCase(int buckets) {
  PipelineConfig c = dataParallel(2, 1000, 4);
  c.modelFlopsPerByte = 8.0;  // 16 FMAs per float: 4 ns per byte; in two pieces, 2 ns each
  c.allreduceBytes = 2000;
  c.buckets = buckets;
  return c;
}

TEST(SimulatorMultiGpu, OneAllReduceAfterTheKernelsIsExposed) {
  const auto r = runSim(bucketCase(0), roundLinks());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // Step 0: H2D 0-1000, kernel 1000-5000, D2H 5000-6000, all-reduce 5000-7000.
  // Step 1: H2D 6000-7000 (behind the D2H), its kernel waits for the all-reduce
  // (7000) and the H2D: 7000-11000, D2H 11000-12000, all-reduce 11000-13000.
  for (int g = 0; g < 2; ++g) {
    SCOPED_TRACE(g);
    EXPECT_EQ(spansOn(r, OpKind::CopyH2D, g), (std::vector<Span>{{0, 1000}, {6000, 7000}}));
    EXPECT_EQ(spansOn(r, OpKind::Kernel, g), (std::vector<Span>{{1000, 5000}, {7000, 11000}}));
    EXPECT_EQ(spansOn(r, OpKind::Collective, g), (std::vector<Span>{{5000, 7000}, {11000, 13000}}));
  }
  // The call as a whole on the communicator's lane, once per all-reduce.
  EXPECT_EQ(spansOn(r, OpKind::Collective, kSharedLane), (std::vector<Span>{{5000, 7000}, {11000, 13000}}));
  EXPECT_EQ(r.makespan(), 13000);
}

TEST(SimulatorMultiGpu, BucketsOverlapTheAllReduceWithTheRemainingKernels) {
  const auto r = runSim(bucketCase(2), roundLinks());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // The model runs as two 2000 ns pieces; bucket 0 (1000 bytes, 1000 ns) follows the
  // first and overlaps the second; bucket 1 follows the second.
  for (int g = 0; g < 2; ++g) {
    SCOPED_TRACE(g);
    EXPECT_EQ(spansOn(r, OpKind::Kernel, g),
              (std::vector<Span>{{1000, 3000}, {3000, 5000}, {7000, 9000}, {9000, 11000}}));
    EXPECT_EQ(spansOn(r, OpKind::Collective, g),
              (std::vector<Span>{{3000, 4000}, {5000, 6000}, {9000, 10000}, {11000, 12000}}));
    EXPECT_EQ(spansOn(r, OpKind::CopyD2H, g), (std::vector<Span>{{5000, 6000}, {11000, 12000}}));
  }
  EXPECT_EQ(r.makespan(), 12000);
  for (const Op& op : r.of(OpKind::Collective))
    if (op.engineLane != kNoLane) {
      EXPECT_EQ(r.lanes[op.engineLane].kind, LaneKind::ComputeEngine);
    }
}

TEST(SimulatorMultiGpu, TheCollectiveSlowsTheKernelsBesideIt) {
  DeviceProfile p = roundLinks();
  p.collectiveSmShare = 0.5;
  const auto r = runSim(bucketCase(2), p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // Bucket 0 runs 3000-4000 beside the second piece, which moves at half speed then:
  // 500 ns of its 2000 by 4000, the other 1500 at full speed: it ends at 5500.
  const auto kernels = spansOn(r, OpKind::Kernel, 0);
  ASSERT_GE(kernels.size(), 2u);
  EXPECT_EQ(kernels[1], (Span{3000, 5500}));
  EXPECT_EQ(spansOn(r, OpKind::Collective, 0).at(1), (Span{5500, 6500}));
}

TEST(SimulatorMultiGpu, ACollectiveThatYieldsWaitsForTheKernelsSMs) {
  // collectiveYieldShare 1: the second piece (3000-5000) keeps its full speed and
  // bucket 0, issued beside it at 3000, moves at 1 - 0.75 = a quarter of its speed
  // until the piece ends: 500 of its 1000 ns by 5000, the rest alone: 5000-5500.
  // Bucket 1 follows it on the NCCL stream: 5500-6500.
  DeviceProfile p = roundLinks();
  p.collectiveSmShare = 0.75;
  p.collectiveYieldShare = 1.0;
  const auto r = runSim(bucketCase(2), p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  for (int g = 0; g < 2; ++g) {
    SCOPED_TRACE(g);
    const auto kernels = spansOn(r, OpKind::Kernel, g);
    ASSERT_GE(kernels.size(), 2u);
    EXPECT_EQ(kernels[1], (Span{3000, 5000}));
    const auto collectives = spansOn(r, OpKind::Collective, g);
    ASSERT_GE(collectives.size(), 2u);
    EXPECT_EQ(collectives[0], (Span{3000, 5500}));
    EXPECT_EQ(collectives[1], (Span{5500, 6500}));
  }
  // Half and half (0.5): the kernel at 1 - 0.75 x 0.5 = 0.625 of its speed beside the
  // collective, the collective at 1 - 0.75 x 0.5 = 0.625 beside the kernel: the bucket's
  // 1000 ns take 1600 (3000-4600); the piece has done 1000 of 2000 by then (1600 x
  // 0.625), the other 1000 alone: it ends at 5600.
  p.collectiveYieldShare = 0.5;
  const auto h = runSim(bucketCase(2), p);
  ASSERT_EQ(h.outcome.state, RunState::Finished) << h.outcome.message;
  EXPECT_EQ(spansOn(h, OpKind::Kernel, 0).at(1), (Span{3000, 5600}));
  EXPECT_EQ(spansOn(h, OpKind::Collective, 0).at(0), (Span{3000, 4600}));
}

TEST(SimulatorMultiGpu, TheYieldShareRoundTripsAndOlderProfilesLoadWithout) {
  DeviceProfile p = roundLinks();
  p.collectiveYieldShare = 0.8;
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
  auto j = profileToJson(roundLinks());
  EXPECT_FALSE(j.contains("collectiveYieldShare"));
  EXPECT_EQ(profileFromJson(j).collectiveYieldShare, 0.0);  // today's model: kernels give way
  j["collectiveYieldShare"] = 1.5;
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

/// The submit thread's API calls as "name start-end".
std::vector<std::string> apiCalls(const simtest::SimRun& r) {
  std::vector<std::string> calls;
  for (const Op& op : r.of(OpKind::ApiCall))
    calls.push_back(std::string(r.trace->opName(op)) + " " + std::to_string(op.start) + "-" + std::to_string(op.end));
  return calls;
}

TEST(SimulatorMultiGpu, ACopyAfterACallOfAnotherKindCostsTheSwitchOverSeveralGpus) {
  // Two GPUs, a batch each; copies cost the host 300 ns, launches 200, event records
  // nothing, and a copy after a call of another kind (or a copy the other way) 1000
  // more; launches never. GPU 0's H2D 0-1300 (the first call), launch 1300-1500, D2H
  // 1500-2800 (after the launch); GPU 1's H2D 2800-4100 (after a D2H), launch
  // 4100-4300, D2H 4300-5600; both event records at 5600. Without the term every copy
  // takes 300 and the calls end at 1600.
  PipelineConfig c = dataParallel(2, 1000, 2);
  DeviceProfile p = roundLinks();
  p.memcpyAsyncCallNs = 300;
  p.kernelLaunchNs = 200;
  p.multiGpuCopySwitchNs = 1000;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(apiCalls(r), (std::vector<std::string>{"cudaMemcpyAsync 0-1300", "cudaLaunchKernel 1300-1500",
                                                   "cudaMemcpyAsync 1500-2800", "cudaMemcpyAsync 2800-4100",
                                                   "cudaLaunchKernel 4100-4300", "cudaMemcpyAsync 4300-5600",
                                                   "cudaEventRecord 5600-5600", "cudaEventRecord 5600-5600"}));
  // One GPU: its share of the switch is in hostOpOverheadNs, the term is not charged.
  const auto one = runSim(roundConfig(1000, 1), p);
  ASSERT_EQ(one.outcome.state, RunState::Finished) << one.outcome.message;
  EXPECT_EQ(apiCalls(one), (std::vector<std::string>{"cudaMemcpyAsync 0-300", "cudaLaunchKernel 300-500",
                                                     "cudaMemcpyAsync 500-800", "cudaEventRecord 800-800"}));
}

TEST(SimulatorMultiGpu, ACopyAfterACopyTheSameWayPaysNoSwitch) {
  // As above with each copy in two chunks: each GPU's second H2D and second D2H follow
  // a copy the same way and cost 300. GPU 0: H2D 0-1300, 1300-1600, launch 1600-1800,
  // D2H 1800-3100, 3100-3400; GPU 1: H2D 3400-4700 (after a D2H), 4700-5000, launch
  // 5000-5200, D2H 5200-6500, 6500-6800.
  PipelineConfig c = dataParallel(2, 1000, 2);
  c.transferChunks = 2;
  DeviceProfile p = roundLinks();
  p.memcpyAsyncCallNs = 300;
  p.kernelLaunchNs = 200;
  p.multiGpuCopySwitchNs = 1000;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(apiCalls(r), (std::vector<std::string>{
                             "cudaMemcpyAsync 0-1300", "cudaMemcpyAsync 1300-1600", "cudaLaunchKernel 1600-1800",
                             "cudaMemcpyAsync 1800-3100", "cudaMemcpyAsync 3100-3400", "cudaMemcpyAsync 3400-4700",
                             "cudaMemcpyAsync 4700-5000", "cudaLaunchKernel 5000-5200", "cudaMemcpyAsync 5200-6500",
                             "cudaMemcpyAsync 6500-6800", "cudaEventRecord 6800-6800", "cudaEventRecord 6800-6800"}));
}

TEST(SimulatorMultiGpu, TheCallSwitchCostRoundTripsAndIsChecked) {
  DeviceProfile p = roundLinks();
  p.multiGpuCopySwitchNs = 4200;
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
  auto j = profileToJson(roundLinks());
  EXPECT_FALSE(j.contains("multiGpuCopySwitchNs"));  // one-GPU profiles stay as they were
  EXPECT_EQ(profileFromJson(j).multiGpuCopySwitchNs, 0.0);
  for (const double bad : {-1.0, 2e6}) {
    j["multiGpuCopySwitchNs"] = bad;
    try {
      profileFromJson(j);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("multiGpuCopySwitchNs"), std::string::npos) << e.what();
    }
  }
  j["multiGpuCopySwitchNs"] = "fast";
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

TEST(SimulatorMultiGpu, ACollectiveEndsOnceTheLastGpuHasJoined) {
  // Each cudaMemcpyAsync call costs the host 300 ns, so GPU 1's batch is issued 600 ns
  // after GPU 0's: H2D 300-1300 and 900-1900, kernels 1300-5300 and 1900-5900. GPU 0's
  // all-reduce starts at 5300 and waits for GPU 1's (5900); both end 2000 ns later.
  PipelineConfig c = bucketCase(0);
  c.batchCount = 2;
  DeviceProfile p = roundLinks();
  p.memcpyAsyncCallNs = 300;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spansOn(r, OpKind::Collective, 0), (std::vector<Span>{{5300, 7900}}));
  EXPECT_EQ(spansOn(r, OpKind::Collective, 1), (std::vector<Span>{{5900, 7900}}));
  EXPECT_EQ(spansOn(r, OpKind::Collective, kSharedLane), (std::vector<Span>{{5900, 7900}}));
}

TEST(SimulatorMultiGpu, TheGroupAllReduceCallCostsTheHostItsMeasuredTime) {
  // One step. A group call over the curve's 2 GPUs costs the host 12000 ns: 6000 per
  // GPU's ncclAllReduce, GPU 0's call 0-6000, GPU 1's 6000-12000 (every other call is
  // free). The kernels end at 5000, but GPU 1's all-reduce is only issued at 12000:
  // GPU 0's op waits 6000-12000 for it, both end at 14000.
  PipelineConfig c = bucketCase(0);
  c.batchCount = 2;
  DeviceProfile p = roundLinks();
  p.allreduceCallNs = 12000;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  std::vector<Span> calls;
  for (const Op& op : r.of(OpKind::ApiCall))
    if (r.trace->opName(op) == "ncclAllReduce") calls.push_back({op.start, op.end});
  EXPECT_EQ(calls, (std::vector<Span>{{0, 6000}, {6000, 12000}}));
  EXPECT_EQ(spansOn(r, OpKind::Collective, 0), (std::vector<Span>{{6000, 14000}}));
  EXPECT_EQ(spansOn(r, OpKind::Collective, 1), (std::vector<Span>{{12000, 14000}}));
  EXPECT_EQ(r.makespan(), 14000);
}

TEST(InterconnectCosts, GroupCallCostPerGpu) {
  DeviceProfile p = roundLinks();
  p.kernelLaunchNs = 700;
  EXPECT_DOUBLE_EQ(allreduceCallNsPerGpu(p), 700.0);  // not measured: one kernel launch
  p.allreduceCallNs = 8000;
  p.allreduceCurveGpus = 4;
  EXPECT_DOUBLE_EQ(allreduceCallNsPerGpu(p), 2000.0);
}

TEST(SimulatorMultiGpu, TheHostCarriesAllGpusCopiesTogetherUpToItsLimit) {
  // Each GPU copies both ways at once at 1 byte/ns per direction (2 together, its own
  // link's cap). GPU 0 moves 1000 bytes each way, GPU 1 500. Host links at 3 bytes/ns
  // for all GPUs: the four copies' 4 bytes/ns scale by 0.75 until GPU 1's end at
  // 500 / 0.75 = 666.7 ns; GPU 0 has 500 bytes left each way and is alone: full speed,
  // ending at 1166.7 ns.
  DeviceProfile p = roundProfile();
  p.hostLinksGBps = 3.0;
  GpuModel gpu(p);
  GpuCommand h2d0{OpKind::CopyH2D, 0, EngineId::H2D, 1000, 1.0, 0};
  GpuCommand d2h0{OpKind::CopyD2H, 1, EngineId::D2H, 1000, 1.0, 0};
  GpuCommand h2d1{OpKind::CopyH2D, 2, EngineId::H2D, 500, 1.0, 1};
  GpuCommand d2h1{OpKind::CopyD2H, 3, EngineId::D2H, 500, 1.0, 1};
  const auto a = gpu.submit(h2d0, 0), b = gpu.submit(d2h0, 0), x = gpu.submit(h2d1, 0), y = gpu.submit(d2h1, 0);
  gpu.runAll();
  EXPECT_NEAR(gpu.op(x).end, 2000.0 / 3.0, 1e-6);
  EXPECT_NEAR(gpu.op(y).end, 2000.0 / 3.0, 1e-6);
  EXPECT_NEAR(gpu.op(a).end, 3500.0 / 3.0, 1e-6);
  EXPECT_NEAR(gpu.op(b).end, 3500.0 / 3.0, 1e-6);

  // A figure for one direction: both GPUs' D2H (2 bytes/ns) fit 1.5, 0.75 each, ending
  // at 1333.3 ns; GPU 0's H2D beside them keeps its speed (no H2D or both-ways figure).
  DeviceProfile dir = roundProfile();
  dir.hostLinksD2hGBps = 1.5;
  GpuModel split(dir);
  GpuCommand d2h1Long{OpKind::CopyD2H, 3, EngineId::D2H, 1000, 1.0, 1};
  const auto h = split.submit(h2d0, 0), e = split.submit(d2h0, 0), f = split.submit(d2h1Long, 0);
  split.runAll();
  EXPECT_DOUBLE_EQ(split.op(h).end, 1000.0);
  EXPECT_NEAR(split.op(e).end, 4000.0 / 3.0, 1e-6);
  EXPECT_NEAR(split.op(f).end, 4000.0 / 3.0, 1e-6);

  // One GPU alone is bound by its own link only, even below the host's figure.
  DeviceProfile one = roundProfile();
  one.hostLinksGBps = one.hostLinksH2dGBps = one.hostLinksD2hGBps = 0.5;
  GpuModel alone(one);
  const auto c = alone.submit(h2d0, 0), d = alone.submit(d2h0, 0);
  alone.runAll();
  EXPECT_DOUBLE_EQ(alone.op(c).end, 1000.0);
  EXPECT_DOUBLE_EQ(alone.op(d).end, 1000.0);
}

TEST(SimulatorMultiGpu, KernelsOnTheHostLinkShareTheHostWithEveryGpusTraffic) {
  // Two link-bound kernels (mapped memory) on two GPUs, each reading 1000 bytes over
  // its 1000 ns alone: 1 byte/ns towards the GPUs each, 2 together, where the host's
  // figure for that direction is 1.5. Each runs at 0.75: 1333.3 ns.
  DeviceProfile p = roundProfile();
  p.hostLinksH2dGBps = 1.5;
  GpuCommand k0{OpKind::Kernel, 0, EngineId::Link, 1000, 0, 0};
  k0.link = LinkKind::Mapped;
  k0.hostInBytes = 1000;
  GpuCommand k1 = k0;
  k1.stream = 1;
  k1.device = 1;
  GpuModel gpu(p);
  const auto a = gpu.submit(k0, 0), b = gpu.submit(k1, 0);
  gpu.runAll();
  EXPECT_NEAR(gpu.op(a).end, 4000.0 / 3.0, 1e-6);
  EXPECT_NEAR(gpu.op(b).end, 4000.0 / 3.0, 1e-6);

  // A kernel writing host memory on GPU 0 beside a D2H copy on GPU 1, both at 1
  // byte/ns, the host carrying 1 byte/ns back: half each, 2000 ns, ending together;
  // a kernel moving nothing over the link (all its bytes on the GPU) keeps its speed.
  DeviceProfile back = roundProfile();
  back.hostLinksD2hGBps = 1.0;
  GpuCommand writer = k0;
  writer.hostInBytes = 0;
  writer.hostOutBytes = 1000;
  GpuCommand d2h1{OpKind::CopyD2H, 1, EngineId::D2H, 1000, 1.0, 1};
  GpuCommand onDevice = k0;
  onDevice.stream = 2;
  onDevice.device = 2;
  onDevice.hostInBytes = 0;
  GpuModel shared(back);
  const auto w = shared.submit(writer, 0), d = shared.submit(d2h1, 0), o = shared.submit(onDevice, 0);
  shared.runAll();
  EXPECT_NEAR(shared.op(w).end, 2000.0, 1e-6);
  EXPECT_NEAR(shared.op(d).end, 2000.0, 1e-6);
  EXPECT_DOUBLE_EQ(shared.op(o).end, 1000.0);

  // One GPU alone is bound by its own link only: two kernels of its streams that
  // overlap fully (the streams curve) keep their speed.
  DeviceProfile one = p;
  one.mappedStreamsSpeedup = {{2, 2.0}};
  GpuModel alone(one);
  GpuCommand k0b = k0;
  k0b.stream = 1;
  const auto c = alone.submit(k0, 0), e = alone.submit(k0b, 0);
  alone.runAll();
  EXPECT_DOUBLE_EQ(alone.op(c).end, 1000.0);
  EXPECT_DOUBLE_EQ(alone.op(e).end, 1000.0);
}

TEST(SimulatorMultiGpu, MappedKernelsOnSeveralGpusAtOnceShareTheHostsLinks) {
  // Data parallel over 2 GPUs, one mapped batch each, issued at 0. Each kernel reads
  // 1000 bytes and writes 1000 at 0.5 byte/ns (2000 ns alone, longer than its 1000 ns
  // of work, so the link holds it back): 0.5 byte/ns each way per GPU, 2 for the two
  // GPUs both ways together, where the host carries 1: half speed, 4000 ns.
  DeviceProfile p = roundProfile();
  p.mappedReadGBps = p.mappedWriteGBps = 0.5;
  p.mappedStreamsSpeedup = {{2, 1.0}};
  PipelineConfig c = dataParallel(2, 1000, 2);
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Mapped;
  EXPECT_EQ(simtest::spans(runSim(c, p).of(OpKind::Kernel)), (std::vector<Span>{{0, 2000}, {0, 2000}}));
  p.hostLinksGBps = 1.0;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(simtest::spans(r.of(OpKind::Kernel)), (std::vector<Span>{{0, 4000}, {0, 4000}}));
}

TEST(SimulatorMultiGpu, OneGpuRunsIgnoreTheMultiGpuHostFigures) {
  // A one-GPU run with both directions overlapping and a tight host figure predicts
  // exactly what it did without the multi-GPU fields.
  PipelineConfig c = roundConfig(1000, 8);
  c.streams = 2;
  const DeviceProfile before = simtest::h200();
  DeviceProfile after = before;
  after.hostLinksGBps = after.hostLinksH2dGBps = after.hostLinksD2hGBps = 10.0;
  after.allreduceCallNs = 50000;
  const auto a = runSim(c, before), b = runSim(c, after);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].start, b.ops[i].start) << i;
    EXPECT_EQ(a.ops[i].end, b.ops[i].end) << i;
  }
}

TEST(SimulatorMultiGpu, PipelineStagesHandActivationsOnByPeerCopies) {
  PipelineConfig c = roundConfig(1000, 1);
  c.devices = {0, 1};
  c.parallel = ParallelMode::Pipeline;
  c.batchSamples = 3;
  c.microBatches = 3;
  c.modelFlopsPerByte = 4.0;  // half on each stage: 2 flops/byte, 1 ns per byte
  c.activationBytes = 2000;   // 1000 ns at 2 bytes per ns
  const auto r = runSim(c, roundLinks());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // GPU 0's one stream: H2D, stage 0, copy to GPU 1, for each micro-batch in turn.
  EXPECT_EQ(spansOn(r, OpKind::CopyH2D, 0), (std::vector<Span>{{0, 1000}, {3000, 4000}, {6000, 7000}}));
  EXPECT_EQ(spansOn(r, OpKind::Kernel, 0), (std::vector<Span>{{1000, 2000}, {4000, 5000}, {7000, 8000}}));
  EXPECT_EQ(spansOn(r, OpKind::PeerCopy, 0), (std::vector<Span>{{2000, 3000}, {5000, 6000}, {8000, 9000}}));
  // GPU 1 waits for each activation: idle until 3000 (the bubble), then stage 1 and D2H.
  EXPECT_EQ(spansOn(r, OpKind::Kernel, 1), (std::vector<Span>{{3000, 4000}, {6000, 7000}, {9000, 10000}}));
  EXPECT_EQ(spansOn(r, OpKind::CopyD2H, 1), (std::vector<Span>{{4000, 5000}, {7000, 8000}, {10000, 11000}}));
  EXPECT_EQ(r.makespan(), 11000);
  // The peer copies run on the GPU0→GPU1 link lane, issued on GPU 0's stream.
  for (const Op& op : r.of(OpKind::PeerCopy)) {
    EXPECT_EQ(r.lanes[op.engineLane].kind, LaneKind::PeerLink);
    EXPECT_EQ(r.lanes[op.engineLane].name, "GPU0→GPU1 NVLink");
    EXPECT_EQ(r.lanes[op.engineLane].index, 1);
    EXPECT_EQ(r.lanes[op.lane].device, 0);
    EXPECT_EQ(op.bytes, 2000u);
  }
}

/// Two GPUs in a pipeline over `memory`: two micro-batches of 500 bytes on one stream,
/// 1 ns per byte of compute per stage, 2000-byte activations.
PipelineConfig twoStagePipeline(HostMemory memory) {
  PipelineConfig c = roundConfig(1000, 1);
  c.devices = {0, 1};
  c.parallel = ParallelMode::Pipeline;
  c.memory = memory;
  c.batchSamples = 2;
  c.sampleBytes = 500;
  c.microBatches = 2;
  c.modelFlopsPerByte = 4.0;
  c.activationBytes = 2000;
  return c;
}

/// roundLinks() with mapped memory read and written at 0.5 bytes/ns, nothing else mapped.
DeviceProfile mappedPipelineLinks() {
  DeviceProfile p = roundLinks();
  p.mappedReadGBps = p.mappedWriteGBps = 0.5;
  p.mappedDuplexGBps = 0;
  p.mappedStreamsSpeedup.clear();
  p.mappedReadCpuWrittenCurve.clear();
  return p;
}

TEST(SimulatorMultiGpu, MappedPipelineStagesReadAndWriteHostMemoryPerMicroBatch) {
  // Mapped memory: no copies. Two micro-batches of 500 bytes on one stream; each
  // stage computes 1 ns per byte (500 ns), the first reads its micro-batch's input
  // from host memory at 0.5 bytes/ns (1000 ns), the last writes its output at the
  // same rate (1000 ns); the activations cross in 1000 ns (2000 bytes at 2 per ns).
  // Stage 0: 0-1000, 2000-3000 (behind the first copy on the same stream); copies
  // 1000-2000, 3000-4000; stage 1: 2000-3000, 4000-5000.
  const PipelineConfig c = twoStagePipeline(HostMemory::Mapped);
  const DeviceProfile p = mappedPipelineLinks();
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_TRUE(r.of(OpKind::CopyH2D).empty());
  EXPECT_TRUE(r.of(OpKind::CopyD2H).empty());
  EXPECT_EQ(spansOn(r, OpKind::Kernel, 0), (std::vector<Span>{{0, 1000}, {2000, 3000}}));
  EXPECT_EQ(spansOn(r, OpKind::PeerCopy, 0), (std::vector<Span>{{1000, 2000}, {3000, 4000}}));
  EXPECT_EQ(spansOn(r, OpKind::Kernel, 1), (std::vector<Span>{{2000, 3000}, {4000, 5000}}));
  EXPECT_EQ(r.makespan(), 5000);
}

TEST(SimulatorMultiGpu, MappedModelPiecesEachWriteTheWholeOutput) {
  // Data parallel over mapped memory with 2 buckets: the custom model runs as two
  // pieces, and (as the CUDA backend launches them) each reads the batch's input and
  // writes its whole output over PCIe. 1000 bytes: each piece computes 2000 ns, reads
  // at 0.5 bytes/ns (2000 ns) and writes at 0.25 bytes/ns (4000 ns): 4000 ns each,
  // not only the last. Bucket 0 (1000 ns) follows piece 0, bucket 1 piece 1.
  PipelineConfig c = bucketCase(2);
  c.memory = HostMemory::Mapped;
  c.batchCount = 2;
  DeviceProfile p = roundLinks();
  p.mappedReadGBps = 0.5;
  p.mappedWriteGBps = 0.25;
  p.mappedDuplexGBps = 0;
  p.mappedStreamsSpeedup.clear();
  p.mappedReadCpuWrittenCurve.clear();
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  for (int g = 0; g < 2; ++g) {
    SCOPED_TRACE(g);
    EXPECT_EQ(spansOn(r, OpKind::Kernel, g), (std::vector<Span>{{0, 4000}, {4000, 8000}}));
    EXPECT_EQ(spansOn(r, OpKind::Collective, g), (std::vector<Span>{{4000, 5000}, {8000, 9000}}));
  }
  EXPECT_EQ(r.makespan(), 9000);
  // With the input normalized onto the device first, only the normalize kernel reads
  // host memory (1000 bytes at 0.5: 2000 ns); the pieces still each write the output.
  c.normalizeKernel = true;
  p.modelGflops = 1e9;  // the pieces' compute negligible: their time is the write
  const auto n = runSim(c, p);
  ASSERT_EQ(n.outcome.state, RunState::Finished) << n.outcome.message;
  const auto kernels = spansOn(n, OpKind::Kernel, 0);
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0].end - kernels[0].start, 2000);
  EXPECT_EQ(kernels[1].end - kernels[1].start, 4000);
  EXPECT_EQ(kernels[2].end - kernels[2].start, 4000);
}

TEST(SimulatorMultiGpu, AKernelThatComputesThenWritesMappedMemoryPaysBoth) {
  // The mapped pipeline above with mappedWriteOverlap 0: the last stage's kernels
  // compute 500 ns, then write 500 bytes at 0.5 bytes/ns (1000 ns): 1500 ns each, not
  // the longer alone. Stage 0 reads (the first kernel, not a write): unchanged.
  const PipelineConfig c = twoStagePipeline(HostMemory::Mapped);
  DeviceProfile p = mappedPipelineLinks();
  p.mappedWriteOverlap = 0;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spansOn(r, OpKind::Kernel, 0), (std::vector<Span>{{0, 1000}, {2000, 3000}}));
  EXPECT_EQ(spansOn(r, OpKind::Kernel, 1), (std::vector<Span>{{2000, 3500}, {4000, 5500}}));
  EXPECT_EQ(r.makespan(), 5500);
  // Half hidden: 1000 + 0.5 x 500.
  p.mappedWriteOverlap = 0.5;
  EXPECT_DOUBLE_EQ(mappedWriteKernelNs(p, 500, 1000), 1250.0);
  p.mappedWriteOverlap = 1.0;
  EXPECT_DOUBLE_EQ(mappedWriteKernelNs(p, 500, 1000), 1000.0);
  // The field round-trips, and a profile without it keeps the longer alone.
  p.mappedWriteOverlap = 0.25;
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
  auto j = profileToJson(roundLinks());
  EXPECT_FALSE(j.contains("mappedWriteOverlap"));
  EXPECT_EQ(profileFromJson(j).mappedWriteOverlap, 1.0);
  j["mappedWriteOverlap"] = 2.0;
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

/// Over managed memory (twoStagePipeline): a kernel faults pages over at 0.25 bytes/ns,
/// a prefetch moves 1 byte/ns to the GPU and 0.5 to the host.
DeviceProfile managedLinks() {
  DeviceProfile p = roundLinks();
  p.managedGpuFaultCurve = {{64, 0.25}, {1 << 20, 0.25}};
  p.prefetchToDeviceCurve = {{64, 1.0}, {1 << 20, 1.0}};
  p.prefetchToHostCurve = {{64, 0.5}, {1 << 20, 0.5}};
  p.managedFaultStreamsSpeedup.clear();
  return p;
}

TEST(SimulatorMultiGpu, ManagedPrefetchPipelinePrefetchesEachMicroBatchAndFaultsTheOutput) {
  // GPU 0: prefetch micro-batch 0 (500 ns), stage 0 (500, its input already there),
  // activations 1000-2000; micro-batch 1 the same behind them on the stream. GPU 1:
  // stage 1 writes the micro-batch's output into the fresh slot's pages, which the
  // host filled: 500 ns of work + 500 bytes faulted at 0.25 (2000 ns), 2000-4500;
  // then the output prefetched back (500 bytes at 0.5: 1000 ns), 4500-5500; micro-batch
  // 1's stage 1 5500-8000, its prefetch back 8000-9000.
  const auto r = runSim(twoStagePipeline(HostMemory::ManagedPrefetch), managedLinks());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spansOn(r, OpKind::CopyH2D, 0), (std::vector<Span>{{0, 500}, {2000, 2500}}));
  EXPECT_EQ(spansOn(r, OpKind::Kernel, 0), (std::vector<Span>{{500, 1000}, {2500, 3000}}));
  EXPECT_EQ(spansOn(r, OpKind::Kernel, 1), (std::vector<Span>{{2000, 4500}, {5500, 8000}}));
  EXPECT_EQ(spansOn(r, OpKind::CopyD2H, 1), (std::vector<Span>{{4500, 5500}, {8000, 9000}}));
  for (const Op& op : r.gpuOps())
    if (isCopyKind(op.kind) && op.kind != OpKind::PeerCopy) {
      EXPECT_EQ(op.bytes, 500u);
    }
  EXPECT_EQ(r.makespan(), 9000);
}

TEST(SimulatorMultiGpu, ManagedPipelineFaultsTheInputOnTheFirstStageAndTheOutputOnTheLast) {
  // No prefetch: stage 0's kernel faults its micro-batch's input over (500 + 2000 ns),
  // 0-2500, activations 2500-3500; micro-batch 1's 3500-6000, 6000-7000. Stage 1
  // faults the output: 3500-6000, then 7000-9500. No copies to or from the host.
  const auto r = runSim(twoStagePipeline(HostMemory::Managed), managedLinks());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_TRUE(r.of(OpKind::CopyH2D).empty());
  EXPECT_TRUE(r.of(OpKind::CopyD2H).empty());
  EXPECT_EQ(spansOn(r, OpKind::Kernel, 0), (std::vector<Span>{{0, 2500}, {3500, 6000}}));
  EXPECT_EQ(spansOn(r, OpKind::Kernel, 1), (std::vector<Span>{{3500, 6000}, {7000, 9500}}));
  EXPECT_EQ(r.makespan(), 9500);
}

TEST(SimulatorMultiGpu, APeerCopyDoesNotSlowAHostCopy) {
  // Two streams: micro-batch 1's H2D runs while micro-batch 0's activations cross
  // the link; both at their own full rate.
  PipelineConfig c = roundConfig(1000, 1);
  c.devices = {0, 1};
  c.parallel = ParallelMode::Pipeline;
  c.batchSamples = 2;
  c.microBatches = 2;
  c.streams = 2;
  c.modelFlopsPerByte = 4.0;
  c.activationBytes = 2000;
  const auto r = runSim(c, roundLinks());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  for (const Op& op : r.of(OpKind::CopyH2D)) EXPECT_EQ(op.duration(), 1000);
  for (const Op& op : r.of(OpKind::PeerCopy)) EXPECT_EQ(op.duration(), 1000);
}

TEST(SimulatorMultiGpu, WithoutPeerAccessCopiesGoThroughTheHost) {
  PipelineConfig c = roundConfig(1000, 1);
  c.devices = {0, 1};
  c.parallel = ParallelMode::Pipeline;
  c.activationBytes = 1000;
  DeviceProfile p = roundLinks();
  p.peerAccess = false;  // staged: the slower of the pinned rates (1 byte/ns), twice the copy latency
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  const auto peer = r.of(OpKind::PeerCopy);
  ASSERT_EQ(peer.size(), 1u);
  EXPECT_EQ(peer[0].duration(), 1000);
  EXPECT_EQ(r.lanes[peer[0].engineLane].name, "GPU0→GPU1 via host");
}

TEST(SimulatorMultiGpu, MoreGpusThanTheSimulatorModelsIsAClearError) {
  PipelineConfig c = roundConfig(1000, 1);
  c.devices = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  const auto r = runSim(c, roundLinks());
  EXPECT_EQ(r.outcome.state, RunState::Failed);
  EXPECT_NE(r.outcome.message.find("devices = 9 GPUs: allowed 1..8"), std::string::npos) << r.outcome.message;
}

TEST(SimulatorMultiGpu, EightGpusRunAndEveryGpuWorks) {
  PipelineConfig c = dataParallel(8, 4096, 16);
  c.allreduceBytes = 1 << 16;
  c.buckets = 4;
  const auto r = runSim(c, simtest::h200());
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  for (int g = 0; g < 8; ++g) EXPECT_EQ(spansOn(r, OpKind::Kernel, g).size(), 2u * 4u) << g;
  EXPECT_EQ(r.of(OpKind::Collective).size(), 2u * 4u * 9u);  // 2 steps x 4 buckets x (8 GPUs + the call)
}

TEST(InterconnectCosts, AllReduceFollowsTheMeasuredCurveAndTheRing) {
  const DeviceProfile h200 = simtest::h200();
  // The built-in curve was calibrated on 4 GPUs: 64 MiB in 0.3219 ms, 256 MiB in 1.1900 ms.
  EXPECT_NEAR(allreduceNs(h200, 64ull << 20, 4) / 1e6, 0.3219, 0.002);
  EXPECT_NEAR(allreduceNs(h200, 256ull << 20, 4) / 1e6, 1.1900, 0.002);
  EXPECT_NEAR(allreduceBusGBpsOf(256ull << 20, 4, allreduceNs(h200, 256ull << 20, 4)), 338.4, 0.5);
  // Fewer GPUs: each link carries (n-1)/n of the bytes, over fewer steps.
  EXPECT_LT(allreduceNs(h200, 256ull << 20, 2), allreduceNs(h200, 256ull << 20, 4));
  EXPECT_GT(allreduceNs(h200, 256ull << 20, 8), allreduceNs(h200, 256ull << 20, 4));
  EXPECT_EQ(allreduceNs(h200, 256ull << 20, 1), 0.0);
  // Ring arithmetic on round numbers: 4 GPUs measured, 2 asked, 10 ns per step.
  DeviceProfile p = roundLinks();
  p.allreduceCurveGpus = 4;
  p.allreduceStepLatencyNs = 10;
  // t_ref = 2 * 3/4 * 1000 / 1 = 1500 ns; latency 6 x 10 = 60; bandwidth 1440 x (1/2)/(3/4) = 960; + 2 x 10.
  EXPECT_DOUBLE_EQ(allreduceNs(p, 1000, 2), 980.0);
}

TEST(InterconnectCosts, PeerCopies) {
  const DeviceProfile h200 = simtest::h200();
  // The measured 394.5 GB/s over the link plus its fixed latency: within 0.5 %.
  EXPECT_NEAR(double(256ull << 20) / peerCopySoloNs(h200, 256ull << 20), 394.5, 394.5 * 0.005);
  DeviceProfile p = roundLinks();
  p.peerLatencyNs = 100;
  EXPECT_DOUBLE_EQ(peerCopySoloNs(p, 1000), 600.0);
}

}  // namespace
}  // namespace pipescope
