// `pipescope-cli compare`: run specs, trace files, JSON, and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "CliProcess.h"

namespace {

using nlohmann::json;
using pipescope::testing::CliResult;
using pipescope::testing::runCli;

std::filesystem::path tempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("pipescope-compare-" + std::to_string(::getpid()) + "-" + name);
}

TEST(CliCompare, RunSpecsPrintTheTable) {
  const CliResult r = runCli({"compare", "--a", "preset=naive,batches=4", "--b", "preset=multi-stream,batches=4"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* text : {"A: preset=naive,batches=4 (run on simulator, profile h200)", "makespan", "samples/s",
                           "H2D GB/s", "compute busy", "overlap", "efficiency", "bottleneck", "B vs A"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST(CliCompare, JsonRowsMatchTheRunSummaries) {
  const CliResult c =
      runCli({"compare", "--a", "preset=async,batches=6", "--b", "preset=multi-stream,batches=6", "--json"});
  ASSERT_EQ(c.exitCode, 0) << c.err;
  const json j = json::parse(c.out);
  const CliResult ra = runCli({"run", "--backend", "sim", "--preset", "async", "--batches", "6", "--json"});
  const CliResult rb = runCli({"run", "--backend", "sim", "--preset", "multi-stream", "--batches", "6", "--json"});
  const json ma = json::parse(ra.out)["metrics"], mb = json::parse(rb.out)["metrics"];
  int checked = 0;
  for (const auto& row : j["rows"]) {
    const std::string key = row["key"];
    if (!ma.contains(key) || !row.contains("a")) continue;
    EXPECT_DOUBLE_EQ(row["a"].get<double>(), ma[key].get<double>()) << key;
    EXPECT_DOUBLE_EQ(row["b"].get<double>(), mb[key].get<double>()) << key;
    ++checked;
  }
  EXPECT_GE(checked, 10);
  EXPECT_EQ(j["a_run"]["kind"], "run");
  EXPECT_EQ(j["b_run"]["config"]["streams"], 4);
}

TEST(CliCompare, TraceFileAgainstRunSpec) {
  const auto path = tempPath("a.json");
  const CliResult run =
      runCli({"run", "--backend", "sim", "--preset", "pinned", "--batches", "5", "--trace", path.string(), "--quiet"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const CliResult c = runCli({"compare", "--a", path.string(), "--b", "preset=pinned,batches=5", "--json"});
  ASSERT_EQ(c.exitCode, 0) << c.err;
  const json j = json::parse(c.out);
  EXPECT_EQ(j["a_run"]["kind"], "trace");
  // The same configuration on the same deterministic simulator: equal everywhere.
  for (const auto& row : j["rows"]) EXPECT_EQ(row["better"], "same") << row["key"];
  std::filesystem::remove(path);
}

TEST(CliCompare, ReadsEveryTraceFormatAnalyzeReads) {
  // The native format that `run --trace` writes by default, against a PyTorch
  // profiler trace (Chrome JSON, gzipped).
  const auto native = tempPath("a.pipescope");
  const CliResult run = runCli(
      {"run", "--backend", "sim", "--preset", "pinned", "--batches", "5", "--trace", native.string(), "--quiet"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const std::string pytorch =
      std::string(PIPESCOPE_FIXTURES_DIR) + "/pytorch-profiler-resnet18-pinned-2streams.json.gz";
  const CliResult c = runCli({"compare", "--a", native.string(), "--b", pytorch, "--json"});
  ASSERT_EQ(c.exitCode, 0) << c.err;
  const json j = json::parse(c.out);
  EXPECT_EQ(j["a_run"]["kind"], "trace");
  EXPECT_EQ(j["b_run"]["kind"], "trace");
  std::filesystem::remove(native);
}

TEST(CliCompare, BadInputGivesClearMessagesAndExitCodes) {
  const auto bad = tempPath("bad.json");
  std::ofstream(bad) << "{\"format\": \"pipescope-trace-json\", \"version\": 1, \"ops\": [";
  CliResult r = runCli({"compare", "--a", bad.string(), "--b", "preset=naive"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  std::filesystem::remove(bad);

  r = runCli({"compare", "--a", "no-such-file.json", "--b", "preset=naive"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("no-such-file.json"), std::string::npos) << r.err;

  r = runCli({"compare", "--a", "preset=naive,strems=2", "--b", "preset=naive"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("did you mean --streams"), std::string::npos) << r.err;

  r = runCli({"compare", "--a", "preset=pinned,streams=4", "--b", "preset=naive"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("blocking mode"), std::string::npos) << r.err;

  r = runCli({"compare", "--a", "preset=naive"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--b"), std::string::npos) << r.err;

  r = runCli({"compare", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("run spec"), std::string::npos);
}

}  // namespace
