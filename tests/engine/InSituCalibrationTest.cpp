// The calibration steps that run the backend itself (host overhead, CPU stages, GEMM calls),
// checked on the CPU: a simulator with known parameters plays the GPU, and the
// fits must recover them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/CpuHandoffFit.h"
#include "sim/CpuStageFit.h"
#include "sim/DeviceProfile.h"
#include "sim/GemmCallFit.h"
#include "sim/HostOverheadFit.h"
#include "sim/InPipelineFits.h"
#include "sim/PipelineCallTimes.h"
#include "sim/SimulatorBackend.h"
#include "sim/StageCosts.h"

namespace pipescope {
namespace {

DeviceProfile h200() { return *builtinProfile("h200"); }

TEST(HostOverheadFit, RecoversKnownPerOpAndPerBatchCosts) {
  DeviceProfile truth = h200();
  truth.hostOpOverheadNs = 3000;
  truth.hostBatchOverheadNs = 20000;
  auto measured = makeSimulatorBackend(truth);
  const HostOverheadResult r = fitHostOverhead(*measured, h200(), 1);
  // The per-op cost is read from the trace's gaps between calls: exact on a simulator.
  EXPECT_NEAR(r.perOpNs, 3000, 1);
  EXPECT_NEAR(r.perBatchNs, 20000, 1000);
  ASSERT_EQ(r.measuredNs.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_NEAR(r.predictedNs[i] / r.measuredNs[i], 1.0, 0.01);
}

TEST(HostOverheadFit, TakesTheCallCostsThePipelinePaysFromItsTrace) {
  DeviceProfile truth = h200();
  truth.hostBatchOverheadNs = 4000;
  truth.hostOpOverheadNs = 600;
  DeviceProfile bare = h200();  // the bare calls measured 2.5x what the pipeline pays
  bare.kernelLaunchNs *= 2.5;
  bare.memcpyAsyncCallNs *= 2.5;
  bare.eventRecordNs *= 2.5;
  auto measured = makeSimulatorBackend(truth);
  std::vector<std::string> lines;
  const HostOverheadResult r = fitHostOverhead(*measured, bare, 1, [&](const std::string& l) { lines.push_back(l); });
  EXPECT_NEAR(r.kernelLaunchNs, truth.kernelLaunchNs, 1);
  EXPECT_NEAR(r.memcpyAsyncCallNs, truth.memcpyAsyncCallNs, 1);
  EXPECT_NEAR(r.eventRecordNs, truth.eventRecordNs, 1);
  EXPECT_NEAR(r.perOpNs, 600, 1);
  EXPECT_NEAR(r.perBatchNs, 4000, 800);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_NEAR(r.predictedNs[i] / r.measuredNs[i], 1.0, 0.02);
  DeviceProfile fitted = bare;
  applyHostOverhead(fitted, r);
  EXPECT_EQ(fitted.kernelLaunchNs, r.kernelLaunchNs);
  EXPECT_EQ(fitted.memcpyAsyncCallNs, r.memcpyAsyncCallNs);
  EXPECT_EQ(fitted.eventRecordNs, r.eventRecordNs);
  EXPECT_EQ(fitted.hostOpOverheadNs, r.perOpNs);
  EXPECT_EQ(fitted.hostBatchOverheadNs, r.perBatchNs);
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("host overhead of the measuring backend: 600 ns per GPU op (between calls"),
            std::string::npos)
      << lines.back();
}

TEST(HostOverheadFit, ReadsWhatRetiringABatchCostsFromBothRunsTraces) {
  DeviceProfile truth = h200();
  truth.hostOpOverheadNs = 600;
  truth.syncReturnNs = 2000;
  truth.hostPendingOpNs = 50;
  truth.hostBatchOverheadNs = 1500;
  auto measured = makeSimulatorBackend(truth);
  std::vector<std::string> lines;
  const HostOverheadResult r = fitHostOverhead(*measured, h200(), 1, [&](const std::string& l) { lines.push_back(l); });
  // The simulator's own traces: the figures come back as they went in.
  EXPECT_NEAR(r.syncReturnNs, 2000, 1);
  EXPECT_NEAR(r.perHeldOpNs, 50, 2.5);
  EXPECT_NEAR(r.perBatchNs, 1500, 75);
  ASSERT_EQ(r.heldOps.size(), 2u);
  // One stream holds its 2 slots' ops, 8 streams their 16 slots' 18 ops each: far more.
  EXPECT_GT(r.heldOps[1], 10 * r.heldOps[0]);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_NEAR(r.predictedNs[i] / r.measuredNs[i], 1.0, 0.02);
  DeviceProfile fitted = h200();
  applyHostOverhead(fitted, r);
  EXPECT_EQ(fitted.hostPendingOpNs, r.perHeldOpNs);
  EXPECT_EQ(fitted.syncReturnNs, r.syncReturnNs);
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("retiring a batch (the traces): a sync that finds it done 2.0 us"), std::string::npos)
      << lines.back();
}

TEST(HostOverheadFit, RetiringABatchCostsTheSyncsReturnAndEachHeldOp) {
  // Async, 2 streams (4 host slots), 64 KiB batches: the host retires batch b once
  // batches b..b+3 are issued, so the backend then holds 4 batches' GPU ops.
  PipelineConfig c = hostOverheadConfigs()[0];
  c.streams = 2;
  DeviceProfile p = h200();
  p.syncReturnNs = 3000;
  p.hostPendingOpNs = 100;
  p.hostBatchOverheadNs = 700;
  auto sim = makeSimulatorBackend(p);
  Trace t;
  RunControl rc;
  ASSERT_EQ(sim->run(c, t, rc).state, RunState::Finished);
  t.ops().publish();
  int gpuOpsOfBatch0 = 0;
  t.ops().snapshot().forEach([&](const Op& op) {
    if (op.batch == 0 && (op.kind == OpKind::Kernel || op.kind == OpKind::CopyH2D || op.kind == OpKind::CopyD2H))
      ++gpuOpsOfBatch0;
  });
  ASSERT_GT(gpuOpsOfBatch0, 0);
  const PipelineCallTimes calls = readPipelineCallTimes(t);
  // Every wait costs at least the sync's return; the tiny batches are done by then.
  EXPECT_DOUBLE_EQ(calls.syncReturnNs, 3000);
  EXPECT_NEAR(calls.retireGapNs, 700 + 100.0 * c.hostSlots() * gpuOpsOfBatch0, 1);
}

TEST(HostOverheadFit, TheOverheadLengthensSmallBatchesInTheSimulator) {
  const PipelineConfig c = hostOverheadConfigs()[0];
  auto lastEnd = [&](const DeviceProfile& p) {
    auto sim = makeSimulatorBackend(p);
    Trace t;
    RunControl rc;
    EXPECT_EQ(sim->run(c, t, rc).state, RunState::Finished);
    t.ops().publish();
    std::int64_t end = 0;
    t.ops().snapshot().forEach([&](const Op& op) { end = std::max(end, op.end); });
    return double(end);
  };
  DeviceProfile p = h200();
  const double plain = lastEnd(p);
  p.hostBatchOverheadNs = 10000;
  // 300 batches on 1 stream: the host reaches each next batch 10 us later.
  EXPECT_NEAR(lastEnd(p) - plain, 300 * 10000.0, 300 * 10000.0 * 0.05);
}

TEST(CpuStageFit, RecoversCostAndSpeedupCurve) {
  DeviceProfile truth = h200();
  truth.cpuNsPerOp = 0.4;
  truth.cpuPreprocessNsPerOp = 0.5;  // each stage its own cost per round
  truth.cpuPostprocessNsPerOp = 0.2;
  truth.cpuPreprocessNsPerByte = 0.3;
  truth.cpuPostprocessNsPerByte = 0.1;
  truth.cpuWorkerSpeedup = {{1, 1.0}, {2, 1.9}, {4, 2.4}, {8, 2.6}};
  auto measured = makeSimulatorBackend(truth);
  const CpuStageResult r = fitCpuStages(*measured, 1);
  EXPECT_NEAR(r.preprocessNsPerOp, 0.5, 0.5 * 0.02);
  EXPECT_NEAR(r.postprocessNsPerOp, 0.2, 0.2 * 0.02);
  EXPECT_NEAR(r.nsPerOp, 0.35, 0.35 * 0.02);
  EXPECT_NEAR(r.preprocessNsPerByte, 0.3, 0.3 * 0.02);
  EXPECT_NEAR(r.postprocessNsPerByte, 0.1, 0.1 * 0.02);
  ASSERT_EQ(r.speedup.size(), 4u);
  const double expected[] = {1.0, 1.9, 2.4, 2.6};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(r.speedup[i].speedup, expected[i], expected[i] * 0.03) << i;
}

TEST(CpuStageFit, RecoversEachStagesCostByRoundsWhereARoundCostsMoreAbove4) {
  DeviceProfile truth = h200();
  // Preprocessing: 0.3 per round, then 0.5 above 4. Postprocessing: its first round
  // costs 0.05, the next ones 0.175 and 0.325 above 4.
  truth.cpuPreprocessRoundsCurve = {{0, 0.8}, {1, 1.1}, {2, 1.4}, {4, 2.0}, {8, 4.0}};
  truth.cpuPostprocessRoundsCurve = {{0, 0.5}, {1, 0.55}, {2, 0.725}, {4, 1.075}, {8, 2.375}};
  truth.cpuWorkerSpeedup = {{1, 1.0}, {2, 1.8}, {4, 3.0}, {8, 4.0}};
  auto measured = makeSimulatorBackend(truth);
  const CpuStageResult r = fitCpuStages(*measured, 1);
  ASSERT_EQ(r.preprocessRoundsCurve.size(), 5u);
  ASSERT_EQ(r.postprocessRoundsCurve.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r.preprocessRoundsCurve[i].rounds, truth.cpuPreprocessRoundsCurve[i].rounds);
    EXPECT_NEAR(r.preprocessRoundsCurve[i].nsPerByte, truth.cpuPreprocessRoundsCurve[i].nsPerByte,
                truth.cpuPreprocessRoundsCurve[i].nsPerByte * 0.02)
        << i;
    EXPECT_NEAR(r.postprocessRoundsCurve[i].nsPerByte, truth.cpuPostprocessRoundsCurve[i].nsPerByte,
                truth.cpuPostprocessRoundsCurve[i].nsPerByte * 0.02)
        << i;
  }
  // The fitted profile predicts a 6-round stage as the truth does (a line through 0
  // and 4 rounds would give 0.8 + 6 x 0.3 = 2.6 instead of 3.0 ns/B).
  DeviceProfile fitted = h200();
  fitted.cpuPreprocessRoundsCurve = r.preprocessRoundsCurve;
  EXPECT_NEAR(cpuStageNs(fitted, 1 << 20, 6, 1, true), cpuStageNs(truth, 1 << 20, 6, 1, true),
              cpuStageNs(truth, 1 << 20, 6, 1, true) * 0.02);
  EXPECT_NEAR(cpuStageNs(truth, 1 << 20, 6, 1, true), 3.0 * (1 << 20), 1.0);
  // And a 1-round postprocessing stage as the truth does: 0.55 ns/B, where a line
  // through 0 and 4 rounds gives 0.5 + 0.575 / 4 = 0.64.
  fitted.cpuPostprocessRoundsCurve = r.postprocessRoundsCurve;
  EXPECT_NEAR(cpuStageNs(fitted, 1 << 20, 1, 1, false), 0.55 * (1 << 20), 0.55 * (1 << 20) * 0.02);
}

/// Plays a GPU machine whose host has one slow spell: runs `from`..`to` (counted from
/// 0) run on the `slow` profile, the others on `normal`; counts the runs.
class SlowSpellBackend : public Backend {
 public:
  SlowSpellBackend(const DeviceProfile& normal, const DeviceProfile& slow, int from, int to)
      : normal_(normal), slow_(slow), from_(from), to_(to) {}
  std::string_view kind() const override { return "slow-spell"; }
  DeviceInfo describe() const override { return makeSimulatorBackend(normal_)->describe(); }
  RunOutcome run(const PipelineConfig& config, Trace& trace, RunControl& control) override {
    const bool slow = runs_ >= from_ && runs_ <= to_;
    ++runs_;
    return makeSimulatorBackend(slow ? slow_ : normal_)->run(config, trace, control);
  }
  int runs() const { return runs_; }

 private:
  DeviceProfile normal_, slow_;
  int from_, to_, runs_ = 0;
};

/// `p` with CPU stages three times as costly.
DeviceProfile cpuThreeTimesSlower(DeviceProfile p) {
  p.cpuPreprocessNsPerByte *= 3;
  p.cpuPostprocessNsPerByte *= 3;
  p.cpuPreprocessNsPerOp *= 3;
  p.cpuPostprocessNsPerOp *= 3;
  return p;
}

/// `p` with every host cost doubled (API calls, the backend's overheads, CPU stages, hand-off).
DeviceProfile hostTwiceSlower(DeviceProfile p) {
  for (double DeviceProfile::*f :
       {&DeviceProfile::kernelLaunchNs, &DeviceProfile::memcpyAsyncCallNs, &DeviceProfile::eventRecordNs,
        &DeviceProfile::hostOpOverheadNs, &DeviceProfile::hostBatchOverheadNs, &DeviceProfile::hostPendingOpNs,
        &DeviceProfile::syncReturnNs, &DeviceProfile::lightGemmCallNs, &DeviceProfile::heavyGemmCallNs})
    p.*f *= 2;
  for (auto& c : p.cpuPreprocessRoundsCurve) c.nsPerByte *= 2;
  for (auto& c : p.cpuPostprocessRoundsCurve) c.nsPerByte *= 2;
  for (auto& h : p.cpuStageHandoff) h.ns *= 2;
  return p;
}

TEST(CpuStageFit, ASlowSpellOfTheHostDoesNotBendTheSpeedupCurve) {
  DeviceProfile truth = h200();
  truth.cpuPreprocessNsPerOp = 0.5;
  truth.cpuPostprocessNsPerOp = 0.2;
  truth.cpuPreprocessNsPerByte = 0.3;
  truth.cpuPostprocessNsPerByte = 0.1;
  truth.cpuWorkerSpeedup = {{1, 1.0}, {2, 1.9}, {4, 3.4}, {8, 5.0}};
  // Seven configurations (three one-worker cost runs, then 1, 2, 4 and 8 workers), five
  // repetitions: a spell of five runs. Measured one configuration after another it
  // would be all five 4-worker runs (runs 25-29); interleaved it is one run of each.
  SlowSpellBackend measured(truth, cpuThreeTimesSlower(truth), 25, 29);
  const CpuStageResult r = fitCpuStages(measured, 5);
  ASSERT_EQ(r.speedup.size(), 4u);
  const double expected[] = {1.0, 1.9, 3.4, 5.0};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(r.speedup[i].speedup, expected[i], expected[i] * 0.03) << i;
  EXPECT_NEAR(r.preprocessNsPerOp, 0.5, 0.5 * 0.02);
}

TEST(DeviceProfileFields, OverheadsAndBlockingCurvesRoundTripAndAreUsed) {
  DeviceProfile p = h200();
  p.hostOpOverheadNs = 1234;
  p.hostBatchOverheadNs = 5678;
  p.hostPendingOpNs = 42;
  p.syncReturnNs = 2100;
  p.h2dPinnedBlockingCurve = {{1 << 20, 30.0}, {32 << 20, 45.0}};
  p.d2hPinnedBlockingCurve = {{1 << 20, 31.0}, {32 << 20, 46.0}};
  p.cpuPreprocessNsPerOp = 0.32;
  p.cpuPostprocessNsPerOp = 0.17;
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
  EXPECT_DOUBLE_EQ(copyGBps(p, {.dir = CopyDirection::H2D, .blocking = true}, 32 << 20), 45.0);
  EXPECT_DOUBLE_EQ(copyGBps(p, {.dir = CopyDirection::D2H, .blocking = true}, 1 << 20), 31.0);
  // Async copies and pageable ones keep their own curves.
  EXPECT_DOUBLE_EQ(copyGBps(p, {.dir = CopyDirection::H2D}, 32 << 20),
                   copyGBps(h200(), {.dir = CopyDirection::H2D}, 32 << 20));
  EXPECT_DOUBLE_EQ(copyGBps(p, {.dir = CopyDirection::H2D, .pageable = true, .blocking = true}, 32 << 20),
                   copyGBps(h200(), {.dir = CopyDirection::H2D, .pageable = true}, 32 << 20));
  auto j = profileToJson(p);
  j["hostOpOverheadNs"] = -1;
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
  j = profileToJson(p);
  j["cpuPreprocessNsPerOp"] = -0.1;
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

TEST(DeviceProfileFields, RotatingPageableAndCpuWrittenCurvesRoundTrip) {
  DeviceProfile p = h200();
  p.h2dPageableCurve = {{1 << 20, 13.0}};
  p.d2hPageableCurve = {{1 << 20, 9.0}};
  p.h2dPageableRotatingCurve = {{1 << 20, 7.0}};
  p.d2hPageableRotatingCurve = {{1 << 20, 5.0}};
  p.h2dPinnedCpuWrittenCurve = {{1 << 20, 20.0}};
  p.mappedReadCpuWrittenCurve = {{1 << 20, 9.0}};
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
  EXPECT_DOUBLE_EQ(copyGBps(p, {.dir = CopyDirection::H2D, .pageable = true, .rotating = true}, 1 << 20), 7.0);
  EXPECT_DOUBLE_EQ(copyGBps(p, {.dir = CopyDirection::D2H, .pageable = true, .rotating = true}, 1 << 20), 5.0);
  EXPECT_DOUBLE_EQ(copyGBps(p, {.dir = CopyDirection::H2D, .pageable = true}, 1 << 20), 13.0);
  // Pinned copies are DMA, with no staging memcpy through the CPU: one curve.
  EXPECT_DOUBLE_EQ(copyGBps(p, {.dir = CopyDirection::H2D, .rotating = true}, 1 << 20),
                   copyGBps(p, {.dir = CopyDirection::H2D}, 1 << 20));
  // A profile without the rotating curves (older calibrations) keeps its one curve.
  EXPECT_DOUBLE_EQ(copyGBps(h200(), {.dir = CopyDirection::H2D, .pageable = true, .rotating = true}, 1 << 20),
                   copyGBps(h200(), {.dir = CopyDirection::H2D, .pageable = true}, 1 << 20));

  PipelineConfig c;
  c.mode = TransferMode::Blocking;  // one host slot, copied again every batch
  EXPECT_FALSE(copiesRotateHostBuffers(c));
  c.mode = TransferMode::Async;  // two slots per stream
  c.streams = 1;
  EXPECT_TRUE(copiesRotateHostBuffers(c));

  auto j = profileToJson(p);
  j["h2dPageableRotatingCurve"] = nlohmann::json::array({{{"bytes", 0}, {"gbps", 7.0}}});
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

TEST(DeviceProfileFields, PageableStagingCurvesRoundTripAndOlderProfilesLoadWithout) {
  DeviceProfile p = h200();
  p.h2dPageableStagingCurve = {{64 << 10, 10.0}, {1 << 20, 7.5}};
  p.d2hPageableStagingCurve = {{4 << 10, 2.0}, {1 << 20, 9.0}};
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
  EXPECT_TRUE(stagesPageableCopiesOnHost(p, CopyDirection::H2D));
  EXPECT_DOUBLE_EQ(pageableStagingNs(p, CopyDirection::D2H, 1 << 20), double(1 << 20) / 9.0);
  // Below the first point the rate holds flat: 2 GB/s for 2 KiB.
  EXPECT_DOUBLE_EQ(pageableStagingNs(p, CopyDirection::D2H, 2048), 1024.0);
  auto j = profileToJson(h200());
  EXPECT_FALSE(j.contains("h2dPageableStagingCurve"));
  const DeviceProfile old = profileFromJson(j);
  EXPECT_FALSE(stagesPageableCopiesOnHost(old, CopyDirection::H2D));
  EXPECT_FALSE(stagesPageableCopiesOnHost(old, CopyDirection::D2H));
  j = profileToJson(p);
  j["d2hPageableStagingCurve"] = nlohmann::json::array({{{"bytes", 4096}, {"gbps", -1.0}}});
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

/// The simulator with its cublasSgemm calls recorded under another name: a backend
/// whose traces hold no such calls.
class UnnamedGemmCallsBackend : public Backend {
 public:
  explicit UnnamedGemmCallsBackend(const DeviceProfile& p) : sim_(makeSimulatorBackend(p)) {}
  std::string_view kind() const override { return "unnamed-gemm-calls"; }
  DeviceInfo describe() const override { return sim_->describe(); }
  RunOutcome run(const PipelineConfig& config, Trace& trace, RunControl& control) override {
    Trace inner;
    const RunOutcome outcome = sim_->run(config, inner, control);
    inner.ops().publish();
    trace.setDevices(inner.devices());
    std::vector<std::uint16_t> lanes, names;
    for (const Lane& l : inner.lanes()) lanes.push_back(trace.lane(l.kind, l.index, l.device, l.name));
    const std::vector<std::string> innerNames = inner.names();
    for (std::size_t i = 0; i < innerNames.size(); ++i)
      names.push_back(i == 0 ? 0 : trace.internName(innerNames[i] == "cublasSgemm" ? "gemm" : innerNames[i]));
    inner.ops().snapshot().forEach([&](const Op& op) {
      Op copy = op;
      copy.lane = lanes[op.lane];
      copy.name = names[op.name];
      trace.ops().append(copy);
    });
    trace.setCompletedBatches(inner.completedBatches());
    return outcome;
  }

 private:
  std::unique_ptr<Backend> sim_;
};

TEST(GemmCallFit, SolvesTheCallCostFromTheRunsLengthWhereTheTracesHoldNoCalls) {
  DeviceProfile truth = h200();
  truth.lightGemmCallNs = 13300;
  truth.heavyGemmCallNs = 24000;
  UnnamedGemmCallsBackend measured(truth);
  const GemmCallResult r = fitGemmCalls(measured, h200(), 1);
  EXPECT_EQ(r.lightTracedNs, 0);
  EXPECT_EQ(r.heavyTracedNs, 0);
  EXPECT_EQ(r.lightCallNs, r.lightSolvedNs);
  EXPECT_EQ(r.heavyCallNs, r.heavySolvedNs);
  EXPECT_NEAR(r.lightCallNs, 13300, 13300 * 0.03);
  EXPECT_NEAR(r.heavyCallNs, 24000, 24000 * 0.03);
}

TEST(GemmCallFit, RecoversTheCallCostsThePipelinePays) {
  DeviceProfile truth = h200();
  truth.lightGemmCallNs = 13300;  // an H200 host's pipeline, against 9200 in the loop
  truth.heavyGemmCallNs = 24000;
  DeviceProfile loop = h200();
  loop.lightGemmCallNs = 9200;
  loop.heavyGemmCallNs = 17400;
  auto measured = makeSimulatorBackend(truth);
  const GemmCallResult r = fitGemmCalls(*measured, loop, 1);
  EXPECT_NEAR(r.lightCallNs, 13300, 13300 * 0.03);
  EXPECT_NEAR(r.heavyCallNs, 24000, 24000 * 0.03);
  // Read from the runs' traces, and solved from their length: on a simulator both agree.
  EXPECT_DOUBLE_EQ(r.lightCallNs, r.lightTracedNs);
  EXPECT_DOUBLE_EQ(r.heavyCallNs, r.heavyTracedNs);
  EXPECT_NEAR(r.lightSolvedNs, 13300, 13300 * 0.03);
  EXPECT_NEAR(r.heavySolvedNs, 24000, 24000 * 0.03);
  ASSERT_EQ(r.measuredNs.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_NEAR(r.predictedNs[i] / r.measuredNs[i], 1.0, 0.01);
  applyGemmCalls(loop, r);
  EXPECT_EQ(loop.lightGemmCallNs, r.lightCallNs);
  EXPECT_EQ(loop.heavyGemmCallNs, r.heavyCallNs);
  // The fitting runs are host-bound on their GEMM calls: each call costs its run.
  for (const PipelineConfig& c : gemmCallConfigs()) {
    EXPECT_EQ(c.streams, 1);
    EXPECT_NE(c.model, ModelPreset::Custom);
  }
}

TEST(CpuHandoffFit, RecoversTheSubmitThreadsTimeAroundEachStage) {
  DeviceProfile truth = h200();
  truth.cpuPreprocessRoundsCurve = {{0, 0.5}, {4, 1.7}};
  truth.cpuPostprocessRoundsCurve = {{0, 0.3}, {4, 1.0}};
  truth.cpuWorkerSpeedup = {{1, 1.0}, {8, 4.0}};
  truth.cpuStageHandoff = {{1, 25000}, {8, 45000}};
  DeviceProfile none = truth;
  none.cpuStageHandoff.clear();
  auto measured = makeSimulatorBackend(truth);
  const CpuHandoffResult r = fitCpuHandoff(*measured, none, 1);
  ASSERT_EQ(r.handoff.size(), 2u);
  EXPECT_EQ(r.handoff[0].workers, 1);
  EXPECT_EQ(r.handoff[1].workers, 8);
  EXPECT_NEAR(r.handoff[0].ns, 25000, 25000 * 0.03);
  EXPECT_NEAR(r.handoff[1].ns, 45000, 45000 * 0.03);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_NEAR(r.predictedNs[i] / r.measuredNs[i], 1.0, 0.01);
  // A host with no hand-off cost fits none.
  auto free = makeSimulatorBackend(none);
  for (const WorkerHandoff& h : fitCpuHandoff(*free, none, 1).handoff) EXPECT_LT(h.ns, 100);
}

TEST(CpuHandoffFit, LeavesTheFirstCallAfterAStageToItsOwnTerm) {
  // calibrate measures callAfterCpuStage before the hand-off fit; the fit simulates
  // with it, so it recovers the hand-off alone instead of counting that call twice.
  DeviceProfile truth = h200();
  truth.cpuPreprocessRoundsCurve = {{0, 0.5}, {4, 1.7}};
  truth.cpuPostprocessRoundsCurve = {{0, 0.3}, {4, 1.0}};
  truth.cpuWorkerSpeedup = {{1, 1.0}, {8, 4.0}};
  truth.cpuStageHandoff = {{1, 25000}, {8, 45000}};
  truth.callAfterCpuStage = {{262144, 10000}};
  DeviceProfile start = truth;
  start.cpuStageHandoff.clear();
  auto measured = makeSimulatorBackend(truth);
  const CpuHandoffResult r = fitCpuHandoff(*measured, start, 1);
  ASSERT_EQ(r.handoff.size(), 2u);
  EXPECT_NEAR(r.handoff[0].ns, 25000, 25000 * 0.03);
  EXPECT_NEAR(r.handoff[1].ns, 45000, 45000 * 0.03);
  // Started without the term, the fit takes it into the hand-off: the fitting runs'
  // batches pre- and postprocess, and only the call after the second stage pays it,
  // so each stage's hand-off grows by about half of it.
  start.callAfterCpuStage.clear();
  const CpuHandoffResult absorbed = fitCpuHandoff(*measured, start, 1);
  ASSERT_EQ(absorbed.handoff.size(), 2u);
  EXPECT_NEAR(absorbed.handoff[0].ns, 30000, 30000 * 0.03);
  EXPECT_NEAR(absorbed.handoff[1].ns, 50000, 50000 * 0.03);
}

DeviceProfile hostTruth() {
  DeviceProfile t = h200();
  t.hostOpOverheadNs = 1500;
  t.hostBatchOverheadNs = 4000;
  t.lightGemmCallNs = 12000;
  t.heavyGemmCallNs = 22000;
  t.cpuPreprocessRoundsCurve = {{0, 0.5}, {4, 1.7}, {8, 3.3}};
  t.cpuPostprocessRoundsCurve = {{0, 0.3}, {4, 1.0}, {8, 2.0}};
  t.cpuWorkerSpeedup = {{1, 1.0}, {2, 1.8}, {4, 3.0}, {8, 4.5}};
  t.cpuStageHandoff = {{1, 20000}, {8, 30000}};
  return t;
}

TEST(InPipelineFits, ThreeRoundsOutvoteAHostThatWasSlowForOneOfThem) {
  const DeviceProfile truth = hostTruth();
  DeviceProfile start = truth;  // what the micro-benchmarks measured; the fits overwrite the rest
  start.hostOpOverheadNs = start.hostBatchOverheadNs = 0;
  start.lightGemmCallNs = start.heavyGemmCallNs = 0;
  start.cpuStageHandoff.clear();
  SlowSpellBackend counting(truth, truth, -1, -1);
  DeviceProfile once = start;
  fitInPipeline(counting, once);
  const int perRound = counting.runs();
  ASSERT_GT(perRound, 10);

  // The second of three rounds runs on a host twice as slow.
  SlowSpellBackend measured(truth, hostTwiceSlower(truth), perRound, 2 * perRound - 1);
  const DeviceProfile p = fitInPipelineRepeated(measured, start, 3);
  EXPECT_EQ(measured.runs(), 3 * perRound);
  EXPECT_NEAR(p.lightGemmCallNs, truth.lightGemmCallNs, truth.lightGemmCallNs * 0.05);
  EXPECT_NEAR(p.heavyGemmCallNs, truth.heavyGemmCallNs, truth.heavyGemmCallNs * 0.05);
  EXPECT_NEAR(p.hostBatchOverheadNs, truth.hostBatchOverheadNs, truth.hostBatchOverheadNs * 0.1);
  ASSERT_EQ(p.cpuPreprocessRoundsCurve.size(), 5u);  // the fit's points: 0, 1, 2, 4 and 8 rounds
  EXPECT_EQ(p.cpuPreprocessRoundsCurve[4].rounds, 8);
  EXPECT_NEAR(p.cpuPreprocessRoundsCurve[4].nsPerByte, 3.3, 3.3 * 0.03);
  ASSERT_EQ(p.cpuStageHandoff.size(), 2u);
  EXPECT_NEAR(p.cpuStageHandoff[0].ns, 20000, 20000 * 0.05);
  EXPECT_NEAR(p.cpuStageHandoff[1].ns, 30000, 30000 * 0.05);

  // One round alone, on the slow host, fits the slow costs.
  SlowSpellBackend slow(truth, hostTwiceSlower(truth), 0, 1 << 30);
  DeviceProfile single = start;
  fitInPipeline(slow, single);
  EXPECT_GT(single.lightGemmCallNs, truth.lightGemmCallNs * 1.5);
}

TEST(InPipelineFits, TheMedianIsTakenFieldByFieldAndCurvesPointByPoint) {
  DeviceProfile a = hostTruth(), b = hostTruth(), c = hostTruth();
  a.hostOpOverheadNs = 100, b.hostOpOverheadNs = 300, c.hostOpOverheadNs = 5000;
  a.kernelLaunchNs = 5000, b.kernelLaunchNs = 9500, c.kernelLaunchNs = 5200;
  a.cpuWorkerSpeedup[1].speedup = 1.2, b.cpuWorkerSpeedup[1].speedup = 1.9, c.cpuWorkerSpeedup[1].speedup = 1.7;
  a.cpuStageHandoff[1].ns = 10, b.cpuStageHandoff[1].ns = 20, c.cpuStageHandoff[1].ns = 30;
  a.name = "first";
  const DeviceProfile m = medianOfFits({a, b, c});
  EXPECT_EQ(m.hostOpOverheadNs, 300);
  EXPECT_EQ(m.kernelLaunchNs, 5200);
  EXPECT_EQ(m.cpuWorkerSpeedup[1].speedup, 1.7);
  EXPECT_EQ(m.cpuStageHandoff[1].ns, 20);
  EXPECT_EQ(m.name, "first");  // fields the fits do not touch come from the first
  // Curves measured at different points cannot be combined point by point: the first's.
  c.cpuStageHandoff = {{1, 5}};
  EXPECT_EQ(medianOfFits({a, b, c}).cpuStageHandoff, a.cpuStageHandoff);
  EXPECT_THROW(medianOfFits({}), std::invalid_argument);
}

TEST(DeviceProfileFields, CpuRoundsAndHandoffCurvesRoundTripAndAreChecked) {
  DeviceProfile p = h200();
  p.cpuPreprocessRoundsCurve = {{0, 0.8}, {4, 2.0}, {8, 4.0}};
  p.cpuPostprocessRoundsCurve = {{0, 0.5}, {4, 1.2}};
  p.cpuStageHandoff = {{1, 25000}, {8, 45000}};
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
  auto j = profileToJson(p);
  j["cpuPreprocessRoundsCurve"] =
      nlohmann::json::array({{{"rounds", 4}, {"nsPerByte", 1.0}}, {{"rounds", 0}, {"nsPerByte", 0.5}}});
  try {
    profileFromJson(j);
    FAIL() << "unsorted rounds must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cpuPreprocessRoundsCurve[1].rounds"), std::string::npos) << e.what();
  }
  j = profileToJson(p);
  j["cpuPostprocessRoundsCurve"] = nlohmann::json::array({{{"rounds", 0}, {"nsPerByte", 0.0}}});
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
  j["cpuPostprocessRoundsCurve"] = nlohmann::json::array({{{"rounds", -1}, {"nsPerByte", 1.0}}});
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

TEST(DeviceProfileFields, GemmManagedMappedAndCpuFieldsRoundTripAndAreChecked) {
  DeviceProfile p = h200();
  p.lightGemmCurve = {{128, 3300}, {8192, 5000}};
  p.heavyGemmCurve = {{16, 9500}, {8192, 76600}};
  p.lightGemmCallNs = 15000;
  p.heavyGemmCallNs = 30000;
  p.mappedWriteGBps = 40;
  p.managedGpuFaultCurve = {{65536, 0.8}, {1 << 26, 7.5}};
  p.managedCpuFaultCurve = {{65536, 0.2}};
  p.prefetchToDeviceCurve = {{65536, 1.5}};
  p.prefetchToHostCurve = {{65536, 0.7}};
  p.cpuPreprocessNsPerByte = 0.31;
  p.cpuPostprocessNsPerByte = 0.07;
  p.fitConfigurations = "calibration runs";
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
  auto j = profileToJson(p);
  j["heavyGemmCurve"] = nlohmann::json::array({{{"rows", 64}, {"ns", 1.0}}, {{"rows", 16}, {"ns", 2.0}}});
  try {
    profileFromJson(j);
    FAIL() << "unsorted rows must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("heavyGemmCurve[1].rows"), std::string::npos) << e.what();
  }
  j = profileToJson(p);
  j["lightGemmCurve"] = nlohmann::json::array({{{"rows", 64}, {"ns", -1.0}}});
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

}  // namespace
}  // namespace pipescope
