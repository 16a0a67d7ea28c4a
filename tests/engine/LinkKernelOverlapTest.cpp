// Kernels bound by the host link overlap when several streams run them: a profile
// with an overlap curve (managedFaultStreamsSpeedup, mappedStreamsSpeedup) runs them
// side by side at the curve's combined throughput; without one, one at a time.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "ProfileFieldTestSupport.h"
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

TEST(LinkKernelOverlap, TheCurveIsLinearBetweenPointsFlatBeyondAndNeverAboveTheStreamCount) {
  const std::vector<StreamSpeedup> c = {{2, 1.5}, {4, 2.5}};
  EXPECT_DOUBLE_EQ(streamsSpeedup(c, 1), 1.0);
  EXPECT_DOUBLE_EQ(streamsSpeedup(c, 2), 1.5);
  EXPECT_DOUBLE_EQ(streamsSpeedup(c, 3), 2.0);
  EXPECT_DOUBLE_EQ(streamsSpeedup(c, 16), 2.5);
  EXPECT_DOUBLE_EQ(streamsSpeedup({}, 8), 1.0);
  EXPECT_DOUBLE_EQ(streamsSpeedup({{4, 3.0}}, 2), 1.0 + 2.0 / 3);  // from (1, 1) to the first point: 1 + 1/3 x 2
  EXPECT_DOUBLE_EQ(streamsSpeedup({{2, 3.0}}, 2), 2.0);  // two kernels cannot beat two alone
}

TEST(LinkKernelOverlap, FaultingKernelsOfSeveralStreamsRunSideBySide) {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};  // 1000 B fault in 1000 ns
  PipelineConfig c = roundConfig(1000, 2);
  c.mode = TransferMode::Async;
  c.streams = 2;
  c.memory = HostMemory::Managed;
  // Each batch's one kernel: 1000 ns of work, its input and its output faulted in
  // (1000 + 1000): 3000 ns. One at a time: 0-3000, 3000-6000.
  EXPECT_EQ(spans(runSim(c, p).of(OpKind::Kernel)), (std::vector<Span>{{0, 3000}, {3000, 6000}}));
  // Two faulting at once reach 1.5x one's throughput: each at 0.75 of its own rate,
  // 3000 / 0.75 = 4000 ns, side by side.
  p.managedFaultStreamsSpeedup = {{2, 1.5}, {4, 2.5}};
  auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{0, 4000}, {0, 4000}}));
  for (const Op& k : r.of(OpKind::Kernel)) EXPECT_EQ(r.laneKind(k.engineLane), LaneKind::ComputeEngine);
  // Three streams: 2.0x together (between 2 and 4 streams), 2/3 each: 4500 ns.
  c.streams = 3;
  c.batchCount = 3;
  EXPECT_EQ(spans(runSim(c, p).of(OpKind::Kernel)), (std::vector<Span>{{0, 4500}, {0, 4500}, {0, 4500}}));
}

TEST(LinkKernelOverlap, AKernelThatFinishesFirstLeavesTheOthersTheLinkToThemselves) {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};
  p.managedFaultStreamsSpeedup = {{2, 1.5}};
  PipelineConfig c = roundConfig(1000, 3);
  c.mode = TransferMode::Async;
  c.streams = 2;
  c.memory = HostMemory::Managed;
  // Batches 0 and 1 fault side by side: 3000 ns each at 0.75, both end at 4000.
  // Batch 2 (stream 0, its own host slot) is issued at once and waits for batch 0 in
  // its stream; from 4000 it runs alone at full rate: 3000 ns, to 7000.
  EXPECT_EQ(spans(runSim(c, p).of(OpKind::Kernel)), (std::vector<Span>{{0, 4000}, {0, 4000}, {4000, 7000}}));
}

TEST(LinkKernelOverlap, EachGpuHasItsOwnHostLink) {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};
  p.managedFaultStreamsSpeedup = {{2, 1.5}};
  PipelineConfig c = roundConfig(1000, 4);
  c.mode = TransferMode::Async;
  c.streams = 2;
  c.memory = HostMemory::Managed;
  c.devices = {0, 1};  // data parallel, no all-reduce: two batches on each GPU
  // Each GPU's two faulting kernels share that GPU's link: 3000 ns at 0.75 each, so
  // all four end at 4000. Four sharing one link would take 8000 (1.5x over four).
  auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  const std::vector<Op> kernels = r.of(OpKind::Kernel);
  EXPECT_EQ(spans(kernels), (std::vector<Span>{{0, 4000}, {0, 4000}, {0, 4000}, {0, 4000}}));
  std::set<std::uint16_t> engines;
  for (const Op& k : kernels) {
    EXPECT_EQ(r.laneKind(k.engineLane), LaneKind::ComputeEngine);
    engines.insert(k.engineLane);
  }
  EXPECT_EQ(engines.size(), 2u) << "each GPU's compute engine";
}

TEST(LinkKernelOverlap, MappedKernelsHeldBackByTheLinkOverlapOnlyWhenTheLinkSetsTheirTime) {
  DeviceProfile p = roundProfile();
  p.mappedReadGBps = 0.5;   // reading the 1000 B input: 2000 ns
  p.mappedWriteGBps = 1.0;  // writing the output: 1000 ns
  PipelineConfig c = roundConfig(1000, 2);
  c.mode = TransferMode::Async;
  c.streams = 2;
  c.memory = HostMemory::Mapped;
  EXPECT_EQ(spans(runSim(c, p).of(OpKind::Kernel)), (std::vector<Span>{{0, 2000}, {2000, 4000}}));
  p.mappedStreamsSpeedup = {{2, 1.6}};  // 0.8 each: 2000 / 0.8 = 2500 ns
  EXPECT_EQ(spans(runSim(c, p).of(OpKind::Kernel)), (std::vector<Span>{{0, 2500}, {0, 2500}}));
  // Reading at the kernel's own pace (1000 ns, its 1000 ns of work): not held back by
  // the link, so the kernels take turns on the compute engine as before.
  p.mappedReadGBps = 1.0;
  EXPECT_EQ(spans(runSim(c, p).of(OpKind::Kernel)), (std::vector<Span>{{0, 1000}, {1000, 2000}}));
}

TEST(LinkKernelOverlap, TheCurvesRoundTripThroughJsonAndOldProfilesLeaveThemEmpty) {
  DeviceProfile p = roundProfile();
  p.managedFaultStreamsSpeedup = {{2, 1.8}, {8, 3.1}};
  p.mappedStreamsSpeedup = {{4, 1.2}};
  const DeviceProfile back = profileFromJson(profileToJson(p));
  EXPECT_EQ(back.managedFaultStreamsSpeedup, p.managedFaultStreamsSpeedup);
  EXPECT_EQ(back.mappedStreamsSpeedup, p.mappedStreamsSpeedup);
  EXPECT_TRUE(builtinProfile("h100-calibrated")->managedFaultStreamsSpeedup.empty());
  nlohmann::json bad = profileToJson(p);
  bad["mappedStreamsSpeedup"] = nlohmann::json::array({{{"streams", 0}, {"speedup", 1.2}}});
  EXPECT_THROW(profileFromJson(bad), std::invalid_argument);
}

// The managed curve by fault size: 2000 B faults reach 1.5x on two streams, 8000 B
// faults 1.2x (the small size's curve also in the one-size field, as calibrate writes it).
DeviceProfile sizedManagedProfile() {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};  // B bytes fault in B ns
  p.managedFaultStreamsSpeedup = {{2, 1.5}};
  p.managedFaultStreamsSpeedupBySize = {{2000, {{2, 1.5}}}, {8000, {{2, 1.2}, {4, 1.6}}}};
  return p;
}

TEST(LinkKernelOverlap, TheManagedCurveIsLinearInLogBytesBetweenSizesAndFlatBeyond) {
  const DeviceProfile p = sizedManagedProfile();
  EXPECT_DOUBLE_EQ(managedFaultStreamsSpeedup(p, 2, 2000), 1.5);
  EXPECT_DOUBLE_EQ(managedFaultStreamsSpeedup(p, 2, 8000), 1.2);
  EXPECT_DOUBLE_EQ(managedFaultStreamsSpeedup(p, 2, 4000), 1.35);  // halfway in log(bytes)
  EXPECT_DOUBLE_EQ(managedFaultStreamsSpeedup(p, 2, 10), 1.5);
  EXPECT_DOUBLE_EQ(managedFaultStreamsSpeedup(p, 2, 1 << 30), 1.2);
  EXPECT_DOUBLE_EQ(managedFaultStreamsSpeedup(p, 4, 8000), 1.6);
  EXPECT_DOUBLE_EQ(managedFaultStreamsSpeedup(p, 1, 8000), 1.0);
  // Without sizes: the one-size curve at every size.
  DeviceProfile old = p;
  old.managedFaultStreamsSpeedupBySize.clear();
  EXPECT_DOUBLE_EQ(managedFaultStreamsSpeedup(old, 2, 8000), 1.5);
  EXPECT_TRUE(hasManagedFaultOverlap(old));
  old.managedFaultStreamsSpeedup.clear();
  EXPECT_FALSE(hasManagedFaultOverlap(old));
}

TEST(LinkKernelOverlap, LargeFaultsOverlapByTheLargeSizesCurveAndSmallOnesByTheSmall) {
  const DeviceProfile p = sizedManagedProfile();
  PipelineConfig c = roundConfig(1000, 2);
  c.mode = TransferMode::Async;
  c.streams = 2;
  c.memory = HostMemory::Managed;
  // 1000 B batches: 1000 ns of work, input and output faulted in (2000 B, 2000 ns):
  // 3000 ns alone; two at 1.5x, 0.75 each: 4000 ns side by side.
  EXPECT_EQ(spans(runSim(c, p).of(OpKind::Kernel)), (std::vector<Span>{{0, 4000}, {0, 4000}}));
  // 4000 B batches: 4000 ns of work and 8000 B faulted: 12000 ns alone; two at 1.2x,
  // 0.6 each: 20000 ns (the one-size curve's 1.5x would say 16000).
  c.sampleBytes = 4000;
  const auto large = runSim(c, p);
  ASSERT_EQ(large.outcome.state, RunState::Finished) << large.outcome.message;
  EXPECT_EQ(spans(large.of(OpKind::Kernel)), (std::vector<Span>{{0, 20000}, {0, 20000}}));
}

TEST(LinkKernelOverlap, FaultsOfMixedSizesOverlapAsTheLargestRunningOneDoes) {
  const DeviceProfile p = sizedManagedProfile();
  GpuModel gpu(p);
  GpuCommand small{.kind = OpKind::Kernel, .stream = 0, .engine = EngineId::Link, .soloNs = 3000};
  small.link = LinkKind::ManagedFault;
  small.hostInBytes = 2000;
  GpuCommand large = small;
  large.stream = 1;
  large.soloNs = 6000;
  large.hostInBytes = 8000;
  const auto a = gpu.submit(small, 0);
  const auto b = gpu.submit(large, 0);
  gpu.runAll();
  // Together at the 8000 B curve's 1.2x, 0.6 each: the small one's 3000 ns end at
  // 5000, the large one has 3000 ns left and runs them alone: to 8000.
  EXPECT_DOUBLE_EQ(gpu.op(a).end, 5000);
  EXPECT_DOUBLE_EQ(gpu.op(b).end, 8000);
}

TEST(LinkKernelOverlap, TheSizedManagedCurveRoundTripsThroughJsonAndBadSizesAreNamed) {
  const DeviceProfile p = sizedManagedProfile();
  const nlohmann::json j = profileToJson(p);
  EXPECT_EQ(j["managedFaultStreamsSpeedupBySize"][1]["bytes"], 8000);
  EXPECT_EQ(j["managedFaultStreamsSpeedupBySize"][1]["curve"][1]["speedup"], 1.6);
  const DeviceProfile back = profileFromJson(j);
  EXPECT_EQ(back.managedFaultStreamsSpeedupBySize, p.managedFaultStreamsSpeedupBySize);
  EXPECT_EQ(back.managedFaultStreamsSpeedup, p.managedFaultStreamsSpeedup);
  EXPECT_TRUE(builtinProfile("h200-calibrated")->managedFaultStreamsSpeedupBySize.empty());
  auto error = [&](const nlohmann::json& sizes) {
    return simtest::profileError(j, "managedFaultStreamsSpeedupBySize", sizes);
  };
  using nlohmann::json;
  const json curve = json::array({{{"streams", 2}, {"speedup", 1.5}}});
  EXPECT_NE(error(json::array({{{"bytes", 0}, {"curve", curve}}})).find("managedFaultStreamsSpeedupBySize[0].bytes"),
            std::string::npos);
  EXPECT_NE(error(json::array({{{"bytes", -5}, {"curve", curve}}})).find("must be a positive integer, got -5"),
            std::string::npos);
  EXPECT_NE(error(json::array({{{"bytes", 4096}, {"curve", json::array({{{"streams", 2}, {"speedup", -1}}})}}}))
                .find("managedFaultStreamsSpeedupBySize[0].curve[0]"),
            std::string::npos);
  EXPECT_NE(error(json::array({{{"bytes", 4096}, {"curve", curve}}, {{"bytes", 4096}, {"curve", curve}}}))
                .find("strictly increasing bytes"),
            std::string::npos);
  EXPECT_NE(error(json::array({{{"bytes", 4096}, {"curve", json::array()}}})).find("at least one point"),
            std::string::npos);
  EXPECT_NE(error(json::array({{{"bytes", 4096}}})).find("exactly 'bytes' and 'curve'"), std::string::npos);
  EXPECT_NE(error(json::object()).find("must be an array"), std::string::npos);
}

}  // namespace
}  // namespace pipescope
