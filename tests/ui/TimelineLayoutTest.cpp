#include <gtest/gtest.h>

#include "TimelineTestSupport.h"
#include "timeline/LaneLayout.h"

using namespace pipescope;
using namespace pipescope::ui;

namespace {

std::vector<QString> names(const LaneLayout& l) {
  std::vector<QString> out;
  for (const LaneRow& r : l.rows) out.push_back(r.name);
  return out;
}

// Lanes in the order a backend might create them: engines first, streams late.
std::vector<Lane> mixedLanes() {
  Trace t;
  t.lane(LaneKind::ComputeEngine, 0, "compute engine");
  t.lane(LaneKind::Stream, 1, "stream 1");
  t.lane(LaneKind::CopyEngineD2H, 0, "D2H copy engine");
  t.lane(LaneKind::HostWorker, 1, "CPU worker 1");
  t.lane(LaneKind::CopyEngineH2D, 0, "H2D copy engine");
  t.lane(LaneKind::Stream, 0, "stream 0");
  t.lane(LaneKind::HostSubmit, 0, "submit thread");
  t.lane(LaneKind::HostWorker, 0, "CPU worker 0");
  return t.lanes();
}

}  // namespace

TEST(TimelineLayout, ByStreamShowsHostThreadsThenStreams) {
  const LaneLayout l = layoutLanes(mixedLanes(), LaneGrouping::ByStream);
  EXPECT_EQ(names(l), (std::vector<QString>{"submit thread", "CPU worker 0", "CPU worker 1", "stream 0", "stream 1"}));
  EXPECT_EQ(l.rows[0].section, "Host threads");
  EXPECT_EQ(l.rows[3].section, "Streams");
  EXPECT_TRUE(l.rows[1].section.isEmpty());
}

TEST(TimelineLayout, ByEngineShowsHostThreadsThenEnginesInPipelineOrder) {
  const LaneLayout l = layoutLanes(mixedLanes(), LaneGrouping::ByEngine);
  EXPECT_EQ(names(l), (std::vector<QString>{"submit thread", "CPU worker 0", "CPU worker 1", "H2D copy engine",
                                            "compute engine", "D2H copy engine"}));
  EXPECT_EQ(l.rows[3].section, "GPU engines");
}

TEST(TimelineLayout, BothShowsStreamsAndEnginesAndRowsDoNotOverlap) {
  const LaneLayout l = layoutLanes(mixedLanes(), LaneGrouping::Both);
  ASSERT_EQ(l.rows.size(), 8u);
  int y = 0;
  for (const LaneRow& r : l.rows) {
    if (!r.section.isEmpty()) y += LaneLayout::kSectionHeight;
    EXPECT_EQ(r.top, y) << r.name.toStdString();
    EXPECT_EQ(r.height, LaneLayout::kRowHeight);
    y += r.height;
    EXPECT_EQ(l.rowAt(r.top + 1), &r);
    EXPECT_EQ(l.rowOf(r.lane), &r);
  }
  EXPECT_EQ(l.contentHeight, y);
  EXPECT_EQ(l.rowAt(-1), nullptr);
  EXPECT_EQ(l.rowAt(y), nullptr);
}

TEST(TimelineLayout, SingleCopyEngineOfLegacyDevicesSitsBeforeCompute) {
  Trace t;
  t.lane(LaneKind::ComputeEngine, 0, "compute engine");
  t.lane(LaneKind::CopyEngine, 0, "copy engine");
  t.lane(LaneKind::HostSubmit, 0, "submit thread");
  const LaneLayout l = layoutLanes(t.lanes(), LaneGrouping::ByEngine);
  EXPECT_EQ(names(l), (std::vector<QString>{"submit thread", "copy engine", "compute engine"}));
}

TEST(TimelineLayout, RowsGrowToFillATallViewWithinTheirLimits) {
  // 8 rows in 3 sections: 60 px of section bands.
  struct Case {
    int available, rowHeight;
  };
  for (const Case c : {Case{0, LaneLayout::kRowHeight}, Case{100, LaneLayout::kRowHeight},
                       Case{60 + 8 * 35, 35}, Case{60 + 8 * 35 + 7, 35}, Case{5000, LaneLayout::kMaxRowHeight}}) {
    const LaneLayout l = layoutLanes(mixedLanes(), LaneGrouping::Both, c.available);
    for (const LaneRow& r : l.rows) EXPECT_EQ(r.height, c.rowHeight) << c.available;
    if (c.available >= 60 + 8 * LaneLayout::kRowHeight && c.rowHeight < LaneLayout::kMaxRowHeight) {
      EXPECT_LE(l.contentHeight, c.available);  // filled, never more than what is there
    }
  }
}
