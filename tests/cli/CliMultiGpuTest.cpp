// pipescope-cli over several GPUs on the simulator: the options, their bad values,
// config files, the summary's multi-GPU figures, the sweep axes and the lessons.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "CliProcess.h"

using nlohmann::json;
using pipescope::testing::CliResult;
using pipescope::testing::runCli;

namespace {

std::filesystem::path tempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("pipescope_cli_mgpu_" + std::to_string(::getpid()) + "_" + name);
}

json summary(const std::vector<std::string>& args) {
  const CliResult r = runCli(args);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  try {
    return json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "stdout is not JSON: " << e.what() << "\n" << r.out;
    return json::object();
  }
}

}  // namespace

TEST(CliMultiGpu, DataParallelRunReportsEveryGpuAndTheAllReduce) {
  const json j = summary({"run", "--backend", "sim", "--gpus", "4", "--allreduce-bytes", "16M", "--buckets", "4",
                          "--batches", "8", "--batch-samples", "16", "--json"});
  EXPECT_EQ(j["config"]["devices"], json({0, 1, 2, 3}));
  EXPECT_EQ(j["config"]["buckets"], 4);
  const json& g = j["metrics"]["multi_gpu"];
  ASSERT_TRUE(g.is_object()) << j["metrics"].dump();
  EXPECT_EQ(g["gpus"], 4);
  EXPECT_EQ(g["per_gpu"].size(), 4u);
  EXPECT_EQ(g["collectives"], 2 * 4);  // 2 steps x 4 buckets
  EXPECT_GT(g["allreduce_bus_gbps"].get<double>(), 0.0);
  EXPECT_LE(j["metrics"]["efficiency"].get<double>(), 1.0);
  EXPECT_GT(j["analysis"]["scaling"]["efficiency"].get<double>(), 0.5);
  EXPECT_TRUE(j["analysis"]["scaling"]["run_simulated"].get<bool>());
}

TEST(CliMultiGpu, PipelineSummaryInWords) {
  const CliResult r = runCli({"run", "--backend", "sim", "--gpus", "2", "--parallel", "pipeline", "--micro-batches",
                              "4", "--activation-bytes", "4M", "--batches", "4"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* text : {"GPUs              2 (0,1), pipeline parallel: 2 stages, 4 micro-batches", "GPU0→GPU1 NVLink",
                           "bubble", "Scaling efficiency"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST(CliMultiGpu, DevicesPickTheOrdinals) {
  const json j = summary({"run", "--backend", "sim", "--devices", "2,5", "--batches", "4", "--batch-samples", "8",
                          "--json"});
  const json& g = j["metrics"]["multi_gpu"];
  ASSERT_TRUE(g.is_object());
  EXPECT_EQ(g["per_gpu"][0]["name"], "GPU2");
  EXPECT_EQ(g["per_gpu"][1]["name"], "GPU5");
}

// The other bad values are the engine's (MultiGpuConfig tests); these are the ones the
// command line parses itself, and one of each kind validate() reports.
TEST(CliMultiGpu, BadValuesNameTheLimit) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{"--gpus", "9"}, "--gpus = 9: allowed 1..8"},
      {{"--devices", "0,1,2,3,4,5,6,7,8"}, "9 GPUs: allowed 1..8"},
      {{"--devices", "0,0"}, "GPU 0 is listed twice"},
      {{"--devices", "0,,1"}, "expected GPU ordinals separated by commas"},
      {{"--gpus", "2", "--devices", "0,1"}, "give one of them"},
      {{"--parallel", "pipeline"}, "pipeline needs 2 GPUs or more"},
      {{"--gpus", "2", "--allreduce-bytes", "1M", "--batches", "5"}, "a multiple of the GPU count (2)"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args{"run", "--backend", "sim", "--quiet"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const CliResult r = runCli(args);
    EXPECT_EQ(r.exitCode, 2) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.says << "\n" << r.err;
  }
}

TEST(CliMultiGpu, ConfigFilesCarryTheGpuKnobs) {
  const auto cfg = tempPath("cfg.json");
  std::ofstream(cfg) << R"({"devices": [0, 1], "parallel": "pipeline", "micro-batches": 2, "batches": 2,
                          "activation-bytes": 65536})";
  const json j = summary({"run", "--backend", "sim", "--config", cfg.string(), "--json"});
  std::filesystem::remove(cfg);
  EXPECT_EQ(j["config"]["parallel"], "pipeline");
  EXPECT_EQ(j["config"]["micro-batches"], 2);
  EXPECT_EQ(j["metrics"]["multi_gpu"]["parallel"], "pipeline");
  const auto bad = tempPath("bad.json");
  std::ofstream(bad) << R"({"devices": "0,1"})";
  const CliResult r = runCli({"run", "--backend", "sim", "--config", bad.string()});
  std::filesystem::remove(bad);
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("devices"), std::string::npos) << r.err;
}

TEST(CliMultiGpu, SweepStatesScalingEfficiency) {
  const CliResult r = runCli({"sweep", "--backend", "sim", "--batch", "4M", "--streams", "2", "--gpus", "1,2",
                              "--allreduce-bytes", "8M", "--buckets", "0,4", "--batches", "6", "--no-progress"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("4 MiB x 2 streams, 2 GPUs, 4 buckets"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Scaling efficiency (throughput over GPUs x one GPU's)"), std::string::npos) << r.out;
  const CliResult bad = runCli({"sweep", "--backend", "sim", "--batch", "4M", "--gpus", "1,9"});
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("--gpus: 9 GPUs; allowed 1..8"), std::string::npos) << bad.err;
}

TEST(CliMultiGpu, TheTwoLessonsHoldOnTheSimulator) {
  for (const char* id : {"allreduce-buckets", "pipeline-bubble"}) {
    const CliResult r = runCli({"lessons", "--run", id, "--backend", "sim", "--json"});
    ASSERT_EQ(r.exitCode, 0) << id << ": " << r.err;
    const json j = json::parse(r.out);
    ASSERT_FALSE(j["checks"].empty()) << id;
    for (const json& c : j["checks"]) EXPECT_EQ(c["verdict"], "holds") << id << ": " << c["claim"];
  }
}
