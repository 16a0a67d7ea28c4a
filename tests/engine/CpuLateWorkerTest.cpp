// A CPU stage over several workers ends when its last worker does: the late-worker
// factor (cpuStageLateWorker) in the simulator's timeline, the profile's JSON and the
// calibration's CPU-stage fit, which must not count it twice.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "SimulatorTestSupport.h"
#include "sim/CpuStageFit.h"
#include "sim/DeviceProfile.h"
#include "sim/InPipelineFits.h"
#include "sim/SimulatorBackend.h"
#include "sim/StageCosts.h"

namespace pipescope {
namespace {

using simtest::roundConfig;
using simtest::roundProfile;
using simtest::runSim;

/// Blocking batches of `bytes` preprocessed at 1 ns/B on one worker (0 rounds),
/// workers scaling perfectly, no hand-off, no call costs.
PipelineConfig stageConfig(std::uint64_t bytes, int workers) {
  PipelineConfig c = roundConfig(bytes, 1);
  c.mode = TransferMode::Blocking;
  c.cpuWorkers = workers;
  c.preprocessOpsPerByte = 0.25;
  return c;
}

DeviceProfile stageProfile() {
  DeviceProfile p = roundProfile();
  p.cpuPreprocessRoundsCurve = {{0, 1.0}};
  p.cpuWorkerSpeedup = {{1, 1.0}, {8, 8.0}};
  return p;
}

TEST(CpuLateWorker, TheLastWorkerEndsLateAndTheBatchWaitsForIt) {
  DeviceProfile p = stageProfile();
  p.cpuStageLateWorker = {{2, 1.1}, {4, 1.3}};
  // 4000 B on 4 workers: 1000 ns each on average. The stage spans 1.3 x 1000 ns; the
  // three others end at 1000 x (4 - 1.3) / 3 = 900 ns, so the mean stays 1000.
  auto r = runSim(stageConfig(4000, 4), p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  auto pre = r.of(OpKind::Preprocess);
  ASSERT_EQ(pre.size(), 4u);
  std::vector<std::int64_t> ends;
  for (const Op& op : pre) {
    EXPECT_EQ(op.start, 0);
    ends.push_back(op.end);
  }
  std::sort(ends.begin(), ends.end());
  EXPECT_EQ(ends, (std::vector<std::int64_t>{900, 900, 900, 1300}));
  // The H2D copy (blocking, free call) starts when the last worker is done.
  auto h2d = r.of(OpKind::CopyH2D);
  ASSERT_EQ(h2d.size(), 1u);
  EXPECT_EQ(h2d[0].start, 1300);
  EXPECT_EQ(h2d[0].end, 1300 + 4000);

  // 3 workers, between the points: 1.2; 3000 B, 1000 ns each on average.
  r = runSim(stageConfig(3000, 3), p);
  pre = r.of(OpKind::Preprocess);
  ASSERT_EQ(pre.size(), 3u);
  ends.clear();
  for (const Op& op : pre) ends.push_back(op.end);
  std::sort(ends.begin(), ends.end());
  EXPECT_EQ(ends, (std::vector<std::int64_t>{900, 900, 1200}));

  // Without the curve every worker ends at the mean: the stage as before.
  p.cpuStageLateWorker.clear();
  r = runSim(stageConfig(4000, 4), p);
  for (const Op& op : r.of(OpKind::Preprocess)) EXPECT_EQ(op.end, 1000);
  EXPECT_EQ(r.of(OpKind::CopyH2D)[0].start, 1000);
}

TEST(CpuLateWorker, TheFactorIsOneOnOneWorkerRisesToTheFirstPointAndStaysFlatBeyondTheLast) {
  DeviceProfile p = stageProfile();
  EXPECT_EQ(cpuStageLateWorkerFactor(p, 4), 1.0);  // no curve
  p.cpuStageLateWorker = {{4, 1.3}, {8, 1.5}};
  EXPECT_EQ(cpuStageLateWorkerFactor(p, 1), 1.0);
  EXPECT_DOUBLE_EQ(cpuStageLateWorkerFactor(p, 2), 1.1);  // a third of the way from 1 worker to 4
  EXPECT_DOUBLE_EQ(cpuStageLateWorkerFactor(p, 6), 1.4);
  EXPECT_DOUBLE_EQ(cpuStageLateWorkerFactor(p, 16), 1.5);
  // Never more than the workers themselves (one worker doing everything), never below 1.
  p.cpuStageLateWorker = {{2, 3.0}};
  EXPECT_EQ(cpuStageLateWorkerFactor(p, 2), 2.0);
  p.cpuStageLateWorker = {{2, 0.5}};
  EXPECT_EQ(cpuStageLateWorkerFactor(p, 2), 1.0);
  // The stage's cost is the workers' mean time times the factor.
  p.cpuStageLateWorker = {{4, 1.3}};
  EXPECT_DOUBLE_EQ(cpuStageWorkerMeanNs(p, 4000, 0.25, 4, true), 1000.0);
  EXPECT_DOUBLE_EQ(cpuStageNs(p, 4000, 0.25, 4, true), 1300.0);
}

TEST(CpuLateWorker, TheCurveRoundTripsThroughJsonAndOlderProfilesLoadWithout) {
  DeviceProfile p = stageProfile();
  p.cpuStageLateWorker = {{2, 1.1}, {4, 1.2}, {8, 1.3}};
  nlohmann::json j = profileToJson(p);
  EXPECT_EQ(profileFromJson(j).cpuStageLateWorker, p.cpuStageLateWorker);
  j.erase("cpuStageLateWorker");
  EXPECT_TRUE(profileFromJson(j).cpuStageLateWorker.empty());
  EXPECT_TRUE(builtinProfile("h200")->cpuStageLateWorker.empty());
  j["cpuStageLateWorker"] =
      nlohmann::json::array({{{"workers", 4}, {"factor", 1.2}}, {{"workers", 2}, {"factor", 1.1}}});
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);  // not sorted by workers
  j["cpuStageLateWorker"] = nlohmann::json::array({{{"workers", 2}, {"factor", -1}}});
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

TEST(CpuLateWorker, TheFitSeparatesTheWorkersMeanSpeedupFromTheLateWorkerAndCountsNeitherTwice) {
  DeviceProfile truth = *builtinProfile("h200");
  truth.cpuPreprocessNsPerOp = 0.5;
  truth.cpuPostprocessNsPerOp = 0.2;
  truth.cpuPreprocessNsPerByte = 0.3;
  truth.cpuPostprocessNsPerByte = 0.1;
  truth.cpuWorkerSpeedup = {{1, 1.0}, {2, 1.9}, {4, 3.4}, {8, 6.0}};
  truth.cpuStageLateWorker = {{2, 1.1}, {4, 1.2}, {8, 1.35}};
  auto measured = makeSimulatorBackend(truth);
  const CpuStageResult r = fitCpuStages(*measured, 1);
  ASSERT_EQ(r.speedup.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_NEAR(r.speedup[i].speedup, truth.cpuWorkerSpeedup[i].speedup, truth.cpuWorkerSpeedup[i].speedup * 0.02) << i;
  ASSERT_EQ(r.lateWorker.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.lateWorker[i].workers, truth.cpuStageLateWorker[i].workers);
    EXPECT_NEAR(r.lateWorker[i].factor, truth.cpuStageLateWorker[i].factor, 0.01) << i;
  }
  // The fitted profile gives the stage the truth's span on every worker count.
  DeviceProfile fitted = truth;
  fitted.cpuWorkerSpeedup = r.speedup;
  fitted.cpuStageLateWorker = r.lateWorker;
  for (int w : {2, 3, 4, 6, 8})
    EXPECT_NEAR(cpuStageNs(fitted, 8 << 20, 2, w, true), cpuStageNs(truth, 8 << 20, 2, w, true),
                cpuStageNs(truth, 8 << 20, 2, w, true) * 0.02)
        << w;
}

TEST(CpuLateWorker, RoundsAverageTheFactorSoARoundWithASlowWorkerCounts) {
  DeviceProfile a = stageProfile(), b = a, c = a;
  a.cpuStageLateWorker = {{2, 1.1}, {8, 1.2}};
  b.cpuStageLateWorker = {{2, 1.1}, {8, 1.2}};
  c.cpuStageLateWorker = {{2, 1.1}, {8, 1.5}};
  const DeviceProfile m = medianOfFits({a, b, c});
  ASSERT_EQ(m.cpuStageLateWorker.size(), 2u);
  EXPECT_DOUBLE_EQ(m.cpuStageLateWorker[0].factor, 1.1);
  EXPECT_NEAR(m.cpuStageLateWorker[1].factor, 1.3, 1e-12);
}

}  // namespace
}  // namespace pipescope
