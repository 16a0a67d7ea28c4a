// `pipescope-cli analyze` on a PyTorch trace as a user runs it: iterations, the
// analysis, the derived configuration, and `sweep --config` on it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "CliProcess.h"

namespace {

using nlohmann::json;
using pipescope::testing::CliResult;
using pipescope::testing::runCli;

const std::string kFixture = pipescope::testing::pytorchFixture();

std::string tempPath(const std::string& name) { return pipescope::testing::cliTempPath("cli-imported", name); }

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(CliImported, IterationsLimitsWaitsAndAdvice) {
  const CliResult r = runCli({"analyze", kFixture, "--batch-size", "16"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("Iterations\n  6 from repeating host user ranges, each starting at 'cpu_to_gpu'; 16 samples"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("6 batches"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Limits\n  The run took"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("critical"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Waits\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Advice (predicted by the simulator"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Derived configuration (device profile 'h200-calibrated'"), std::string::npos) << r.out;
}

TEST(CliImported, JsonCarriesTheAnalysisAndTheDerivedConfiguration) {
  const CliResult r = runCli({"analyze", kFixture, "--json", "--batch-size", "16"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["iterations"]["count"], 6);
  EXPECT_EQ(j["iterations"]["marker"], "cpu_to_gpu");
  EXPECT_EQ(j["metrics"]["batches"], 6);
  EXPECT_EQ(j["metrics"]["samples"], 96);
  EXPECT_GT(j["metrics"]["ideal_bound_ns"].get<double>(), 0);
  ASSERT_TRUE(j["analysis"].is_object());
  EXPECT_GT(j["analysis"]["limits"]["full_overlap_ns"].get<double>(), 0) << j["analysis"]["limits"].dump();
  const json& d = j["analysis"]["derived_config"];
  ASSERT_TRUE(d.is_object());
  EXPECT_LT(std::fabs(d["error"].get<double>()), 0.10) << d.dump();
  EXPECT_EQ(d["config"]["streams"], 2);
  EXPECT_EQ(j["profile"], "h200-calibrated");
}

TEST(CliImported, NoIterationFoundSaysWhyOnce) {
  const CliResult r = runCli({"analyze", kFixture, "--iteration-marker", "nope"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(count(r.out, "no range is named 'nope'"), 1u) << r.out;
  EXPECT_NE(r.out.find("none found (see Limits)"), std::string::npos) << r.out;
  const CliResult d = runCli({"analyze", kFixture, "--iteration-marker", "nope", "--derive-config", tempPath("x.json")});
  EXPECT_EQ(d.exitCode, 1);
  EXPECT_NE(d.err.find("cannot write"), std::string::npos) << d.err;
}

TEST(CliImported, DerivedConfigurationSweepsWithoutBatchList) {
  const std::string cfg = tempPath("derived.json");
  const CliResult a = runCli({"analyze", kFixture, "--batch-size", "16", "--no-advice", "--derive-config", cfg});
  ASSERT_EQ(a.exitCode, 0) << a.err;
  std::ifstream in(cfg);
  const json c = json::parse(in);
  EXPECT_EQ(c["streams"], 2);
  EXPECT_EQ(c["memory"], "pinned");
  const CliResult s = runCli({"sweep", "--config", cfg, "--backend", "sim", "--profile", "h200-calibrated",
                              "--streams", "1,2,4", "--batches", "8", "--json", tempPath("sweep.json")});
  ASSERT_EQ(s.exitCode, 0) << s.err;
  EXPECT_NE(s.out.find("Recommend"), std::string::npos) << s.out;
  std::remove(cfg.c_str());
}

TEST(CliImported, SweepStillNeedsABatchListWithoutConfig) {
  const CliResult s = runCli({"sweep", "--streams", "1,2"});
  EXPECT_EQ(s.exitCode, 2);
  EXPECT_NE(s.err.find("--batch is required"), std::string::npos) << s.err;
  EXPECT_NE(s.err.find("--config"), std::string::npos) << s.err;
}

}  // namespace
