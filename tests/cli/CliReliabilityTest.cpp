// Interrupts and kills of `pipescope-cli run`: a Ctrl-C at any moment from
// process start stops the run at a batch boundary with its trace written, --slowdown
// holds for the whole run, and a run killed outright (SIGKILL: a crash, an OOM kill,
// a power cut) leaves a trace file that opens with what was streamed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "CliProcess.h"
#include "io/NativeFormat.h"
#include "io/TraceFiles.h"

namespace pipescope {
namespace {

using pipescope::testing::CliProcess;
using namespace std::chrono_literals;

std::string scratch(const std::string& name) {
  static int n = 0;
  return (std::filesystem::temp_directory_path() /
          ("pipescope-reliability-" + std::to_string(::getpid()) + "-" + std::to_string(n++) + "-" + name))
      .string();
}

std::vector<std::string> endlessRun(const std::string& trace) {
  return {"run", "--backend", "sim", "--batches", "0", "--slowdown", "1", "--trace", trace, "--no-progress"};
}

class InterruptAt : public ::testing::TestWithParam<int> {};

TEST_P(InterruptAt, StopsTheRunAndWritesTheTrace) {
  const int ms = GetParam();
  const std::string trace = scratch("int.pipescope");
  const auto t0 = std::chrono::steady_clock::now();
  // The child may not have reached main() yet (on a loaded machine, even at 50 ms): it
  // starts with SIGINT blocked, so the interrupt waits for it instead of killing it in
  // the dynamic loader, where no program can catch a signal. From main() on, the
  // interrupt must stop the run, wherever the program is.
  CliProcess p(endlessRun(trace), /*blockSigint=*/true);
  ASSERT_TRUE(p.started());
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  ASSERT_EQ(::kill(p.pid(), SIGINT), 0);
  // A lost interrupt would leave the endless run going: end it after 15 s.
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    for (int i = 0; i < 1500 && !done; ++i) std::this_thread::sleep_for(10ms);
    if (!done) ::kill(p.pid(), SIGKILL);
  });
  const auto r = p.finish();
  done = true;
  watchdog.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.signal, 0) << "ended by signal " << r.signal << "; stderr: " << r.err;
  EXPECT_EQ(r.exitCode, 128 + SIGINT) << r.err;
  EXPECT_LT(wall, 10.0) << "an early interrupt must stop the run at once, not be lost";
  EXPECT_NE(r.err.find("stopped by SIGINT"), std::string::npos) << r.err;
  NativeReadInfo info;
  std::shared_ptr<Trace> t;
  ASSERT_NO_THROW(t = loadNativeTrace(trace, {}, &info));
  EXPECT_TRUE(info.complete);
  EXPECT_EQ(t->outcome().state, RunState::Stopped);
  // --slowdown 1 held: the simulated run never got ahead of the wall clock.
  std::int64_t lastEnd = 0;
  t->ops().snapshot().forEach([&](const Op& op) { lastEnd = std::max(lastEnd, op.end); });
  EXPECT_LE(double(lastEnd) * 1e-9, wall + 0.5);
  std::filesystem::remove(trace);
}

INSTANTIATE_TEST_SUITE_P(Cli, InterruptAt, ::testing::Values(0, 10, 50, 300),
                         [](const auto& p) { return std::to_string(p.param) + "ms"; });

TEST(CliReliability, SlowdownHoldsForTheWholeRunAfterAnInterrupt) {
  const std::string trace = scratch("slow.pipescope");
  CliProcess p(endlessRun(trace));
  std::this_thread::sleep_for(1500ms);
  const auto t0 = std::chrono::steady_clock::now();
  ::kill(p.pid(), SIGINT);
  const auto r = p.finish();
  EXPECT_EQ(r.exitCode, 128 + SIGINT) << r.err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  const auto t = loadTraceFile(trace);
  std::int64_t lastEnd = 0;
  t->ops().snapshot().forEach([&](const Op& op) { lastEnd = std::max(lastEnd, op.end); });
  EXPECT_GT(lastEnd, 0);
  EXPECT_LT(double(lastEnd) * 1e-9, 3.0) << "1.5 s of wall time at --slowdown 1";
  std::filesystem::remove(trace);
}

TEST(CliReliability, KilledRunLeavesATraceThatOpens) {
  const std::string trace = scratch("killed.pipescope");
  CliProcess p(endlessRun(trace));
  std::this_thread::sleep_for(2500ms);  // two seconds of streaming: several chunks
  ASSERT_EQ(::kill(p.pid(), SIGKILL), 0);
  const auto r = p.finish();
  EXPECT_EQ(r.signal, SIGKILL);
  NativeReadInfo info;
  std::shared_ptr<Trace> t;
  ASSERT_NO_THROW(t = loadNativeTrace(trace, {}, &info));
  EXPECT_FALSE(info.complete);
  EXPECT_GE(info.chunks, 2u);
  EXPECT_GT(info.ops, 0u);
  EXPECT_EQ(t->outcome().state, RunState::Stopped);
  EXPECT_NE(t->outcome().message.find("recovered"), std::string::npos);
  // What the user sees: analyze opens it and says what was recovered.
  const auto a = pipescope::testing::runCli({"analyze", trace});
  EXPECT_EQ(a.exitCode, 0) << a.err;
  EXPECT_NE((a.out + a.err).find("recovered"), std::string::npos) << a.out << a.err;
  // No temporary file is left beside it.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(trace).parent_path()))
    if (e.path().filename().string().find("killed.pipescope") != std::string::npos) ++files;
  EXPECT_EQ(files, 1);
  std::filesystem::remove(trace);
}

TEST(CliReliability, TraceStreamsToStandardOutput) {
  const auto r = pipescope::testing::runCli(
      {"run", "--backend", "sim", "--batches", "20", "--trace", "-", "--no-progress"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  ASSERT_GE(r.out.size(), kNativeMagic.size());
  EXPECT_TRUE(looksLikeNativeTrace(r.out));
  EXPECT_NE(r.err.find("Trace written to -"), std::string::npos) << "the summary goes to stderr: " << r.err;
  std::istringstream in(r.out);
  const auto t = readNativeTrace(in, "stdout");
  EXPECT_EQ(t->completedBatches(), 20);
}

TEST(CliReliability, ConvertWritesToStandardOutput) {
  const std::string trace = scratch("conv.pipescope");
  ASSERT_EQ(pipescope::testing::runCli({"run", "--backend", "sim", "--batches", "4", "--trace", trace, "--quiet"})
                .exitCode,
            0);
  auto r = pipescope::testing::runCli({"convert", trace, "-", "--format", "csv"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind("kind,", 0) == 0 || r.out.find(',') != std::string::npos, true) << r.out.substr(0, 200);
  EXPECT_NE(r.err.find("wrote -"), std::string::npos) << r.err;
  r = pipescope::testing::runCli({"convert", trace, "-"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;
  std::filesystem::remove(trace);
}

TEST(CliReliability, TraceToDevFullFailsAndLeavesTheDevice) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "/dev/full not writable here";
  const auto r = pipescope::testing::runCli(
      {"run", "--backend", "sim", "--batches", "4", "--trace", "/dev/full", "--no-progress"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("/dev/full"), std::string::npos) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

}  // namespace
}  // namespace pipescope
