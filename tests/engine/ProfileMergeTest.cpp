// Merging several calibrations of one GPU model: each figure the median over them.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/ProfileMerge.h"

namespace pipescope {
namespace {

DeviceProfile calibration(double launchNs, int copyEngines, bool delayedSignal, double gbps64k, double gbps1m) {
  DeviceProfile p;
  p.name = "h100-run";
  p.deviceName = "NVIDIA H100 80GB HBM3";
  p.source = "calibrated at " + std::to_string(int(launchNs));
  p.kernelLaunchNs = launchNs;
  p.copyEngines = copyEngines;
  p.delayedKernelSignal = delayedSignal;
  p.h2dPinnedCurve = {{65536, gbps64k}, {1 << 20, gbps1m}};
  return p;
}

TEST(ProfileMerge, EachFigureIsTheMedianOverTheCalibrations) {
  std::vector<DeviceProfile> runs = {calibration(5000, 2, true, 10, 50), calibration(9000, 1, false, 30, 55),
                                     calibration(6000, 2, false, 20, 40)};
  runs[1].h2dPinnedCurve.push_back({4 << 20, 60});    // one calibration of three measured 4 MiB: dropped
  runs[2].cpuStageHandoff = {{1, 20000}, {8, 26000}};  // only one has a hand-off curve: it stands
  runs[0].validation = ProfileValidation{"H100", 9001, "then", {}};
  const DeviceProfile m = mergeProfiles(runs, "h100-calibrated");
  EXPECT_DOUBLE_EQ(m.kernelLaunchNs, 6000);
  EXPECT_EQ(m.copyEngines, 2);             // whole numbers stay whole
  EXPECT_FALSE(m.delayedKernelSignal);     // the majority
  EXPECT_EQ(m.h2dPinnedCurve, (std::vector<BandwidthPoint>{{65536, 20}, {1 << 20, 50}}));
  EXPECT_EQ(m.cpuStageHandoff, (std::vector<WorkerHandoff>{{1, 20000}, {8, 26000}}));
  EXPECT_EQ(m.name, "h100-calibrated");
  EXPECT_EQ(m.deviceName, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(m.source,
            "calibrated on NVIDIA H100 80GB HBM3 3 times, each figure the median over them (calibrated at 5000; "
            "calibrated at 9000; calibrated at 6000)");
  EXPECT_FALSE(m.validation);  // not judged yet
  // Two calibrations: the median is their mean.
  EXPECT_DOUBLE_EQ(mergeProfiles({runs[0], runs[1]}, "x").kernelLaunchNs, 7000);
}

TEST(ProfileMerge, TheManagedCurveBySizeIsMergedSizeBySizeAndStreamsByStreams) {
  std::vector<DeviceProfile> runs = {calibration(5000, 2, false, 10, 50), calibration(6000, 2, false, 20, 40),
                                     calibration(7000, 2, false, 30, 60)};
  runs[0].managedFaultStreamsSpeedupBySize = {{1 << 20, {{2, 1.6}, {8, 2.0}}}, {32 << 20, {{2, 1.1}, {8, 1.3}}}};
  runs[1].managedFaultStreamsSpeedupBySize = {{1 << 20, {{2, 1.8}, {8, 2.2}}}, {32 << 20, {{2, 1.2}, {8, 1.5}}}};
  runs[2].managedFaultStreamsSpeedupBySize = {{1 << 20, {{2, 1.7}, {8, 2.4}}}, {32 << 20, {{2, 1.0}, {8, 1.4}}}};
  runs[2].managedFaultStreamsSpeedupBySize[0].curve.push_back({16, 3.0});  // one of three: dropped
  const DeviceProfile m = mergeProfiles(runs, "h100-calibrated");
  EXPECT_EQ(m.managedFaultStreamsSpeedupBySize,
            (std::vector<SizedStreamSpeedup>{{1 << 20, {{2, 1.7}, {8, 2.2}}}, {32 << 20, {{2, 1.1}, {8, 1.4}}}}));
}

TEST(ProfileMerge, OnlyCalibrationsOfOneGpuModelMerge) {
  DeviceProfile h100 = calibration(5000, 2, false, 10, 50);
  DeviceProfile h200 = h100;
  h200.deviceName = "NVIDIA H200";
  try {
    mergeProfiles({h100, h200}, "x");
    FAIL() << "merged two GPUs";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("different GPUs ('NVIDIA H100 80GB HBM3' and 'NVIDIA H200')"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(mergeProfiles({h100}, "x"), std::invalid_argument);
}

}  // namespace
}  // namespace pipescope
