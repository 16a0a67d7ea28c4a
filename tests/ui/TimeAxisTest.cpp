#include <gtest/gtest.h>

#include <cmath>

#include "timeline/TimeAxis.h"

using pipescope::ui::TimeAxis;

TEST(TimeAxis, MapsTimeToPixelsAndBack) {
  const TimeAxis a(1000, 2000, 500);
  EXPECT_DOUBLE_EQ(a.toX(std::int64_t(1000)), 0.0);
  EXPECT_DOUBLE_EQ(a.toX(std::int64_t(2000)), 500.0);
  EXPECT_DOUBLE_EQ(a.toX(std::int64_t(1500)), 250.0);
  EXPECT_EQ(a.toTime(250), 1500);
  EXPECT_DOUBLE_EQ(a.nsPerPx(), 2.0);
  for (double x : {0.0, 1.0, 123.0, 499.0}) EXPECT_NEAR(a.toX(a.toTime(x)), x, 0.5 / a.nsPerPx() + 1e-9);
}

struct ZoomCase {
  std::int64_t from, to;
  double width, x, factor;
};

class TimeAxisZoom : public testing::TestWithParam<ZoomCase> {};

TEST_P(TimeAxisZoom, KeepsTheTimeUnderTheCursorFixed) {
  const ZoomCase c = GetParam();
  const TimeAxis a(c.from, c.to, c.width);
  const TimeAxis z = a.zoomedAround(c.x, c.factor);
  // The same time sits under pixel x, to within one nanosecond of rounding or
  // less than a pixel (whichever is coarser).
  const double tolNs = std::max(1.0, z.nsPerPx());
  EXPECT_NEAR(double(z.toTime(c.x)), double(a.toTime(c.x)), tolNs);
  EXPECT_GE(z.span(), TimeAxis::kMinSpanNs);
  EXPECT_LE(z.span(), TimeAxis::kMaxSpanNs);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TimeAxisZoom,
    testing::Values(ZoomCase{0, 1'000'000, 1000, 500, 2}, ZoomCase{0, 1'000'000, 1000, 0, 2},
                    ZoomCase{0, 1'000'000, 1000, 1000, 0.5}, ZoomCase{5'000'000'000, 5'000'001'000, 800, 123, 10},
                    // extreme zoom in: clamped at kMinSpanNs, still anchored
                    ZoomCase{3'600'000'000'000, 3'600'000'000'100, 1200, 700, 1e6},
                    // extreme zoom out: clamped at kMaxSpanNs
                    ZoomCase{0, 1'000'000'000'000'000, 1000, 250, 1e-6}, ZoomCase{-5000, 5000, 333, 111, 3}));

TEST(TimeAxis, ClampsDegenerateRanges) {
  const TimeAxis empty(100, 100, 0);
  EXPECT_EQ(empty.span(), TimeAxis::kMinSpanNs);
  EXPECT_GE(empty.width(), 1.0);
  const TimeAxis reversed(200, 100, 100);
  EXPECT_EQ(reversed.span(), TimeAxis::kMinSpanNs);
}

TEST(TimeAxis, PansByPixels) {
  const TimeAxis a(0, 1000, 100);
  const TimeAxis p = a.panned(10);
  EXPECT_EQ(p.from(), 100);
  EXPECT_EQ(p.span(), a.span());
  EXPECT_EQ(a.endingAt(5000).to(), 5000);
  EXPECT_EQ(a.endingAt(5000).span(), 1000);
}

struct StepCase {
  double raw;
  std::int64_t step;
};
class TimeAxisNiceStep : public testing::TestWithParam<StepCase> {};
TEST_P(TimeAxisNiceStep, IsOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_EQ(TimeAxis::niceStep(GetParam().raw), GetParam().step);
}
INSTANTIATE_TEST_SUITE_P(Cases, TimeAxisNiceStep,
                         testing::Values(StepCase{0.3, 1}, StepCase{1, 1}, StepCase{1.5, 2}, StepCase{3, 5},
                                         StepCase{7, 10}, StepCase{20, 20}, StepCase{2'000'000, 2'000'000},
                                         StepCase{2'000'001, 5'000'000}, StepCase{4.2e9, 5'000'000'000}));

struct LabelCase {
  std::int64_t t, step, reference;
  const char* text;
};
class TimeAxisTickLabel : public testing::TestWithParam<LabelCase> {};
TEST_P(TimeAxisTickLabel, UsesOneUnitPerRulerAndTheStepsDecimals) {
  const LabelCase c = GetParam();
  EXPECT_EQ(TimeAxis::formatTick(c.t, c.step, c.reference), c.text);
}
INSTANTIATE_TEST_SUITE_P(
    Cases, TimeAxisTickLabel,
    testing::Values(LabelCase{0, 1'000'000, 5'000'000, "0"}, LabelCase{500, 100, 900, "500 ns"},
                    LabelCase{1'500, 500, 3'000, "1.5 \xC2\xB5s"}, LabelCase{1'000'000, 1'000'000, 6'000'000, "1 ms"},
                    LabelCase{1'400'000, 200'000, 2'000'000, "1.4 ms"},
                    // one unit per ruler: 800 µs shows as 0.8 ms next to 1.0 ms
                    LabelCase{800'000, 200'000, 1'200'000, "0.8 ms"},
                    LabelCase{2'000'000'000, 1'000'000'000, 9'000'000'000, "2 s"},
                    LabelCase{1'250'000'000, 50'000'000, 2'000'000'000, "1.25 s"},
                    // deep zoom into a long run: enough decimals to tell ticks apart
                    LabelCase{5'000'000'100, 100, 5'000'001'000, "5.0000001 s"}));

TEST(TimeAxis, FormatsDurationsWithThreeSignificantDigits) {
  EXPECT_EQ(TimeAxis::formatDuration(812), "812 ns");
  EXPECT_EQ(TimeAxis::formatDuration(1250), "1.25 \xC2\xB5s");
  EXPECT_EQ(TimeAxis::formatDuration(12'500'000), "12.5 ms");
  EXPECT_EQ(TimeAxis::formatDuration(125'000'000), "125 ms");
  EXPECT_EQ(TimeAxis::formatDuration(3.2e9), "3.20 s");
}

TEST(TimeAxis, TicksAreEvenlySpacedAndInsideTheView) {
  for (const TimeAxis a : {TimeAxis(0, 6'800'000, 1200), TimeAxis(123'456, 654'321, 700),
                           TimeAxis(-1'000, 1'000, 400), TimeAxis(7'000'000'000, 7'000'000'050, 1000)}) {
    const auto ticks = a.ticks(100);
    ASSERT_GE(ticks.size(), 2u) << a.from();
    for (std::size_t i = 0; i < ticks.size(); ++i) {
      EXPECT_GE(ticks[i].timeNs, a.from());
      EXPECT_LE(ticks[i].timeNs, a.to());
      EXPECT_FALSE(ticks[i].label.empty());
      if (i > 0) {
        EXPECT_GE(ticks[i].x - ticks[i - 1].x, 100 - 1e-6);
        EXPECT_NE(ticks[i].label, ticks[i - 1].label);
        EXPECT_EQ(ticks[i].timeNs - ticks[i - 1].timeNs, ticks[1].timeNs - ticks[0].timeNs);
      }
    }
  }
}
