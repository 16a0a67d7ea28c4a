// Bottleneck advice: ranked by the simulator's predictions.
#include <gtest/gtest.h>

#include "SimulatorTestSupport.h"
#include "analysis/Advice.h"
#include "analysis/SimulatedRun.h"
#include "config/Presets.h"

namespace pipescope {
namespace {

AdviceResult adviceFor(const char* preset) {
  AdviceInput in;
  in.config = findPreset(preset)->config;
  in.profile = simtest::h200();
  return advise(in);
}

bool advises(const AdviceResult& r, AdviceKind kind) {
  for (const auto& i : r.items)
    if (i.kind == kind) return true;
  return false;
}

TEST(Advice, PinnedMemoryRanksFirstOnTheNaivePreset) {
  const AdviceResult r = adviceFor("naive");
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_FALSE(r.items.empty());
  EXPECT_EQ(r.items.front().kind, AdviceKind::PinnedMemory);
  EXPECT_GT(r.items.front().speedup, 2.0);
  EXPECT_EQ(r.items.front().config.memory, HostMemory::Pinned);
  EXPECT_EQ(r.items.front().config.batchCount, findPreset("naive")->config.batchCount);
  EXPECT_NE(r.items.front().sentence.find("pinned memory: predicted"), std::string::npos) << r.items.front().sentence;
  for (std::size_t i = 1; i < r.items.size(); ++i) EXPECT_LE(r.items[i].speedup, r.items[i - 1].speedup);
}

TEST(Advice, MoreStreamsIsNotAdvisedWhenComputeBound) {
  const AdviceResult r = adviceFor("compute-heavy");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(advises(r, AdviceKind::MoreStreams));
  for (const auto& i : r.items) EXPECT_GE(i.speedup, 1.03) << i.title;
}

TEST(Advice, MoreStreamsRanksFirstForAsyncOnOneStream) {
  const AdviceResult r = adviceFor("async");
  ASSERT_FALSE(r.items.empty());
  EXPECT_EQ(r.items.front().kind, AdviceKind::MoreStreams);
  EXPECT_GT(r.items.front().speedup, 1.5);
}

TEST(Advice, MoreCpuWorkersRankFirstWhenTheHostPreprocesses) {
  const AdviceResult r = adviceFor("cpu-bound");
  ASSERT_FALSE(r.items.empty());
  EXPECT_EQ(r.items.front().kind, AdviceKind::MoreCpuWorkers);
  EXPECT_GT(r.items.front().config.cpuWorkers, 1);
}

TEST(Advice, PredictionIsTheRatioOfTwoSimulationsOfCappedBatches) {
  AdviceInput in;
  in.config = findPreset("naive")->config;
  in.config.batchCount = 0;  // until stopped: the prediction still simulates a capped run
  in.profile = simtest::h200();
  AdviceOptions options;
  options.maxBatches = 8;
  const AdviceResult r = advise(in, options);
  ASSERT_FALSE(r.items.empty());
  EXPECT_EQ(r.simulatedBatches, 8);
  PipelineConfig base = in.config, pinned = in.config;
  base.batchCount = pinned.batchCount = 8;
  pinned.memory = HostMemory::Pinned;
  const double expected =
      simulate(pinned, in.profile).metrics.samplesPerSec / simulate(base, in.profile).metrics.samplesPerSec;
  EXPECT_DOUBLE_EQ(r.items.front().speedup, expected);
  EXPECT_EQ(r.items.front().config.batchCount, 0);
}

TEST(Advice, BiggerBatchReportsApiOverheadBeforeAndAfter) {
  AdviceInput in;
  in.config = findPreset("multi-stream")->config;
  in.config.sampleBytes = 1024;  // tiny batches: the API calls dominate
  in.config.batchSamples = 16;
  in.profile = simtest::h200();
  const AdviceResult r = advise(in);
  const AdviceItem* bigger = nullptr;
  for (const auto& i : r.items)
    if (i.kind == AdviceKind::BiggerBatch) bigger = &i;
  ASSERT_NE(bigger, nullptr);
  ASSERT_TRUE(bigger->apiShareBefore && bigger->apiShareAfter);
  EXPECT_GT(*bigger->apiShareBefore, *bigger->apiShareAfter);
  EXPECT_NE(bigger->sentence.find("API overhead from"), std::string::npos) << bigger->sentence;
}

TEST(Advice, InvalidConfigurationGivesAnErrorNotAdvice) {
  AdviceInput in;
  in.config.streams = 0;
  in.profile = simtest::h200();
  const AdviceResult r = advise(in);
  EXPECT_TRUE(r.items.empty());
  EXPECT_NE(r.error.find("streams"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace pipescope
