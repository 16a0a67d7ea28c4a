// `pipescope-cli analyze` on a folder of a DDP job's ranks (tests/fixtures/ddp): each
// rank's GPU is named by its rank (every rank calls its own GPU 0), and the ideal bound
// is one the job could meet: no efficiency above 100 %.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "CliProcess.h"

namespace {

using nlohmann::json;
using pipescope::testing::CliResult;
using pipescope::testing::runCli;

std::string ddp(const std::string& job) { return std::string(PIPESCOPE_FIXTURES_DIR) + "/ddp/" + job; }

TEST(CliRanks, EachRanksGpuIsNamedByItsRank) {
  const CliResult r = runCli({"analyze", ddp("ddp-w4-slowed"), "--no-advice"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (int rank = 0; rank < 4; ++rank)
    EXPECT_NE(r.out.find("\n  rank " + std::to_string(rank) + " · GPU0 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\n  GPU0 "), std::string::npos) << "a GPU line without its rank\n" << r.out;
}

TEST(CliRanks, TheIdealBoundOfMergedRanksIsNeverAboveTheMakespan) {
  for (const char* job : {"ddp-w4-slowed", "ddp-w2-balanced"}) {
    const CliResult r = runCli({"analyze", ddp(job), "--json", "--no-advice"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const json j = json::parse(r.out);
    const json& m = j.at("metrics");
    const double makespan = m.at("makespan_ns").get<double>();
    ASSERT_GT(makespan, 0) << job;
    EXPECT_LE(m.at("ideal_bound_ns").get<double>(), makespan) << job;
    EXPECT_LE(m.at("efficiency").get<double>(), 1.0) << job;
    // The text says the same.
    const CliResult text = runCli({"analyze", ddp(job), "--no-advice"});
    std::smatch e;
    ASSERT_TRUE(std::regex_search(text.out, e, std::regex("efficiency +([0-9.]+)%"))) << text.out;
    EXPECT_LE(std::stod(e[1]), 100.0) << job << "\n" << text.out;
  }
}

TEST(CliRanks, TheWhatIfWithKBucketsIsPrintedForTheAskedCounts) {
  CliResult r = runCli({"analyze", ddp("ddp-w2-balanced"), "--no-advice", "--what-if", "buckets=1,16"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto at = r.out.find("What if, with K buckets");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string part = r.out.substr(at);
  EXPECT_NE(part.find("\n  4 (measured)"), std::string::npos) << part;
  EXPECT_NE(part.find("\n  1 "), std::string::npos) << part;
  EXPECT_NE(part.find("\n  16 "), std::string::npos) << part;
  EXPECT_EQ(part.find("\n  8 "), std::string::npos) << "only the counts asked\n" << part;
  EXPECT_NE(part.find("Assumes:"), std::string::npos) << part;

  r = runCli({"analyze", ddp("ddp-w2-balanced"), "--no-advice", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json w = json::parse(r.out).at("ranks").at("what_if_buckets");
  ASSERT_EQ(w.at("predictions").size(), 4u) << w.dump(2);  // 1, 2, 4, 8 unless asked
  EXPECT_EQ(w.at("predictions")[0].at("buckets"), 1);
  EXPECT_GT(w.at("predictions")[0].at("step_ns").get<double>(), 0);
  EXPECT_FALSE(w.at("assumptions").empty());
}

TEST(CliRanks, AWrongBucketWhatIfIsAUsageError) {
  CliResult r = runCli({"analyze", ddp("ddp-w2-balanced"), "--what-if", "buckets=0"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("buckets=0"), std::string::npos) << r.err;
  r = runCli({"analyze", std::string(PIPESCOPE_FIXTURES_DIR) + "/pytorch-profiler-resnet18-pinned-2streams.json.gz",
              "--what-if", "buckets=2"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("several ranks"), std::string::npos) << r.err;
}

}  // namespace
