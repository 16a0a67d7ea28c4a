// Follow live spans several batches (FollowWindow, BatchPace), keeps following when
// zoomed (never below two batches' time), and fits the whole run at its end unless
// the user moved the view during it.
#include <gtest/gtest.h>

#include <QApplication>
#include <QKeyEvent>

#include "TimelineTestSupport.h"
#include "timeline/BatchPace.h"
#include "timeline/FollowWindow.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;
using uitest::HandTrace;

namespace {

constexpr std::int64_t kPeriod = 2000;  // a batch every 2 µs: H2D 1 µs, then kernel 1 µs

void addBatch(HandTrace& h, int batch) {
  const std::int64_t t = batch * kPeriod;
  h.gpu(OpKind::CopyH2D, 0, batch, t, t, t, t + 1000);
  h.gpu(OpKind::Kernel, 0, batch, t, t + 1000, t + 1000, t + 2000);
}

/// A timeline following a hand-made trace live, as the app's view does during a run.
struct Following {
  HandTrace h;
  TimelineView view;
  Following() {
    view.resize(900, 400);
    view.setTrace(h.trace);
    view.setFollowLive(true);
  }
};

FollowInput input(std::int64_t first, std::int64_t last, double width, double period, double stage) {
  FollowInput in;
  in.firstNs = first;
  in.lastNs = last;
  in.widthPx = width;
  in.periodNs = period;
  in.shortestStageNs = stage;
  return in;
}

}  // namespace

TEST(BatchPace, LearnsThePeriodAndTheShortestStage) {
  HandTrace h;
  BatchPace pace;
  EXPECT_FALSE(pace.periodNs());
  for (int b = 0; b < 40; ++b) {
    addBatch(h, b);
    pace.update(h.trace->ops().snapshot());
  }
  ASSERT_TRUE(pace.periodNs());
  EXPECT_DOUBLE_EQ(*pace.periodNs(), double(kPeriod));
  ASSERT_TRUE(pace.shortestStageNs());
  EXPECT_DOUBLE_EQ(*pace.shortestStageNs(), 1000.0);
  EXPECT_EQ(pace.batches(), 40);
}

TEST(FollowWindow, ShowsTheWholeRunWhileItIsShorterThanTheWindow) {
  FollowWindow f;
  // 12 batches of 1 ms fit (a 250 µs stage is 4 px at 12 ms over 1000 px... and more).
  const auto [from, to] = f.window(input(0, 3'000'000, 1000, 1e6, 1e6));
  EXPECT_EQ(from, 0);
  EXPECT_EQ(to - from, 12'000'000);
  // Before the pace is known (fewer than two batches): the run so far, from its start.
  const auto [a, b] = f.window(FollowInput{0, 30'000, 1000, std::nullopt, std::nullopt});
  EXPECT_EQ(a, 0);
  EXPECT_GE(b, 60'000);
}

TEST(FollowWindow, ShowsTheNewestBatchesSizedSoStageOpsStayVisible) {
  FollowWindow f;
  // Stage ops of 1/10 of a period over 800 px: 4 px each means 800*0.1/4 = 20
  // batches; capped at kMaxBatches.
  auto in = input(0, 100'000'000, 800, 1e6, 1e5);
  auto [from, to] = f.window(in);
  EXPECT_EQ(to - from, FollowWindow::kMaxBatches * 1'000'000);
  EXPECT_GT(to, 100'000'000);
  EXPECT_LE(to, 100'000'000 + (to - from) / 20);
  // Tiny stage ops: no fewer than kMinBatches batches.
  in.shortestStageNs = 100;
  std::tie(from, to) = f.window(in);
  EXPECT_EQ(to - from, FollowWindow::kMinBatches * 1'000'000);
  // In between: N batches with the stage op >= kMinOpPx wide.
  in.shortestStageNs = 3e4;  // 800 * 3e4 / (4 * 1e6) = 6 batches
  std::tie(from, to) = f.window(in);
  EXPECT_EQ(to - from, 6'000'000);
  EXPECT_GE(3e4 / (double(to - from) / 800), FollowWindow::kMinOpPx);
}

TEST(FollowWindow, ZoomScalesTheSpanButNeverBelowTwoBatches) {
  FollowWindow f;
  const auto in = input(0, 100'000'000, 800, 1e6, 1e5);  // 12 batches automatically
  f.zoomBy(2, in);
  auto [from, to] = f.window(in);
  EXPECT_EQ(to - from, 6'000'000);
  for (int i = 0; i < 10; ++i) f.zoomBy(2, in);
  std::tie(from, to) = f.window(in);
  EXPECT_EQ(to - from, 2'000'000) << "two batches' worth of time at the least";
  f.zoomBy(0.5, in);  // the first step out responds
  std::tie(from, to) = f.window(in);
  EXPECT_EQ(to - from, 4'000'000);
}

TEST(LiveFollow, TheViewSpansSeveralBatchesWhileARunGrows) {
  Following live;
  auto& [h, view] = live;
  for (int batch = 0; batch < 60; ++batch) {
    addBatch(h, batch);
    view.refresh();
    const auto [from, to] = view.visibleRange();
    const std::int64_t newest = (batch + 1) * kPeriod;
    EXPECT_GE(to, newest) << "the newest op is in view at batch " << batch;
    if (batch >= 1) {
      EXPECT_GE(to - from, FollowWindow::kMinBatches * kPeriod) << "batch " << batch;
      EXPECT_LE(to - from, FollowWindow::kMaxBatches * kPeriod) << "batch " << batch;
    }
    if (newest + (to - from) / 50 <= to - from) {
      EXPECT_EQ(from, 0) << "the run from its start while it fits, batch " << batch;
    }
    // A stage op (1 µs) stays a few pixels wide.
    EXPECT_GE(1000.0 / view.axis().nsPerPx(), FollowWindow::kMinOpPx) << "batch " << batch;
  }
  EXPECT_TRUE(view.followLive());
  EXPECT_GT(view.visibleRange().first, 0);
}

TEST(LiveFollow, ZoomWhileFollowingKeepsFollowingAtTheNewSpan) {
  Following live;
  auto& [h, view] = live;
  for (int b = 0; b < 30; ++b) addBatch(h, b);
  view.refresh();
  const std::int64_t before = view.axis().span();
  view.zoomIn();
  EXPECT_TRUE(view.followLive());
  EXPECT_LT(view.axis().span(), before);
  for (int i = 0; i < 20; ++i) view.zoomIn();
  EXPECT_GE(view.axis().span(), 2 * kPeriod) << "never narrower than two batches";
  const std::int64_t zoomed = view.axis().span();
  for (int b = 30; b < 40; ++b) addBatch(h, b);
  view.refresh();
  EXPECT_EQ(view.axis().span(), zoomed);
  EXPECT_GE(view.visibleRange().second, 40 * kPeriod) << "still following the newest op";
}

TEST(LiveFollow, TheEndOfARunFitsTheWholeRun) {
  Following live;
  auto& [h, view] = live;
  for (int b = 0; b < 50; ++b) addBatch(h, b);
  view.refresh();
  ASSERT_GT(view.visibleRange().first, 0);
  view.finishLive();
  EXPECT_FALSE(view.followLive());
  EXPECT_LE(view.visibleRange().first, 0);
  EXPECT_GE(view.visibleRange().second, 50 * kPeriod);
}

TEST(LiveFollow, TheEndOfARunKeepsTheViewTheUserChose) {
  Following live;
  auto& [h, view] = live;
  for (int b = 0; b < 20; ++b) addBatch(h, b);
  view.refresh();
  view.panBy(-0.3);
  for (int b = 20; b < 50; ++b) addBatch(h, b);
  view.refresh();
  const auto chosen = view.visibleRange();
  view.finishLive();
  EXPECT_EQ(view.visibleRange(), chosen);
  EXPECT_TRUE(view.userAdjustedView());
  // F still fits.
  QKeyEvent f(QEvent::KeyPress, Qt::Key_F, Qt::NoModifier);
  QApplication::sendEvent(&view, &f);
  EXPECT_LE(view.visibleRange().first, 0);
  EXPECT_GE(view.visibleRange().second, 50 * kPeriod);
}
