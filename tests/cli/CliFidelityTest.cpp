// `calibrate` and `validate` from the command line, on a machine without a GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "CliProcess.h"

using pipescope::testing::CliResult;
using pipescope::testing::runCli;

namespace {

constexpr int kOk = 0, kFailed = 1, kUsage = 2;

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

TEST(CliValidate, TwoProfilesOfTheSameDeviceAgreeExactly) {
  const std::string md = ::testing::TempDir() + "validation-same.md";
  const CliResult r = runCli({"validate", "--profile", "h200", "--measured-profile", "h200", "--quick", "--markdown", md});
  EXPECT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "14 configurations")) << r.out;
  EXPECT_TRUE(has(r.out, "median |error| 0.0 %, 90th percentile 0.0 %, max |error| 0.0 %")) << r.out;
  std::ifstream in(md);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(has(text.str(), "| async-pinned-s4-bf-balanced-large |")) << text.str();
  EXPECT_TRUE(has(text.str(), "Median |error|: 0.0 %")) << text.str();
  std::remove(md.c_str());
}

TEST(CliValidate, DifferentProfilesGiveAnError) {
  const CliResult r = runCli({"validate", "--profile", "pcie4-desktop", "--measured-profile", "h200", "--quick"});
  EXPECT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_FALSE(has(r.out, "median |error| 0.0 %")) << r.out;
}

TEST(CliValidate, MissingOrUnknownProfileIsAUsageError) {
  EXPECT_EQ(runCli({"validate"}).exitCode, kUsage);
  const CliResult r = runCli({"validate", "--profile", "no-such-profile", "--measured-profile", "h200"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "unknown device profile 'no-such-profile'")) << r.err;
}

TEST(CliCalibrate, WithoutOutItCalibratesThisMachineAndWithoutAGpuSaysSo) {
  const std::string data = ::testing::TempDir() + "calibrate-xdg";
  ::setenv("XDG_DATA_HOME", data.c_str(), 1);
  const CliResult r = runCli({"calibrate", "--quick"});
  ::unsetenv("XDG_DATA_HOME");
  if (r.exitCode == kOk) GTEST_SKIP() << "this machine has a GPU: calibration ran";
  EXPECT_EQ(r.exitCode, kFailed);
  EXPECT_TRUE(has(r.err, "CUDA")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(data + "/pipescope/profiles")) << "nothing is saved on failure";
  EXPECT_TRUE(has(runCli({"calibrate", "--help"}).out, "this machine's calibration")) << "the help says where";
}

TEST(CliCalibrate, WithoutAGpuFailsWithAClearMessage) {
  const std::string out = ::testing::TempDir() + "calibrated.json";
  const CliResult r = runCli({"calibrate", "--out", out});
  if (r.exitCode == kOk) GTEST_SKIP() << "this machine has a GPU: calibration ran";
  EXPECT_EQ(r.exitCode, kFailed);
  EXPECT_TRUE(has(r.err, "CUDA")) << r.err;
  EXPECT_FALSE(std::ifstream(out).good()) << "no profile is written on failure";
}

TEST(CliValidate, ARandomSetIsSavedJudgedOfflineAndAttachedToTheProfile) {
  const std::string saved = ::testing::TempDir() + "random-measurements.json";
  const std::string attached = ::testing::TempDir() + "profile-with-validation.json";
  // The simulator with one profile stands for the GPU; its measurements are saved.
  CliResult r = runCli({"validate", "--profile", "h100-calibrated", "--measured-profile", "h200-calibrated", "--random",
                        "12", "--seed", "77", "--save-measurements", saved});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "12 configurations drawn at random with seed 77")) << r.out;
  EXPECT_TRUE(has(r.out, "judged on the random set with seed 77")) << r.out;
  EXPECT_TRUE(has(r.out, "mean signed error (bias)")) << r.out;
  EXPECT_TRUE(has(r.out, "error by knob value:")) << r.out;
  // Judged again offline against the profile that produced them: no error at all.
  r = runCli({"validate", "--profile", "h200-calibrated", "--measurements", saved, "--attach-to-profile", attached});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "median |error| 0.0 %")) << r.out;
  EXPECT_TRUE(has(r.out, "with its error on 12 validation runs")) << r.out;
  // Advice made with the attached profile quotes that error.
  r = runCli({"run", "--backend", "sim", "--profile", attached, "--preset", "naive"});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "this profile's error on the 5 most similar validation runs")) << r.out;
  std::remove(saved.c_str());
  std::remove(attached.c_str());
}

TEST(CliValidate, SavedMeasurementsWithoutLaunchTimesReadThemFromTheirTraces) {
  const std::string saved = ::testing::TempDir() + "launch-measurements.json";
  const std::string traces = ::testing::TempDir() + "launch-traces";
  CliResult r = runCli({"validate", "--profile", "h100-calibrated", "--measured-profile", "h200-calibrated", "--random",
                        "4", "--seed", "5", "--save-measurements", saved, "--traces", traces});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "host speed: the measured runs' kernel launches took")) << r.out;
  // A file from before rows kept their launch time: strip the field.
  std::stringstream text;
  text << std::ifstream(saved).rdbuf();
  std::string json = text.str();
  for (std::size_t at; (at = json.find("\"measuredLaunchNs\"")) != std::string::npos;)
    json.erase(at, json.find('\n', at) - at + 1);
  std::ofstream(saved) << json;
  r = runCli({"validate", "--profile", "h100-calibrated", "--measurements", saved});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_FALSE(has(r.out, "host speed:")) << r.out;
  r = runCli({"validate", "--profile", "h100-calibrated", "--measurements", saved, "--traces", traces});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "launch times read from 4 saved trace(s) in " + traces)) << r.out;
  EXPECT_TRUE(has(r.out, "host speed: the measured runs' kernel launches took")) << r.out;
  std::remove(saved.c_str());
}

TEST(CliProfiles, MergesCalibrationsOfOneGpuIntoTheirMedian) {
  const std::string a = ::testing::TempDir() + "merge-a.json", b = ::testing::TempDir() + "merge-b.json",
                    c = ::testing::TempDir() + "merge-c.json", out = ::testing::TempDir() + "merged.json";
  // Three calibrations of one GPU: the built-in H100 profile (as validate writes it out)
  // with its launch cost set to 5, 9 and 6 us.
  CliResult r = runCli({"validate", "--profile", "h100-calibrated", "--measured-profile", "h100-calibrated",
                        "--random", "2", "--seed", "1", "--attach-to-profile", a});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  std::stringstream text;
  text << std::ifstream(a).rdbuf();
  const std::string original = text.str();
  for (const auto& [path, launch] : {std::pair{a, "5000"}, std::pair{b, "9000"}, std::pair{c, "6000"}}) {
    std::string json = original;
    const auto at = json.find("\"kernelLaunchNs\"");
    ASSERT_NE(at, std::string::npos);
    json.replace(at, json.find(',', at) - at, std::string("\"kernelLaunchNs\": ") + launch);
    std::ofstream(path) << json;
  }
  r = runCli({"profiles", "--merge", a + "," + b + "," + c, "--out", out, "--name", "h100-typical"});
  ASSERT_EQ(r.exitCode, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "wrote profile 'h100-typical', the median of 3 calibrations of NVIDIA H100 80GB HBM3")) << r.out;
  std::stringstream merged;
  merged << std::ifstream(out).rdbuf();
  EXPECT_TRUE(has(merged.str(), "\"kernelLaunchNs\": 6000")) << merged.str().substr(0, 2000);
  // Calibrations of different GPUs do not merge; --merge needs --out and two inputs.
  r = runCli({"profiles", "--merge", "h100-calibrated,h200-calibrated", "--out", out});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "different GPUs")) << r.err;
  r = runCli({"profiles", "--merge", a + "," + b});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "--merge needs --out FILE")) << r.err;
  r = runCli({"profiles", "--merge", a, "--out", out});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "two or more profiles")) << r.err;
  for (const std::string& f : {a, b, c, out}) std::remove(f.c_str());
}

TEST(CliValidate, RandomNeedsASeedAndAttachingNeedsARandomSet) {
  CliResult r = runCli({"validate", "--profile", "h200", "--measured-profile", "h200", "--random", "5"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "--random needs --seed")) << r.err;
  r = runCli({"validate", "--profile", "h200", "--measured-profile", "h200", "--quick", "--attach-to-profile", "x.json"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "--attach-to-profile needs a random set")) << r.err;
  r = runCli({"validate", "--profile", "h200", "--measurements", "/nonexistent/m.json"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(has(r.err, "cannot open validation measurements '/nonexistent/m.json'")) << r.err;
}

}  // namespace
