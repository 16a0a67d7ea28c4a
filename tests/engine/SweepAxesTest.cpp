// Grid axes as typed by users, memory and model as grid axes, and the simulator's
// prediction of a measured sweep.
#include <gtest/gtest.h>

#include <stdexcept>

#include "SimulatorTestSupport.h"
#include "sweep/AxisLists.h"
#include "sweep/SweepPrediction.h"
#include "sweep/SweepRunner.h"

namespace pipescope {
namespace {

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SweepAxesTest, ListsParseWithSpacesAndUnits) {
  EXPECT_EQ(parseSizeList("--batch", "512K, 4M,1G"),
            (std::vector<std::uint64_t>{512ull << 10, 4ull << 20, 1ull << 30}));
  EXPECT_EQ(parseCountList("--streams", "1,2, 4 ,8"), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(parseMemoryList("--memory", "pageable,pinned"),
            (std::vector<HostMemory>{HostMemory::Pageable, HostMemory::Pinned}));
  EXPECT_EQ(parseModelList("--model", "light,heavy"), (std::vector<ModelPreset>{ModelPreset::Light, ModelPreset::Heavy}));
  EXPECT_EQ(formatSizeList({512ull << 10, 4ull << 20, 1ull << 30, 1000}), "512K,4M,1G,1000");
  EXPECT_EQ(parseSizeList("--batch", formatSizeList({3ull << 20, 1536})), (std::vector<std::uint64_t>{3ull << 20, 1536}));
}

TEST(SweepAxesTest, BadItemsAreNamedWithAnExample) {
  EXPECT_EQ(errorOf([] { parseSizeList("--batch", "1M,4X"); }), "--batch: '4X' is not a size; use e.g. 512K, 4M, 1G");
  EXPECT_NE(errorOf([] { parseSizeList("--batch", ""); }).find("give at least one value"), std::string::npos);
  EXPECT_NE(errorOf([] { parseSizeList("--batch", "0"); }).find("'0' is zero"), std::string::npos);
  EXPECT_NE(errorOf([] { parseCountList("--streams", "1,"); }).find("empty value in '1,'"), std::string::npos);
  EXPECT_NE(errorOf([] { parseCountList("--streams", "2.5"); }).find("'2.5' is not a whole number"), std::string::npos);
  EXPECT_NE(errorOf([] { parseCountList("--streams", "-1"); }).find("'-1'"), std::string::npos);
  EXPECT_NE(errorOf([] { parseMemoryList("--memory", "pinned,fast"); }).find("'fast' is not a host memory type"),
            std::string::npos);
}

TEST(SweepAxesTest, BatchSizesBecomeSamples) {
  EXPECT_EQ(batchSamplesFor("--batch", {1ull << 20, 4ull << 20}, 512 * 1024), (std::vector<int>{2, 8}));
  const std::string e = errorOf([] { batchSamplesFor("--batch", {1ull << 20, 96 * 1024}, 512 * 1024); });
  EXPECT_NE(e.find("96 KiB is not a whole number of samples of 512 KiB"), std::string::npos) << e;
  EXPECT_NE(e.find("--sample-bytes 32K"), std::string::npos) << e;  // gcd(1M, 96K)
  EXPECT_NE(errorOf([] { batchSamplesFor("--batch", {8ull << 30}, 4); }).find("at most"), std::string::npos);
}

TEST(SweepAxesTest, MemoryAndModelAreGridAxes) {
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  SweepSpec s;
  s.base.sampleBytes = 64 * 1024;
  s.batchSamples = {4, 16};
  s.streams = {1, 2};
  s.memories = {HostMemory::Pageable, HostMemory::Pinned};
  s.models = {ModelPreset::Light, ModelPreset::Heavy};
  s.batches = 6;
  const SweepResult r = runSweep(s, *backend);
  ASSERT_EQ(r.points.size(), 16u);
  EXPECT_TRUE(r.gridVariesMemory());
  EXPECT_TRUE(r.gridVariesModel());
  EXPECT_EQ(r.points[0].config.memory, HostMemory::Pageable);
  EXPECT_EQ(r.points[0].config.model, ModelPreset::Light);
  EXPECT_EQ(r.points[4].config.model, ModelPreset::Heavy);
  EXPECT_EQ(r.points[8].config.memory, HostMemory::Pinned);
  EXPECT_EQ(r.label(r.points[8]), "256 KiB x 1 stream, pinned, light");
  // Pageable copies block the host, so pinned beats pageable at 2 streams, light model.
  EXPECT_GT(r.points[9].samplesPerSec.median, r.points[1].samplesPerSec.median * 1.2);
  // The heavy model is slower than the light one.
  EXPECT_LT(r.points[12].samplesPerSec.median, r.points[8].samplesPerSec.median);
}

TEST(SweepAxesTest, PredictionRunsEveryFinishedPointOnTheSimulator) {
  auto measuredBackend = makeSimulatorBackend(*builtinProfile("h200"));
  SweepSpec s;
  s.base.sampleBytes = 256 * 1024;
  s.batchSamples = {4, 16};
  s.streams = {1, 4};
  s.batches = 10;
  SweepResult r = runSweep(s, *measuredBackend);
  r.points[1].outcome = {RunState::Failed, "out of memory"};  // not predicted

  auto same = makeSimulatorBackend(*builtinProfile("h200"));
  ASSERT_TRUE(predictSweep(r, *same));
  ASSERT_EQ(r.predicted.size(), 3u);
  for (const auto& q : r.predicted) {
    const SweepPointResult* m = r.point(q.index);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(q.config, m->config);
    EXPECT_EQ(q.samplesPerSec, m->samplesPerSec);  // the same model predicts itself exactly
    EXPECT_FALSE(q.trace);
  }
  EXPECT_EQ(r.predictedPoint(1), nullptr);

  auto slower = makeSimulatorBackend(*builtinProfile("pcie4-desktop"));
  ASSERT_TRUE(predictSweep(r, *slower));
  EXPECT_EQ(r.predictedDevice.profile, "pcie4-desktop");
  ASSERT_EQ(r.predicted.size(), 3u);
  for (const auto& q : r.predicted) EXPECT_LT(q.samplesPerSec.median, r.point(q.index)->samplesPerSec.median);

  SweepCancel cancel;
  cancel.cancel();
  EXPECT_FALSE(predictSweep(r, *slower, &cancel));
  EXPECT_TRUE(r.predicted.empty());
}

}  // namespace
}  // namespace pipescope

namespace pipescope {
namespace {

/// The simulator, recording what the sweep asks about buffer reuse.
class RecordingBackend final : public Backend {
 public:
  std::unique_ptr<Backend> sim = makeSimulatorBackend(*builtinProfile("h200"));
  std::vector<bool> keepCalls;
  int runs = 0;
  bool failSecondRun = false;
  std::string_view kind() const override { return "recording"; }
  DeviceInfo describe() const override { return sim->describe(); }
  RunOutcome run(const PipelineConfig& c, Trace& t, RunControl& control) override {
    if (++runs == 2 && failSecondRun) throw std::runtime_error("device lost");
    return sim->run(c, t, control);
  }
  void keepBuffersBetweenRuns(bool keep) override { keepCalls.push_back(keep); }
};

TEST(SweepAxesTest, BuffersAreKeptForTheSweepAndFreedAfterIt) {
  SweepSpec s;
  s.base.sampleBytes = 64 * 1024;
  s.batchSamples = {4, 16};
  s.streams = {1, 2};
  s.batches = 4;
  s.repeats = 1;
  RecordingBackend b;
  runSweep(s, b);
  EXPECT_EQ(b.keepCalls, (std::vector<bool>{true, false}));

  RecordingBackend cancelled;
  SweepCancel cancel;
  SweepCallbacks cb;
  cb.pointFinished = [&](const SweepPointResult&) { cancel.cancel(); };
  runSweep(s, cancelled, cb, &cancel);
  EXPECT_EQ(cancelled.keepCalls, (std::vector<bool>{true, false}));

  RecordingBackend failing;
  failing.failSecondRun = true;
  const SweepResult r = runSweep(s, failing);
  EXPECT_EQ(failing.keepCalls, (std::vector<bool>{true, false}));
  std::size_t failed = 0;
  for (const auto& p : r.points) failed += p.ok() ? 0 : 1;
  EXPECT_EQ(failed, 1u);  // the failing point is kept with its error and the sweep goes on
}

}  // namespace
}  // namespace pipescope
