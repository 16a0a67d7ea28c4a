// `validate --random N --seed S --gpus K`: random sets over several GPUs, measured
// here on the simulator with another profile (no GPU), judged twice in a row, their
// repeats read back by `validate --measurements` and `reproducibility`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "CliProcess.h"

using pipescope::testing::CliResult;
using pipescope::testing::runCli;

namespace {

constexpr int kOk = 0, kUsage = 2;

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::string lastLine(const std::string& text) {
  const std::size_t end = text.find_last_not_of('\n');
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

TEST(CliMultiGpuValidate, ASetOverTwoGpusMeasuredTwiceIsJudgedAndItsRepeatsGiveTheFloor) {
  const std::string dir = ::testing::TempDir() + "mgpu-validate";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string md = dir + "/set.md";
  CliResult r = runCli({"validate", "--profile", "h200-calibrated", "--measured-profile", "h100-calibrated", "--random",
                        "4", "--seed", "26", "--gpus", "2", "--repeat", "2", "--save-measurements", dir + "/m.json",
                        "--markdown", md});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "4 configurations over 2 GPUs drawn at random with seed 26")) << r.out;
  EXPECT_TRUE(has(r.out, "\nr26-2g-3 ")) << r.out;
  EXPECT_TRUE(has(r.out, "\ngpus           2                      4 ")) << r.out;  // the knob breakdown
  EXPECT_TRUE(has(r.out, "\nparallel ")) << r.out;
  EXPECT_EQ(lastLine(r.out).rfind("model median ", 0), 0u) << r.out;
  EXPECT_TRUE(has(lastLine(r.out), "vs floor median 0.0 %; structural rows: ")) << r.out;
  std::stringstream text;
  text << std::ifstream(md).rdbuf();
  EXPECT_TRUE(has(text.str(), "| gpus | 2 | 4 |")) << text.str().substr(0, 2000);
  // The saved repeats carry the GPUs in each configuration.
  nlohmann::json saved;
  std::ifstream(dir + "/m-repeat1.json") >> saved;
  ASSERT_EQ(saved["rows"].size(), 4u);
  for (const auto& row : saved["rows"]) EXPECT_EQ(row["config"]["devices"], nlohmann::json({0, 1})) << row.dump();

  const std::string repeats = dir + "/m-repeat1.json," + dir + "/m-repeat2.json";
  r = runCli({"reproducibility", "--measurements", repeats, "--min-sets", "1"});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "4 configurations measured in 2 or more of the 2 sets; 8 rows judged")) << r.out;
  EXPECT_TRUE(has(r.out, "\ngpus           2 ")) << r.out;
  // Judged offline with the profile that "measured" them: no error, no floor.
  r = runCli({"validate", "--profile", "h100-calibrated", "--measurements", repeats});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_EQ(lastLine(r.out), "model median 0.0 % vs floor median 0.0 %; structural rows: 0 of 4 (2 repeats)");
}

TEST(CliMultiGpuValidate, BadGpuCountsAndCombinationsSayWhatToDo) {
  const std::vector<std::string> base = {"validate", "--profile", "h200", "--measured-profile", "h200"};
  const auto refused = [&](std::vector<std::string> extra, const std::string& says) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = runCli(args);
    EXPECT_EQ(r.exitCode, kUsage) << says;
    EXPECT_TRUE(has(r.err, says)) << r.err;
  };
  refused({"--random", "3", "--seed", "1", "--gpus", "1"}, "--gpus 1 is the one-GPU set, the default: leave --gpus out");
  refused({"--random", "3", "--seed", "1", "--gpus", "9"}, "--gpus 9: a set over several GPUs takes 2..8 GPUs");
  refused({"--random", "3", "--seed", "1", "--gpus", "0"}, "takes 2..8 GPUs");
  refused({"--random", "3", "--seed", "1", "--gpus", "two"}, "not a whole number");
  refused({"--gpus", "2"}, "--gpus draws a random set over several GPUs: give --random N --seed S");
  refused({"--quick", "--gpus", "2"}, "give --random N --seed S");
  refused({"--random", "3", "--seed", "1", "--gpus", "2", "--device", "1"}, "leave --device out");
  const CliResult r = runCli({"validate", "--profile", "h200", "--measurements", "m.json", "--gpus", "2"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "leave --gpus out")) << r.err;
}

}  // namespace
