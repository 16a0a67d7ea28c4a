// Lane order: live runs host first; opened traces GPU engines, streams, the host
// thread calling CUDA, other host threads; lanes that only carry call stacks fold
// into one group row. Keyed on lane kinds and op kinds, never on lane names.
#include <gtest/gtest.h>

#include "TimelineTestSupport.h"
#include "io/TraceFiles.h"
#include "timeline/AnnotationLanes.h"
#include "timeline/LaneDescription.h"
#include "timeline/LaneLayout.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;

namespace {

const std::string kFixture = std::string(PIPESCOPE_FIXTURES_DIR) + "/pytorch-profiler-resnet18-pinned-2streams.json.gz";

// What an imported profile looks like: a Python thread with nested ranges (two
// depths), its CUDA API lane, a stray thread, two streams and the engines.
struct ImportedLike {
  std::shared_ptr<Trace> trace = std::make_shared<Trace>();
  std::uint16_t py0, py1, api, stray, s7, s13, h2d, compute, d2h;
  ImportedLike() {
    py0 = trace->lane(LaneKind::HostOther, 0, "thread 1 (python)");
    py1 = trace->lane(LaneKind::HostOther, 1, "thread 1 (python) · 2");
    api = trace->lane(LaneKind::HostSubmit, 0, "thread 1 (python) · CUDA API");
    stray = trace->lane(LaneKind::HostOther, 2, "pid -1 tid 0");
    s7 = trace->lane(LaneKind::Stream, 0, "stream 7");
    s13 = trace->lane(LaneKind::Stream, 1, "stream 13");
    h2d = trace->lane(LaneKind::CopyEngineH2D, 0, "H2D copy engine");
    d2h = trace->lane(LaneKind::CopyEngineD2H, 0, "D2H copy engine");
    compute = trace->lane(LaneKind::ComputeEngine, 0, "compute engine");
    add(OpKind::Annotation, py0, kNoLane, 0, 100);
    add(OpKind::Annotation, py1, kNoLane, 10, 50);
    add(OpKind::ApiCall, api, kNoLane, 20, 30);
    add(OpKind::HostSync, stray, kNoLane, 40, 45);  // not only ranges: stays visible
    add(OpKind::Kernel, s7, compute, 30, 60, 7);
    add(OpKind::CopyH2D, s13, h2d, 30, 60, 13);
  }
  void add(OpKind kind, std::uint16_t lane, std::uint16_t engine, std::int64_t s, std::int64_t e, int stream = -1) {
    Op op;
    op.kind = kind;
    op.lane = lane;
    op.engineLane = engine;
    op.stream = std::int16_t(stream);
    op.submit = op.ready = op.start = s;
    op.end = e;
    trace->ops().append(op);
    trace->ops().publish();
  }
};

std::vector<std::uint16_t> laneIds(const LaneLayout& l) {
  std::vector<std::uint16_t> ids;
  for (const LaneRow& r : l.rows) ids.push_back(r.lane);
  return ids;
}

}  // namespace

TEST(LaneOrder, LiveRunsPutTheHostFirstAndOpenedTracesTheGpu) {
  ImportedLike t;
  const auto lanes = t.trace->lanes();
  const LaneLayout live = layoutLanes(lanes, LaneGrouping::Both);
  EXPECT_EQ(live.rows.front().kind, LaneKind::HostSubmit);
  EXPECT_TRUE(isEngineLane(live.rows.back().kind));

  LaneLayoutOptions opened;
  opened.order = LaneOrder::GpuFirst;
  const LaneLayout gpu = layoutLanes(lanes, LaneGrouping::Both, 0, opened);
  const std::vector<std::uint16_t> want{t.h2d, t.compute, t.d2h, t.s7, t.s13, t.api, t.py0, t.py1, t.stray};
  EXPECT_EQ(laneIds(gpu), want);
  EXPECT_EQ(gpu.rows[0].section, "GPU engines");
  EXPECT_EQ(gpu.rows[3].section, "Streams");
  EXPECT_EQ(gpu.rows[5].section, "Host threads");
}

TEST(LaneOrder, CallStackOnlyLanesFoldIntoOneGroupRow) {
  ImportedLike t;
  LaneIndex index;
  index.update(t.trace->ops().snapshot());
  const auto lanes = t.trace->lanes();
  const std::vector<bool> fold = callStackOnlyLanes(lanes, index);
  ASSERT_GT(fold.size(), std::size_t(t.py1));
  EXPECT_TRUE(fold[t.py0]);
  EXPECT_TRUE(fold[t.py1]);
  EXPECT_FALSE(t.api < fold.size() && fold[t.api]) << "the thread calling CUDA never folds";
  EXPECT_FALSE(t.stray < fold.size() && fold[t.stray]) << "a lane with more than ranges stays";

  LaneLayoutOptions o;
  o.order = LaneOrder::GpuFirst;
  o.callStackOnly = fold;
  LaneLayout folded = layoutLanes(lanes, LaneGrouping::Both, 0, o);
  EXPECT_EQ(folded.foldableLanes, 2);
  EXPECT_FALSE(folded.rowOf(t.py0));
  EXPECT_FALSE(folded.rowOf(t.py1));
  ASSERT_TRUE(folded.rowOf(t.stray));
  EXPECT_TRUE(folded.rows.back().group);
  EXPECT_TRUE(folded.rows.back().name.contains("2 lanes")) << folded.rows.back().name.toStdString();

  o.callStacksExpanded = true;
  const LaneLayout open = layoutLanes(lanes, LaneGrouping::Both, 0, o);
  ASSERT_TRUE(open.rowOf(t.py0));
  ASSERT_TRUE(open.rowOf(t.py1));
  const auto groupRow = std::find_if(open.rows.begin(), open.rows.end(), [](const LaneRow& r) { return r.group; });
  ASSERT_NE(groupRow, open.rows.end());
  EXPECT_LT(groupRow->top, open.rowOf(t.py0)->top) << "the group row heads its lanes";
}

TEST(LaneOrder, LaneHeadersSayWhatTheLaneIs) {
  ImportedLike t;
  LaneIndex index;
  index.update(t.trace->ops().snapshot());
  LaneLayoutOptions o;
  o.order = LaneOrder::GpuFirst;
  o.callStackOnly = callStackOnlyLanes(t.trace->lanes(), index);
  const LaneLayout l = layoutLanes(t.trace->lanes(), LaneGrouping::Both, 0, o);
  const QString stream = laneSubtitle(*l.rowOf(t.s13), index);
  EXPECT_TRUE(stream.contains("stream id 13")) << stream.toStdString();
  EXPECT_TRUE(stream.contains("H2D")) << stream.toStdString();
  EXPECT_TRUE(laneTooltip(*l.rowOf(t.s7), index, 0).contains("1 kernels"));
  EXPECT_TRUE(laneSubtitle(*l.rowOf(t.h2d), index).contains("host → device"));
  EXPECT_TRUE(laneSubtitle(*l.rowOf(t.api), index).contains("calls CUDA"));
  EXPECT_TRUE(laneTooltip(*l.rowOf(t.s13), index, 0).contains("CUDA stream id 13"));
  EXPECT_TRUE(laneTooltip(l.rows.back(), index, l.foldableLanes).contains("2 host lanes"));
}

TEST(LaneOrder, APyTorchProfileOpensWithItsStreamsAndEnginesOnTop) {
  auto trace = loadTraceFile(kFixture);
  TimelineView view;
  view.resize(1200, 700);
  view.setLaneOrder(LaneOrder::GpuFirst);
  view.setTrace(trace);
  const LaneLayout& l = view.layout();
  ASSERT_GE(l.rows.size(), 6u);
  // Engines, then streams, then the host: the first rows are the GPU.
  std::size_t i = 0;
  while (i < l.rows.size() && isEngineLane(l.rows[i].kind)) ++i;
  EXPECT_EQ(i, 3u) << "three engine lanes first";
  std::size_t streams = 0;
  while (i < l.rows.size() && l.rows[i].kind == LaneKind::Stream) ++i, ++streams;
  EXPECT_EQ(streams, 2u);
  ASSERT_LT(i, l.rows.size());
  EXPECT_EQ(l.rows[i].kind, LaneKind::HostSubmit) << l.rows[i].name.toStdString();
  // Every GPU row is above the fold of a 700 px view.
  for (const LaneRow& r : l.rows) {
    if (isEngineLane(r.kind) || r.kind == LaneKind::Stream) {
      EXPECT_LE(r.top + r.height, view.plotRect().height());
    }
  }
  // The Python call-stack lanes are folded into one row.
  EXPECT_GE(l.foldableLanes, 2);
  EXPECT_TRUE(l.rows.back().group);
  std::size_t hostOther = 0;
  for (const LaneRow& r : l.rows) hostOther += r.kind == LaneKind::HostOther && !r.group;
  EXPECT_EQ(hostOther, 0u);
  const std::size_t foldedRows = l.rows.size();
  view.setCallStacksExpanded(true);
  EXPECT_EQ(view.layout().rows.size(), foldedRows + std::size_t(view.layout().foldableLanes));
}
