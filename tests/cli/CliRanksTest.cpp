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

}  // namespace
