// The submit thread's extra time per GPU op over several GPUs
// (multiGpuHostOpOverheadNs): the simulator charges it only when a run spans several
// GPUs, and the calibration's fit recovers it from a simulator playing the GPUs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "SimulatorTestSupport.h"
#include "sim/DeviceProfile.h"
#include "sim/InterconnectCosts.h"
#include "sim/MultiGpuHostFit.h"
#include "sim/SimulatorBackend.h"

namespace pipescope {
namespace {

using simtest::roundConfig;
using simtest::roundProfile;
using simtest::runSim;

TEST(MultiGpuHostOverhead, EachGpuOpCostsTheSubmitThreadTheTermOverSeveralGpusOnly) {
  // Two GPUs, one 1000-byte batch each (H2D, kernel, D2H: 1000 ns each on the round
  // profile), calls free. With 500 ns per op the host issues GPU 0's three ops at 0,
  // 500, 1000 and GPU 1's at 1500, 2000, 2500: GPU 1's copy starts at 1500 and its
  // batch ends at 4500 instead of 3000.
  DeviceProfile p = roundProfile();
  p.allreduceCurveGpus = 2;  // measured over 2 GPUs
  PipelineConfig two = roundConfig(1000, 2);
  two.devices = {0, 1};
  EXPECT_EQ(runSim(two, p).makespan(), 3000);
  p.multiGpuHostOpOverheadNs = 500;
  EXPECT_EQ(runSim(two, p).makespan(), 4500);
  // In proportion to the GPUs beyond the first: measured over 3 GPUs, 2 pay half.
  p.allreduceCurveGpus = 3;
  p.multiGpuHostOpOverheadNs = 1000;
  EXPECT_EQ(runSim(two, p).makespan(), 4500);
  EXPECT_DOUBLE_EQ(multiGpuHostOpOverheadNs(p, 5), 2000.0);
  EXPECT_DOUBLE_EQ(multiGpuHostOpOverheadNs(p, 1), 0.0);
  // One GPU: no term (its own host overhead is hostOpOverheadNs).
  EXPECT_EQ(runSim(roundConfig(1000, 2), p).makespan(), runSim(roundConfig(1000, 2), roundProfile()).makespan());
}

TEST(MultiGpuHostOverhead, TheFitRecoversKnownTermsFromTheBackendsOwnRuns) {
  // The GPUs' host pays 2.5 us per op more over several GPUs and 120 us per group
  // all-reduce call, where the profile's probe said 60.
  DeviceProfile start = *builtinProfile("h200");
  start.multiGpuHostOpOverheadNs = 0;
  start.allreduceCallNs = 60000;
  start.allreduceCurveGpus = 2;
  DeviceProfile truth = start;
  truth.multiGpuHostOpOverheadNs = 2500;
  truth.allreduceCallNs = 120000;
  auto measured = makeSimulatorBackend(truth);
  const MultiGpuHostResult r = fitMultiGpuHostOverhead(*measured, start, {0, 1}, 1);
  EXPECT_NEAR(r.perOpNs, 2500, 100);
  EXPECT_NEAR(r.groupCallNs, 120000, 3000);
  ASSERT_EQ(r.measuredNs.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_NEAR(r.predictedNs[i] / r.measuredNs[i], 1.0, 0.01);
  DeviceProfile fitted = start;
  applyMultiGpuHostOverhead(fitted, r);
  EXPECT_EQ(fitted.multiGpuHostOpOverheadNs, r.perOpNs);
  EXPECT_EQ(fitted.allreduceCallNs, r.groupCallNs);
  // A host no slower over several GPUs than the profile says: nothing to add, the
  // probe's group call kept.
  auto plain = makeSimulatorBackend(start);
  const MultiGpuHostResult same = fitMultiGpuHostOverhead(*plain, start, {0, 1}, 1);
  EXPECT_LT(same.perOpNs, 10.0);
  EXPECT_NEAR(same.groupCallNs, 60000, 1500);
  EXPECT_THROW(multiGpuHostConfigs({0}), std::invalid_argument);
}

TEST(MultiGpuHostOverhead, TheTermRoundTripsAndABadValueNamesTheField) {
  DeviceProfile p = *builtinProfile("h200");
  EXPECT_GT(p.multiGpuHostOpOverheadNs, 0);  // the built-in H200 carries its 4-GPU host's figure
  p.multiGpuHostOpOverheadNs = 0;
  EXPECT_FALSE(profileToJson(p).contains("multiGpuHostOpOverheadNs"));
  p.multiGpuHostOpOverheadNs = 1800;
  nlohmann::json j = profileToJson(p);
  EXPECT_EQ(profileFromJson(j).multiGpuHostOpOverheadNs, 1800);
  j["multiGpuHostOpOverheadNs"] = 5e6;
  try {
    profileFromJson(j);
    FAIL() << "a 5 ms per-op term was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("multiGpuHostOpOverheadNs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pipescope
