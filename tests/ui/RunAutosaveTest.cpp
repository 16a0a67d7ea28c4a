// The app's run controller under stop, close and crash (issue 16): a run without a
// batch limit streams to the autosave folder while it runs (a file that opens at any
// moment), a controller torn down mid-run keeps the trace without asking, a stop
// requested at once ends the run at its first batch boundary, and many start /
// stop / configuration-change cycles neither deadlock nor leak (the soak script runs
// the last test with PIPESCOPE_SOAK_CYCLES=1000 under ASan).
#include <gtest/gtest.h>

#include <QDir>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cstdlib>

#include "AppTestSupport.h"
#include "io/NativeFormat.h"
#include "run/RunController.h"

namespace pipescope::ui {
namespace {

using pipescope::ui::testing::simulator;

PipelineConfig endless() {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pinned;
  c.streams = 2;
  c.batchCount = 0;  // until stopped
  return c;
}

QStringList autosaves(const QString& folder) {
  return QDir(folder).entryList({"run-*.pipescope"}, QDir::Files, QDir::Name);
}

bool waitFinished(RunController& run, int ms = 10000) {
  QElapsedTimer t;
  t.start();
  while (run.running() || run.trace() == nullptr || run.trace()->outcome().state == RunState::Running ||
         run.autosave().active()) {
    if (t.elapsed() > ms) return false;
    QTest::qWait(10);
  }
  QTest::qWait(2 * RunController::kTickIntervalMs);  // runFinished on the next tick
  return true;
}

TEST(RunAutosave, EndlessRunStreamsAFileThatOpensWhileItRuns) {
  QTemporaryDir dir;
  RunController run;
  run.autosave().setFolder(dir.path());
  QSignalSpy saving(&run, &RunController::autosaving);
  ASSERT_TRUE(run.start(endless(), simulator(1.0)));
  ASSERT_EQ(saving.count(), 1);
  const QString path = saving.front().at(0).toString();
  EXPECT_TRUE(path.startsWith(dir.path()));
  QTest::qWait(1600);
  // Mid-run, as after a crash: the file opens with what was streamed so far.
  NativeReadInfo info;
  std::shared_ptr<Trace> mid;
  ASSERT_NO_THROW(mid = loadNativeTrace(path.toStdString(), {}, &info));
  EXPECT_FALSE(info.complete);
  EXPECT_GT(info.ops, 0u);
  run.stop();
  ASSERT_TRUE(waitFinished(run));
  const auto done = loadNativeTrace(path.toStdString(), {}, &info);
  EXPECT_TRUE(info.complete);
  EXPECT_EQ(done->outcome().state, RunState::Stopped);
  EXPECT_EQ(done->ops().publishedCount(), run.trace()->ops().publishedCount());
}

TEST(RunAutosave, BoundedRunsAndDisabledAutosaveWriteNothing) {
  QTemporaryDir dir;
  RunController run;
  run.autosave().setFolder(dir.path());
  PipelineConfig c = endless();
  c.batchCount = 20;
  ASSERT_TRUE(run.start(c, simulator()));
  ASSERT_TRUE(waitFinished(run));
  run.autosave().setEnabled(false);
  ASSERT_TRUE(run.start(endless(), simulator()));
  QTest::qWait(100);
  run.stop();
  ASSERT_TRUE(waitFinished(run));
  EXPECT_TRUE(autosaves(dir.path()).isEmpty());
}

TEST(RunAutosave, ControllerTornDownMidRunKeepsTheTrace) {
  QTemporaryDir dir;
  for (int batches : {0, 100000}) {  // streamed, and not streamed (saved whole at teardown)
    SCOPED_TRACE(batches);
    QString path;
    {
      RunController run;
      run.autosave().setFolder(dir.path());
      PipelineConfig c = endless();
      c.batchCount = batches;
      ASSERT_TRUE(run.start(c, simulator(1.0)));
      QTest::qWait(300);
    }  // the window closed during the run: nothing asked, nothing lost
    const QStringList files = autosaves(dir.path());
    ASSERT_FALSE(files.isEmpty());
    NativeReadInfo info;
    const auto t = loadNativeTrace(dir.filePath(files.back()).toStdString(), {}, &info);
    EXPECT_TRUE(info.complete);
    EXPECT_EQ(t->outcome().state, RunState::Stopped);
    EXPECT_GT(t->ops().publishedCount(), 0u);
    for (const QString& f : files) QFile::remove(dir.filePath(f));
  }
}

TEST(RunAutosave, StopRightAfterStartEndsAtTheFirstBatchBoundary) {
  QTemporaryDir dir;
  RunController run;
  run.autosave().setFolder(dir.path());
  QElapsedTimer t;
  t.start();
  ASSERT_TRUE(run.start(endless(), simulator(1.0)));
  run.stop();
  const qint64 stopAt = t.elapsed();
  ASSERT_TRUE(waitFinished(run, 5000));
  EXPECT_LT(t.elapsed(), 2000);
  EXPECT_EQ(run.trace()->outcome().state, RunState::Stopped);
  // The engine thread runs the batches (µs each, paced by slow motion) that fit before
  // the flag is raised (start() also opens and syncs the autosave file): simulated
  // time must not run past the wall time until the stop, plus the batch in flight.
  std::int64_t lastEnd = 0;
  run.trace()->ops().snapshot().forEach([&](const Op& op) { lastEnd = std::max(lastEnd, op.end); });
  EXPECT_LT(lastEnd, (stopAt + 50) * 1'000'000) << "simulated ns: slow motion holds and the stop is prompt";
}

// Start / change / stop cycles: no deadlock (each cycle must end), no leak (ASan in
// tools/soak-run-controller.sh, which sets PIPESCOPE_SOAK_CYCLES=1000).
TEST(RunAutosave, StartStopConfigChangeCycles) {
  const char* env = std::getenv("PIPESCOPE_SOAK_CYCLES");
  const int cycles = env ? std::atoi(env) : 40;
  QTemporaryDir dir;
  RunController run;
  run.autosave().setFolder(dir.path());
  QElapsedTimer total;
  total.start();
  for (int i = 0; i < cycles; ++i) {
    PipelineConfig c = endless();
    c.streams = 1 + i % 4;
    c.batchCount = i % 3 == 0 ? 0 : 5 + i % 50;  // endless (autosaved) and bounded runs
    ASSERT_TRUE(run.start(c, simulator(i % 5 == 0 ? 0.5 : 0.0))) << "cycle " << i;
    if (i % 2 == 0) {
      PipelineConfig change = c;
      change.streams = 1 + (i + 1) % 4;
      change.batchSamples = 16 + i % 32;
      run.applyConfig(change);
    }
    QTest::qWait(i % 7);
    run.stop();
    ASSERT_TRUE(waitFinished(run)) << "cycle " << i << " did not end: deadlock?";
  }
  EXPECT_LE(autosaves(dir.path()).size(), RunAutosave::kKeepFiles);
  std::printf("soak: %d cycles in %.1f s\n", cycles, double(total.elapsed()) / 1000.0);
}

}  // namespace
}  // namespace pipescope::ui
