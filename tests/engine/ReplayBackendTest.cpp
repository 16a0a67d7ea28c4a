// Replaying a recorded run: the same lanes, names, ops and figures; paced by the
// slowdown so the timeline builds up; stoppable.
#include <gtest/gtest.h>

#include <chrono>

#include "analysis/SimulatedRun.h"
#include "config/Presets.h"
#include "runner/EngineThread.h"
#include "runner/ReplayBackend.h"

namespace pipescope {
namespace {

std::shared_ptr<const Trace> recorded(int batches = 16) {
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchCount = batches;
  return simulate(c, *builtinProfile("h200")).trace;
}

std::vector<Op> opsOf(const Trace& t) {
  std::vector<Op> ops;
  t.ops().snapshot().forEach([&](const Op& op) { ops.push_back(op); });
  std::stable_sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.end < b.end; });
  return ops;
}

TEST(ReplayBackend, PlaysBackTheSameRunFlatOut) {
  const auto original = recorded();
  EngineThread engine(makeReplayBackend(original, 0));
  const auto replay = engine.start(original->config());
  engine.wait();
  EXPECT_EQ(replay->outcome().state, RunState::Finished);
  EXPECT_EQ(replay->lanes(), original->lanes());
  EXPECT_EQ(replay->names(), original->names());
  EXPECT_EQ(opsOf(*replay), opsOf(*original));
  EXPECT_EQ(replay->completedBatches(), original->completedBatches());
  EXPECT_DOUBLE_EQ(computeMetrics(*replay).makespanNs, computeMetrics(*original).makespanNs);
  const DeviceInfo d = replay->device();
  EXPECT_EQ(d.name, original->device().name);
  EXPECT_NE(d.note.find("replay"), std::string::npos) << d.note;
}

TEST(ReplayBackend, ARunOverSeveralGpusKeepsItsLanesAndDevices) {
  PipelineConfig c = findPreset("async")->config;
  c.devices = {0, 3};
  c.batchCount = 4;
  c.allreduceBytes = 1 << 20;
  const auto original = simulate(c, *builtinProfile("h200")).trace;
  EngineThread engine(makeReplayBackend(original, 0));
  const auto replay = engine.start(original->config());
  engine.wait();
  EXPECT_EQ(replay->lanes(), original->lanes());
  ASSERT_EQ(replay->deviceCount(), 2u);
  EXPECT_EQ(replay->devices()[1].ordinal, 3);
  EXPECT_EQ(opsOf(*replay), opsOf(*original));
  ASSERT_TRUE(computeMetrics(*replay).multiGpu);
}

TEST(ReplayBackend, SlowMotionPublishesOpsAsTheirRecordedEndPasses) {
  const auto original = recorded();
  const double makespanS = computeMetrics(*original).makespanNs * 1e-9;
  const double slowdown = 0.4 / makespanS;  // the replay takes about 0.4 s
  EngineThread engine(makeReplayBackend(original, slowdown));
  const auto t0 = std::chrono::steady_clock::now();
  const auto replay = engine.start(original->config());
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  const auto midway = replay->ops().publishedCount();
  EXPECT_GT(midway, 0u);
  EXPECT_LT(midway, original->ops().publishedCount());  // still building up
  engine.wait();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(took, 0.3);
  EXPECT_LT(took, 3.0);  // generous: a loaded CI machine
  EXPECT_EQ(replay->ops().publishedCount(), original->ops().publishedCount());
  EXPECT_NE(replay->device().note.find("slower than it ran"), std::string::npos) << replay->device().note;
}

TEST(ReplayBackend, StopEndsTheReplayAndKeepsWhatWasShown) {
  const auto original = recorded(64);
  EngineThread engine(makeReplayBackend(original, 20.0 / (computeMetrics(*original).makespanNs * 1e-9)));
  const auto replay = engine.start(original->config());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  engine.requestStop();
  engine.wait();
  EXPECT_EQ(replay->outcome().state, RunState::Stopped);
  EXPECT_LT(replay->ops().publishedCount(), original->ops().publishedCount());
}

}  // namespace
}  // namespace pipescope
