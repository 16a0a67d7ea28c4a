// `pipescope-cli lessons`: the list, one lesson run on the simulator, the backend
// choice (auto falls back to the simulator and says so; cuda without a GPU is a clear
// error), and bad input. The measured path is covered in LessonMeasurementTest (a
// noisy stand-in GPU) and tests/gpu/LessonsGpuTest.cpp (the real one).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "CliProcess.h"

namespace {

using nlohmann::json;
using pipescope::testing::CliResult;
using pipescope::testing::runCli;

TEST(CliLessons, ListsTheElevenLessons) {
  const CliResult r = runCli({"lessons"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* id : {"naive", "pinned", "async-one-stream", "streams", "issue-order", "resident", "roi",
                         "compute-vs-copy", "cpu-workers", "allreduce-buckets"})
    EXPECT_NE(r.out.find(id), std::string::npos) << id;
  const json j = json::parse(runCli({"lessons", "--json"}).out);
  EXPECT_EQ(j["lessons"].size(), 11u);
}

TEST(CliLessons, RunPrintsQuestionNumbersAndClaims) {
  const CliResult r = runCli({"lessons", "--run", "2", "--backend", "sim"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* text : {"Lesson 2: Pinned memory", "Before you run it:", "Numbers afterwards:", "faster than",
                           "What the lesson claims:", "[yes]"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  EXPECT_EQ(r.out.find("[NO ]"), std::string::npos) << r.out;
}

TEST(CliLessons, JsonCarriesResultsAndChecks) {
  const CliResult r = runCli({"lessons", "--run", "issue-order", "--backend", "sim", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["number"], 5);
  ASSERT_EQ(j["results"].size(), 6u);
  EXPECT_EQ(j["results"][0]["profile"], "c1060-like");
  EXPECT_EQ(j["results"][4]["profile"], "h200");
  EXPECT_TRUE(j["results"][0]["legacy"].get<bool>());
  EXPECT_FALSE(j["results"][4]["legacy"].get<bool>());
  EXPECT_FALSE(j["results"][4]["measured"].get<bool>());
  EXPECT_EQ(j["backend"], "simulator");
  EXPECT_EQ(j["repetitions"], 1);
  for (const auto& c : j["checks"]) {
    EXPECT_TRUE(c["holds"].get<bool>()) << c["claim"];
    EXPECT_EQ(c["verdict"], "holds");
    EXPECT_TRUE(c["value"].contains("median"));
  }
  EXPECT_EQ(j["observed_choice"], j["prediction"]["answer"]);
}

TEST(CliLessons, UnknownLessonOrProfileIsAUsageError) {
  CliResult r = runCli({"lessons", "--run", "42"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("no such lesson"), std::string::npos) << r.err;
  r = runCli({"lessons", "--run", "1", "--profile", "no-such-profile"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("no-such-profile"), std::string::npos) << r.err;
  r = runCli({"lessons", "--run", "1", "--backend", "gpu"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("sim|cuda|auto"), std::string::npos) << r.err;
  r = runCli({"lessons", "--run", "1", "--reps", "0"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--reps"), std::string::npos) << r.err;
  r = runCli({"lessons", "--run", "1", "--predict", "no-such-profile"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--predict"), std::string::npos) << r.err;
}

// Without a usable GPU (this test machine), auto runs the simulator and says why;
// with one, it measures and says so. Either way the output names where the runs ran.
TEST(CliLessons, AutoSaysWhereTheRunsRan) {
  const CliResult r = runCli({"lessons", "--run", "4", "--reps", "2"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const bool measured = r.out.find("Measured on") != std::string::npos;
  if (!measured) {
    EXPECT_NE(r.out.find("Simulated on profile 'h200'"), std::string::npos) << r.out;
    EXPECT_TRUE(r.out.find("no usable CUDA GPU") != std::string::npos ||
                r.out.find("no CUDA backend") != std::string::npos)
        << r.out;
  } else {
    EXPECT_NE(r.out.find("2 repetitions"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("predicted"), std::string::npos) << r.out;
  }
  EXPECT_NE(r.out.find("Runs (makespan"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("What the lesson claims:"), std::string::npos) << r.out;
}

TEST(CliLessons, CudaWithoutAGpuIsAClearError) {
  const CliResult probe = runCli({"lessons", "--run", "6", "--backend", "cuda", "--json"});
  if (probe.exitCode == 0) GTEST_SKIP() << "this machine has a usable GPU";
  EXPECT_EQ(probe.exitCode, 1);
  EXPECT_NE(probe.err.find("--backend sim"), std::string::npos) << probe.err;
}

TEST(CliLessons, ExplicitPredictionProfileStandsBesideSimulatedRuns) {
  const CliResult r = runCli({"lessons", "--run", "roi", "--backend", "sim", "--predict", "pcie4-desktop"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("predicted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("by pcie4-desktop"), std::string::npos) << r.out;
}

TEST(CliRunAnalysis, RunSummaryHasLimitsWaitsAndAdvice) {
  const CliResult r = runCli({"run", "--backend", "sim", "--preset", "naive", "--batches", "8"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* text : {"Limits\n", "no overlap", "is critical", "Waits\n", "Advice (predicted by the simulator",
                           "1. pinned memory: predicted"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  const json j = json::parse(runCli({"run", "--backend", "sim", "--preset", "naive", "--batches", "8", "--json"}).out);
  const json& a = j["analysis"];
  EXPECT_EQ(a["advice"]["items"][0]["kind"], "pinned-memory");
  EXPECT_GT(a["advice"]["items"][0]["speedup"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(a["limits"]["full_overlap_ns"].get<double>(), j["metrics"]["ideal_bound_ns"].get<double>());
  EXPECT_TRUE(a["waits"]["share"].contains("pageable_staging"));
}

}  // namespace
