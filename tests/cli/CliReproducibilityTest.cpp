// `pipescope-cli reproducibility`: measurements of one device saved in several
// sessions, each row judged against the other sessions' median.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "CliProcess.h"

using pipescope::testing::CliResult;
using pipescope::testing::runCli;

namespace {

constexpr int kOk = 0, kUsage = 2;

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// A random set "measured" on the simulator with `measuredProfile` and saved.
std::string savedSet(const std::string& name, const std::string& measuredProfile, const std::string& seed = "77") {
  const std::string path = ::testing::TempDir() + "repro-" + name + ".json";
  const CliResult r = runCli({"validate", "--profile", "h100-calibrated", "--measured-profile", measuredProfile,
                              "--random", "3", "--seed", seed, "--save-measurements", path});
  EXPECT_EQ(r.exitCode, kOk) << r.err;
  return path;
}

TEST(CliReproducibility, IdenticalSessionsHaveAZeroFloorAndTheTableIsWritten) {
  const std::string a = savedSet("a", "h100-calibrated"), b = savedSet("b", "h100-calibrated"),
                    c = savedSet("c", "h100-calibrated"), md = ::testing::TempDir() + "repro.md";
  const CliResult r = runCli({"reproducibility", "--measurements", a + "," + b + "," + c, "--markdown", md});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "3 configurations measured in 3 or more of the 3 sets; 9 rows judged")) << r.out;
  EXPECT_TRUE(has(r.out, "median |difference| 0.0 %, 90th percentile 0.0 %, max 0.0 %")) << r.out;
  EXPECT_TRUE(has(r.out, "difference by knob value:")) << r.out;
  EXPECT_TRUE(has(r.out, "- set 2: " + b + " (")) << r.out;  // which file is set 2 of "2/r77-0"
  EXPECT_TRUE(has(r.out, ", seed 77)")) << r.out;
  std::stringstream text;
  text << std::ifstream(md).rdbuf();
  EXPECT_TRUE(has(text.str(), "| 2/r77-0 |")) << text.str();
  EXPECT_TRUE(has(text.str(), "| knob | value |")) << text.str().substr(0, 3000);
}

TEST(CliReproducibility, RefusesSetsOfDifferentDevicesAndTooFewSets) {
  const std::string a = savedSet("d", "h100-calibrated"), b = savedSet("e", "h200-calibrated");
  CliResult r = runCli({"reproducibility", "--measurements", a + "," + b, "--min-sets", "1"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "measured on different devices")) << r.err;
  r = runCli({"reproducibility", "--measurements", a});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "two or more measurement files")) << r.err;
  r = runCli({"reproducibility", "--measurements", a + "," + a});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "--min-sets 2 needs at least 3 measurement files")) << r.err;
  const std::string broken = ::testing::TempDir() + "repro-broken.json";
  std::ofstream(broken) << "{\"rows\": [";
  r = runCli({"reproducibility", "--measurements", a + "," + broken, "--min-sets", "1"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "repro-broken.json")) << r.err;
}

TEST(CliReproducibility, SetsWithNoConfigurationInCommonSayWhatToSave) {
  const std::string a = savedSet("f", "h100-calibrated", "77"), b = savedSet("g", "h100-calibrated", "78");
  const CliResult r = runCli({"reproducibility", "--measurements", a + "," + b, "--min-sets", "1"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(has(r.err, "no configuration was measured in 2 or more of these sets")) << r.err;
  EXPECT_TRUE(has(r.err, "--save-measurements")) << r.err;
}

}  // namespace
