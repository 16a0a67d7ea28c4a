// The main window on the simulator: runs record ops that the status bar, metrics
// panel and charts show; Stop is immediate and keeps what was recorded; closing
// during a run exits cleanly; settings persist across windows.
#include <gtest/gtest.h>

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QGuiApplication>
#include <QScreen>
#include <QImage>
#include <QMenuBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSignalSpy>
#include <QXmlStreamReader>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "app/RunStatusBar.h"
#include "app/ShortcutsDialog.h"
#include "charts/ThroughputCharts.h"
#include "config/Presets.h"
#include "controls/ControlPanel.h"
#include "metrics/MetricsPanel.h"
#include "run/RunController.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;

namespace {

PipelineConfig preset(const char* name, int batches = -1) {
  PipelineConfig c = findPreset(name)->config;
  if (batches >= 0) c.batchCount = batches;
  return c;
}

MainWindow::Options noSettings() { return MainWindow::Options{false}; }

}  // namespace

TEST(MainWindow, ARunRecordsOpsThatTheStatusBarMetricsAndChartsShow) {
  MainWindow w(noSettings());
  w.show();
  w.controlPanel().setBackendOptions(simulator());
  QSignalSpy completed(&w, &MainWindow::runCompleted);
  QSignalSpy changed(&w, &MainWindow::traceChanged);
  w.startRun(preset("multi-stream"));
  ASSERT_TRUE(waitFor([&] { return completed.count() == 1; })) << w.lastError().toStdString();
  EXPECT_EQ(changed.count(), 1);

  auto trace = w.currentTrace();
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->outcome().state, RunState::Finished);
  const auto ops = trace->ops().publishedCount();
  EXPECT_GT(ops, 0u);
  EXPECT_TRUE(w.runStatusBar().eventsText().contains(QLocale().toString(qulonglong(ops))))
      << w.runStatusBar().eventsText().toStdString();
  EXPECT_TRUE(w.runStatusBar().runStateText().startsWith("Finished"));
  EXPECT_EQ(w.runStatusBar().backendText(), "Simulator: h200");
  EXPECT_EQ(w.metricsPanel().value("Batches"), "32");
  EXPECT_TRUE(w.metricsPanel().value("Makespan").endsWith("ms")) << w.metricsPanel().value("Makespan").toStdString();
  EXPECT_FALSE(w.metricsPanel().bottleneckSentence().isEmpty());
  // One chart point per batch: the run's 32 batches.
  for (int n : w.charts().pointCounts()) EXPECT_EQ(n, 32);
  EXPECT_TRUE(w.controlPanel().startButton()->isEnabled());
}

TEST(MainWindow, StopIsImmediateAndKeepsTheRecordedOps) {
  MainWindow w(noSettings());
  w.show();
  w.controlPanel().setBackendOptions(simulator(1.0));  // real time: the run lasts until stopped
  QSignalSpy completed(&w, &MainWindow::runCompleted);
  w.startRun(preset("multi-stream", 0));
  ASSERT_TRUE(w.runController().running()) << w.lastError().toStdString();
  ASSERT_TRUE(waitFor([&] { return w.currentTrace()->ops().publishedCount() > 50; }));
  EXPECT_TRUE(w.controlPanel().stopButton()->isEnabled());
  w.stopRun();  // returns at once; the end is reported on a later tick
  ASSERT_TRUE(waitFor([&] { return completed.count() == 1; }));
  auto trace = w.currentTrace();
  EXPECT_EQ(trace->outcome().state, RunState::Stopped);
  EXPECT_GT(trace->ops().publishedCount(), 50u);
  EXPECT_TRUE(w.runStatusBar().runStateText().startsWith("Stopped"));
  EXPECT_FALSE(w.controlPanel().stopButton()->isEnabled());
}

TEST(MainWindow, ClosingTheWindowDuringARunExitsCleanly) {
  auto* w = new MainWindow(noSettings());
  w->show();
  w->controlPanel().setBackendOptions(simulator(1.0));
  w->startRun(preset("multi-stream", 0));
  ASSERT_TRUE(w->runController().running());
  std::shared_ptr<Trace> trace = w->currentTrace();
  ASSERT_TRUE(waitFor([&] { return trace->ops().publishedCount() > 10; }));
  EXPECT_TRUE(w->close());
  delete w;  // joins the engine thread: returns within one simulated op
  EXPECT_NE(trace->outcome().state, RunState::Running);
  EXPECT_GT(trace->ops().publishedCount(), 10u);
}

TEST(MainWindow, LiveEditsAreQueuedForTheNextBatch) {
  MainWindow w(noSettings());
  w.show();
  w.controlPanel().setBackendOptions(simulator(1.0));
  w.startRun(preset("multi-stream", 0));
  ASSERT_TRUE(w.runController().running());
  auto* streams = w.controlPanel().findChildren<QSpinBox*>().front();  // the stream count
  ASSERT_EQ(streams->value(), 4);
  streams->setValue(2);  // the user edits a knob during the run
  auto trace = w.currentTrace();
  ASSERT_TRUE(waitFor([&] { return trace->configHistory().size() >= 2; }));
  EXPECT_EQ(trace->configHistory().back().config.streams, 2);
  w.stopRun();
  ASSERT_TRUE(waitFor([&] { return !w.runController().running(); }));
}

TEST(MainWindow, InvalidConfigurationFromCodeIsReportedNotRun) {
  MainWindow w(noSettings());
  w.controlPanel().setBackendOptions(simulator());
  PipelineConfig c = preset("multi-stream");
  c.mode = TransferMode::Blocking;  // 4 streams in blocking mode
  w.startRun(c);
  EXPECT_FALSE(w.runController().running());
  EXPECT_TRUE(w.lastError().contains("1 in blocking mode")) << w.lastError().toStdString();
}

TEST(MainWindow, RunControllerReportsEveryConfigIssue) {
  RunController run;
  QSignalSpy errors(&run, &RunController::errorOccurred);
  PipelineConfig c;
  c.streams = 0;
  c.cpuWorkers = 0;
  EXPECT_FALSE(run.start(c, simulator()));
  ASSERT_EQ(errors.count(), 1);
  const QString message = errors.front().at(0).toString();
  EXPECT_TRUE(message.contains("streams = 0")) << message.toStdString();
  EXPECT_TRUE(message.contains("cpu-workers = 0")) << message.toStdString();
}

TEST(MainWindow, UnknownProfileIsReported) {
  RunController run;
  QSignalSpy errors(&run, &RunController::errorOccurred);
  BackendOptions b = simulator();
  b.simulatorProfile = "no-such-profile";
  EXPECT_FALSE(run.start(PipelineConfig{}, b));
  ASSERT_EQ(errors.count(), 1);
  EXPECT_TRUE(errors.front().at(0).toString().contains("no-such-profile")) << errors.front().at(0).toString().toStdString();
}

TEST(MainWindow, SettingsPersistAcrossWindows) {
  IsolatedSettings settings;
  PipelineConfig c = preset("cpu-bound");
  c.cpuWorkers = 3;
  // A size that fits the screen (a larger one is put back onto it: see below).
  const QSize saved = QGuiApplication::primaryScreen()->availableGeometry().size() - QSize(20, 20);
  {
    MainWindow w;
    w.show();
    w.resize(saved);
    w.loadConfig(c);
    BackendOptions b = simulator(50);
    b.simulatorProfile = "pcie4-desktop";
    w.controlPanel().setBackendOptions(b);
    w.timeline().setGrouping(LaneGrouping::ByEngine);
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
      if (d->objectName() == "dock.charts") d->hide();
    w.close();
  }
  MainWindow w;
  EXPECT_EQ(*w.controlPanel().config(), c);
  EXPECT_EQ(w.controlPanel().backendOptions().simulatorProfile, "pcie4-desktop");
  EXPECT_DOUBLE_EQ(w.controlPanel().backendOptions().simulatorSlowdown, 50.0);
  EXPECT_EQ(w.timeline().grouping(), LaneGrouping::ByEngine);
  EXPECT_EQ(w.size(), saved);
  for (QDockWidget* d : w.findChildren<QDockWidget*>())
    if (d->objectName() == "dock.charts") {
      EXPECT_TRUE(d->isHidden());
    }
}

TEST(MainWindow, ExportWritesPngAtTwiceTheSizeAndWellFormedSvg) {
  QTemporaryDir dir;
  MainWindow w(noSettings());
  w.show();
  w.controlPanel().setBackendOptions(simulator());
  QSignalSpy completed(&w, &MainWindow::runCompleted);
  w.startRun(preset("naive"));
  ASSERT_TRUE(waitFor([&] { return completed.count() == 1; }));

  QString error;
  const QString png = dir.filePath("report.png");
  ASSERT_TRUE(w.exportReportImage(png, &error)) << error.toStdString();
  QImage image(png);
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.size(), QSize(1800, 1125) * 2);

  const QString timeline = dir.filePath("timeline.png");
  ASSERT_TRUE(w.exportTimelineImage(timeline, &error)) << error.toStdString();
  QImage timelineImage(timeline);
  EXPECT_EQ(timelineImage.width() % 2, 0);
  EXPECT_GE(timelineImage.width(), 2 * 1200);

  for (const char* name : {"report.svg", "charts.svg", "timeline.svg"}) {
    const QString svg = dir.filePath(name);
    const bool ok = QString(name).startsWith("report") ? w.exportReportImage(svg, &error)
                    : QString(name).startsWith("charts") ? w.exportChartsImage(svg, &error)
                                                          : w.exportTimelineImage(svg, &error);
    ASSERT_TRUE(ok) << error.toStdString();
    QFile file(svg);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&file);
    int elements = 0;
    bool sawSvgRoot = false;
    while (!xml.atEnd()) {
      if (xml.readNext() == QXmlStreamReader::StartElement) {
        if (elements++ == 0) sawSvgRoot = xml.name() == QStringLiteral("svg");
      }
    }
    EXPECT_FALSE(xml.hasError()) << name << ": " << xml.errorString().toStdString();
    EXPECT_TRUE(sawSvgRoot) << name;
    EXPECT_GT(elements, 20) << name;
  }

  EXPECT_FALSE(w.exportReportImage(dir.filePath("report.bmp"), &error));
  EXPECT_TRUE(error.contains(".png or .svg")) << error.toStdString();
}

TEST(MainWindow, ShortcutsDialogListsTheMenuShortcuts) {
  MainWindow w(noSettings());
  const auto rows = ShortcutsDialog::rows(w.menuBar());
  auto has = [&](const QString& what, const QString& keys) {
    for (const auto& r : rows)
      if (r.first.contains(what) && r.second.contains(keys)) return true;
    return false;
  };
  EXPECT_TRUE(has("Start", "F5"));
  EXPECT_TRUE(has("Quit", "Ctrl+Q"));
  EXPECT_TRUE(has("Fit", "F"));
  EXPECT_TRUE(has("Report", "Ctrl+E"));
}
