// `pipescope-cli record`: its command line (what is the program's and what is
// record's own), a program that cannot start, the program's exit status and output,
// signals, and a recording made by a stand-in program that speaks the injection
// library's protocol (tests/helpers/RecordTestChild.cpp): no GPU needed.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

#include "CliProcess.h"
#include "io/TraceFiles.h"

namespace pipescope::testing {
namespace {

class CliRecord : public ::testing::Test {
 protected:
  void SetUp() override {
#if !PIPESCOPE_HAVE_CUDA
    // This build has no injection library; the programs recorded here never load it.
    ::setenv("PIPESCOPE_INJECT_LIBRARY", PIPESCOPE_RECORD_TEST_CHILD, 1);
#endif
  }
  void TearDown() override {
#if !PIPESCOPE_HAVE_CUDA
    ::unsetenv("PIPESCOPE_INJECT_LIBRARY");
#endif
  }
};

TEST_F(CliRecord, AMissingProgramIsAUsageError) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"record"}, {"record", "--"}, {"record", "--quiet"},
                                                                 {"record", "--trace", "x.pipescope", "--"}}) {
    const CliResult r = runCli(args);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("missing the program to record"), std::string::npos) << r.err;
  }
  const CliResult bad = runCli({"record", "--duration", "0", "--", "true"});
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("--duration = '0'"), std::string::npos) << bad.err;
}

TEST_F(CliRecord, AProgramThatCannotStartExitsLikeAShell) {
  const CliResult missing = runCli({"record", "--", "pipescope-no-such-program", "--flag"});
  EXPECT_EQ(missing.exitCode, 127) << missing.err;
  EXPECT_NE(missing.err.find("'pipescope-no-such-program': command not found"), std::string::npos) << missing.err;
  const CliResult notExecutable = runCli({"record", "--", "/etc/hostname"});
  EXPECT_EQ(notExecutable.exitCode, 126) << notExecutable.err;
  EXPECT_NE(notExecutable.err.find("cannot be executed"), std::string::npos) << notExecutable.err;
}

TEST_F(CliRecord, EverythingAfterTheDoubleDashIsTheProgramsExactly) {
  // Options of record's own names, a second "--", spaces and an empty argument.
  const std::vector<std::string> programArgs{"--help", "--trace", "--", "a b", ""};
  std::vector<std::string> args{"record", "--quiet", "--", "sh", "-c", "printf '[%s]' \"$@\"", "sh"};
  args.insert(args.end(), programArgs.begin(), programArgs.end());
  const CliResult r = runCli(args);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "[--help][--trace][--][a b][]") << "the program's standard output passes through as it is";
  // Without "--", the program starts at the first word that is no option of record's.
  const CliResult plain = runCli({"record", "--quiet", "sh", "-c", "printf '[%s]' \"$@\"", "sh", "--quiet"});
  EXPECT_EQ(plain.out, "[--quiet]") << plain.err;
}

TEST_F(CliRecord, HelpIsRecordsOwnOnlyBeforeTheProgram) {
  const CliResult help = runCli({"record", "--help"});
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("usage: pipescope-cli record"), std::string::npos);
  EXPECT_NE(help.out.find("--iteration-marker NAME"), std::string::npos);
  const CliResult programs = runCli({"record", "--quiet", "--", "sh", "-c", "echo program help", "--help"});
  EXPECT_EQ(programs.out, "program help\n");
}

TEST_F(CliRecord, ItEndsWithTheProgramsExitStatus) {
  EXPECT_EQ(runCli({"record", "--quiet", "--", "sh", "-c", "exit 7"}).exitCode, 7);
  const CliResult killed = runCli({"record", "--", "sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(killed.exitCode, 128 + SIGTERM) << killed.err;
  EXPECT_NE(killed.err.find("was killed by signal 15"), std::string::npos) << killed.err;
}

TEST_F(CliRecord, AProgramThatNeverUsesCudaIsReportedAsSuch) {
  const CliResult r = runCli({"record", "--", "true"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("without using CUDA: nothing ran on a GPU, so the recording is empty"), std::string::npos)
      << r.err;
}

TEST_F(CliRecord, ARecordingIsAnalysedAndWrittenWithItsIterations) {
  const std::string path = cliTempPath("record", "steps.pipescope");
  const CliResult r = runCli({"record", "--trace", path, "--", PIPESCOPE_RECORD_TEST_CHILD, "steps", "6"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("Recording of "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("6 from repeating host user ranges, each starting at 'iteration'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Limits"), std::string::npos) << r.err;
  // How long the 6 kernels and 6 copies took from their end to reaching pipescope.
  EXPECT_NE(r.err.find("GPU ops reached pipescope "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" ms after they ended on the GPU (median; 95 %: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" ms; 12 ops)"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << "the summary goes to stderr: stdout is the program's";
  const auto trace = loadTraceFile(path);
  EXPECT_EQ(trace->completedBatches(), 6);
  EXPECT_EQ(trace->device().backend, "record");
  std::size_t kernels = 0;
  trace->ops().snapshot().forEach([&](const Op& op) {
    kernels += op.kind == OpKind::Kernel;
    EXPECT_NE(op.batch, kNoBatch) << "every op belongs to an iteration";
  });
  EXPECT_EQ(kernels, 6u);
  std::remove(path.c_str());
}

TEST_F(CliRecord, QuietSaysOnlyWhatMatters) {
  const CliResult r = runCli({"record", "--quiet", "--", PIPESCOPE_RECORD_TEST_CHILD, "steps", "2"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");
}

TEST_F(CliRecord, SigtermIsPassedOnToTheProgram) {
  CliProcess cli({"record", "--progress", "--", PIPESCOPE_RECORD_TEST_CHILD, "linger", "30"});
  ASSERT_TRUE(cli.started());
  ASSERT_TRUE(cli.waitForStderr("recording: ")) << "the progress line shows the recording is under way";
  ::kill(cli.pid(), SIGTERM);
  const CliResult r = cli.finish();
  EXPECT_EQ(r.exitCode, 128 + SIGTERM) << r.err;
  EXPECT_NE(r.err.find("the program was killed by signal 15"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("signal 15 sent to pipescope was passed on to the program"), std::string::npos) << r.err;
}

TEST_F(CliRecord, ACrashedProgramsRecordingOpens) {
  const std::string path = cliTempPath("record", "crash.pipescope");
  const CliResult r = runCli({"record", "--trace", path, "--", PIPESCOPE_RECORD_TEST_CHILD, "crash"});
  EXPECT_EQ(r.exitCode, 128 + SIGABRT) << r.err;
  EXPECT_NE(r.err.find("without its end-of-stream message"), std::string::npos) << r.err;
  const auto trace = loadTraceFile(path);
  EXPECT_EQ(trace->outcome().state, RunState::Failed);
  EXPECT_GT(trace->ops().publishedCount(), 0u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pipescope::testing
