// Wait causes on the timeline: the tooltip's wait text, the overlay's cause colour
// before an op that waited, the worker-thread path of the analysis, and the limits
// (bound markers on the timeline, the limits section of the metrics panel).
#include <gtest/gtest.h>

#include <QAction>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QSignalSpy>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "TimelineTestSupport.h"
#include "analysis/AnalysisController.h"
#include "analysis/AnalysisFormat.h"
#include "analysis/Limits.h"
#include "analysis/LimitsBar.h"
#include "analysis/LimitsSection.h"
#include "analysis/WaitAnalysisModel.h"
#include "analysis/WaitCauseLegend.h"
#include "analysis/WaitCauseStyle.h"
#include "config/Presets.h"
#include "controls/ControlPanel.h"
#include "io/TraceFiles.h"
#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;
using pipescope::uitest::HandTrace;

namespace {

// H2D of batch 0 holds the H2D engine [0, 1000); H2D of batch 1 (stream 1) is
// ready at 200 and waits for the engine until 1000: an engine-busy wait of 800 ns
// behind batch 0's copy. Kernel of batch 0 follows its copy at once.
struct WaitTrace : HandTrace {
  WaitTrace() {
    gpu(OpKind::CopyH2D, 0, 0, 0, 0, 0, 1000, 4000);
    gpu(OpKind::CopyH2D, 1, 1, 200, 200, 1000, 2000, 4000);
    gpu(OpKind::Kernel, 0, 0, 100, 1000, 1000, 3000);
    gpu(OpKind::Kernel, 1, 1, 300, 2000, 3000, 5000);
  }
};

struct WindowFixture {
  WaitTrace h;
  MainWindow w{MainWindow::Options{false}};
  WindowFixture() {
    w.resize(1400, 900);
    w.show();
    w.showTrace(h.trace, "hand-built");
    w.timeline().setGrouping(LaneGrouping::ByStream);
    w.timeline().setVisibleRange(0, 6000);
  }
  TimelineView& view() { return w.timeline(); }
  QPoint at(std::uint16_t lane, std::int64_t t, int dy = 0) {
    const LaneRow* row = view().layout().rowOf(lane);
    const QRect plot = view().plotRect();
    return {plot.left() + int(view().axis().toX(t)), plot.top() + row->top + 8 + dy};
  }
};

bool hasColorNear(const QImage& img, QPoint p, const QColor& c, int radius = 6) {
  for (int dx = -radius; dx <= radius; ++dx)
    for (int dy = -3; dy <= 3; ++dy)
      if (QColor(img.pixel(p + QPoint(dx, dy))).rgb() == c.rgb()) return true;
  return false;
}

}  // namespace

TEST(WaitOverlay, TooltipOfAnOpThatWaitedSaysWhatItWaitedBehind) {
  WindowFixture f;
  ASSERT_TRUE(f.w.analysis().model().result());
  const QString tip = f.view().toolTipTextAt(f.at(f.h.stream1, 1500));
  EXPECT_TRUE(tip.contains("waited 800 ns")) << tip.toStdString();
  EXPECT_TRUE(tip.contains("H2D of batch 0 (stream 0)")) << tip.toStdString();
  // An op that did not wait gets no wait text.
  EXPECT_FALSE(f.view().toolTipTextAt(f.at(f.h.stream0, 500)).contains("waited")) ;
}

TEST(WaitOverlay, PaintsTheCauseColourBeforeTheOpThatWaited) {
  WindowFixture f;
  const QColor busy = waitCauseColor(WaitCause::EngineBusy);
  QImage img = f.view().grab().toImage();
  EXPECT_TRUE(hasColorNear(img, f.at(f.h.stream1, 600), busy));
  // Not before the op that did not wait, nor after the op.
  EXPECT_FALSE(hasColorNear(img, f.at(f.h.stream0, 5600), busy));
  EXPECT_FALSE(hasColorNear(img, f.at(f.h.stream1, 1500), busy, 2));
  EXPECT_TRUE(f.w.analysis().legend().isVisibleTo(&f.w));

  f.w.analysis().showWaitsAction()->trigger();  // View > Show wait causes: off
  EXPECT_FALSE(f.w.analysis().showWaits());
  EXPECT_FALSE(f.w.analysis().legend().isVisibleTo(&f.w));
  img = f.view().grab().toImage();
  EXPECT_FALSE(hasColorNear(img, f.at(f.h.stream1, 600), busy));
}

TEST(WaitOverlay, LegendHasAnEntryPerCause) {
  QImage img(1400, 200, QImage::Format_ARGB32);
  img.fill(Qt::white);
  QPainter p(&img);
  WaitCauseLegend legend;
  const int h = WaitCauseLegend::paintLegend(p, QRect(0, 0, 1400, 200), legend.palette(), legend.font());
  p.end();
  EXPECT_GT(h, 10);
  for (int c = 0; c < kWaitCauseCount; ++c) {
    bool found = false;
    for (int y = 0; y < h && !found; ++y)
      for (int x = 0; x < img.width() && !found; ++x)
        found = QColor(img.pixel(x, y)).rgb() == waitCauseColor(WaitCause(c)).rgb();
    EXPECT_TRUE(found) << "no swatch for " << toString(WaitCause(c));
  }
}

TEST(WaitOverlay, WorkerThreadAnalysisMatchesTheOneOnTheSpot) {
  auto trace = uitest::simulatePreset("multi-stream", 16);
  WaitAnalysisModel onTheSpot, worker;
  worker.setSyncLimit(0);
  QSignalSpy updated(&worker, &WaitAnalysisModel::updated);
  onTheSpot.setTrace(trace);
  worker.setTrace(trace);
  ASSERT_TRUE(onTheSpot.result());
  ASSERT_TRUE(waitFor([&] { return worker.result() != nullptr; }, 30000));
  EXPECT_EQ(worker.result()->analysis.segments(), onTheSpot.result()->analysis.segments());
  EXPECT_EQ(worker.result()->sentences, onTheSpot.result()->sentences);
  EXPECT_FALSE(onTheSpot.result()->analysis.segments().empty());
  // Nothing new published: refresh() does not recompute.
  const auto before = worker.result();
  worker.refresh();
  EXPECT_FALSE(worker.busy());
  EXPECT_EQ(worker.result(), before);
}

TEST(WaitOverlay, ATraceAnalysedByWindowKeepsTheWholeSummaryAndFollowsTheTimeShown) {
  auto trace = uitest::simulatePreset("multi-stream", 2000);  // 20 k ops
  const TraceView ops = trace->ops().snapshot();
  const std::vector<Lane> lanes = trace->lanes();
  const WaitAnalysis whole = analyzeWaits(ops, lanes);
  QStringList wholeSentences;
  for (const std::string& s : describeSummary(summarizeWaits(whole, ops, lanes)))
    wholeSentences << QString::fromStdString(s);

  WaitAnalysisModel model;
  model.setWindowing({/*wholeTraceOps=*/5000, /*windowOps=*/4000, /*contextOps=*/512});
  model.setTrace(trace);
  ASSERT_TRUE(waitFor([&] { return model.result() != nullptr; }, 30000));
  // The summary of every op; the overlay's analysis of the newest window.
  EXPECT_EQ(model.result()->sentences, wholeSentences);
  EXPECT_EQ(model.result()->analysis.coveredEnd(), ops.end());
  EXPECT_EQ(model.result()->analysis.opCount(), 4000u);

  std::uint64_t op = ops.begin() + 3000;
  while (whole.segmentsOf(op).empty()) ++op;
  EXPECT_TRUE(model.result()->describe(op).isEmpty());
  // The timeline shows that op: the analysis moves there, and says what the whole one says.
  model.showTime(ops.at(op).start, ops.at(op).end);
  ASSERT_TRUE(waitFor([&] { return !model.busy() && model.result()->analysis.covers(op); }, 30000));
  EXPECT_EQ(model.result()->describe(op).toStdString(), describeWait(whole, ops, lanes, op));
  EXPECT_FALSE(model.result()->describe(op).isEmpty());
  EXPECT_EQ(model.result()->sentences, wholeSentences);
  for (std::uint64_t i = model.result()->analysis.coveredBegin(); i < model.result()->analysis.coveredEnd(); i += 7)
    ASSERT_EQ(model.result()->describe(i).toStdString(), describeWait(whole, ops, lanes, i)) << "op " << i;
  // Shown again: nothing to recompute.
  const auto before = model.result();
  model.showTime(ops.at(op).start, ops.at(op).end);
  EXPECT_FALSE(model.busy());
  EXPECT_EQ(model.result(), before);
}

TEST(BoundOverlay, AnOpenedTraceShowsItsMarkersAndLimitsToo) {
  // A finished run shown as a trace (an opened file, a lesson's or sweep point's
  // run): the figures are computed before the window announces the new trace.
  auto trace = std::make_shared<Trace>();
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchCount = 12;
  trace->setConfig(c);
  auto sim = makeSimulatorBackend(*builtinProfile("h200"));
  RunControl control;
  ASSERT_EQ(sim->run(c, *trace, control).state, RunState::Finished);
  trace->ops().publish();
  MainWindow w(MainWindow::Options{false});
  w.show();
  w.showTrace(trace, "opened");
  const Limits l = computeLimits(computeMetrics(*trace));
  ASSERT_EQ(w.timeline().markers().size(), 2u);
  EXPECT_EQ(w.timeline().markers()[0].timeNs, l.idealFinishNs);
  EXPECT_TRUE(w.analysis().limitsSection().criticalText().contains("critical"));
  // Another trace replaces them; none stays behind from the first.
  w.showTrace(nullptr, "nothing");
  EXPECT_TRUE(w.timeline().markers().empty());
  EXPECT_TRUE(w.analysis().limitsSection().criticalText().isEmpty());
}

TEST(BoundOverlay, MarkerLabelsGiveDurationsFromTheFirstOpLikeTheLimits) {
  // A PyTorch trace's timeline starts before its first iteration: the markers stand
  // at absolute times, their labels say what the limits text says.
  auto trace = loadTraceFile(std::string(PIPESCOPE_FIXTURES_DIR) + "/pytorch-profiler-resnet18-pinned-2streams.json.gz");
  MainWindow w(MainWindow::Options{false});
  w.show();
  w.showTrace(trace, "opened");
  const Limits l = computeLimits(computeMetrics(*trace));
  ASSERT_GT(l.firstStartNs, 0);
  const auto& markers = w.timeline().markers();
  ASSERT_EQ(markers.size(), 2u);
  EXPECT_EQ(markers[0].label.toStdString(), "ideal finish " + formatNs(l.fullOverlapNs));
  EXPECT_EQ(markers[1].label.toStdString(), "actual " + formatNs(double(l.measuredFinishNs - l.firstStartNs)));
}

TEST(BoundOverlay, MarkersAtIdealAndActualFinishAndLimitsInTheMetricsPanel) {
  MainWindow w(MainWindow::Options{false});
  w.resize(1400, 900);
  w.show();
  w.controlPanel().setBackendOptions(simulator());
  QSignalSpy completed(&w, &MainWindow::runCompleted);
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchCount = 12;
  // One stream: the run is far from its bound, so the ideal marker has its own x (at
  // the bound, since the bound counts the host, the actual marker covers it).
  c.streams = 1;
  w.startRun(c);
  ASSERT_TRUE(waitFor([&] { return completed.count() == 1; })) << w.lastError().toStdString();
  const Limits l = computeLimits(computeMetrics(*w.currentTrace()));
  ASSERT_LT(l.idealFinishNs, l.measuredFinishNs * 0.9);
  ASSERT_GT(l.fullOverlapNs, 0);
  const auto& markers = w.timeline().markers();
  ASSERT_EQ(markers.size(), 2u);
  EXPECT_EQ(markers[0].timeNs, l.idealFinishNs);
  EXPECT_TRUE(markers[0].label.startsWith("ideal finish ")) << markers[0].label.toStdString();
  EXPECT_EQ(markers[1].timeNs, l.measuredFinishNs);
  EXPECT_TRUE(markers[1].label.startsWith("actual ")) << markers[1].label.toStdString();

  // The ideal marker's dashed line is drawn at its x, across the lanes.
  TimelineView& view = w.timeline();
  view.fit();
  const QImage img = view.grab().toImage();
  const QRect plot = view.plotRect();
  const int x = plot.left() + int(std::lround(view.axis().toX(l.idealFinishNs)));
  int hits = 0;
  for (int y = plot.top() + 30; y < plot.bottom(); ++y)
    for (int dx = -1; dx <= 1; ++dx) hits += QColor(img.pixel(x + dx, y)).rgb() == markers[0].color.rgb();
  EXPECT_GT(hits, 20);

  const LimitsSection& s = w.analysis().limitsSection();
  EXPECT_TRUE(s.bar().hasLimits());
  EXPECT_DOUBLE_EQ(s.bar().limits().fullOverlapNs, l.fullOverlapNs);
  EXPECT_TRUE(s.positionText().startsWith("The run took")) << s.positionText().toStdString();
  EXPECT_TRUE(s.criticalText().contains("critical")) << s.criticalText().toStdString();
  EXPECT_FALSE(s.waitsText().isEmpty());
  EXPECT_LE(l.fullOverlapNs, l.oneDirectionNs);
  EXPECT_LE(l.oneDirectionNs, l.noOverlapNs);
}
