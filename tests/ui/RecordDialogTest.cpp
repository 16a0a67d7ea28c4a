// Run › Record a program…: the form's checks, the dialog's Record button, the
// `pipescope record` launch, and a recording shown in the window as a run is (the
// stand-in program of tests/helpers speaks the injection library's protocol).
#include <gtest/gtest.h>

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "recording/RecordActions.h"
#include "recording/RecordController.h"
#include "recording/RecordDialog.h"
#include "recording/RecordLaunch.h"
#include "timeline/TimelineView.h"

namespace pipescope::ui {
namespace {

using testing::waitFor;

TEST(RecordForm, ArgumentsAreSplitAsAShellWould) {
  EXPECT_EQ(*splitArguments("train.py --epochs 2"), (QStringList{"train.py", "--epochs", "2"}));
  EXPECT_EQ(*splitArguments(R"(--name "run a" 'it''s' a\ b "" -x="q\"r")"),
            (QStringList{"--name", "run a", "its", "a b", "", "-x=q\"r"}));
  EXPECT_TRUE(splitArguments("   ")->isEmpty());
  QString problem;
  EXPECT_FALSE(splitArguments("--name \"open", &problem));
  EXPECT_TRUE(problem.contains("never closed")) << problem.toStdString();
}

RecordForm formFor(const QString& program) {
  RecordForm f;
  f.program = program;
  return f;
}

TEST(RecordForm, EachProblemNamesItsField) {
  auto problemOf = [](RecordForm f) {
    QString p;
    EXPECT_FALSE(f.request(&p));
    return p;
  };
  EXPECT_TRUE(problemOf({}).startsWith("Program:"));
  EXPECT_TRUE(problemOf(formFor("pipescope-no-such-program")).contains("is not a program on PATH"));
  const std::string plain = ::testing::TempDir() + "record-form-plain-" + std::to_string(::getpid());
  std::ofstream(plain) << "x\n";
  ::chmod(plain.c_str(), 0644);
  EXPECT_TRUE(problemOf(formFor(QString::fromStdString(plain))).contains("is not an executable file"));
  std::remove(plain.c_str());
  RecordForm badFolder = formFor("sh");
  badFolder.workingDirectory = "/nonexistent/folder";
  EXPECT_TRUE(problemOf(badFolder).startsWith("Working folder:"));
  RecordForm badEnv = formFor("sh");
  badEnv.environment = "CUDA_VISIBLE_DEVICES=0\n\n# a comment\n1BAD=x";
  EXPECT_TRUE(problemOf(badEnv).startsWith("Environment, line 4:")) << problemOf(badEnv).toStdString();

  RecordForm good{"sh", "-c 'exit 0' --", "/tmp", "A=1\nB=two words", 1};
  QString p;
  const auto r = good.request(&p);
  ASSERT_TRUE(r) << p.toStdString();
  EXPECT_EQ(r->command, (std::vector<std::string>{"sh", "-c", "exit 0", "--"}));
  EXPECT_EQ(r->workingDirectory, "/tmp");
  EXPECT_EQ(r->environment.at("B"), "two words");
  EXPECT_EQ(r->device, 1);
}

TEST(RecordDialog, RecordIsEnabledOnlyForAFormThatCanStart) {
  RecordDialog d;
  ASSERT_NE(d.recordButton(), nullptr);
  EXPECT_FALSE(d.recordButton()->isEnabled());
  EXPECT_TRUE(d.problem().startsWith("Program:"));
  d.programEdit().setText("sh");
  EXPECT_TRUE(d.recordButton()->isEnabled()) << d.problem().toStdString();
  d.argumentsEdit().setText("-c 'unterminated");
  EXPECT_FALSE(d.recordButton()->isEnabled());
  EXPECT_TRUE(d.findChild<QLabel*>("record.problem")->text().contains("never closed"));
  d.argumentsEdit().setText("-c true");
  d.environmentEdit().setPlainText("NOT VALID");
  EXPECT_FALSE(d.recordButton()->isEnabled());
  d.environmentEdit().setPlainText("OK=1");
  EXPECT_TRUE(d.recordButton()->isEnabled());
  ASSERT_TRUE(d.request());
  EXPECT_EQ(d.request()->command, (std::vector<std::string>{"sh", "-c", "true"}));
}

TEST(RecordLaunchArgs, EverythingAfterRecordIsTheProgramsOwn) {
  const char* args[] = {"pipescope", "record", "--", "python3", "train.py", "--version", "--help"};
  const RecordLaunch r = recordLaunch(7, args);
  EXPECT_TRUE(r.requested);
  EXPECT_EQ(r.ownArgc, 1) << "neither Qt nor the app's parser sees the program's arguments";
  EXPECT_EQ(r.command, (std::vector<std::string>{"python3", "train.py", "--version", "--help"}));
  const char* plain[] = {"pipescope", "record", "./app"};
  EXPECT_EQ(recordLaunch(3, plain).command, (std::vector<std::string>{"./app"}));
  const char* missing[] = {"pipescope", "record", "--"};
  EXPECT_FALSE(recordLaunch(3, missing).error.empty());
  const char* help[] = {"pipescope", "record", "--help"};
  EXPECT_TRUE(recordLaunch(3, help).help);
  const char* other[] = {"pipescope", "--screenshot", "x.png"};
  EXPECT_FALSE(recordLaunch(3, other).requested);
  EXPECT_EQ(recordLaunch(3, other).ownArgc, 3);
}

class RecordInWindow : public ::testing::Test {
 protected:
  void SetUp() override {
#if !PIPESCOPE_HAVE_CUDA
    ::setenv("PIPESCOPE_INJECT_LIBRARY", PIPESCOPE_RECORD_TEST_CHILD, 1);  // never loaded by the stand-in
#endif
    window_ = std::make_unique<MainWindow>(MainWindow::Options{false});
  }
  void TearDown() override {
    window_.reset();
#if !PIPESCOPE_HAVE_CUDA
    ::unsetenv("PIPESCOPE_INJECT_LIBRARY");
#endif
  }
  record::RecordRequest child(std::vector<std::string> args) {
    record::RecordRequest r;
    r.command = {PIPESCOPE_RECORD_TEST_CHILD};
    r.command.insert(r.command.end(), args.begin(), args.end());
    return r;
  }
  testing::IsolatedSettings settings_;
  std::unique_ptr<MainWindow> window_;
};

TEST_F(RecordInWindow, ARecordingIsShownLiveAndThenWithItsIterations) {
  RecordActions& rec = window_->recording();
  ASSERT_TRUE(rec.start(child({"steps", "12"}))) << window_->lastError().toStdString();
  EXPECT_TRUE(window_->traceTitle().contains("record_test_child"));
  const auto live = window_->currentTrace();
  ASSERT_TRUE(live);
  EXPECT_EQ(window_->timeline().trace(), live) << "the timeline follows the recording as it does a run";
  ASSERT_TRUE(waitFor([&] { return !rec.recording(); }));
  ASSERT_TRUE(waitFor([&] { return window_->currentTrace() != live; }));
  const auto shown = window_->currentTrace();
  EXPECT_EQ(shown->iterations().count, 12) << shown->iterations().why;
  EXPECT_EQ(shown->outcome().state, RunState::Finished);
  EXPECT_TRUE(rec.recordAction()->isEnabled());
  EXPECT_FALSE(rec.stopAndEndAction()->isEnabled());
}

TEST_F(RecordInWindow, StopLeavesTheProgramRunningAndStopAndEndEndsIt) {
  RecordActions& rec = window_->recording();
  ASSERT_TRUE(rec.start(child({"linger", "30"})));
  const pid_t first = rec.controller().programPid();
  ASSERT_TRUE(waitFor([&] { return window_->currentTrace()->ops().publishedCount() > 0; }));
  window_->stopRun();
  ASSERT_TRUE(waitFor([&] { return !rec.recording(); }));
  EXPECT_EQ(window_->currentTrace()->outcome().state, RunState::Stopped);
  // The stand-in exits 0 as soon as it sees its sends fail: it was not killed.
  ASSERT_TRUE(waitFor([&] { return ::kill(first, 0) != 0; }, 10000)) << "the program ended on its own";

  ASSERT_TRUE(rec.start(child({"linger", "30"})));
  ASSERT_TRUE(waitFor([&] { return window_->currentTrace()->ops().publishedCount() > 0; }));
  rec.stopAndEndAction()->trigger();
  ASSERT_TRUE(waitFor([&] { return !rec.recording(); }));
  EXPECT_EQ(window_->currentTrace()->outcome().state, RunState::Failed);
  EXPECT_TRUE(window_->lastError().contains("killed by signal 15")) << window_->lastError().toStdString();
}

TEST_F(RecordInWindow, AProgramThatCannotStartIsSaidSo) {
  RecordActions& rec = window_->recording();
  record::RecordRequest r;
  r.command = {"pipescope-no-such-program"};
  EXPECT_FALSE(rec.start(r));
  EXPECT_TRUE(window_->lastError().contains("command not found")) << window_->lastError().toStdString();
  EXPECT_FALSE(rec.recording());
}

}  // namespace
}  // namespace pipescope::ui
