// End-to-end runs of pipescope-cli on the simulator.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "CliProcess.h"

using nlohmann::json;
using pipescope::testing::CliProcess;
using pipescope::testing::CliResult;
using pipescope::testing::runCli;

namespace {

std::filesystem::path tempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("pipescope_cli_run_" + std::to_string(::getpid()) + "_" + name);
}

json parseSummary(const CliResult& r) {
  EXPECT_EQ(r.exitCode, 0) << r.err;
  try {
    return json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "stdout is not JSON: " << e.what() << "\n" << r.out;
    return json::object();
  }
}

}  // namespace

TEST(CliRun, MultiStreamJsonSummaryIsNearTheBound) {
  const json j = parseSummary(runCli({"run", "--preset", "multi-stream", "--backend", "sim", "--json"}));
  ASSERT_TRUE(j.contains("metrics"));
  const json& m = j["metrics"];
  EXPECT_EQ(j["preset"], "multi-stream");
  EXPECT_EQ(j["outcome"]["state"], "finished");
  EXPECT_EQ(m["batches"], 32);
  const double makespan = m["makespan_ns"], bound = m["ideal_bound_ns"], efficiency = m["efficiency"];
  EXPECT_GT(makespan, 0.0);
  EXPECT_NEAR(makespan / bound, 1.0, 0.2) << "4 streams should come close to the ideal bound";
  EXPECT_LE(efficiency, 1.01) << "the bound never lies above the run";
  EXPECT_NEAR(efficiency, bound / makespan, 1e-9);
  EXPECT_FALSE(m["bottleneck_sentence"].get<std::string>().empty());
}

TEST(CliRun, CpuBoundPresetNamesTheHostAndSitsAtItsBound) {
  const json j = parseSummary(runCli({"run", "--preset", "cpu-bound", "--backend", "sim", "--json"}));
  const json& m = j["metrics"];
  EXPECT_EQ(m["critical_resource"], "the host");
  EXPECT_GT(m["host_per_batch_ns"].get<double>(), m["occupancy_per_batch_ns"]["kernel"].get<double>());
  EXPECT_GE(m["efficiency"].get<double>(), 0.97);
  EXPECT_EQ(j["analysis"]["limits"]["critical"], "the host");
  EXPECT_EQ(j["analysis"]["limits"]["zone"], "at-full-overlap");
}

TEST(CliRun, KnobOptionsOverrideConfigFileAndPreset) {
  const auto cfg = tempPath("cfg.json");
  std::ofstream(cfg) << R"({"streams": 2, "batches": 3, "sample-bytes": 4096})";
  const json j = parseSummary(runCli({"run", "--backend", "sim", "--streams", "3", "--preset", "async", "--config",
                                      cfg.string(), "--batch-samples", "2", "--json"}));
  std::filesystem::remove(cfg);
  EXPECT_EQ(j["config"]["streams"], 3);           // the knob wins, wherever it stands
  EXPECT_EQ(j["config"]["batches"], 3);           // from the file
  EXPECT_EQ(j["config"]["batch-samples"], 2);
  EXPECT_EQ(j["config"]["memory"], "pinned");     // from the preset
  EXPECT_EQ(j["metrics"]["batches"], 3);
}

TEST(CliRun, ByteUnitsAreAccepted) {
  const json j = parseSummary(runCli({"run", "--backend", "sim", "--batches", "2", "--sample-bytes", "512K", "--json"}));
  EXPECT_EQ(j["config"]["sample-bytes"], 512 * 1024);
}

TEST(CliRun, TableSummaryShowsFiguresAndVerdict) {
  const CliResult r = runCli({"run", "--preset", "pinned", "--backend", "sim", "--batches", "4"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* label : {"Configuration (preset pinned)", "makespan", "GB/s while copying", "ideal bound",
                            "efficiency", "Bottleneck"})
    EXPECT_NE(r.out.find(label), std::string::npos) << label << "\n" << r.out;
}

TEST(CliRun, QuietPrintsNothing) {
  const CliResult r = runCli({"run", "--backend", "sim", "--batches", "2", "--quiet"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliRun, TraceFileIsVersionedJsonWithEveryOp) {
  const auto path = tempPath("trace.json");
  const json j = parseSummary(
      runCli({"run", "--backend", "sim", "--batches", "3", "--trace", path.string(), "--json"}));
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  const json t = json::parse(in);
  std::filesystem::remove(path);
  EXPECT_EQ(t["format"], "pipescope-trace-json");
  EXPECT_EQ(t["version"], 2);
  EXPECT_EQ(t["ops"].size(), j["metrics"]["ops"].get<std::size_t>());
  EXPECT_EQ(t["ops"][0].size(), t["op_fields"].size());
  EXPECT_EQ(j["trace"], path.string());
}

TEST(CliRun, UnwritableTraceFileFailsTheRunButKeepsTheSummary) {
  const CliResult r = runCli({"run", "--backend", "sim", "--batches", "1", "--trace", "/nonexistent/dir/t.json"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("/nonexistent/dir/t.json"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("makespan"), std::string::npos);
}

TEST(CliRun, InterruptStopsAnEndlessRunAndStillSummarises) {
  CliProcess p({"run", "--backend", "sim", "--batches", "0", "--slowdown", "1", "--progress", "--json"});
  ASSERT_TRUE(p.started());
  // The progress line appears once the run has lasted a second: the handler is in place.
  ASSERT_TRUE(p.waitForStderr("ops recorded"));
  ::kill(p.pid(), SIGINT);
  const CliResult r = p.finish();
  EXPECT_EQ(r.exitCode, 128 + SIGINT) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["outcome"]["state"], "stopped");
  EXPECT_EQ(j["outcome"]["signal"], "SIGINT");
  EXPECT_GT(j["metrics"]["ops"].get<long long>(), 0);
}
