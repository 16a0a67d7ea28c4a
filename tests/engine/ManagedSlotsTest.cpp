// Managed page moves by the host slots a pipeline rotates over (managedSlotsSlowdown,
// managedSlotsCpuSlowdown): hand-computed timelines on simtest::roundProfile(), the
// curve between its points, and the profile field's JSON.
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

TEST(ManagedSlots, FactorRisesFromOneAtOneSlotAndStaysAtTheLastPoint) {
  const std::vector<ManagedSlotsPoint> c = {{4, 1.5}, {32, 3.0}};
  EXPECT_DOUBLE_EQ(managedSlotsFactor(c, 1), 1.0);
  EXPECT_DOUBLE_EQ(managedSlotsFactor(c, 2), 1.0 + 0.5 / 3.0);  // a third of the way to 4 slots
  EXPECT_DOUBLE_EQ(managedSlotsFactor(c, 4), 1.5);
  EXPECT_DOUBLE_EQ(managedSlotsFactor(c, 18), 2.25);
  EXPECT_DOUBLE_EQ(managedSlotsFactor(c, 64), 3.0);
  EXPECT_DOUBLE_EQ(managedSlotsFactor({}, 30), 1.0);
}

TEST(ManagedSlots, PrefetchesAndKernelFaultsTakeTheSlotsFactor) {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};
  p.prefetchToDeviceCurve = {{1000, 0.5}};
  p.prefetchToHostCurve = {{1000, 0.25}};
  p.managedSlotsSlowdown = {{2, 2.0}};  // one stream: two host slots, every move twice as long
  PipelineConfig c = roundConfig(1000, 3);
  c.memory = HostMemory::ManagedPrefetch;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // Batch 0: prefetch in 2 x 1000 / 0.5 = 4000; the kernel faults in the output the
  // host touched at allocation (2 x 1000) before its 1000 of work: 4000-7000; prefetch
  // out 2 x 1000 / 0.25 = 8000: 7000-15000. Batch 1 (its own slot) the same, behind it
  // in the stream. Batch 2 reuses batch 0's slot: its input is still on the device (a
  // 1 ns no-op), its output is faulted in again. Without the curve: 22001 (the
  // one-slot test in SimulatorTimingTest).
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{0, 4000}, {15000, 19000}, {30000, 30001}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{4000, 7000}, {19000, 22000}, {30001, 33001}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyD2H)), (std::vector<Span>{{7000, 15000}, {22000, 30000}, {33001, 41001}}));
  EXPECT_EQ(r.makespan(), 41001);
}

TEST(ManagedSlots, PreprocessingWriteFaultsTakeTheCpuFactorAlone) {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};        // 1000 B: 1000 ns
  p.managedCpuWriteFaultCurve = {{1000, 0.25}};  // writing them back: 4000 ns
  p.managedSlotsCpuSlowdown = {{2, 1.5}};        // two slots: 6000 ns
  PipelineConfig c = roundConfig(1000, 3);
  c.memory = HostMemory::Managed;
  c.preprocessOpsPerByte = 1.0;  // one round per byte: 1000 ns
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  // As in SimulatorTimingTest's one-slot case, but batch 2's write of the input the
  // device holds costs 1.5 x 4000 + 1000 of work: 4000-11000 (one slot's curve:
  // 4000-9000). The kernels' faults keep the one-buffer rate (no GPU-side curve):
  // 1000-4000, 4000-7000, then the input again 11000-13000.
  EXPECT_EQ(spans(r.of(OpKind::Preprocess)), (std::vector<Span>{{0, 1000}, {1000, 2000}, {4000, 11000}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{1000, 4000}, {4000, 7000}, {11000, 13000}}));
  EXPECT_EQ(r.makespan(), 13000);
}

TEST(ManagedSlots, CurvesSurviveJsonAndBadPointsSayWhatIsWrong) {
  DeviceProfile p = roundProfile();
  p.managedSlotsSlowdown = {{4, 1.2}, {32, 1.9}};
  p.managedSlotsCpuSlowdown = {{4, 1.7}, {32, 4.6}};
  const nlohmann::json j = profileToJson(p);
  EXPECT_EQ(j.at("managedSlotsSlowdown").at(1).at("slots"), 32);
  EXPECT_EQ(profileFromJson(j), p);
  auto message = [&](const char* key, const nlohmann::json& value) { return simtest::profileError(j, key, value); };
  EXPECT_NE(message("managedSlotsSlowdown", nlohmann::json::parse(R"([{"slots": 0, "factor": 1.5}])"))
                .find("'managedSlotsSlowdown[0]' must be {\"slots\": N from 1 to 65536, \"factor\": X > 0}"),
            std::string::npos);
  EXPECT_NE(message("managedSlotsCpuSlowdown", nlohmann::json::parse(R"([{"slots": 8, "factor": -2}])"))
                .find("managedSlotsCpuSlowdown[0]"),
            std::string::npos);
  EXPECT_NE(message("managedSlotsSlowdown",
                    nlohmann::json::parse(R"([{"slots": 8, "factor": 2}, {"slots": 4, "factor": 1.5}])"))
                .find("strictly increasing slots"),
            std::string::npos);
  EXPECT_NE(message("managedSlotsSlowdown", "fast").find("managedSlotsSlowdown"), std::string::npos);
}

TEST(ManagedSlots, MergedCalibrationsTakeEachSlotCountsMedianFactor) {
  DeviceProfile a = roundProfile(), b = roundProfile();
  a.deviceName = b.deviceName = "NVIDIA H200";
  a.managedSlotsSlowdown = {{4, 1.2}, {32, 2.0}};
  b.managedSlotsSlowdown = {{4, 1.4}, {32, 3.0}};
  a.managedSlotsCpuSlowdown = {{4, 2.0}, {32, 4.0}};
  b.managedSlotsCpuSlowdown = {{4, 3.0}, {32, 5.0}};
  const DeviceProfile m = mergeProfiles({a, b}, "h200-merged");
  auto expectCurve = [](const std::vector<ManagedSlotsPoint>& got, const std::vector<ManagedSlotsPoint>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].hostSlots, want[i].hostSlots);
      EXPECT_NEAR(got[i].factor, want[i].factor, 1e-12);
    }
  };
  expectCurve(m.managedSlotsSlowdown, {{4, 1.3}, {32, 2.5}});
  expectCurve(m.managedSlotsCpuSlowdown, {{4, 2.5}, {32, 4.5}});
}

}  // namespace
}  // namespace pipescope
