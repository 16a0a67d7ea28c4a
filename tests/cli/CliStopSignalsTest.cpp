// Every stop signal is honoured: SIGINT (Ctrl-C), SIGTERM (kill, timeout, systemd,
// Docker, job schedulers) and SIGHUP (a closed terminal) stop a run, a sweep or a
// lesson between operations; what was recorded is saved (the trace gets its end
// marker), the summary says which signal stopped it, and the exit status is 128 +
// the signal's number. A second signal of the same kind ends the program at once.
//
// Each moment is reached without timing guesses: "before the run starts" is a signal
// left pending by a parent that blocked it; "mid-run" waits for the progress line;
// "while the trace is being finished" writes the trace into a FIFO that the test does
// not read, so the program is held in its last write until the test drains it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "CliProcess.h"
#include "io/NativeFormat.h"

namespace pipescope {
namespace {

using pipescope::testing::CliProcess;
using pipescope::testing::CliResult;
using pipescope::testing::cliTempPath;
using json = nlohmann::json;
using namespace std::chrono_literals;

std::string signalName(int s) {
  switch (s) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return std::to_string(s);
  }
}

std::string paramName(const ::testing::TestParamInfo<int>& info) { return signalName(info.param); }

std::string scratch(const std::string& name) { return cliTempPath("stop-signals", name); }

// Whether `pid` still catches `sig` (its handler is installed): the polite handler
// gives the signal back to the default action once it has run, which /proc shows.
bool catches(pid_t pid, int sig) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1u;
  return false;
}

// The polite handler ran: waits (bounded) until the process no longer catches `sig`.
bool handled(pid_t pid, int sig) {
  for (int i = 0; i < 1000; ++i) {
    if (!catches(pid, sig)) return true;
    std::this_thread::sleep_for(5ms);
  }
  return false;
}

void expectStoppedTrace(const std::string& path, int sig) {
  NativeReadInfo info;
  std::shared_ptr<Trace> t;
  ASSERT_NO_THROW(t = loadNativeTrace(path, {}, &info));
  EXPECT_TRUE(info.complete) << "the trace has its end marker";
  EXPECT_EQ(t->outcome().state, RunState::Stopped);
  EXPECT_EQ(t->outcome().message, "stopped by " + signalName(sig));
}

class StopSignal : public ::testing::TestWithParam<int> {};

// The signal arrives before main() has run: it stays pending (the parent blocked it)
// and is delivered when the handlers are installed; the run ends at its first batch
// boundary instead of going on for ever.
TEST_P(StopSignal, BeforeTheRunStartsStopsItAtTheFirstBatch) {
  const int sig = GetParam();
  const std::string trace = scratch("early-" + signalName(sig) + ".pipescope");
  auto p = CliProcess::withPendingSignals(
      {"run", "--backend", "sim", "--batches", "0", "--trace", trace, "--no-progress", "--json"}, {sig});
  ASSERT_TRUE(p->started());
  const CliResult r = p->finish();
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 128 + sig) << r.err;
  EXPECT_NE(r.err.find("stopped by " + signalName(sig)), std::string::npos) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["outcome"]["state"], "stopped");
  EXPECT_EQ(j["outcome"]["signal"], signalName(sig));
  expectStoppedTrace(trace, sig);
  std::filesystem::remove(trace);
}

TEST_P(StopSignal, MidRunStopsItSavesTheTraceAndSaysWhy) {
  const int sig = GetParam();
  const std::string trace = scratch("mid-" + signalName(sig) + ".pipescope");
  CliProcess p({"run", "--backend", "sim", "--batches", "0", "--slowdown", "1", "--trace", trace, "--progress"});
  ASSERT_TRUE(p.started());
  ASSERT_TRUE(p.waitForStderr("ops recorded"));  // a second into the run
  ASSERT_EQ(::kill(p.pid(), sig), 0);
  const CliResult r = p.finish();
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 128 + sig) << r.err;
  EXPECT_NE(r.out.find("Results (stopped by " + signalName(sig)), std::string::npos) << r.out;
  expectStoppedTrace(trace, sig);
  std::filesystem::remove(trace);
}

// A FIFO with the smallest pipe buffer, opened for reading but not read: the program
// streams its trace into it and blocks once the buffer is full.
class HeldFifo {
 public:
  explicit HeldFifo(std::string path) : path_(std::move(path)) {
    std::filesystem::remove(path_);
    if (::mkfifo(path_.c_str(), 0600) != 0) return;
    fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK);
    if (fd_ >= 0) ::fcntl(fd_, F_SETPIPE_SZ, 4096);
  }
  ~HeldFifo() {
    if (drain_.joinable()) drain_.join();
    if (fd_ >= 0) ::close(fd_);
    std::filesystem::remove(path_);
  }
  bool ok() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  /// Reads everything, on a thread, until the writer closes it.
  void drain() {
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    drain_ = std::thread([this] {
      char buf[65536];
      for (;;) {
        const ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n > 0)
          data_.append(buf, std::size_t(n));
        else if (n == 0 || errno != EINTR)
          break;
      }
    });
  }
  /// What was read; call after the writer has ended.
  std::string data() {
    if (drain_.joinable()) drain_.join();
    return data_;
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::thread drain_;
  std::string data_;
};

// A run long enough for the progress line (over a second) whose trace is far larger
// than the FIFO's 4 KiB buffer.
std::vector<std::string> heldRun(const std::string& fifo) {
  return {"run", "--backend", "sim", "--batches", "200", "--slowdown", "4", "--trace", fifo, "--progress"};
}

// The run has finished and the trace's last chunk and end marker are being written:
// the signal lets that finish (nothing recorded is lost) and still sets the status.
TEST_P(StopSignal, WhileTheTraceIsFinishedLetsItFinish) {
  const int sig = GetParam();
  HeldFifo fifo(scratch("fifo-" + signalName(sig)));
  ASSERT_TRUE(fifo.ok());
  CliProcess p(heldRun(fifo.path()));
  ASSERT_TRUE(p.started());
  ASSERT_TRUE(p.waitForStderr("writing the rest of the trace")) << "the progress line says the run is over";
  ASSERT_EQ(::kill(p.pid(), sig), 0);
  ASSERT_TRUE(handled(p.pid(), sig));
  fifo.drain();
  const CliResult r = p.finish();
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 128 + sig) << r.err;
  EXPECT_NE(r.err.find("arrived after the run had finished"), std::string::npos) << r.err;
  std::istringstream in(fifo.data());
  std::shared_ptr<Trace> t;
  ASSERT_NO_THROW(t = readNativeTrace(in, "fifo"));
  EXPECT_EQ(t->outcome().state, RunState::Finished);
  EXPECT_EQ(t->completedBatches(), 200);
}

INSTANTIATE_TEST_SUITE_P(Cli, StopSignal, ::testing::Values(SIGINT, SIGTERM, SIGHUP), paramName);

// The first signal asks politely; a second of the same kind ends the program at once,
// even while it is held writing its trace.
TEST(CliStopSignals, ASecondSignalOfTheSameKindEndsItAtOnce) {
  HeldFifo fifo(scratch("fifo-twice"));
  ASSERT_TRUE(fifo.ok());
  CliProcess p(heldRun(fifo.path()));
  ASSERT_TRUE(p.waitForStderr("writing the rest of the trace"));
  ASSERT_EQ(::kill(p.pid(), SIGTERM), 0);
  ASSERT_TRUE(handled(p.pid(), SIGTERM));
  ASSERT_EQ(::kill(p.pid(), SIGTERM), 0);
  fifo.drain();
  const CliResult r = p.finish();
  EXPECT_EQ(r.signal, SIGTERM) << r.err;
}

// A signal of another kind after the first is not a reason to end at once: the
// program is already stopping.
TEST(CliStopSignals, ASignalOfAnotherKindDoesNotCutTheStopShort) {
  HeldFifo fifo(scratch("fifo-other"));
  ASSERT_TRUE(fifo.ok());
  CliProcess p(heldRun(fifo.path()));
  ASSERT_TRUE(p.waitForStderr("writing the rest of the trace"));
  ASSERT_EQ(::kill(p.pid(), SIGHUP), 0);
  ASSERT_TRUE(handled(p.pid(), SIGHUP));
  ASSERT_EQ(::kill(p.pid(), SIGTERM), 0);
  ASSERT_TRUE(handled(p.pid(), SIGTERM));
  fifo.drain();
  const CliResult r = p.finish();
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 128 + SIGHUP) << "the first signal is the one reported: " << r.err;
  std::istringstream in(fifo.data());
  EXPECT_NO_THROW(readNativeTrace(in, "fifo"));
}

TEST(CliStopSignals, SweepStoppedBySigtermKeepsItsFinishedPoints) {
  CliProcess p({"sweep", "--backend", "sim", "--slowdown", "5", "--batch", "16M,32M", "--streams", "1,2,4", "--batches",
                "6", "--progress"});
  ASSERT_TRUE(p.waitForStderr("point 2/6"));
  ASSERT_EQ(::kill(p.pid(), SIGTERM), 0);
  const CliResult r = p.finish();
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 128 + SIGTERM) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGTERM"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("32 MiB x 1 stream"), std::string::npos) << "the finished points are printed: " << r.out;
}

TEST(CliStopSignals, SweepSignalledBeforeItStartsRunsNoPoint) {
  auto p = CliProcess::withPendingSignals(
      {"sweep", "--backend", "sim", "--batch", "16M,32M", "--streams", "1,2", "--batches", "6"}, {SIGHUP});
  const CliResult r = p->finish();
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 128 + SIGHUP) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGHUP"), std::string::npos) << r.err;
}

TEST(CliStopSignals, LessonSignalledBeforeItStartsIsStopped) {
  auto p = CliProcess::withPendingSignals({"lessons", "--run", "1", "--backend", "sim"}, {SIGTERM});
  const CliResult r = p->finish();
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 128 + SIGTERM) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGTERM"), std::string::npos) << r.err;
}

TEST(CliStopSignals, LessonStoppedMidRunSaysWhere) {
  CliProcess p({"lessons", "--run", "1", "--backend", "sim", "--slowdown", "200", "--progress"});
  ASSERT_TRUE(p.waitForStderr("run 1/"));
  ASSERT_EQ(::kill(p.pid(), SIGHUP), 0);
  const CliResult r = p.finish();
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 128 + SIGHUP) << r.err;
  EXPECT_NE(r.err.find("stopped by SIGHUP (the terminal closed): the lesson was stopped during run"), std::string::npos)
      << r.err;
}

// Under `nohup` (SIGHUP ignored from the start) closing the terminal must not stop
// the run; SIGTERM still does.
TEST(CliStopSignals, ASighupIgnoredAtStartStaysIgnored) {
  const std::string trace = scratch("nohup.pipescope");
  ::signal(SIGHUP, SIG_IGN);  // inherited by the child, as nohup does it
  CliProcess p({"run", "--backend", "sim", "--batches", "0", "--slowdown", "1", "--trace", trace, "--progress"});
  ::signal(SIGHUP, SIG_DFL);
  ASSERT_TRUE(p.waitForStderr("ops recorded"));
  EXPECT_FALSE(catches(p.pid(), SIGHUP));
  ASSERT_EQ(::kill(p.pid(), SIGHUP), 0);
  ASSERT_EQ(::kill(p.pid(), SIGTERM), 0);
  const CliResult r = p.finish();
  EXPECT_EQ(r.exitCode, 128 + SIGTERM) << "the SIGHUP was ignored: " << r.err;
  expectStoppedTrace(trace, SIGTERM);
  std::filesystem::remove(trace);
}

// Commands that do not poll keep the default actions: a signal ends them at once.
TEST(CliStopSignals, CommandsThatDoNotPollKeepTheDefaultAction) {
  // The signal is pending when main() runs: it is caught, then raised again once the
  // command turns out not to poll, so it ends the program as if never handled.
  auto p = CliProcess::withPendingSignals({"presets"}, {SIGTERM});
  ASSERT_TRUE(p->started());
  const CliResult r = p->finish();
  EXPECT_EQ(r.signal, SIGTERM);
}

}  // namespace
}  // namespace pipescope
