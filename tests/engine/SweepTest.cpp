// The sweep runner, its recommendation and its files, on the (deterministic) simulator.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "SimulatorTestSupport.h"
#include "sweep/Recommendation.h"
#include "sweep/SweepFiles.h"
#include "sweep/SweepRunner.h"

namespace pipescope {
namespace {

using simtest::roundConfig;
using simtest::roundProfile;

SweepSpec smallSpec() {
  SweepSpec s;
  s.base.sampleBytes = 64 * 1024;
  s.base.modelFlopsPerByte = 200;
  s.batchSamples = {2, 8, 32};
  s.streams = {1, 2, 4};
  s.batches = 12;
  s.warmupBatches = 2;
  return s;
}

/// Stage times of `bytes` ns each on roundProfile(): H2D, kernel, D2H.
SweepSpec roundSpec() {
  SweepSpec s;
  s.base = roundConfig(1000, 1);
  s.batchSamples = {1, 2, 4};
  s.streams = {1, 2, 3, 4, 6};
  s.batches = 30;
  s.warmupBatches = 3;
  return s;
}

TEST(SweepTest, TableMatchesIndividualRunsExactly) {
  const DeviceProfile profile = *builtinProfile("h200");
  auto backend = makeSimulatorBackend(profile);
  const SweepSpec spec = smallSpec();
  const SweepResult result = runSweep(spec, *backend);
  ASSERT_EQ(result.points.size(), 9u);
  EXPECT_FALSE(result.cancelled);
  EXPECT_EQ(result.backend, "simulator");
  for (const SweepPointResult& p : result.points) {
    ASSERT_TRUE(p.ok()) << p.outcome.message;
    const PipelineConfig& c = p.config;
    EXPECT_EQ(c.batchCount, spec.warmupBatches + spec.batches);
    // The same point as a standalone run, measured from the end of its warm-up.
    Trace trace;
    trace.setConfig(c);
    RunControl control;
    auto single = makeSimulatorBackend(profile);
    ASSERT_EQ(single->run(c, trace, control).state, RunState::Finished);
    std::int64_t warmupEnd = 0;
    trace.ops().snapshot().forEach([&](const Op& op) {
      if (op.batch != kNoBatch && op.batch < spec.warmupBatches) warmupEnd = std::max(warmupEnd, op.end);
    });
    ASSERT_GT(warmupEnd, 0);
    const Metrics m = computeMetrics(trace, warmupEnd, std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(m.batches, spec.batches);
    EXPECT_EQ(p.samplesPerSec.median, m.samplesPerSec) << result.label(p);
    EXPECT_EQ(p.makespanNs.median, m.makespanNs) << result.label(p);
    EXPECT_EQ(p.efficiency, m.efficiency);
    EXPECT_EQ(p.bottleneck, m.bottleneck);
    EXPECT_EQ(p.bottleneckSentence, m.bottleneckSentence);
    EXPECT_EQ(p.computeBusy, m.computeBusy);
    EXPECT_EQ(p.footprintBytes, footprintBytes(c));
    ASSERT_TRUE(p.trace);
    EXPECT_EQ(p.trace->ops().publishedCount(), trace.ops().publishedCount());
  }
}

TEST(SweepTest, WithoutWarmupTheFiguresAreThoseOfARun) {
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  SweepSpec spec = smallSpec();
  spec.warmupBatches = 0;
  spec.batchSamples = {8};
  const SweepResult result = runSweep(spec, *backend);
  for (const auto& p : result.points) {
    Trace trace;
    trace.setConfig(p.config);
    RunControl control;
    makeSimulatorBackend(*builtinProfile("h200"))->run(p.config, trace, control);
    trace.setCompletedBatches(trace.completedBatches());
    const Metrics m = computeMetrics(trace);
    EXPECT_EQ(p.samplesPerSec.median, m.samplesPerSec);
    EXPECT_EQ(p.makespanNs.median, m.makespanNs);
  }
}

TEST(SweepTest, RecommendationFindsTheKneeOfAThreeStagePipeline) {
  // Equal H2D, kernel and D2H times on separate engines: three streams keep all
  // three engines busy; more streams cannot help, and with no fixed costs every
  // batch size runs at the same rate, so the smallest batch wins on memory.
  auto backend = makeSimulatorBackend(roundProfile());
  const SweepResult result = runSweep(roundSpec(), *backend);
  ASSERT_EQ(result.points.size(), 15u);
  const Recommendation rec = recommend(result);
  ASSERT_TRUE(rec.valid);
  const SweepPointResult* chosen = result.point(rec.chosenIndex);
  ASSERT_NE(chosen, nullptr);
  EXPECT_EQ(chosen->config.streams, 3) << rec.sentence;
  EXPECT_EQ(chosen->config.batchSamples, 1) << rec.sentence;
  EXPECT_GE(rec.chosenSamplesPerSec, rec.bestSamplesPerSec * 0.97);
  EXPECT_NE(rec.sentence.find("beyond 3 streams"), std::string::npos) << rec.sentence;
  EXPECT_NE(rec.sentence.find("saturated"), std::string::npos) << rec.sentence;
  // One knee per batch size, each at three streams.
  ASSERT_EQ(rec.knees.size(), 3u);
  for (const auto& k : rec.knees) {
    EXPECT_EQ(k.streams, 3) << k.sentence;
    EXPECT_EQ(k.nextStreams, 4);
    EXPECT_LT(k.gainBeyond, kRecommendTolerance);
    EXPECT_FALSE(k.stillHelping);
    EXPECT_NE(k.sentence.find("stops helping at 3"), std::string::npos) << k.sentence;
  }
  // Two streams do help over one (the knee is not the first point).
  const auto* one = result.point(0);
  const auto* two = result.point(1);
  EXPECT_GT(two->samplesPerSec.median, one->samplesPerSec.median * 1.3);
}

TEST(SweepTest, KneeSaysWhenStreamsStillHelp) {
  auto backend = makeSimulatorBackend(roundProfile());
  SweepSpec spec = roundSpec();
  spec.streams = {1, 2};
  spec.batchSamples = {2};
  const SweepResult result = runSweep(spec, *backend);
  const Recommendation rec = recommend(result);
  ASSERT_EQ(rec.knees.size(), 1u);
  EXPECT_TRUE(rec.knees[0].stillHelping);
  EXPECT_EQ(rec.knees[0].streams, 2);
  EXPECT_NE(rec.knees[0].sentence.find("still help"), std::string::npos) << rec.knees[0].sentence;
}

TEST(SweepTest, RecommendationOnHandMadeFigures) {
  // Throughput rises with batch size and streams up to 4 streams of 4 samples;
  // 8 samples x 4 streams is 2% faster but twice the memory.
  SweepResult r;
  r.spec.batchSamples = {2, 4, 8};
  r.spec.streams = {1, 2, 4, 8};
  const double thr[3][4] = {{100, 150, 180, 181}, {120, 180, 240, 241}, {125, 190, 245, 246}};
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t s = 0; s < 4; ++s) {
      SweepPointResult p;
      p.index = b * 4 + s;
      p.config.batchSamples = r.spec.batchSamples[b];
      p.config.streams = r.spec.streams[s];
      p.footprintBytes = footprintBytes(p.config);
      p.samplesPerSec = {thr[b][s], thr[b][s], thr[b][s]};
      p.repetitions.push_back({});
      p.outcome = {RunState::Finished, {}};
      p.bottleneck = Bottleneck::ComputeBound;
      p.computeBusy = 0.97;
      r.points.push_back(p);
    }
  r.totalPoints = r.points.size();
  const Recommendation rec = recommend(r);
  EXPECT_EQ(rec.bestIndex, 11u);                 // 8 samples x 8 streams: 246
  EXPECT_EQ(rec.chosenIndex, 6u);                // 4 samples x 4 streams: 240 >= 0.97 x 246, half the memory
  EXPECT_NE(rec.sentence.find("beyond 4 streams the compute engine (97% busy) is saturated: +0.4%"), std::string::npos)
      << rec.sentence;
  EXPECT_NE(rec.sentence.find("larger batches change throughput by +2.1%"), std::string::npos) << rec.sentence;
  ASSERT_EQ(rec.knees.size(), 3u);
  EXPECT_EQ(rec.knees[0].streams, 4);
  EXPECT_EQ(rec.knees[1].streams, 4);
  EXPECT_EQ(rec.knees[2].streams, 4);
  // A failed point is ignored.
  r.points[11].outcome = {RunState::Failed, "out of memory"};
  EXPECT_EQ(recommend(r).bestIndex, 10u);
}

TEST(SweepTest, CancelFromProgressKeepsFinishedPoints) {
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  const SweepSpec spec = smallSpec();
  const SweepResult full = runSweep(spec, *backend);
  SweepCancel cancel;
  SweepCallbacks cb;
  std::size_t finished = 0;
  cb.pointFinished = [&](const SweepPointResult&) { ++finished; };
  cb.progress = [&](const SweepProgress& p) {
    if (p.pointsDone == 4 && p.point) cancel.cancel();
  };
  const SweepResult part = runSweep(spec, *backend, cb, &cancel);
  EXPECT_TRUE(part.cancelled);
  EXPECT_EQ(finished, 4u);
  ASSERT_EQ(part.points.size(), 4u);
  for (const auto& p : part.points) {
    const SweepPointResult* same = full.point(p.index);
    ASSERT_NE(same, nullptr);
    EXPECT_EQ(p.samplesPerSec, same->samplesPerSec);
    EXPECT_TRUE(p.trace);
  }
  // The largest batches run first (buffer reuse on a GPU): all three 32-sample points
  // and the first 8-sample one finished.
  EXPECT_EQ(std::count_if(part.points.begin(), part.points.end(),
                          [](const SweepPointResult& p) { return p.config.batchSamples == 32; }),
            3);
  EXPECT_EQ(part.points.front().config.batchSamples, 8);
  EXPECT_EQ(part.points.front().config.streams, 1);
}

TEST(SweepTest, CancelDuringARunDiscardsThatPoint) {
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  SweepSpec spec = smallSpec();
  spec.batches = 2000;
  SweepCancel cancel;
  SweepCallbacks cb;
  cb.pointFinished = [&](const SweepPointResult&) { cancel.cancel(); };  // stops the second point's run
  const SweepResult part = runSweep(spec, *backend, cb, &cancel);
  EXPECT_TRUE(part.cancelled);
  EXPECT_EQ(part.points.size(), 1u);
}

TEST(SweepTest, ProgressReportsEveryPointAndTimeLeft) {
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  std::vector<SweepProgress> seen;
  SweepCallbacks cb;
  cb.progress = [&](const SweepProgress& p) { seen.push_back(p); };
  runSweep(smallSpec(), *backend, cb);
  ASSERT_EQ(seen.size(), 10u);  // 9 points + the end
  EXPECT_LT(seen[0].etaSec, 0);
  EXPECT_GE(seen[1].etaSec, 0);
  EXPECT_EQ(seen.back().point, nullptr);
  EXPECT_EQ(seen.back().pointsDone, 9u);
  for (std::size_t i = 0; i + 1 < seen.size(); ++i) EXPECT_EQ(seen[i].pointsDone, i);
}

TEST(SweepTest, TraceCapDropsTracesAndSaysSo) {
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  SweepSpec spec = smallSpec();
  spec.maxKeptOps = 500;
  const SweepResult r = runSweep(spec, *backend);
  std::size_t dropped = 0;
  for (const auto& p : r.points) dropped += p.traceDropped ? 1 : 0;
  EXPECT_GT(dropped, 0u);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("not kept"), std::string::npos);
}

TEST(SweepTest, TimeBudgetSizesThePoints) {
  auto backend = makeSimulatorBackend(roundProfile());
  SweepSpec spec = roundSpec();
  spec.batchSamples = {1, 4};
  spec.streams = {3};
  spec.batches = 5;
  spec.timeBudgetSec = 100e-6;  // 100 us of device time: 100 batches of 1 us, 25 of 4 us
  const SweepResult r = runSweep(spec, *backend);
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_NEAR(double(r.points[0].repetitions[0].batches), 100, 3);
  EXPECT_NEAR(double(r.points[1].repetitions[0].batches), 25, 2);
}

TEST(SweepTest, InvalidSpecsNameTheProblem) {
  SweepSpec s = smallSpec();
  s.base.mode = TransferMode::Blocking;
  auto errors = validateSweep(s);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors.front().find("streams"), std::string::npos) << errors.front();
  s = smallSpec();
  s.streams.clear();
  s.repeats = 0;
  errors = validateSweep(s);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("--streams: give at least one value"), std::string::npos);
  EXPECT_NE(errors[1].find("--repeat = 0"), std::string::npos);
  auto backend = makeSimulatorBackend(roundProfile());
  EXPECT_THROW(runSweep(s, *backend), std::invalid_argument);
}

/// A backend whose kernel time grows with each run, for repetitions with a spread.
class DriftingBackend final : public Backend {
 public:
  std::string_view kind() const override { return "drifting"; }
  DeviceInfo describe() const override {
    DeviceInfo d;
    d.backend = d.name = "drifting";
    return d;
  }
  RunOutcome run(const PipelineConfig& config, Trace& trace, RunControl&) override {
    const std::uint16_t lane = trace.lane(LaneKind::ComputeEngine, 0, "compute engine");
    const std::int64_t duration = 1000 + 100 * ((runs_++ * 7) % 5);  // 1000, 1200, 1400, 1100, 1300, ...
    for (int b = 0; b < config.batchCount; ++b) {
      Op op;
      op.kind = OpKind::Kernel;
      op.batch = b;
      op.lane = op.engineLane = lane;
      op.start = op.ready = op.submit = b * duration;
      op.end = (b + 1) * duration;
      trace.ops().append(op);
    }
    trace.setCompletedBatches(config.batchCount);
    return {RunState::Finished, {}};
  }

 private:
  int runs_ = 0;
};

TEST(SweepTest, RepetitionsGiveMedianMinMax) {
  DriftingBackend backend;
  SweepSpec spec;
  spec.base.batchSamples = 10;
  spec.batchSamples = {10};
  spec.streams = {1};
  spec.batches = 10;
  spec.warmupBatches = 0;
  spec.repeats = 5;
  const SweepResult r = runSweep(spec, backend);
  ASSERT_EQ(r.points.size(), 1u);
  const auto& p = r.points[0];
  ASSERT_EQ(p.repetitions.size(), 5u);
  // Makespans 10 x {1000, 1200, 1400, 1100, 1300} ns.
  EXPECT_DOUBLE_EQ(p.makespanNs.min, 10000);
  EXPECT_DOUBLE_EQ(p.makespanNs.median, 12000);
  EXPECT_DOUBLE_EQ(p.makespanNs.max, 14000);
  EXPECT_DOUBLE_EQ(p.samplesPerSec.median, 100 / 12e-6);
  EXPECT_EQ(p.medianRepetition, 1u);
  EXPECT_EQ(p.trace->ops().snapshot()[0].end, 1200);
}

TEST(SweepTest, SimulatorRepetitionsCollapseWithANote) {
  auto backend = makeSimulatorBackend(roundProfile());
  SweepSpec spec = roundSpec();
  spec.repeats = 3;
  spec.batchSamples = {1};
  spec.streams = {1};
  const SweepResult r = runSweep(spec, *backend);
  EXPECT_EQ(r.points[0].repetitions.size(), 1u);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("deterministic"), std::string::npos);
}

void expectSamePoints(const std::vector<SweepPointResult>& a, const std::vector<SweepPointResult>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].config, b[i].config);
    EXPECT_EQ(a[i].repetitions, b[i].repetitions);
    EXPECT_EQ(a[i].samplesPerSec, b[i].samplesPerSec);
    EXPECT_EQ(a[i].makespanNs, b[i].makespanNs);
    EXPECT_EQ(a[i].efficiency, b[i].efficiency);
    EXPECT_EQ(a[i].inputGBps, b[i].inputGBps);
    EXPECT_EQ(a[i].bottleneck, b[i].bottleneck);
    EXPECT_EQ(a[i].bottleneckSentence, b[i].bottleneckSentence);
    EXPECT_EQ(a[i].h2dBusy, b[i].h2dBusy);
    EXPECT_EQ(a[i].computeBusy, b[i].computeBusy);
    EXPECT_EQ(a[i].perBatch.kernelNs, b[i].perBatch.kernelNs);
    EXPECT_EQ(a[i].footprintBytes, b[i].footprintBytes);
    EXPECT_EQ(a[i].outcome, b[i].outcome);
    EXPECT_EQ(a[i].wallSeconds, b[i].wallSeconds);
  }
}

TEST(SweepTest, JsonRoundTrip) {
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  SweepSpec spec = smallSpec();
  spec.memories = {HostMemory::Pinned, HostMemory::Pageable};
  SweepResult r = runSweep(spec, *backend);
  r.predicted = r.points;  // stands in for a simulator prediction of a GPU sweep
  r.predictedDevice = r.device;
  r.points[3].outcome = {RunState::Failed, "needs 3 GiB, \"only\" 2 free"};
  const auto path = std::filesystem::temp_directory_path() / "pipescope_sweep_roundtrip.json";
  saveSweepJson(r, path.string());
  const SweepResult back = loadSweepJson(path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(back.spec, r.spec);
  EXPECT_EQ(back.backend, r.backend);
  EXPECT_EQ(back.device, r.device);
  EXPECT_EQ(back.totalPoints, r.totalPoints);
  EXPECT_EQ(back.cancelled, r.cancelled);
  EXPECT_EQ(back.notes, r.notes);
  EXPECT_EQ(back.wallSeconds, r.wallSeconds);
  expectSamePoints(back.points, r.points);
  expectSamePoints(back.predicted, r.predicted);
  EXPECT_EQ(recommend(back).sentence, recommend(r).sentence);
  EXPECT_FALSE(back.points[0].trace);  // traces are not part of the file
}

TEST(SweepTest, BadJsonFilesNameTheProblem) {
  auto backend = makeSimulatorBackend(roundProfile());
  SweepSpec spec = roundSpec();
  spec.batchSamples = {1};
  spec.streams = {1};
  nlohmann::json j = sweepToJson(runSweep(spec, *backend));
  auto message = [](const nlohmann::json& doc) {
    try {
      sweepFromJson(doc);
    } catch (const SweepFileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json k = j;
  k["format"] = "pipescope-trace-json";
  EXPECT_NE(message(k).find("not a pipescope sweep"), std::string::npos);
  k = j;
  k["points"][0].erase("samples_per_s");
  EXPECT_EQ(message(k), "sweep.points[0]: missing field 'samples_per_s'");
  k = j;
  k["points"][0]["bottleneck"] = "very-bound";
  EXPECT_EQ(message(k), "sweep.points[0].bottleneck: unknown value 'very-bound'");
  k = j;
  k["version"] = 99;
  EXPECT_NE(message(k).find("version: 99 is not supported"), std::string::npos);
  const auto path = std::filesystem::temp_directory_path() / "pipescope_sweep_bad.json";
  std::ofstream(path) << "{\"format\": ";
  try {
    loadSweepJson(path.string());
    ADD_FAILURE() << "truncated file accepted";
  } catch (const SweepFileError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(SweepTest, CsvHasOneRowPerPointWithTheFigures) {
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  const SweepResult r = runSweep(smallSpec(), *backend);
  std::ostringstream out;
  writeSweepCsv(r, out);
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("index,memory,model,batch_samples,", 0), 0u);
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string cell; std::getline(ls, cell, ',');) f.push_back(cell);
    ASSERT_GE(f.size(), 25u) << line;
    const SweepPointResult& p = r.points.at(rows);
    EXPECT_EQ(std::stoul(f[0]), p.index);
    EXPECT_EQ(std::stoi(f[3]), p.config.batchSamples);
    EXPECT_EQ(std::stoi(f[6]), p.config.streams);
    EXPECT_EQ(std::stod(f[10]), p.samplesPerSec.median);  // shortest round-trip form
    EXPECT_EQ(std::stod(f[14]), p.makespanNs.median);
    EXPECT_EQ(f[18], std::string(toString(p.bottleneck)));
    EXPECT_EQ(f[23], "finished");
    ++rows;
  }
  EXPECT_EQ(rows, r.points.size());
}

}  // namespace
}  // namespace pipescope
