// End-to-end sweeps with pipescope-cli on the simulator: the table, the files, the
// base configuration taken from run's options, bad lists, and Ctrl-C.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "CliProcess.h"

using nlohmann::json;
using pipescope::testing::CliProcess;
using pipescope::testing::CliResult;
using pipescope::testing::runCli;

namespace {

std::filesystem::path tempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("pipescope_cli_sweep_" + std::to_string(::getpid()) + "_" + name);
}

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// Table rows: the lines between the dashes under the header and the first blank line.
std::vector<std::string> tableRows(const std::string& out) {
  std::vector<std::string> rows;
  bool in = false;
  for (const auto& l : lines(out)) {
    if (!in) {
      in = l.rfind("---", 0) == 0;
      continue;
    }
    if (l.empty()) break;
    rows.push_back(l);
  }
  return rows;
}

}  // namespace

TEST(CliSweep, PrintsTableRecommendationAndWritesFiles) {
  const auto csv = tempPath("a.csv"), js = tempPath("a.json");
  const CliResult r = runCli({"sweep", "--backend", "sim", "--sample-bytes", "64K", "--batch", "256K,1M,4M", "--streams",
                              "1,2,4", "--batches", "12", "--csv", csv.string(), "--json", js.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto rows = tableRows(r.out);
  ASSERT_EQ(rows.size(), 9u) << r.out;
  EXPECT_EQ(rows[0].rfind("256 KiB x 1 stream", 0), 0u) << rows[0];
  EXPECT_EQ(rows[8].rfind("4 MiB x 4 streams", 0), 0u) << rows[8];
  EXPECT_NE(r.out.find("samples/s"), std::string::npos);
  EXPECT_NE(r.out.find("efficiency"), std::string::npos);
  EXPECT_NE(r.out.find("Recommendation: Use "), std::string::npos) << r.out;
  // One knee line per batch size.
  EXPECT_NE(r.out.find("  256 KiB: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  1 MiB: "), std::string::npos);
  EXPECT_NE(r.out.find("  4 MiB: "), std::string::npos);

  const auto csvLines = lines(readFile(csv));
  ASSERT_EQ(csvLines.size(), 10u);
  EXPECT_EQ(csvLines[0].rfind("index,memory,model,batch_samples", 0), 0u);
  const json j = json::parse(readFile(js));
  EXPECT_EQ(j["format"], "pipescope-sweep");
  ASSERT_EQ(j["points"].size(), 9u);
  EXPECT_EQ(j["spec"]["batch_samples"], json::array({4, 16, 64}));  // 256K, 1M, 4M of 64 KiB samples
  EXPECT_EQ(j["spec"]["batches"], 12);
  EXPECT_EQ(j["points"][0]["config"]["sample-bytes"], 64 * 1024);
  EXPECT_FALSE(j["cancelled"].get<bool>());
  // The table's median throughput is the file's.
  const double first = j["points"][0]["samples_per_s"]["median"];
  EXPECT_GT(first, 0.0);
  std::filesystem::remove(csv);
  std::filesystem::remove(js);
}

TEST(CliSweep, RunKnobsSetTheBaseConfiguration) {
  const auto js = tempPath("b.json");
  const CliResult r = runCli({"sweep", "--backend", "sim", "--preset", "async", "--sample-bytes", "128K", "--order",
                              "breadth-first", "--model-flops-per-byte", "300", "--batch", "1M", "--streams", "2",
                              "--memory", "pageable,pinned", "--warmup", "1", "--batches", "5", "--quiet", "--json",
                              js.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << "--quiet prints no table: " << r.out;
  const json j = json::parse(readFile(js));
  ASSERT_EQ(j["points"].size(), 2u);
  for (const auto& p : j["points"]) {
    EXPECT_EQ(p["config"]["order"], "breadth-first");
    EXPECT_EQ(p["config"]["model-flops-per-byte"], 300.0);
    EXPECT_EQ(p["config"]["batch-samples"], 8);
    EXPECT_EQ(p["config"]["batches"], 6);  // warm-up + measured
  }
  EXPECT_EQ(j["points"][0]["config"]["memory"], "pageable");
  EXPECT_EQ(j["points"][1]["config"]["memory"], "pinned");
  std::filesystem::remove(js);
}

TEST(CliSweep, BadListsAndOptionsSayWhatToType) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--batch", "1M,4X"}, "--batch: '4X' is not a size; use e.g. 512K, 4M, 1G"},
      {{"--batch", "1M", "--streams", "1,,2"}, "--streams: empty value in '1,,2'"},
      {{"--batch", "1M", "--streams", "two"}, "--streams: 'two' is not a whole number"},
      {{"--batch", "1M", "--memory", "pinnned"}, "--memory: 'pinnned' is not a host memory type; allowed pageable|pinned"},
      {{"--batch", "1M", "--model", "huge"}, "--model: 'huge' is not a model preset"},
      {{"--batch", "100K"}, "is not a whole number of samples of 512 KiB"},
      {{"--streams", "1,2"}, "--batch is required"},
      {{"--batch", "1M", "--trace", "x.json"}, "--trace is not a sweep option"},
      {{"--batch", "1M", "--strams", "2"}, "did you mean --streams?"},
      {{"--batch", "1M", "--streams", "1,1"}, "--streams: a value is listed twice"},
      {{"--batch", "1M", "--streams", "64"}, "grid point 1 MiB x 64 streams: --streams"},
      {{"--batch", "1M", "--repeat", "0"}, "--repeat = 0: allowed 1..100"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"sweep", "--backend", "sim"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const CliResult r = runCli(args);
    EXPECT_EQ(r.exitCode, 2) << c.message;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << "expected '" << c.message << "' in:\n" << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(CliSweep, HelpListsGridAndBaseOptions) {
  const CliResult r = runCli({"sweep", "--help"});
  ASSERT_EQ(r.exitCode, 0);
  for (const char* option : {"--batch SIZES", "--streams COUNTS", "--memory KINDS", "--seconds S", "--warmup N",
                             "--repeat R", "--csv FILE", "--json FILE", "--sample-bytes", "--order", "--backend",
                             "--profile", "--preset"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  EXPECT_EQ(r.out.find("--trace"), std::string::npos);
  EXPECT_EQ(r.out.find("--batch-samples"), std::string::npos);
}

TEST(CliSweep, PredictionOfTheSameProfileEqualsTheMeasurement) {
  const auto csv = tempPath("p.csv");
  const CliResult r = runCli({"sweep", "--backend", "sim", "--profile", "pcie4-desktop", "--predict", "pcie4-desktop",
                              "--batch", "1M,4M", "--streams", "1,2", "--batches", "8", "--csv", csv.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("predicted"), std::string::npos);
  const auto rows = lines(readFile(csv));
  ASSERT_EQ(rows.size(), 5u);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    // median throughput is column 10, the prediction the last column
    std::vector<std::string> f;
    std::stringstream ss(rows[i]);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 26u) << rows[i];
    EXPECT_EQ(f[10], f.back()) << rows[i];
  }
  std::filesystem::remove(csv);
}

TEST(CliSweep, CtrlCKeepsTheFinishedPoints) {
  const auto js = tempPath("c.json");
  // Slowed down so each point lasts about 0.1 s of wall time or more.
  CliProcess p({"sweep", "--backend", "sim", "--slowdown", "5", "--batch", "16M,32M,64M", "--streams", "1,2,4",
                "--batches", "6", "--progress", "--json", js.string()});
  ASSERT_TRUE(p.started());
  ASSERT_TRUE(p.waitForStderr("point 3/9"));
  ::kill(p.pid(), SIGINT);
  const CliResult r = p.finish();
  ASSERT_EQ(r.exitCode, 128 + SIGINT) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGINT (Ctrl-C)"), std::string::npos) << r.err;
  const json j = json::parse(readFile(js));
  EXPECT_TRUE(j["cancelled"].get<bool>());
  const std::size_t kept = j["points"].size();
  EXPECT_GE(kept, 2u);
  EXPECT_LT(kept, 9u);
  EXPECT_EQ(tableRows(r.out).size(), kept);
  for (const auto& point : j["points"]) EXPECT_EQ(point["state"], "finished");
  std::filesystem::remove(js);
}
