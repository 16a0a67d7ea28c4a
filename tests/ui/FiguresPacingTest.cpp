#include <gtest/gtest.h>

#include "run/FiguresWorker.h"

namespace pipescope::ui {
namespace {

// A live run's figures are recomputed over the whole run: the pause between two starts
// grows with what one took, so the worker keeps at most a quarter of a core.
TEST(FiguresPacing, ShortComputationsKeepTheMinimumInterval) {
  EXPECT_EQ(figuresIntervalMs(250, 0), 250);
  EXPECT_EQ(figuresIntervalMs(250, 40), 250);
  EXPECT_EQ(figuresIntervalMs(250, 62.5), 250);
}

TEST(FiguresPacing, LongComputationsWaitFourTimesTheirCost) {
  EXPECT_EQ(figuresIntervalMs(250, 300), 1200);
  EXPECT_EQ(figuresIntervalMs(250, 1000), 4000);
  // Bounded: the figures of a run that has grown huge still come once a minute.
  EXPECT_EQ(figuresIntervalMs(250, 1e6), 60'000);
  EXPECT_EQ(figuresIntervalMs(250, -5), 250);
}

}  // namespace
}  // namespace pipescope::ui
