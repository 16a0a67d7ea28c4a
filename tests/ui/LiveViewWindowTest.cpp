// The real window, driven as a newcomer drives it: Run › Start (the action the menu
// and F5 use) on the default settings and the simulator at the default slow motion.
// While the run goes, the timeline shows several whole batches; when it ends, the
// whole run. Runs offscreen and, in CI, under Xvfb with the xcb platform too.
#include <gtest/gtest.h>

#include <QAction>
#include <QElapsedTimer>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <set>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "config/Presets.h"
#include "controls/BackendSelector.h"
#include "controls/ControlPanel.h"
#include "run/RunController.h"
#include "timeline/FollowWindow.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;

namespace {

QAction* menuAction(MainWindow& w, const QString& menu, const QString& item) {
  for (QAction* m : w.menuBar()->actions())
    if (m->text() == menu && m->menu())
      for (QAction* a : m->menu()->actions())
        if (a->text() == item) return a;
  return nullptr;
}

/// Batches with a GPU op wholly inside [from, to) among the ops published so far (a
/// pipelined batch lasts several periods: its ops, not all of it, fit the window).
int batchesIn(const Trace& trace, std::int64_t from, std::int64_t to) {
  const TraceView ops = trace.ops().snapshot();
  std::set<std::int32_t> batches;
  for (std::uint64_t i = ops.begin(); i < ops.end(); ++i) {
    const Op& op = ops.at(i);
    if (isGpuKind(op.kind) && op.batch >= 0 && op.start >= from && op.end <= to) batches.insert(op.batch);
  }
  return int(batches.size());
}

}  // namespace

TEST(LiveViewWindow, StartShowsSeveralBatchesWhileRunningAndTheWholeRunAtTheEnd) {
  MainWindow w(MainWindow::Options{false});
  w.resize(1600, 1000);
  w.show();
  BackendOptions backend = simulator(BackendSelector::kDefaultSlowdown);  // the default slow motion
  w.controlPanel().setBackendOptions(backend);
  QAction* start = menuAction(w, "&Run", "&Start");
  ASSERT_TRUE(start);
  QSignalSpy completed(&w, &MainWindow::runCompleted);
  start->trigger();
  ASSERT_TRUE(w.runController().running()) << w.lastError().toStdString();
  EXPECT_TRUE(w.timeline().followLive());

  // Sample the view as the display timer moves it.
  int samples = 0, withSeveral = 0, narrow = 0;
  std::string narrowAt;
  QElapsedTimer total;
  total.start();
  while (!waitFor([&] { return completed.count() > 0; }, 50) && total.elapsed() < 120000) {
    auto trace = w.currentTrace();
    if (!trace || !w.timeline().followLive()) continue;
    const auto [from, to] = w.timeline().visibleRange();
    const std::int64_t started = w.timeline().batchPace().batches();
    if (started < FollowWindow::kMinBatches + 2) continue;  // the window may still be the run so far
    ++samples;
    const int visible = batchesIn(*trace, from, to);
    // The newest batch may be half in view: at least kMinBatches - 1 others.
    if (visible >= FollowWindow::kMinBatches - 1)
      ++withSeveral;
    else if (++narrow == 1)
      narrowAt = std::to_string(from) + " – " + std::to_string(to);
  }
  ASSERT_EQ(completed.count(), 1) << w.lastError().toStdString();
  EXPECT_GT(samples, 5) << "the run was too short to watch";
  EXPECT_EQ(withSeveral, samples);
  EXPECT_EQ(narrow, 0) << "a window with ops of fewer than " << FollowWindow::kMinBatches - 1
                       << " batches: " << narrowAt;

  // The end: the whole run, without touching the keyboard.
  auto trace = w.currentTrace();
  const TraceView ops = trace->ops().snapshot();
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  for (std::uint64_t i = ops.begin(); i < ops.end(); ++i) {
    first = std::min(first, ops.at(i).start);
    last = std::max(last, ops.at(i).end);
  }
  const auto [from, to] = w.timeline().visibleRange();
  EXPECT_LE(from, first);
  EXPECT_GE(to, last);
  EXPECT_LT(to - from, (last - first) * 11 / 10) << "fitted, not zoomed out";
  EXPECT_FALSE(w.timeline().followLive());
}

TEST(LiveViewWindow, APanDuringTheRunKeepsTheUsersViewAtTheEnd) {
  MainWindow w(MainWindow::Options{false});
  w.show();
  w.controlPanel().setBackendOptions(simulator(BackendSelector::kDefaultSlowdown));
  QAction* start = menuAction(w, "&Run", "&Start");
  ASSERT_TRUE(start);
  QSignalSpy completed(&w, &MainWindow::runCompleted);
  start->trigger();
  ASSERT_TRUE(waitFor([&] { return w.timeline().batchPace().batches() >= 3 || completed.count() > 0; }));
  ASSERT_EQ(completed.count(), 0) << "the run ended before the test could pan";
  w.timeline().panBy(-0.25);
  const auto chosen = w.timeline().visibleRange();
  ASSERT_TRUE(waitFor([&] { return completed.count() == 1; }));
  EXPECT_EQ(w.timeline().visibleRange(), chosen);
}

// Several GPUs: each GPU's group title gives its busy share of the whole run once the
// run has ended (the live view takes it when lanes appear, before any kernel ran).
TEST(LiveViewWindow, AFinishedRunOverSeveralGpusTitlesEachGpuWithItsBusyShare) {
  MainWindow w(MainWindow::Options{false});
  w.resize(1600, 1000);
  w.show();
  // In slow motion, as a user watches it: the lanes appear before any kernel ran.
  w.controlPanel().setBackendOptions(simulator(BackendSelector::kDefaultSlowdown));
  PipelineConfig c = findPreset("multi-stream")->config;
  c.devices = {0, 1};
  c.allreduceBytes = 16ull << 20;
  c.buckets = 2;
  c.batchCount = 8;
  QSignalSpy completed(&w, &MainWindow::runCompleted);
  w.startRun(c);
  ASSERT_TRUE(waitFor([&] { return completed.count() == 1; }));
  int titles = 0;
  for (const LaneRow& row : w.timeline().layout().rows) {
    if (row.device < 0 || row.section.isEmpty()) continue;  // "▾ GPU 1 · NVIDIA H200 (simulated) · busy 34%"
    ++titles;
    const QString busy = row.section.section(QStringLiteral("busy "), 1);
    EXPECT_GT(busy.chopped(1).toInt(), 0) << row.section.toStdString();
  }
  EXPECT_EQ(titles, 2);
}
