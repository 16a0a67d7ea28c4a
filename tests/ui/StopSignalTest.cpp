// The desktop app honours SIGTERM (and SIGHUP, Ctrl-C) like a closed window: a live
// run is stopped and its trace kept, complete, in the autosave folder, and the app
// leaves its event loop with 128 + the signal's number.
#include <gtest/gtest.h>
#include <signal.h>

#include <QDir>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "app/StopSignalNotifier.h"
#include "io/NativeFormat.h"
#include "run/RunController.h"

namespace pipescope::ui {
namespace {

using pipescope::ui::testing::simulator;
using pipescope::ui::testing::waitFor;

PipelineConfig endless() {
  PipelineConfig c;
  c.streams = 2;
  c.batchCount = 0;  // until stopped
  return c;
}

TEST(StopSignal, SigtermMidRunClosesTheWindowAndKeepsTheRunInTheAutosave) {
  QTemporaryDir dir;
  auto* w = new MainWindow(MainWindow::Options{false});
  w->show();
  w->runController().autosave().setFolder(dir.path());
  ASSERT_TRUE(w->runController().start(endless(), simulator(1.0)));
  std::shared_ptr<Trace> trace = w->currentTrace();
  ASSERT_TRUE(waitFor([&] { return trace && trace->ops().publishedCount() > 10; }));

  StopSignalNotifier notifier;
  int exitCode = -1;
  quitOnStopSignal(notifier, [&](int code) { exitCode = code; });
  ASSERT_EQ(::raise(SIGTERM), 0);  // handled: the test goes on
  ASSERT_TRUE(waitFor([&] { return exitCode >= 0; }, 10000));
  EXPECT_EQ(exitCode, 128 + SIGTERM);
  EXPECT_EQ(notifier.received(), SIGTERM);
  EXPECT_FALSE(w->isVisible()) << "the window was closed";
  delete w;  // as main() does after the event loop: the run's trace is kept

  const QStringList saved = QDir(dir.path()).entryList({"run-*.pipescope"}, QDir::Files);
  ASSERT_EQ(saved.size(), 1) << saved.join(",").toStdString();
  NativeReadInfo info;
  const auto kept = loadNativeTrace(dir.filePath(saved.front()).toStdString(), {}, &info);
  EXPECT_TRUE(info.complete) << "the autosave has its end marker";
  EXPECT_EQ(kept->outcome().state, RunState::Stopped);
  EXPECT_GT(kept->ops().publishedCount(), 10u);
}

TEST(StopSignal, OnlyTheFirstSignalIsReported) {
  StopSignalNotifier notifier;
  std::vector<int> seen;
  QObject::connect(&notifier, &StopSignalNotifier::stopRequested, [&](int s) { seen.push_back(s); });
  ASSERT_EQ(::raise(SIGHUP), 0);
  ASSERT_TRUE(waitFor([&] { return !seen.empty(); }, 10000));
  ASSERT_EQ(::raise(SIGINT), 0);  // another kind: still handled, the app is already closing
  QTest::qWait(50);
  EXPECT_EQ(seen, std::vector<int>{SIGHUP});
}

TEST(StopSignal, ASighupIgnoredAtStartStaysIgnored) {
  ::signal(SIGHUP, SIG_IGN);  // as `nohup pipescope` starts it
  {
    StopSignalNotifier notifier;
    int seen = 0;
    QObject::connect(&notifier, &StopSignalNotifier::stopRequested, [&](int s) { seen = s; });
    ASSERT_EQ(::raise(SIGHUP), 0);  // ignored: the test goes on
    QTest::qWait(50);
    EXPECT_EQ(seen, 0) << "closing the terminal must not close an app started with nohup";
  }
  ::signal(SIGHUP, SIG_DFL);
}

// The real app, started with SIGTERM blocked and sent one at once: the signal is held
// until the app watches for it, then closes the window and exits with 143.
TEST(StopSignal, TheAppExitsWith143OnSigterm) {
  QTemporaryDir home;
  QProcess p;
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  env.insert("XDG_CONFIG_HOME", home.filePath("config"));
  env.insert("XDG_DATA_HOME", home.filePath("data"));
  p.setProcessEnvironment(env);
  p.setChildProcessModifier([] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, nullptr);
  });
  p.start(PIPESCOPE_GUI, {});
  ASSERT_TRUE(p.waitForStarted(30000));
  ASSERT_EQ(::kill(pid_t(p.processId()), SIGTERM), 0);
  ASSERT_TRUE(p.waitForFinished(60000)) << "the app did not exit on SIGTERM";
  EXPECT_EQ(p.exitStatus(), QProcess::NormalExit) << "it exited, not killed by the signal";
  EXPECT_EQ(p.exitCode(), 128 + SIGTERM) << p.readAllStandardError().toStdString();
  EXPECT_TRUE(QFile::exists(home.filePath("config/pipescope/pipescope.conf")))
      << "the window's close saved the settings";
}

}  // namespace
}  // namespace pipescope::ui
