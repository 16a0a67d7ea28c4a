// The A/B comparison table holds the two runs' metrics, unchanged.
#include <gtest/gtest.h>

#include "SimulatorTestSupport.h"
#include "analysis/Comparison.h"
#include "config/Presets.h"

namespace pipescope {
namespace {

Metrics simulated(const char* preset) {
  auto run = simtest::runSim(findPreset(preset)->config, simtest::h200());
  return computeMetrics(*run.trace);
}

TEST(Comparison, RowsHoldTheTwoRunsMetrics) {
  const Metrics a = simulated("async"), b = simulated("multi-stream");
  const ComparisonTable t = compareRuns(a, b, "async", "multi-stream");
  EXPECT_EQ(t.aName, "async");
  for (const auto& row : t.rows) {
    if (!row.metric) continue;
    EXPECT_DOUBLE_EQ(row.a, metricValue(a, *row.metric)) << row.key;
    EXPECT_DOUBLE_EQ(row.b, metricValue(b, *row.metric)) << row.key;
    EXPECT_DOUBLE_EQ(row.difference, row.b - row.a) << row.key;
  }
  const ComparisonRow* makespan = t.find("makespan_ns");
  ASSERT_NE(makespan, nullptr);
  EXPECT_DOUBLE_EQ(makespan->a, a.makespanNs);
  EXPECT_DOUBLE_EQ(makespan->b, b.makespanNs);
  ASSERT_TRUE(makespan->ratio);
  EXPECT_DOUBLE_EQ(*makespan->ratio, b.makespanNs / a.makespanNs);
  EXPECT_EQ(makespan->better, Winner::B);
  EXPECT_EQ(t.find("samples_per_s")->better, Winner::B);
  EXPECT_EQ(t.find("efficiency")->better, Winner::B);
  for (const char* key : {"batches_per_s", "h2d_gbps_busy", "d2h_gbps_busy", "compute_busy", "h2d_busy", "d2h_busy",
                          "compute_overlapped_by_copy"})
    EXPECT_NE(t.find(key), nullptr) << key;
  const ComparisonRow* bottleneck = t.find("bottleneck");
  ASSERT_NE(bottleneck, nullptr);
  EXPECT_EQ(bottleneck->aText, std::string(toString(a.bottleneck)));
  EXPECT_EQ(bottleneck->bText, std::string(toString(b.bottleneck)));
}

TEST(Comparison, SameRunIsSameEverywhere) {
  const Metrics a = simulated("pinned");
  const ComparisonTable t = compareRuns(a, a);
  for (const auto& row : t.rows) {
    EXPECT_EQ(row.better, Winner::Same) << row.key;
    if (row.metric) {
      EXPECT_DOUBLE_EQ(row.difference, 0) << row.key;
    }
  }
}

TEST(Comparison, DifferenceTextsUseUnitsAndPoints) {
  Metrics a, b;
  a.makespanNs = 100e6;
  b.makespanNs = 25e6;
  a.computeBusy = 0.30;
  b.computeBusy = 0.90;
  const ComparisonTable t = compareRuns(a, b);
  EXPECT_EQ(t.find("makespan_ns")->differenceText, "-75.0 ms (-75%, 0.25x)");
  EXPECT_EQ(t.find("compute_busy")->differenceText, "+60 pts");
  EXPECT_EQ(t.find("compute_busy")->better, Winner::B);
  EXPECT_FALSE(t.find("samples_per_s")->ratio.has_value());  // A is 0: no ratio
}

}  // namespace
}  // namespace pipescope
