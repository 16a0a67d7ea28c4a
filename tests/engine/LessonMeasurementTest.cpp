// A lesson on a measured backend: repeated runs after a warm-up, claims judged on the
// medians with the spread, predictions beside the measured runs, legacy runs kept on
// the simulator. The "GPU" here is the simulator with every run's times scaled by a
// known factor, so the run-to-run spread is exact and the test needs no GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

#include "analysis/LessonReport.h"
#include "analysis/LessonRunner.h"
#include "analysis/SimulatedRun.h"
#include "sim/SimulatorBackend.h"

namespace pipescope {
namespace {

/// What a NoisyGpu did; it outlives the backend, which the lesson runner destroys
/// before it returns.
struct NoisyGpuLog {
  int calls = 0;
  bool kept = false;
};

class NoisyGpu final : public Backend {
 public:
  NoisyGpu(std::vector<double> factors, std::shared_ptr<NoisyGpuLog> log)
      : factors_(std::move(factors)), log_(std::move(log)) {}
  std::string_view kind() const override { return "cuda"; }
  DeviceInfo describe() const override {
    DeviceInfo d;
    d.backend = "cuda";
    d.name = "NVIDIA H100 80GB HBM3";
    d.timingSource = "test";
    return d;
  }
  RunOutcome run(const PipelineConfig& config, Trace& trace, RunControl& control) override {
    if (control.stopRequested()) return {RunState::Stopped, {}};
    const SimulatedRun r = simulate(config, *builtinProfile("h100-calibrated"));
    const double f = factors_[std::size_t(log_->calls++) % factors_.size()];
    for (const Lane& l : r.trace->lanes()) trace.lane(l.kind, l.index, l.name);
    r.trace->ops().snapshot().forEach([&](Op op) {
      for (std::int64_t* t : {&op.submit, &op.ready, &op.start, &op.end}) *t = std::int64_t(double(*t) * f);
      trace.ops().append(op);
    });
    trace.setCompletedBatches(r.trace->completedBatches());
    return r.outcome;
  }
  void keepBuffersBetweenRuns(bool keep) override { log_->kept = keep; }

 private:
  std::vector<double> factors_;
  std::shared_ptr<NoisyGpuLog> log_;
};

// Options whose "this GPU" backend is a NoisyGpu writing to `gpu` (made here).
LessonRunOptions onNoisyGpu(std::vector<double> factors, std::shared_ptr<NoisyGpuLog>* gpu) {
  *gpu = std::make_shared<NoisyGpuLog>();
  LessonRunOptions o;
  o.currentBackend = [factors, log = *gpu] {
    BackendSelection s;
    s.backend = std::make_unique<NoisyGpu>(factors, log);
    return s;
  };
  return o;
}

TEST(LessonMeasurement, RepeatsMeasuredRunsAfterAWarmUpAndJudgesClaimsOnTheirMedians) {
  const Lesson& pinned = *findLesson("pinned");
  std::shared_ptr<NoisyGpuLog> gpu;
  // Warm-up, then pageable, pinned, pageable, pinned, ... with ±2% noise.
  LessonRunOptions o = onNoisyGpu({1.0, 1.0, 1.02, 0.98, 0.99, 1.01, 1.0}, &gpu);
  std::vector<LessonProgress> progress;
  o.progress = [&](const LessonProgress& p) { progress.push_back(p); };
  const LessonOutcome out = runLesson(pinned, o);
  ASSERT_TRUE(out.ok()) << out.error;
  EXPECT_TRUE(out.measured());
  EXPECT_EQ(out.reps, 3);
  EXPECT_EQ(gpu->calls, 1 + 2 * 3);  // one warm-up, three repetitions of each run
  EXPECT_FALSE(gpu->kept);           // buffers handed back when the lesson ended
  ASSERT_EQ(progress.size(), 6u);
  EXPECT_EQ(progress[1].label, "pinned");
  EXPECT_EQ(progress[2].rep, 1);
  ASSERT_EQ(out.runs.size(), 2u);
  for (const MeasuredRun& m : out.runs) {
    EXPECT_TRUE(m.measured);
    ASSERT_EQ(m.reps.size(), 3u);
    ASSERT_EQ(m.traces.size(), 3u);
    EXPECT_LT(m.makespan.min, m.makespan.max);  // the noise shows as a spread
    EXPECT_DOUBLE_EQ(m.metrics().makespanNs, m.makespan.median);
    EXPECT_NE(m.where().find("measured on NVIDIA H100"), std::string::npos) << m.where();
  }
  // Every verdict is computed from the measured repetitions.
  for (std::size_t i = 0; i < out.checks.size(); ++i) {
    const Expectation& e = pinned.expectations[i];
    std::vector<double> values;
    for (const Metrics& m : out.runs[std::size_t(e.run)].reps) values.push_back(metricValue(m, e.metric));
    EXPECT_EQ(out.checks[i].valueSpread, spreadOf(values)) << out.checks[i].claim;
    EXPECT_EQ(out.checks[i].verdict, Verdict::Holds) << formatClaim(out.checks[i]);
  }
  EXPECT_EQ(out.observedChoice, pinned.prediction.answer);
  // The model's prediction stands beside each measured run.
  EXPECT_EQ(out.predictionProfile, "h100-calibrated");
  for (const MeasuredRun& m : out.runs) {
    ASSERT_TRUE(m.predicted.has_value());
    EXPECT_GT(m.predicted->makespanNs, 0);
  }
  const std::string text = formatLessonRuns(out);
  EXPECT_NE(text.find("over 3 runs"), std::string::npos) << text;
  EXPECT_NE(text.find("predicted"), std::string::npos) << text;
  EXPECT_NE(formatLessonSetting(out).find("3 repetitions"), std::string::npos);
}

TEST(LessonMeasurement, AClaimSmallerThanTheRunToRunSpreadIsNotShownClearly) {
  // Lesson 3 claims async on one stream is neither 25% faster nor 5% slower than
  // blocking copies; with ±15% run-to-run noise neither can be told. Its C2050
  // what-if runs on the simulator: no spread, a clear verdict.
  const Lesson& async = *findLesson("async-one-stream");
  std::shared_ptr<NoisyGpuLog> gpu;
  // Warm-up, then per repetition the two measured runs (the what-ifs run once, simulated).
  const LessonOutcome out = runLesson(async, onNoisyGpu({1.0, 1.0, 0.85, 1.15, 1.15, 0.85, 1.0}, &gpu));
  ASSERT_TRUE(out.ok()) << out.error;
  int unclear = 0;
  for (std::size_t i = 0; i < out.checks.size(); ++i) {
    const ClaimVerdict& c = out.checks[i];
    if (c.metric != MetricId::Makespan) continue;
    if (async.runs[std::size_t(async.expectations[i].run)].profile.empty()) {
      EXPECT_EQ(c.verdict, Verdict::Unclear) << formatClaim(c);
      EXPECT_NE(formatClaim(c).find("not shown clearly on this GPU"), std::string::npos);
      ++unclear;
    } else {
      EXPECT_EQ(c.verdict, Verdict::Holds) << formatClaim(c);
    }
  }
  EXPECT_EQ(unclear, 2);
  EXPECT_TRUE(out.anyUnclear());
  EXPECT_FALSE(out.allHold());
}

TEST(LessonMeasurement, LegacyRunsStayOnTheSimulatorOnceAndAreLabelled) {
  const Lesson& order = *findLesson("issue-order");
  std::shared_ptr<NoisyGpuLog> gpu;
  const LessonOutcome out = runLesson(order, onNoisyGpu({1.0, 1.03, 0.97}, &gpu));
  ASSERT_TRUE(out.ok()) << out.error;
  int measured = 0;
  for (std::size_t i = 0; i < out.runs.size(); ++i) {
    const MeasuredRun& m = out.runs[i];
    if (order.runs[i].profile.empty()) {
      ++measured;
      EXPECT_TRUE(m.measured);
      EXPECT_EQ(m.reps.size(), 3u);
      EXPECT_TRUE(m.predicted.has_value());
    } else {
      EXPECT_TRUE(m.legacy);
      EXPECT_FALSE(m.measured);
      EXPECT_EQ(m.reps.size(), 1u);  // the simulator gives the same run every time
      EXPECT_EQ(m.profile, order.runs[i].profile);
      EXPECT_FALSE(m.predicted.has_value());
      EXPECT_NE(m.where().find("only in the simulator"), std::string::npos) << m.where();
      EXPECT_EQ(m.trace()->device().backend, "simulator");
    }
  }
  EXPECT_EQ(gpu->calls, 1 + measured * 3);
}

TEST(LessonMeasurement, TheSimulatorRunsOnceWithoutPredictions) {
  const LessonOutcome out = runLesson(*findLesson("pinned"), *builtinProfile("h200"));
  ASSERT_TRUE(out.ok()) << out.error;
  EXPECT_FALSE(out.measured());
  EXPECT_EQ(out.reps, 1);
  for (const MeasuredRun& m : out.runs) {
    EXPECT_EQ(m.reps.size(), 1u);
    EXPECT_EQ(m.profile, "h200");
    EXPECT_FALSE(m.predicted.has_value());
  }
  EXPECT_NE(formatLessonSetting(out).find("Simulated on profile 'h200'"), std::string::npos);
}

TEST(LessonMeasurement, AnExplicitPredictionProfileIsUsedAndAnUnknownOneIsAnError) {
  std::shared_ptr<NoisyGpuLog> gpu;
  LessonRunOptions o = onNoisyGpu({1.0}, &gpu);
  o.predictProfile = "pcie4-desktop";
  LessonOutcome out = runLesson(*findLesson("roi"), o);
  ASSERT_TRUE(out.ok()) << out.error;
  EXPECT_EQ(out.predictionProfile, "pcie4-desktop");
  o.predictProfile = "no-such-profile";
  out = runLesson(*findLesson("roi"), o);
  EXPECT_FALSE(out.ok());
  EXPECT_NE(out.error.find("no-such-profile"), std::string::npos) << out.error;
}

TEST(LessonMeasurement, NoBackendOrAStopIsAClearError) {
  LessonRunOptions o;
  o.currentBackend = [] {
    BackendSelection s;
    s.error = "no usable CUDA GPU: no device. Use --backend sim to run the simulator.";
    return s;
  };
  LessonOutcome out = runLesson(*findLesson("naive"), o);
  EXPECT_FALSE(out.ok());
  EXPECT_NE(out.error.find("--backend sim"), std::string::npos) << out.error;

  std::stop_source stop;
  stop.request_stop();
  std::shared_ptr<NoisyGpuLog> gpu;
  out = runLesson(*findLesson("naive"), onNoisyGpu({1.0}, &gpu), stop.get_token());
  EXPECT_FALSE(out.ok());
  EXPECT_NE(out.error.find("stopped"), std::string::npos) << out.error;
}

}  // namespace
}  // namespace pipescope
