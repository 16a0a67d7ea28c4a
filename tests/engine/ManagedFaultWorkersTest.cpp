// CPU workers faulting managed pages over together (managedCpuWriteFaultWorkers,
// managedCpuReadFaultWorkers): the curves' lookup by size and workers, hand-computed
// timelines on simtest::roundProfile(), the fields' JSON and a merge of calibrations.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "ProfileFieldTestSupport.h"
#include "SimulatorTestSupport.h"
#include "sim/ProfileMerge.h"
#include "sim/StageCosts.h"

namespace pipescope {
namespace {

using simtest::roundConfig;
using simtest::roundProfile;
using simtest::runSim;
using simtest::Span;
using simtest::spans;

DeviceProfile twoSizes() {
  DeviceProfile p = roundProfile();
  p.managedCpuWriteFaultWorkers = {{1000, {{2, 1.5}, {4, 3.0}}}, {8000, {{2, 0.5}, {4, 1.0}}}};
  p.managedCpuReadFaultWorkers = {{1000, {{4, 2.5}}}};
  return p;
}

TEST(ManagedFaultWorkers, SpeedupFollowsTheCurvesBySizeAndWorkers) {
  const DeviceProfile p = twoSizes();
  const auto write = [&](int workers, std::uint64_t bytes) {
    return managedCpuFaultWorkersSpeedup(p, workers, bytes, ManagedTouch::CpuWrite);
  };
  EXPECT_DOUBLE_EQ(write(1, 1000), 1.0);
  EXPECT_DOUBLE_EQ(write(2, 1000), 1.5);
  EXPECT_DOUBLE_EQ(write(3, 1000), 2.25);  // halfway from 2 to 4 workers
  EXPECT_DOUBLE_EQ(write(16, 1000), 3.0);  // beyond the last point: its value
  EXPECT_DOUBLE_EQ(write(2, 10), 1.5);     // below the smallest size: its curve
  EXPECT_DOUBLE_EQ(write(2, 8000), 0.5);   // slower than one thread: they get in each other's way
  EXPECT_DOUBLE_EQ(write(2, 1 << 30), 0.5);
  EXPECT_NEAR(write(2, 2828), 1.0, 1e-3);  // halfway in log(bytes): sqrt(1000 x 8000)
  // The read curve: linear from 1 at one worker to its first point.
  EXPECT_DOUBLE_EQ(managedCpuFaultWorkersSpeedup(p, 2, 1000, ManagedTouch::CpuRead), 1.5);
  EXPECT_DOUBLE_EQ(managedCpuFaultWorkersSpeedup(p, 2, 1000, ManagedTouch::Kernel), 1.0);
  // Never beyond the workers, never below 0.05.
  DeviceProfile q = roundProfile();
  q.managedCpuWriteFaultWorkers = {{1000, {{2, 5.0}, {8, 0.001}}}};
  EXPECT_DOUBLE_EQ(managedCpuFaultWorkersSpeedup(q, 2, 1000, ManagedTouch::CpuWrite), 2.0);
  EXPECT_DOUBLE_EQ(managedCpuFaultWorkersSpeedup(q, 8, 1000, ManagedTouch::CpuWrite), 0.05);
  EXPECT_DOUBLE_EQ(managedCpuFaultWorkersSpeedup(roundProfile(), 8, 1000, ManagedTouch::CpuWrite), 1.0);
}

TEST(ManagedFaultWorkers, TwoWorkersWritePagesTheDeviceHoldsAtTheirSpeedup) {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};        // 1000 B: 1000 ns
  p.managedCpuWriteFaultCurve = {{1000, 0.25}};  // one thread writing them back: 4000 ns
  p.managedCpuWriteFaultWorkers = {{1000, {{2, 2.0}}}};
  PipelineConfig c = roundConfig(1000, 3);
  c.memory = HostMemory::Managed;
  c.preprocessOpsPerByte = 1.0;  // one round per byte: 1000 ns, 500 on each of two workers
  c.cpuWorkers = 2;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // Batches 0 and 1 preprocess fresh host pages (0-500, 500-1000 on both workers);
  // their kernels fault in input and output (1000 + 1000 + 1000 of work): 500-3500,
  // 3500-6500. Batch 2 reuses batch 0's buffers once its kernel is done (3500): the
  // input lives on the device; the two workers write it back together, 4000 / 2 each
  // beside their 500 of work: 3500-6000. Its kernel faults the input in again behind
  // batch 1's: 6500-8500.
  EXPECT_EQ(spans(r.of(OpKind::Preprocess)),
            (std::vector<Span>{{0, 500}, {0, 500}, {500, 1000}, {500, 1000}, {3500, 6000}, {3500, 6000}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{500, 3500}, {3500, 6500}, {6500, 8500}}));
  // Without the curve each worker waits the whole 4000: 3500-8000, the kernel 8000-10000.
  p.managedCpuWriteFaultWorkers.clear();
  const auto alone = runSim(c, p);
  EXPECT_EQ(spans(alone.of(OpKind::Preprocess)).back(), (Span{3500, 8000}));
  EXPECT_EQ(alone.makespan(), 10000);
}

TEST(ManagedFaultWorkers, TwoWorkersReadPagesAKernelWroteAtTheReadCurvesSpeedup) {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};    // 1000 B: 1000 ns
  p.managedCpuFaultCurve = {{1000, 0.5}};    // one thread reading them back: 2000 ns
  p.managedCpuReadFaultWorkers = {{1000, {{2, 4.0}}}};  // clamped to 2 workers: 1000 ns
  p.managedCpuWriteFaultWorkers = {{1000, {{2, 0.1}}}};  // the write curve plays no part
  PipelineConfig c = roundConfig(1000, 1);
  c.memory = HostMemory::Managed;
  c.postprocessOpsPerByte = 1.0;
  c.cpuWorkers = 2;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // The kernel faults in input and output (2000) before its 1000 of work: 0-3000. The
  // two workers read the output back together (2000 / 2) beside their 500 each: 3000-4500.
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{0, 3000}}));
  EXPECT_EQ(spans(r.of(OpKind::Postprocess)), (std::vector<Span>{{3000, 4500}, {3000, 4500}}));
}

TEST(ManagedFaultWorkers, CurvesSurviveJsonAndBadOnesSayWhatIsWrong) {
  const DeviceProfile p = twoSizes();
  const nlohmann::json j = profileToJson(p);
  EXPECT_EQ(j.at("managedCpuWriteFaultWorkers").at(1).at("bytes"), 8000);
  EXPECT_EQ(j.at("managedCpuWriteFaultWorkers").at(1).at("curve").at(1).at("workers"), 4);
  EXPECT_EQ(profileFromJson(j), p);
  EXPECT_FALSE(profileToJson(roundProfile()).contains("managedCpuReadFaultWorkers"));
  auto message = [&](const char* key, const nlohmann::json& value) { return simtest::profileError(j, key, value); };
  EXPECT_NE(message("managedCpuWriteFaultWorkers",
                    nlohmann::json::parse(R"([{"bytes": 1000, "curve": [{"streams": 2, "speedup": 1.5}]}])"))
                .find("'managedCpuWriteFaultWorkers[0].curve[0]' must be {\"workers\": N from 1 to 4096"),
            std::string::npos);
  EXPECT_NE(message("managedCpuReadFaultWorkers",
                    nlohmann::json::parse(R"([{"bytes": 0, "curve": [{"workers": 2, "speedup": 1.5}]}])"))
                .find("'managedCpuReadFaultWorkers[0].bytes' must be a positive integer"),
            std::string::npos);
  EXPECT_NE(message("managedCpuReadFaultWorkers",
                    nlohmann::json::parse(R"([{"bytes": 9, "curve": [{"workers": 2, "speedup": 1}]},
                                              {"bytes": 4, "curve": [{"workers": 2, "speedup": 1}]}])"))
                .find("sorted by strictly increasing bytes"),
            std::string::npos);
  EXPECT_NE(message("managedCpuWriteFaultWorkers", "fast").find("\"workers\": N"), std::string::npos);
}

TEST(ManagedFaultWorkers, MergedCalibrationsTakeEachPointsMedian) {
  DeviceProfile a = roundProfile(), b = roundProfile();
  a.deviceName = b.deviceName = "NVIDIA H200";
  a.managedCpuWriteFaultWorkers = {{1000, {{2, 1.0}, {8, 3.0}}}};
  b.managedCpuWriteFaultWorkers = {{1000, {{2, 2.0}, {8, 5.0}}}};
  const DeviceProfile m = mergeProfiles({a, b}, "h200-merged");
  ASSERT_EQ(m.managedCpuWriteFaultWorkers.size(), 1u);
  const auto& curve = m.managedCpuWriteFaultWorkers[0].curve;
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_EQ(curve[1].workers, 8);
  EXPECT_NEAR(curve[0].speedup, 1.5, 1e-12);
  EXPECT_NEAR(curve[1].speedup, 4.0, 1e-12);
}

}  // namespace
}  // namespace pipescope
