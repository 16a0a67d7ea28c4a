// The profile fields the calibration added: the CPU worker speed-up curve.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/DeviceProfile.h"
#include "sim/StageCosts.h"

namespace pipescope {
namespace {

DeviceProfile withCurve() {
  DeviceProfile p;
  p.name = "curve";
  p.cpuNsPerOp = 0.5;
  p.cpuWorkerSpeedup = {{1, 1.0}, {2, 1.8}, {4, 3.0}};
  return p;
}

TEST(WorkerSpeedup, EmptyCurveIsPerfectScaling) {
  DeviceProfile p;
  EXPECT_DOUBLE_EQ(workerSpeedup(p, 1), 1.0);
  EXPECT_DOUBLE_EQ(workerSpeedup(p, 6), 6.0);
}

TEST(WorkerSpeedup, InterpolatesBetweenPointsAndKeepsTheLastEfficiencyBeyond) {
  const DeviceProfile p = withCurve();
  EXPECT_DOUBLE_EQ(workerSpeedup(p, 2), 1.8);
  EXPECT_DOUBLE_EQ(workerSpeedup(p, 3), 2.4);   // halfway between 1.8 and 3.0
  EXPECT_DOUBLE_EQ(workerSpeedup(p, 8), 6.0);   // 3.0 / 4 per worker
  // 1 MiB at 2 ops/B on 4 workers: 1048576 * 2 * 0.5 / 3.0 ns.
  EXPECT_DOUBLE_EQ(cpuStageNs(p, 1 << 20, 2.0, 4, true), 1048576.0 * 2 * 0.5 / 3.0);
}

TEST(WorkerSpeedup, RoundTripsThroughJson) {
  const DeviceProfile p = withCurve();
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
}

TEST(WorkerSpeedup, BadCurvesAreRejectedWithTheField) {
  auto j = profileToJson(withCurve());
  j["cpuWorkerSpeedup"] = nlohmann::json::array({{{"workers", 2}, {"speedup", 1.5}}, {{"workers", 2}, {"speedup", 2}}});
  try {
    profileFromJson(j);
    FAIL() << "unsorted curve accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cpuWorkerSpeedup[1].workers"), std::string::npos) << e.what();
  }
  j["cpuWorkerSpeedup"] = nlohmann::json::array({{{"workers", 0}, {"speedup", 1.0}}});
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

TEST(CalibratedProfile, LatencyFieldsRoundTripAndOldProfilesLeaveThemOff) {
  DeviceProfile p = withCurve();
  p.kernelFixedNs = 1250;
  p.streamDependencyNs = 5400;
  p.syncSleepWakeNs = 38000;
  p.syncSleepAfterNs = 15000;
  p.memcpySyncSleeps = true;
  p.pageableMemcpySyncSleeps = true;
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
  // Profiles written before these fields existed still read, with the terms off.
  auto j = profileToJson(p);
  for (const char* key :
       {"kernelFixedNs", "streamDependencyNs", "syncSleepWakeNs", "syncSleepAfterNs", "memcpySyncSleeps",
        "pageableMemcpySyncSleeps"})
    j.erase(key);
  const DeviceProfile old = profileFromJson(j);
  EXPECT_EQ(old.kernelFixedNs, 0);
  EXPECT_EQ(old.streamDependencyNs, 0);
  EXPECT_EQ(old.syncSleepWakeNs, 0);
  EXPECT_FALSE(old.memcpySyncSleeps);
  EXPECT_FALSE(old.pageableMemcpySyncSleeps);
  j["streamDependencyNs"] = -1;
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
  j = profileToJson(p);
  j["memcpySyncSleeps"] = "yes";
  try {
    profileFromJson(j);
    FAIL() << "a string for a flag accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("memcpySyncSleeps"), std::string::npos) << e.what();
  }
}

TEST(CalibratedProfile, BuiltInH200CalibratedIsMeasuredAndComplete) {
  const auto p = builtinProfile("h200-calibrated");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->deviceName, "NVIDIA H200");
  EXPECT_NE(p->source.find("calibrated on NVIDIA H200"), std::string::npos) << p->source;
  EXPECT_EQ(p->h2dPinnedCurve.size(), 7u);  // 64 KiB .. 256 MiB in steps of 4
  EXPECT_EQ(p->cpuWorkerSpeedup.size(), 4u);
}

TEST(CalibratedProfile, BuiltInH100CalibratedCarriesTheHostFits) {
  const auto p = builtinProfile("h100-calibrated");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->deviceName, "NVIDIA H100 80GB HBM3");
  EXPECT_NE(p->source.find("calibrated on NVIDIA H100"), std::string::npos) << p->source;
  EXPECT_EQ(p->h2dPinnedCurve.size(), 7u);
  EXPECT_EQ(p->cpuWorkerSpeedup.size(), 4u);
  // Fitted in the pipeline by the calibration (5.7 us per batch and 0.3 us per op on
  // the H100 on 2026-11-26).
  EXPECT_GT(p->hostBatchOverheadNs, 1000.0);
  EXPECT_GE(p->hostOpOverheadNs, 0.0);
  EXPECT_NE(p->fitConfigurations.find("host overhead"), std::string::npos) << p->fitConfigurations;
}

}  // namespace
}  // namespace pipescope
