// `pipescope-cli analyze` and `convert` as a user runs them.
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

std::string tempPath(const std::string& name) { return pipescope::testing::cliTempPath("cli-files", name); }

TEST(CliAnalyze, PyTorchTraceSummary) {
  const CliResult r = runCli({"analyze", kFixture});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("(Chrome trace JSON): 16 lanes, 4840 ops"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(r.out.find("55.0 GB/s while copying"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not recorded in this trace"), std::string::npos);
}

TEST(CliAnalyze, JsonMatchesARunOfTheSameTrace) {
  const std::string trace = tempPath("run.pipescope");
  const CliResult run =
      runCli({"run", "--preset", "multi-stream", "--backend", "sim", "--batches", "8", "--json", "--trace", trace});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const CliResult a = runCli({"analyze", trace, "--json"});
  ASSERT_EQ(a.exitCode, 0) << a.err;
  const json jr = json::parse(run.out), ja = json::parse(a.out);
  EXPECT_EQ(ja["format"], "pipescope trace");
  EXPECT_EQ(ja["config"], jr["config"]);
  EXPECT_EQ(ja["metrics"], jr["metrics"]) << "the saved trace holds everything the metrics need";
  std::remove(trace.c_str());
}

TEST(CliConvert, EveryOutputFormatAndBack) {
  const std::string own = tempPath("f.pipescope"), chrome = tempPath("f.json"), csv = tempPath("f.csv"),
                    metrics = tempPath("m.csv");
  ASSERT_EQ(runCli({"run", "--preset", "multi-stream", "--backend", "sim", "--batches", "6", "--quiet", "--trace", own})
                .exitCode,
            0);
  const CliResult c1 = runCli({"convert", own, chrome});
  ASSERT_EQ(c1.exitCode, 0) << c1.err;
  const CliResult c = runCli({"convert", chrome, csv});
  ASSERT_EQ(c.exitCode, 0) << c.err;
  ASSERT_EQ(runCli({"convert", chrome, metrics, "--metrics"}).exitCode, 0);
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("index,kind,name,lane,lane_name", 0), 0u);
  int rows = 0;
  for (std::string line; std::getline(in, line);) ++rows;
  EXPECT_NE(c.out.find(std::to_string(rows) + " ops"), std::string::npos) << c.out;
  EXPECT_GT(rows, 30);
  // Analyzing each form gives the same figures.
  const json a = json::parse(runCli({"analyze", own, "--json"}).out);
  const json d = json::parse(runCli({"analyze", chrome, "--json"}).out);
  EXPECT_EQ(a["metrics"], d["metrics"]);
  EXPECT_EQ(a["config"], d["config"]);
  for (const auto& p : {own, chrome, csv, metrics}) std::remove(p.c_str());
}

TEST(CliConvert, UsageErrors) {
  CliResult r = runCli({"convert", kFixture, tempPath("x.txt")});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("use the extension .pipescope, .json or .csv"), std::string::npos) << r.err;
  r = runCli({"convert", kFixture});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("expected two files"), std::string::npos);
  r = runCli({"convert", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find(".pipescope  pipescope's own trace format"), std::string::npos);
}

TEST(CliAnalyze, CorruptFileGivesClearErrorAndExitCode) {
  const std::string bad = tempPath("bad.json");
  std::ofstream(bad) << "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":-4}]}";
  const CliResult r = runCli({"analyze", bad});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("event 0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("negative duration"), std::string::npos) << r.err;
  const CliResult missing = runCli({"analyze", tempPath("nope.pipescope")});
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos);
  EXPECT_EQ(runCli({"analyze"}).exitCode, 2);
  std::remove(bad.c_str());
}

}  // namespace
