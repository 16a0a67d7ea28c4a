#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "runner/EngineThread.h"

using namespace pipescope;
using namespace std::chrono_literals;

namespace {

// A backend that records one kernel op per batch, pausing between batches so a
// test can act while it runs. The op's bytes field records the streams setting in
// force, so a test can see where a configuration change took effect.
class PacedBackend : public Backend {
 public:
  explicit PacedBackend(std::chrono::microseconds pause, std::atomic<int>* batchesSeen = nullptr)
      : pause_(pause), batchesSeen_(batchesSeen) {}
  std::string_view kind() const override { return "test"; }
  DeviceInfo describe() const override {
    DeviceInfo d;
    d.backend = "test";
    d.name = "paced test backend";
    return d;
  }
  RunOutcome run(const PipelineConfig& config, Trace& trace, RunControl& control) override {
    PipelineConfig current = config;
    const auto lane = trace.lane(LaneKind::Stream, 0, "stream 0");
    std::int32_t batch = 0;
    for (; current.runsUntilStopped() || batch < current.batchCount; ++batch) {
      if (control.stopRequested()) break;
      if (auto next = control.takePendingConfig()) {
        current = *next;
        trace.addConfigChange(batch, current);
      }
      Op op;
      op.kind = OpKind::Kernel;
      op.batch = batch;
      op.lane = lane;
      op.start = batch * 10;
      op.end = batch * 10 + 5;
      op.bytes = std::uint64_t(current.streams);
      trace.ops().append(op);
      trace.ops().publish();
      trace.setCompletedBatches(batch + 1);
      if (batchesSeen_) batchesSeen_->store(batch + 1);
      std::this_thread::sleep_for(pause_);
    }
    return {};
  }

 private:
  std::chrono::microseconds pause_;
  std::atomic<int>* batchesSeen_;
};

class ThrowingBackend : public PacedBackend {
 public:
  ThrowingBackend() : PacedBackend(0us) {}
  RunOutcome run(const PipelineConfig& config, Trace& trace, RunControl& control) override {
    PipelineConfig c = config;
    c.batchCount = 3;
    PacedBackend::run(c, trace, control);
    throw std::runtime_error("device lost");
  }
};

void waitFor(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!condition() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(condition());
}

}  // namespace

TEST(EngineThread, RunsToCompletion) {
  EngineThread engine(std::make_unique<PacedBackend>(0us));
  PipelineConfig c;
  c.batchCount = 50;
  auto trace = engine.start(c);
  engine.wait();
  EXPECT_EQ(trace->outcome().state, RunState::Finished);
  EXPECT_EQ(trace->ops().snapshot().size(), 50u);
  EXPECT_EQ(trace->completedBatches(), 50);
  EXPECT_EQ(trace->device().name, "paced test backend");
}

TEST(EngineThread, StopReturnsPromptlyAndKeepsEveryRecordedOp) {
  std::atomic<int> seen{0};
  EngineThread engine(std::make_unique<PacedBackend>(200us, &seen));
  PipelineConfig c;
  c.batchCount = 0;  // until stopped
  auto trace = engine.start(c);
  waitFor([&] { return seen.load() >= 20; });
  engine.requestStop();
  engine.wait();
  EXPECT_EQ(trace->outcome().state, RunState::Stopped);
  const TraceView v = trace->ops().snapshot();
  EXPECT_EQ(std::int64_t(v.size()), trace->completedBatches());
  EXPECT_GE(v.size(), 20u);
  for (std::uint64_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i].batch, std::int32_t(i));
}

TEST(EngineThread, ConfigChangeAppliesAtNextBatch) {
  std::atomic<int> seen{0};
  EngineThread engine(std::make_unique<PacedBackend>(300us, &seen));
  PipelineConfig c;
  c.batchCount = 0;
  c.streams = 1;
  auto trace = engine.start(c);
  waitFor([&] { return seen.load() >= 5; });
  PipelineConfig next = c;
  next.streams = 4;
  engine.applyConfig(next);
  waitFor([&] { return trace->configHistory().size() == 2; });
  waitFor([&] { return seen.load() >= trace->configHistory()[1].firstBatch + 3; });
  engine.requestStop();
  engine.wait();
  const auto history = trace->configHistory();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[1].config.streams, 4);
  const TraceView v = trace->ops().snapshot();
  for (std::uint64_t i = 0; i < v.size(); ++i) {
    const bool after = v[i].batch >= history[1].firstBatch;
    ASSERT_EQ(v[i].bytes, after ? 4u : 1u) << "batch " << v[i].batch;
  }
}

TEST(EngineThread, InvalidConfigIsRefusedBeforeAnythingRuns) {
  EngineThread engine(std::make_unique<PacedBackend>(0us));
  PipelineConfig c;
  c.streams = 0;
  try {
    engine.start(c);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].field, "streams");
    EXPECT_NE(std::string(e.what()).find("streams"), std::string::npos);
  }
  EXPECT_FALSE(engine.running());
  EXPECT_EQ(engine.trace(), nullptr);
}

TEST(EngineThread, InvalidLiveChangeIsRefusedAndRunContinues) {
  std::atomic<int> seen{0};
  EngineThread engine(std::make_unique<PacedBackend>(100us, &seen));
  PipelineConfig c;
  c.batchCount = 0;
  auto trace = engine.start(c);
  PipelineConfig bad = c;
  bad.roiFraction = 3;
  EXPECT_THROW(engine.applyConfig(bad), ConfigError);
  waitFor([&] { return seen.load() >= 3; });
  engine.requestStop();
  engine.wait();
  EXPECT_EQ(trace->configHistory().size(), 1u);
}

TEST(EngineThread, SecondStartWhileRunningIsRefused) {
  EngineThread engine(std::make_unique<PacedBackend>(100us));
  PipelineConfig c;
  c.batchCount = 0;
  engine.start(c);
  EXPECT_THROW(engine.start(c), std::logic_error);
  engine.requestStop();
  engine.wait();
  c.batchCount = 2;
  auto second = engine.start(c);  // allowed once the first has ended
  engine.wait();
  EXPECT_EQ(second->ops().snapshot().size(), 2u);
}

TEST(EngineThread, BackendExceptionBecomesFailedOutcomeAndKeepsOps) {
  EngineThread engine(std::make_unique<ThrowingBackend>());
  auto trace = engine.start(PipelineConfig{});
  engine.wait();
  EXPECT_EQ(trace->outcome().state, RunState::Failed);
  EXPECT_NE(trace->outcome().message.find("device lost"), std::string::npos);
  EXPECT_EQ(trace->ops().snapshot().size(), 3u);
}

TEST(EngineThread, DestructorStopsARunningEngine) {
  std::shared_ptr<Trace> trace;
  {
    EngineThread engine(std::make_unique<PacedBackend>(100us));
    PipelineConfig c;
    c.batchCount = 0;
    trace = engine.start(c);
  }
  EXPECT_EQ(trace->outcome().state, RunState::Stopped);
}

// A reader polling beside the engine sees a growing, consistent prefix (TSan suite).
TEST(EngineThread, ConcurrentReaderSeesGrowingPrefix) {
  EngineThread engine(std::make_unique<PacedBackend>(0us));
  PipelineConfig c;
  c.batchCount = 20000;
  auto trace = engine.start(c);
  std::uint64_t last = 0;
  bool ok = true;
  while (engine.running()) {
    const TraceView v = trace->ops().snapshot();
    if (v.size() < last) ok = false;
    for (std::uint64_t i = last; i < v.size(); ++i)
      if (v[i].batch != std::int32_t(i)) ok = false;
    last = v.size();
    (void)trace->lanes();
    (void)trace->outcome();
  }
  engine.wait();
  EXPECT_TRUE(ok);
  EXPECT_EQ(trace->ops().snapshot().size(), 20000u);
}
