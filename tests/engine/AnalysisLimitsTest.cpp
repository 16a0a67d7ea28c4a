// The three classic limits against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>

#include "SimulatorTestSupport.h"
#include "analysis/Limits.h"
#include "config/Presets.h"

namespace pipescope {
namespace {

// The bound's fields as computeMetrics sets them, for identical batches.
void setBound(Metrics& m) {
  const IdealBound b = computeIdealBound(m.perBatchOccupancy, m.perBatchOccupancy, m.batches, m.copyEngines);
  m.idealBoundNs = b.ns;
  m.critical = b.critical;
  m.hostPerBatchNs = b.hostPerBatchNs;
}

Metrics stageMetrics(double h, double k, double d, std::int64_t n, int copyEngines, double makespan) {
  Metrics m;
  m.batches = n;
  m.perBatch = {h, k, d, 0, 0};
  m.perBatchOccupancy = m.perBatch;  // one op per engine at a time
  m.copyEngines = copyEngines;
  m.makespanNs = makespan;
  m.firstNs = 1000;
  m.lastNs = 1000 + std::int64_t(makespan);
  setBound(m);
  return m;
}

TEST(AnalysisLimits, TwoCopyEnginesMatchHandComputedValues) {
  // h = 3, k = 1, d = 1, N = 4.
  const Limits l = computeLimits(stageMetrics(3, 1, 1, 4, 2, 17));
  EXPECT_DOUBLE_EQ(l.noOverlapNs, 20);     // (3+1+1)*4
  EXPECT_DOUBLE_EQ(l.fullOverlapNs, 14);   // 3*4 + (5-3)
  EXPECT_DOUBLE_EQ(l.oneDirectionNs, 14);  // min(max(3,2)*4+2, max(4,1)*4+1) = min(14, 17)
  EXPECT_TRUE(l.oneDirectionIsH2D);
  EXPECT_DOUBLE_EQ(l.position, 0.5);  // (20-17)/(20-14)
  EXPECT_EQ(l.zone, LimitZone::NoToOneDirection);
  EXPECT_EQ(l.critical, CriticalResource::H2DEngine);
  EXPECT_EQ(l.idealFinishNs, 1000 + 14);
  EXPECT_EQ(l.measuredFinishNs, 1017);
  EXPECT_NE(l.criticalSentence.find("H2D copy engine is critical"), std::string::npos) << l.criticalSentence;
}

TEST(AnalysisLimits, KernelsRunningSideBySideCountOnceAsInTheIdealBound) {
  // Two streams' kernels overlapping at their tails: 10 ns of kernel time per batch
  // summed, the compute engine occupied 5 ns per batch.
  Metrics m = stageMetrics(3, 10, 1, 4, 2, 30);
  m.perBatchOccupancy = {3, 5, 1, 0, 0};
  m.idealBoundNs = idealBound(3, 5, 1, 4, 2);
  const Limits l = computeLimits(m);
  EXPECT_DOUBLE_EQ(l.fullOverlapNs, m.idealBoundNs);  // 5*4 + (3+1) = 24, not 10*4 + 4
  EXPECT_DOUBLE_EQ(l.noOverlapNs, (3 + 5 + 1) * 4.0);
  EXPECT_DOUBLE_EQ(l.perBatch.kernelNs, 5);
}

TEST(AnalysisLimits, OneDirectionOverlapSitsBetweenTheOthers) {
  // h = 1, k = 2, d = 3, N = 10: full = 3*10 + 3 = 33; H2D beside compute: max(1,5)*10+1 = 51;
  // D2H beside compute: max(3,3)*10+3 = 33 -> 33; no overlap 60.
  const Limits l = computeLimits(stageMetrics(1, 2, 3, 10, 2, 40));
  EXPECT_DOUBLE_EQ(l.noOverlapNs, 60);
  EXPECT_DOUBLE_EQ(l.fullOverlapNs, 33);
  EXPECT_DOUBLE_EQ(l.oneDirectionNs, 33);
  EXPECT_FALSE(l.oneDirectionIsH2D);
  EXPECT_EQ(l.critical, CriticalResource::D2HEngine);
  EXPECT_EQ(l.zone, LimitZone::NoToOneDirection);
}

TEST(AnalysisLimits, OneCopyEngineSerialisesBothDirections) {
  const Limits l = computeLimits(stageMetrics(3, 1, 1, 4, 1, 17));
  EXPECT_DOUBLE_EQ(l.noOverlapNs, 20);
  EXPECT_DOUBLE_EQ(l.fullOverlapNs, 17);   // max(3+1, 1)*4 + (5-4)
  EXPECT_DOUBLE_EQ(l.oneDirectionNs, 17);  // never below full overlap
  EXPECT_EQ(l.critical, CriticalResource::CopyEngine);
  EXPECT_EQ(l.zone, LimitZone::AtFullOverlap);
}

TEST(AnalysisLimits, ComputeCriticalAndZones) {
  EXPECT_EQ(computeLimits(stageMetrics(1, 5, 1, 8, 2, 44)).critical, CriticalResource::ComputeEngine);
  EXPECT_EQ(computeLimits(stageMetrics(1, 5, 1, 8, 2, 80)).zone, LimitZone::SlowerThanNoOverlap);
  // full = 5*8+2 = 42; one direction = min(max(1,6)*8+1, max(6,1)*8+1) = 49.
  EXPECT_EQ(computeLimits(stageMetrics(1, 5, 1, 8, 2, 45)).zone, LimitZone::OneDirectionToFull);
  const Limits none = computeLimits(stageMetrics(1, 1, 1, 0, 2, 0));
  EXPECT_EQ(none.zone, LimitZone::Unknown);
  EXPECT_DOUBLE_EQ(none.fullOverlapNs, 0);
  EXPECT_NE(none.positionSentence.find("No batch completed"), std::string::npos);
  EXPECT_TRUE(none.criticalSentence.empty());  // said once, not twice
}

TEST(AnalysisLimits, HostIsCriticalWhenItsCpuStagesOutlastEveryEngine) {
  Metrics m = stageMetrics(1, 1, 1, 4, 2, 92);
  m.perBatch.preprocessNs = 40;           // two workers, each recording the whole stage ...
  m.perBatchOccupancy.preprocessNs = 20;  // ... side by side: 20 per batch of wall time
  m.perBatchOccupancy.apiNs = 2;
  m.lanes = {{0, LaneKind::HostWorker, "CPU worker 0", 0, 0}, {1, LaneKind::HostWorker, "CPU worker 1", 0, 0}};
  setBound(m);
  const Limits l = computeLimits(m);
  EXPECT_DOUBLE_EQ(l.hostPerBatchNs, 22);
  EXPECT_EQ(l.critical, CriticalResource::Host);
  // 4 x 22 + one batch on the GPU (3); everything in series: 4 x (22 + 3).
  EXPECT_DOUBLE_EQ(l.fullOverlapNs, 91);
  EXPECT_DOUBLE_EQ(l.noOverlapNs, 100);
  EXPECT_DOUBLE_EQ(l.oneDirectionNs, 91);
  EXPECT_EQ(l.zone, LimitZone::AtFullOverlap);
  EXPECT_NE(l.criticalSentence.find("The host is critical: it works 22 ns per batch (CPU stages 20 ns on 2 workers, "
                                    "API calls 2 ns)"),
            std::string::npos)
      << l.criticalSentence;
  // The position sentence agrees: at the bound, and the help it names is the host's.
  EXPECT_NE(l.positionSentence.find("at the full-overlap bound"), std::string::npos) << l.positionSentence;
  EXPECT_NE(l.positionSentence.find("only less host work per batch helps"), std::string::npos) << l.positionSentence;
}

TEST(AnalysisLimits, EngineCriticalRunsNameTheHostsShareToo) {
  Metrics m = stageMetrics(3, 1, 1, 4, 2, 14);
  m.perBatchOccupancy.apiNs = 1;
  setBound(m);
  const Limits l = computeLimits(m);
  EXPECT_EQ(l.critical, CriticalResource::H2DEngine);
  EXPECT_DOUBLE_EQ(l.noOverlapNs, (1 + 3 + 1 + 1) * 4.0);
  EXPECT_NE(l.positionSentence.find("only faster engines or less work help"), std::string::npos) << l.positionSentence;
}

TEST(AnalysisLimits, SimulatedMultiStreamRunSitsAtTheBound) {
  auto run = simtest::runSim(findPreset("multi-stream")->config, simtest::h200());
  const Metrics m = computeMetrics(*run.trace);
  const Limits l = computeLimits(m);
  EXPECT_DOUBLE_EQ(l.fullOverlapNs, m.idealBoundNs);
  EXPECT_LE(l.fullOverlapNs, l.oneDirectionNs);
  EXPECT_LE(l.oneDirectionNs, l.noOverlapNs);
  EXPECT_GT(l.position, 0.9);
  EXPECT_EQ(l.idealFinishNs, m.firstNs + std::int64_t(std::llround(m.idealBoundNs)));
}

}  // namespace
}  // namespace pipescope
