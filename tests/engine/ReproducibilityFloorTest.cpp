// The reproducibility floor: each set's measurement of a configuration judged against
// the median of the other sets' measurements of exactly that configuration.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/ReproducibilityFloor.h"

namespace pipescope {
namespace {

PipelineConfig configWithStreams(int streams) {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.streams = streams;
  return c;
}

ValidationRow row(const std::string& name, const PipelineConfig& config, double medianNs, double minNs, double maxNs) {
  ValidationRow r;
  r.name = name;
  r.config = config;
  r.measuredNs = medianNs;
  r.measuredMinNs = minNs;
  r.measuredMaxNs = maxNs;
  r.measuredRunsNs = {minNs, medianNs, maxNs};
  return r;
}

ValidationRecord set(const std::string& at, std::vector<ValidationRow> rows) {
  ValidationRecord s;
  s.measuredDevice = "NVIDIA H100 80GB HBM3";
  s.recordedAt = at;
  s.seed = 9001;
  s.report.rows = std::move(rows);
  return s;
}

TEST(ReproducibilityFloor, JudgesEachMeasurementAgainstTheOtherSetsMedian) {
  const PipelineConfig four = configWithStreams(4), two = configWithStreams(2);
  ValidationRow failed = row("r-2", configWithStreams(8), 0, 0, 0);
  failed.failure = "out of memory";
  const std::vector<ValidationRecord> sets = {
      set("mon", {row("r-0", four, 100, 95, 104), row("r-1", two, 50, 50, 50), failed}),
      set("tue", {row("r-0", four, 110, 108, 120), row("r-1", two, 60, 60, 60)}),
      set("wed", {row("r-0", four, 90, 90, 90), row("r-2", configWithStreams(8), 70, 70, 70)}),
  };
  const ReproducibilityFloor f = reproducibilityFloor(sets, 2);
  EXPECT_EQ(f.sets, 3);
  EXPECT_EQ(f.configurations, 1);  // only the 4-stream one ran in two other sets
  EXPECT_EQ(f.rowsWithoutPeers, 3);  // r-1 twice (one other set each), wed's r-2 (the other failed)
  ASSERT_EQ(f.report.rows.size(), 3u);
  // mon: others 110, 90 -> 100 (0 %); tue: others 100, 90 -> 95; wed: others 100, 110 -> 105.
  EXPECT_EQ(f.report.rows[0].name, "1/r-0");
  EXPECT_DOUBLE_EQ(f.report.rows[0].predictedNs, 100);
  EXPECT_DOUBLE_EQ(f.report.rows[0].errorPct, 0);
  EXPECT_EQ(f.report.rows[1].name, "2/r-0");
  EXPECT_DOUBLE_EQ(f.report.rows[1].predictedNs, 95);
  EXPECT_NEAR(f.report.rows[1].errorPct, (95.0 - 110) / 110 * 100, 1e-9);
  EXPECT_NEAR(f.report.rows[1].errorBeyondSpreadPct, (108.0 - 95) / 110 * 100, 1e-9);
  EXPECT_NEAR(f.report.rows[2].errorPct, (105.0 - 90) / 90 * 100, 1e-9);
  EXPECT_NEAR(f.report.medianAbsErrorPct, 15.0 / 110 * 100, 1e-9);
  EXPECT_NEAR(f.report.maxAbsErrorPct, 15.0 / 90 * 100, 1e-9);
  EXPECT_EQ(f.report.worstCase, "3/r-0");
  EXPECT_NEAR(f.report.meanSignedErrorPct, ((95.0 - 110) / 110 + (105.0 - 90) / 90) * 100 / 3, 1e-9);

  // With one other set enough, the 2-stream rows judge each other too.
  const ReproducibilityFloor loose = reproducibilityFloor(sets, 1);
  EXPECT_EQ(loose.configurations, 2);
  EXPECT_EQ(loose.rowsWithoutPeers, 1);
  ASSERT_EQ(loose.report.rows.size(), 5u);
  EXPECT_NEAR(loose.report.rows[1].errorPct, 20.0, 1e-9);  // mon's 50 against tue's 60
}

TEST(ReproducibilityFloor, ConfigurationsMustMatchExactlyBatchCountIncluded) {
  PipelineConfig longer = configWithStreams(4);
  longer.batchCount *= 2;
  const std::vector<ValidationRecord> sets = {set("mon", {row("r-0", configWithStreams(4), 100, 100, 100)}),
                                              set("tue", {row("r-0", longer, 200, 200, 200)})};
  const ReproducibilityFloor f = reproducibilityFloor(sets, 1);
  EXPECT_TRUE(f.report.rows.empty());
  EXPECT_EQ(f.rowsWithoutPeers, 2);
}

TEST(ReproducibilityFloor, RefusesOneSetAndSetsOfDifferentDevices) {
  const PipelineConfig c = configWithStreams(1);
  std::vector<ValidationRecord> sets = {set("mon", {row("r-0", c, 100, 100, 100)})};
  EXPECT_THROW(reproducibilityFloor(sets, 1), std::invalid_argument);
  sets.push_back(set("tue", {row("r-0", c, 100, 100, 100)}));
  sets.back().measuredDevice = "NVIDIA H200";
  try {
    reproducibilityFloor(sets, 1);
    FAIL() << "sets of two GPUs were compared";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("different devices"), std::string::npos) << e.what();
  }
  sets.back().measuredDevice = sets.front().measuredDevice;
  EXPECT_THROW(reproducibilityFloor(sets, 0), std::invalid_argument);
  EXPECT_EQ(reproducibilityFloor(sets, 1).report.rows.size(), 2u);
}

}  // namespace
}  // namespace pipescope
