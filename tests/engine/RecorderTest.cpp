// Recording a program end to end on the CPU: the stand-in child
// (tests/helpers/RecordTestChild.cpp) talks to the recorder as the injection library
// does, so starting, reading, several processes, crashes, stopping and programs that
// never use CUDA are tested without a GPU.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include "record/Recorder.h"
#include "record/RecordingAnalysis.h"

namespace pipescope::record {
namespace {

RecordRequest request(std::vector<std::string> args) {
  RecordRequest r;
  r.command = {PIPESCOPE_RECORD_TEST_CHILD};
  r.command.insert(r.command.end(), args.begin(), args.end());
  // The stand-in never loads it; a real program would (CUDA_INJECTION64_PATH).
  r.injectLibrary = "/nonexistent/libpipescope-inject.so";
  r.drainAfterExit = std::chrono::seconds(5);
  return r;
}

std::size_t count(const Trace& trace, OpKind kind) {
  std::size_t n = 0;
  trace.ops().snapshot().forEach([&](const Op& op) { n += op.kind == kind; });
  return n;
}

bool anyFinding(const Recorder& r, const std::string& text) {
  for (const auto& f : r.findings())
    if (f.find(text) != std::string::npos) return true;
  return false;
}

TEST(Recorder, AProgramThatNeverUsesCudaIsRecordedAsSuch) {
  Recorder r(request({"exit", "0"}));
  const auto trace = r.start();
  r.waitForRecording();
  EXPECT_EQ(r.programStatus()->shellCode(), 0);
  EXPECT_TRUE(r.processes().empty());
  EXPECT_EQ(trace->ops().publishedCount(), 0u);
  EXPECT_TRUE(anyFinding(r, "exited with status 0 without using CUDA")) << r.findings().front();
  EXPECT_EQ(trace->outcome().state, RunState::Finished);
  EXPECT_NE(trace->outcome().message.find("no process of it used CUDA"), std::string::npos);
}

TEST(Recorder, TheExitStatusIsKept) {
  Recorder r(request({"exit", "3"}));
  r.start();
  EXPECT_EQ(r.waitForProgram().shellCode(), 3);
  EXPECT_NE(r.trace()->outcome().message.find("exited with status 3"), std::string::npos);
}

TEST(Recorder, WhatTheProgramSendsBecomesALiveTraceWithIterations) {
  Recorder r(request({"steps", "5"}));
  const auto trace = r.start();
  r.waitForRecording();
  ASSERT_EQ(r.processes().size(), 1u);
  EXPECT_TRUE(r.processes()[0].endedCleanly) << r.processes()[0].problem;
  EXPECT_EQ(count(*trace, OpKind::Kernel), 5u);
  EXPECT_EQ(count(*trace, OpKind::CopyH2D), 5u);
  EXPECT_EQ(count(*trace, OpKind::Annotation), 5u);
  EXPECT_EQ(trace->device().name, "Test GPU");
  EXPECT_EQ(trace->device().backend, "record");
  std::vector<std::string> lanes;
  for (const Lane& l : trace->lanes()) lanes.push_back(l.name);
  EXPECT_NE(std::find(lanes.begin(), lanes.end(), "stream 7"), lanes.end());
  EXPECT_NE(std::find(lanes.begin(), lanes.end(), "main thread · CUDA API"), lanes.end());
  // Every time is after the recording began, on its time base.
  trace->ops().snapshot().forEach([](const Op& op) { EXPECT_GE(op.submit, 0); });

  const auto analysed = analysedRecording(*trace, {});
  EXPECT_EQ(analysed->iterations().count, 5) << analysed->iterations().why;
  EXPECT_EQ(analysed->completedBatches(), 5);
  EXPECT_EQ(analysed->ops().publishedCount(), trace->ops().publishedCount());
}

TEST(Recorder, ACrashKeepsWhatWasSentAndSaysHowTheProgramEnded) {
  Recorder r(request({"crash"}));
  const auto trace = r.start();
  r.waitForRecording();
  EXPECT_EQ(r.programStatus()->code, SIGABRT);
  EXPECT_TRUE(r.programStatus()->signalled);
  EXPECT_EQ(trace->outcome().state, RunState::Failed);
  EXPECT_EQ(count(*trace, OpKind::Kernel), 2u);
  EXPECT_TRUE(anyFinding(r, "without its end-of-stream message"));
}

TEST(Recorder, EveryProcessThatConnectsIsItsOwnGroupOfLanes) {
  Recorder r(request({"spawn", "2"}));
  const auto trace = r.start();
  r.waitForRecording();
  EXPECT_EQ(r.programStatus()->shellCode(), 0);
  const auto processes = r.processes();
  ASSERT_EQ(processes.size(), 3u);
  for (const auto& p : processes) EXPECT_TRUE(p.endedCleanly) << p.label() << ": " << p.problem;
  EXPECT_EQ(count(*trace, OpKind::Kernel), 5u);  // 1 + 2 x 2
  int prefixed = 0;
  for (const Lane& l : trace->lanes()) prefixed += l.name.rfind("P2 · ", 0) == 0 || l.name.rfind("P3 · ", 0) == 0;
  EXPECT_GT(prefixed, 0);
}

TEST(Recorder, StoppingLeavesTheProgramRunningUnharmed) {
  Recorder r(request({"linger", "20"}));
  const auto trace = r.start();
  for (int i = 0; i < 1000 && trace->ops().publishedCount() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GT(trace->ops().publishedCount(), 0u);
  r.stopRecording();
  r.waitForRecording();
  EXPECT_EQ(trace->outcome().state, RunState::Stopped);
  // The stand-in exits 0 once it saw its sends fail; a SIGPIPE would have killed it.
  const ExitStatus s = r.waitForProgram();
  EXPECT_FALSE(s.signalled) << s.describe();
  EXPECT_EQ(s.code, 0) << s.describe();
}

TEST(Recorder, ADamagedStreamStopsThatProcessAndSaysWhere) {
  Recorder r(request({"garbage"}));
  const auto trace = r.start();
  r.waitForRecording();
  ASSERT_EQ(r.processes().size(), 1u);
  EXPECT_NE(r.processes()[0].problem.find("byte "), std::string::npos) << r.processes()[0].problem;
  EXPECT_EQ(r.programStatus()->shellCode(), 0) << "the program is not harmed";
}

TEST(Recorder, ACommandThatCannotStartFailsLikeAShell) {
  RecordRequest missing = request({});
  missing.command = {"pipescope-no-such-program"};
  try {
    Recorder(missing).start();
    FAIL() << "started a program that does not exist";
  } catch (const RecordStartError& e) {
    EXPECT_EQ(e.exitCode(), 127);
    EXPECT_NE(std::string(e.what()).find("command not found"), std::string::npos) << e.what();
  }
  const std::string plain = ::testing::TempDir() + "record-not-executable-" + std::to_string(::getpid());
  std::ofstream(plain) << "data\n";
  ::chmod(plain.c_str(), 0644);
  RecordRequest notExecutable = request({});
  notExecutable.command = {plain};
  try {
    Recorder(notExecutable).start();
    FAIL() << "started a file that is not executable";
  } catch (const RecordStartError& e) {
    EXPECT_EQ(e.exitCode(), 126);
    EXPECT_NE(std::string(e.what()).find("cannot be executed"), std::string::npos) << e.what();
  }
  std::remove(plain.c_str());
}

TEST(Recorder, AMissingWorkingFolderIsSaidAsSuch) {
  RecordRequest r = request({"exit", "0"});
  r.workingDirectory = "/nonexistent/folder";
  try {
    Recorder(r).start();
    FAIL();
  } catch (const RecordStartError& e) {
    EXPECT_NE(std::string(e.what()).find("working folder '/nonexistent/folder' does not exist"), std::string::npos);
  }
}

#ifdef PIPESCOPE_INJECT_LIBRARY_FOR_TESTS
// The real injection library, called as the CUDA driver calls it, in a process that
// never does any CUDA work: without a GPU driver CUPTI cannot start and the library
// must say why to the recorder; with one, the recording is clean and empty. Either
// way the program is left alone.
TEST(Recorder, TheInjectionLibraryTellsTheRecorderWhyItCannotRecord) {
  Recorder r(request({"inject", PIPESCOPE_INJECT_LIBRARY_FOR_TESTS}));
  r.start();
  r.waitForRecording();
  EXPECT_EQ(r.programStatus()->shellCode(), 0) << "the program is not harmed";
  const auto processes = r.processes();
  ASSERT_EQ(processes.size(), 1u) << "the library connects and says hello";
  EXPECT_GT(processes[0].pid, 0);
  std::string said;
  for (const auto& n : processes[0].notes) said += n.text + "\n";
  for (const auto& f : r.findings()) said += f + "\n";
  EXPECT_TRUE(processes[0].endedCleanly) << processes[0].problem;
  if (!said.empty()) {
    EXPECT_NE(said.find("CUPTI"), std::string::npos) << said;  // no driver: CUPTI cannot start
  } else {
    EXPECT_EQ(processes[0].ops, 0u);  // a driver but no CUDA work: an empty, clean recording
  }
}
#endif

}  // namespace
}  // namespace pipescope::record
