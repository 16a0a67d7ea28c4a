// A PyTorch profile opened in the real window (File › Open's code path): GPU lanes
// on top and fitted, call stacks folded (a click on the group row unfolds them), the
// Controls dock describing the file, "n/a" for what the trace cannot tell, and
// charts that say they have no data instead of drawing a flat 0.
#include <gtest/gtest.h>

#include <QMouseEvent>
#include <QPushButton>
#include <QSignalSpy>
#include <QFile>
#include <QTemporaryDir>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "charts/ThroughputCharts.h"
#include "controls/ControlPanel.h"
#include "controls/TraceSourceBox.h"
#include "files/TraceFileActions.h"
#include "metrics/Metrics.h"
#include "metrics/MetricsPanel.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;

namespace {

const QString kFixture = QString(PIPESCOPE_FIXTURES_DIR) + "/pytorch-profiler-resnet18-pinned-2streams.json.gz";

struct Opened {
  MainWindow w{MainWindow::Options{false}};
  explicit Opened(const QString& file = kFixture) {
    w.resize(1600, 1000);
    w.show();
    w.traceFiles().openFile(file);
  }
  bool ok() { return w.traceFiles().waitForLoad(); }
};

/// A PyTorch profile of one copy and one kernel with no iteration in it: no
/// ProfilerStep#N, no repeating record_function ranges, so no batches can be found.
QString writeTraceWithoutIterations(const QTemporaryDir& dir) {
  const QString path = dir.filePath("no-iterations.json");
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(R"json({"schemaVersion": 1, "traceEvents": [
    {"name": "process_name", "ph": "M", "ts": 0, "pid": 100, "tid": 0, "args": {"name": "python3"}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 100, "tid": 100, "ts": 10, "dur": 40,
     "args": {"External id": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 100, "tid": 100, "ts": 20, "dur": 5,
     "args": {"External id": 1, "correlation": 11}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 30,
     "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 11, "bytes": 1048576}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 100, "tid": 100, "ts": 60, "dur": 20,
     "args": {"External id": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 65, "dur": 6,
     "args": {"External id": 2, "correlation": 12}},
    {"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 7, "ts": 140, "dur": 50,
     "args": {"device": 0, "stream": 7, "correlation": 12}}
  ]})json");
  return path;
}

}  // namespace

TEST(OpenedTraceWindow, OpensOnTheGpuLanesFitted) {
  Opened o;
  ASSERT_TRUE(o.ok()) << o.w.lastError().toStdString();
  TimelineView& t = o.w.timeline();
  EXPECT_EQ(t.laneOrder(), LaneOrder::GpuFirst);
  ASSERT_FALSE(t.layout().rows.empty());
  EXPECT_TRUE(isEngineLane(t.layout().rows.front().kind));
  const auto [from, to] = t.visibleRange();
  EXPECT_LE(from, t.laneIndex().firstNs());
  EXPECT_GE(to, t.laneIndex().lastNs());
  EXPECT_LT(to - from, (t.laneIndex().lastNs() - t.laneIndex().firstNs()) * 11 / 10);
}

TEST(OpenedTraceWindow, AClickOnTheCallStackGroupUnfoldsIt) {
  Opened o;
  ASSERT_TRUE(o.ok()) << o.w.lastError().toStdString();
  TimelineView& t = o.w.timeline();
  EXPECT_FALSE(t.callStacksExpanded());
  const LaneRow* group = nullptr;
  for (const LaneRow& r : t.layout().rows)
    if (r.group) group = &r;
  ASSERT_TRUE(group);
  const QPoint header(8, t.plotRect().top() + group->top + group->height / 2);
  EXPECT_TRUE(t.toolTipTextAt(header).contains("call-stack")) << t.toolTipTextAt(header).toStdString();
  QMouseEvent press(QEvent::MouseButtonPress, QPointF(header), QPointF(t.mapToGlobal(header)), Qt::LeftButton,
                    Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&t, &press);
  EXPECT_TRUE(t.callStacksExpanded());
  // A stream header tells its CUDA stream id and what ran.
  for (const LaneRow& r : t.layout().rows)
    if (r.kind == LaneKind::Stream) {
      const QString tip = t.toolTipTextAt(QPoint(8, t.plotRect().top() + r.top + r.height / 2));
      EXPECT_TRUE(tip.contains("CUDA stream")) << tip.toStdString();
      EXPECT_TRUE(tip.contains("kernels")) << tip.toStdString();
      break;
    }
}

TEST(OpenedTraceWindow, ControlsDescribeTheFileNotThePreset) {
  Opened o;
  ASSERT_TRUE(o.ok()) << o.w.lastError().toStdString();
  ControlPanel& c = o.w.controlPanel();
  EXPECT_TRUE(c.showingTraceSource());
  const QString text = c.traceSourceBox()->text();
  EXPECT_TRUE(text.contains("pytorch-profiler-resnet18-pinned-2streams.json.gz")) << text.toStdString();
  EXPECT_TRUE(text.contains("Chrome trace JSON")) << text.toStdString();
  EXPECT_TRUE(text.contains("Device:")) << text.toStdString();
  EXPECT_FALSE(c.traceSourceBox()->runButton()->isVisibleTo(&c)) << "a PyTorch profile carries no configuration";
  EXPECT_FALSE(c.startButton()->isVisibleTo(&c)) << "the preset's settings are not shown as the trace's";
  // "New run…" brings the settings back.
  c.traceSourceBox()->newRunButton()->click();
  EXPECT_FALSE(c.showingTraceSource());
  EXPECT_TRUE(c.startButton()->isVisibleTo(&c));
}

TEST(OpenedTraceWindow, FiguresThatCannotBeKnownReadNotAvailable) {
  // The fixtures all have iterations (they become batches); this trace has none.
  QTemporaryDir dir;
  const QString file = writeTraceWithoutIterations(dir);
  ASSERT_FALSE(file.isEmpty());
  Opened o(file);
  ASSERT_TRUE(o.ok()) << o.w.lastError().toStdString();
  MetricsPanel& m = o.w.metricsPanel();
  ASSERT_EQ(computeMetrics(*o.w.currentTrace()).batches, 0u);
  for (const char* label : {"Batches", "Throughput", "Ideal bound", "Efficiency"})
    EXPECT_EQ(m.value(label), "n/a") << label;
  EXPECT_FALSE(m.value("Makespan").startsWith("0")) << m.value("Makespan").toStdString();
  // The throughput chart says it has no data rather than drawing a line at 0.
  const QStringList notes = o.w.charts().emptyNotes();
  EXPECT_TRUE(notes.join("|").contains("Throughput (no batches)")) << notes.join("|").toStdString();
}

TEST(OpenedTraceWindow, ChartsHaveAPointPerIteration) {
  Opened o;
  ASSERT_TRUE(o.ok()) << o.w.lastError().toStdString();
  const auto iterations = computeMetrics(*o.w.currentTrace()).batches;
  ASSERT_GE(iterations, 2u);
  for (int n : o.w.charts().pointCounts()) EXPECT_EQ(std::size_t(n), iterations);
}

TEST(OpenedTraceWindow, StartingARunGivesTheLiveOrderAndTheSettingsBack) {
  Opened o;
  ASSERT_TRUE(o.ok()) << o.w.lastError().toStdString();
  o.w.controlPanel().setBackendOptions(pipescope::ui::testing::simulator());
  o.w.controlPanel().traceSourceBox()->newRunButton()->click();
  QSignalSpy completed(&o.w, &MainWindow::runCompleted);
  o.w.startRunFromControls();
  ASSERT_TRUE(pipescope::ui::testing::waitFor([&] { return completed.count() == 1; }));
  EXPECT_EQ(o.w.timeline().laneOrder(), LaneOrder::HostFirst);
  EXPECT_FALSE(o.w.controlPanel().showingTraceSource());
  EXPECT_NE(o.w.metricsPanel().value("Batches"), "n/a");
}
