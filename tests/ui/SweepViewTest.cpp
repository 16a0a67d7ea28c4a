// The Sweep view on the simulator: a tiny grid runs off the UI thread and fills the
// chart (one line per stream count) and the heatmaps; colours follow the values;
// clicking a point opens its timeline in the main window; Cancel is immediate and
// keeps the finished points; the prediction draws dashed lines; files and images.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QProcess>
#include <QProcessEnvironment>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <algorithm>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "controls/ControlPanel.h"
#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "sweep/SweepChartData.h"
#include "sweep/SweepColors.h"
#include "sweep/SweepGridForm.h"
#include "sweep/SweepHeatmap.h"
#include "sweep/SweepLineChart.h"
#include "sweep/SweepRunner.h"
#include "sweep/SweepView.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;

namespace {

/// A small base: 64 KiB samples, so "256K,1M,4M" is 4, 16 and 64 samples.
PipelineConfig smallBase() {
  PipelineConfig c;
  c.sampleBytes = 64 * 1024;
  c.modelFlopsPerByte = 400;
  return c;
}

void defineGrid(SweepView& v, const QString& sizes, const QString& streams, int batches = 10) {
  v.form().batchSizesEdit()->setText(sizes);
  v.form().streamsEdit()->setText(streams);
  v.form().batchesSpin()->setValue(batches);
  v.form().repeatsSpin()->setValue(1);
  v.form().setPrediction(false, "h200");
}

void useSimulator(SweepView& v, const std::string& profile = "h200") {
  v.setBaseSource([] { return std::optional<PipelineConfig>(smallBase()); },
                  [profile] {
                    BackendOptions b = simulator();
                    b.simulatorProfile = profile;
                    return b;
                  });
}

bool runToEnd(SweepView& v) {
  QSignalSpy ended(&v, &SweepView::sweepEnded);
  QString error;
  if (!v.startSweep(&error)) {
    ADD_FAILURE() << error.toStdString();
    return false;
  }
  return waitFor([&] { return ended.count() == 1; });
}

double luma(const QColor& c) { return 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue(); }

}  // namespace

TEST(SweepView, ATinyGridFillsTheChartAndHeatmaps) {
  SweepView v;
  v.resize(1400, 700);
  v.show();
  useSimulator(v);
  defineGrid(v, "256K,1M,4M", "1,2");
  ASSERT_TRUE(runToEnd(v));
  const SweepResult& r = v.result();
  ASSERT_EQ(r.points.size(), 6u);
  EXPECT_FALSE(r.cancelled);
  EXPECT_EQ(v.progressBar().value(), 6);
  EXPECT_EQ(v.progressBar().maximum(), 6);
  EXPECT_TRUE(v.runButton().isEnabled());
  EXPECT_FALSE(v.cancelButton().isEnabled());

  SweepLineChart& chart = v.lineChart();
  EXPECT_EQ(chart.measuredSeriesCount(), 2);
  EXPECT_EQ(chart.measuredPointCounts(), (std::vector<int>{3, 3}));
  EXPECT_EQ(chart.predictedSeriesCount(), 0);
  EXPECT_EQ(chart.legendNames(), (QStringList{"1 stream", "2 streams"}));
  EXPECT_TRUE(chart.xAxisTitle().startsWith("batch size (MiB, log scale)")) << chart.xAxisTitle().toStdString();
  EXPECT_TRUE(chart.yAxisTitle().contains("samples/s")) << chart.yAxisTitle().toStdString();

  const HeatmapGrid& g = v.throughputHeatmap().grid();
  ASSERT_EQ(g.rows(), 2);
  ASSERT_EQ(g.columns(), 3);
  for (int row = 0; row < 2; ++row)
    for (int col = 0; col < 3; ++col) {
      ASSERT_TRUE(g.value(row, col));
      const SweepPointResult* p = r.point(*g.index(row, col));
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(p->config.streams, g.streams[std::size_t(row)]);
      EXPECT_EQ(p->config.batchBytes(), g.batchBytes[std::size_t(col)]);
      EXPECT_EQ(*g.value(row, col), p->samplesPerSec.median);
      EXPECT_EQ(*v.efficiencyHeatmap().grid().value(row, col), p->efficiency);
    }
  // The table is that of runs of the same points.
  const SweepResult direct = runSweep(r.spec, *makeSimulatorBackend(*builtinProfile("h200")));
  for (const auto& p : r.points) EXPECT_EQ(p.samplesPerSec, direct.point(p.index)->samplesPerSec);
  EXPECT_TRUE(v.recommendationText().contains("Recommendation:"));
  EXPECT_TRUE(v.recommendationText().contains(QString::fromStdString(recommend(r).sentence).toHtmlEscaped()));
}

TEST(SweepView, HeatmapColoursFollowTheValues) {
  SweepView v;
  useSimulator(v);
  defineGrid(v, "256K,1M,4M,16M", "1,2,4");
  ASSERT_TRUE(runToEnd(v));
  for (SweepHeatmap* map : {&v.throughputHeatmap(), &v.efficiencyHeatmap()}) {
    const HeatmapGrid& g = map->grid();
    std::vector<std::pair<double, double>> valueAndLuma;
    for (int r = 0; r < g.rows(); ++r)
      for (int c = 0; c < g.columns(); ++c) valueAndLuma.push_back({*g.value(r, c), luma(map->cellColor(r, c))});
    std::sort(valueAndLuma.begin(), valueAndLuma.end());
    ASSERT_LT(valueAndLuma.front().first, valueAndLuma.back().first);
    for (std::size_t i = 1; i < valueAndLuma.size(); ++i)
      EXPECT_LE(valueAndLuma[i - 1].second, valueAndLuma[i].second + 1e-9) << "cell colours must brighten with value";
    EXPECT_GT(valueAndLuma.back().second, valueAndLuma.front().second + 50);
  }
  // The painted widget shows the cell's colour.
  v.resize(1400, 700);
  v.show();
  QTest::qWait(20);
  SweepHeatmap& map = v.throughputHeatmap();
  const QImage img = map.grab().toImage();
  const QPoint centre = map.cellRect(0, 0).topLeft().toPoint() + QPoint(3, 3);
  EXPECT_EQ(QColor(img.pixel(centre)).rgb(), map.cellColor(0, 0).rgb());
  // The scale itself brightens upwards.
  for (int i = 1; i <= 8; ++i) EXPECT_GT(luma(heatmapColor(i / 8.0)), luma(heatmapColor((i - 1) / 8.0)));
}

TEST(SweepView, ClickingAPointOrACellOpensItsTimeline) {
  IsolatedSettings settings;
  MainWindow w(MainWindow::Options{false});
  w.show();
  BackendOptions b = simulator();
  w.controlPanel().setBackendOptions(b);
  w.controlPanel().setConfig(smallBase());
  w.findChild<QDockWidget*>("dock.sweep")->raise();
  SweepView& v = w.sweepView();
  defineGrid(v, "256K,1M", "1,2");
  ASSERT_TRUE(runToEnd(v)) << v.statusText().toStdString();
  ASSERT_EQ(v.result().points.size(), 4u);
  QTest::qWait(50);

  // A heatmap cell: 1 MiB (column 1) x 2 streams (row 1).
  SweepHeatmap& map = v.throughputHeatmap();
  ASSERT_GT(map.width(), 50);
  const std::size_t cellIndex = *map.grid().index(1, 1);
  QSignalSpy changed(&w, &MainWindow::traceChanged);
  QTest::mouseClick(&map, Qt::LeftButton, {}, map.cellRect(1, 1).center().toPoint());
  ASSERT_EQ(changed.count(), 1);
  EXPECT_EQ(w.currentTrace(), v.result().point(cellIndex)->trace);
  EXPECT_EQ(w.currentTrace()->config().streams, 2);
  EXPECT_TRUE(w.windowTitle().contains("sweep point 1 MiB x 2 streams")) << w.windowTitle().toStdString();

  // A point of the line chart: 256 KiB x 1 stream.
  const SweepPointResult& first = v.result().points.front();
  SweepLineChart& chart = v.lineChart();
  const auto pos = chart.positionOf(first.index);
  ASSERT_TRUE(pos);
  QWidget* target = chart.childAt(*pos);
  ASSERT_NE(target, nullptr);
  QTest::mouseClick(target, Qt::LeftButton, {}, target->mapFrom(&chart, *pos));
  ASSERT_EQ(changed.count(), 2);
  EXPECT_EQ(w.currentTrace(), first.trace);
}

TEST(SweepView, CancelIsImmediateAndKeepsTheFinishedPoints) {
  SweepView v;
  useSimulator(v);
  // Long enough points that the sweep is still running when the first one arrives.
  defineGrid(v, "256K,512K,1M,2M,4M", "1,2,4,8", 4000);
  QSignalSpy ended(&v, &SweepView::sweepEnded);
  bool cancelled = false;
  std::size_t keptAtCancel = 0;
  QObject::connect(&v.progressBar(), &QProgressBar::valueChanged, &v, [&](int value) {
    if (value >= 1 && !cancelled && v.result().points.size() >= 1) {
      cancelled = true;
      v.cancelSweep();
      keptAtCancel = v.result().points.size();
      // Final at once: nothing more runs from the view's point of view.
      EXPECT_FALSE(v.cancelButton().isEnabled());
      EXPECT_TRUE(v.result().cancelled);
      EXPECT_TRUE(v.statusText().startsWith("Cancelled")) << v.statusText().toStdString();
    }
  });
  ASSERT_TRUE(v.startSweep());
  ASSERT_TRUE(waitFor([&] { return ended.count() == 1; }));
  ASSERT_TRUE(cancelled);
  ASSERT_GE(keptAtCancel, 1u);
  EXPECT_LT(keptAtCancel, 20u);
  EXPECT_EQ(v.result().points.size(), keptAtCancel);
  for (const auto& p : v.result().points) EXPECT_TRUE(p.ok());
  int drawn = 0;
  for (int n : v.lineChart().measuredPointCounts()) drawn += n;
  EXPECT_EQ(std::size_t(drawn), keptAtCancel);
  EXPECT_TRUE(v.runButton().isEnabled());
  // A new sweep can start straight away.
  defineGrid(v, "256K", "1,2");
  ASSERT_TRUE(runToEnd(v));
  EXPECT_EQ(v.result().points.size(), 2u);
  EXPECT_FALSE(v.result().cancelled);
}

TEST(SweepView, SimulatorPredictionIsDrawnDashed) {
  SweepView v;
  useSimulator(v, "pcie4-desktop");
  defineGrid(v, "256K,1M,4M", "1,2,4");
  v.form().setPrediction(true, "h200");
  ASSERT_TRUE(runToEnd(v));
  ASSERT_EQ(v.result().predicted.size(), 9u);
  EXPECT_EQ(v.result().predictedDevice.profile, "h200");
  EXPECT_EQ(v.lineChart().measuredSeriesCount(), 3);
  EXPECT_EQ(v.lineChart().predictedSeriesCount(), 3);
  EXPECT_TRUE(v.lineChart().legendNames().contains("simulator prediction (dashed)"));
  // The faster device's prediction is above the measurement of the slower one.
  for (const auto& q : v.result().predicted)
    EXPECT_GT(q.samplesPerSec.median, v.result().point(q.index)->samplesPerSec.median);

  // On the same profile the prediction would be the measurement: skipped.
  v.form().setPrediction(true, "pcie4-desktop");
  ASSERT_TRUE(runToEnd(v));
  EXPECT_TRUE(v.result().predicted.empty());
  EXPECT_EQ(v.lineChart().predictedSeriesCount(), 0);
}

TEST(SweepView, BadGridsAndBusyDevicesSayWhy) {
  SweepView v;
  useSimulator(v);
  defineGrid(v, "1M,4X", "1,2");
  QString error;
  EXPECT_FALSE(v.startSweep(&error));
  EXPECT_TRUE(error.contains("Batch sizes: '4X' is not a size; use e.g. 512K, 4M, 1G")) << error.toStdString();
  EXPECT_EQ(v.statusText(), error);
  defineGrid(v, "1M", "1,,2");
  EXPECT_FALSE(v.startSweep(&error));
  EXPECT_TRUE(error.contains("Streams: empty value")) << error.toStdString();
  defineGrid(v, "1M", "1,64");
  EXPECT_FALSE(v.startSweep(&error));
  EXPECT_TRUE(error.contains("64 streams")) << error.toStdString();
  v.setBaseSource([] { return std::optional<PipelineConfig>(); }, [] { return simulator(); });
  defineGrid(v, "1M", "1");
  EXPECT_FALSE(v.startSweep(&error));
  EXPECT_TRUE(error.contains("control panel")) << error.toStdString();
  useSimulator(v);
  v.setStartBlocker([] { return QString("A run is in progress"); });
  EXPECT_FALSE(v.startSweep(&error));
  EXPECT_EQ(error, "A run is in progress");
  EXPECT_FALSE(v.running());
}

TEST(SweepView, SavedSweepsOpenAgainAndExportAsPngAndSvg) {
  QTemporaryDir dir;
  SweepView v;
  useSimulator(v);
  defineGrid(v, "256K,1M", "1,2");
  v.form().memoriesEdit()->setText("pageable,pinned");
  ASSERT_TRUE(runToEnd(v));
  ASSERT_EQ(v.result().points.size(), 8u);
  EXPECT_EQ(v.blockSelector().count(), 2);
  EXPECT_EQ(v.blockSelector().itemText(0), "pageable");
  v.blockSelector().setCurrentIndex(1);
  EXPECT_EQ(v.throughputHeatmap().grid().index(0, 0), std::optional<std::size_t>(4));  // first pinned point

  const QString json = dir.filePath("s.json"), csv = dir.filePath("s.csv");
  QString error;
  ASSERT_TRUE(v.saveResult(json, &error)) << error.toStdString();
  ASSERT_TRUE(v.saveResult(csv, &error)) << error.toStdString();
  EXPECT_FALSE(v.saveResult(dir.filePath("s.txt"), &error));
  EXPECT_TRUE(error.contains(".json or .csv"));

  SweepView opened;
  ASSERT_TRUE(opened.loadJson(json, &error)) << error.toStdString();
  EXPECT_EQ(opened.result().points.size(), 8u);
  EXPECT_EQ(opened.form().batchSizesEdit()->text(), "256K,1M");
  EXPECT_EQ(opened.form().memoriesEdit()->text(), "pageable,pinned");
  EXPECT_EQ(opened.recommendationText(), v.recommendationText());
  // No trace in a file: a click explains instead of opening nothing silently.
  QSignalSpy requested(&opened, &SweepView::traceRequested);
  opened.openPoint(0);
  EXPECT_EQ(requested.count(), 0);
  EXPECT_TRUE(opened.statusText().contains("has no timeline here")) << opened.statusText().toStdString();

  QFile corrupt(dir.filePath("bad.json"));
  ASSERT_TRUE(corrupt.open(QIODevice::WriteOnly));
  corrupt.write("{\"format\": \"pipescope-sweep\", \"version\": 1, \"points\": [");
  corrupt.close();
  EXPECT_FALSE(opened.loadJson(corrupt.fileName(), &error));
  EXPECT_TRUE(error.contains("bad.json")) << error.toStdString();
  EXPECT_EQ(opened.result().points.size(), 8u) << "a bad file leaves the shown sweep alone";

  const QString png = dir.filePath("sweep.png"), svg = dir.filePath("sweep.svg");
  ASSERT_TRUE(v.exportImage(png, &error)) << error.toStdString();
  const QImage img(png);
  EXPECT_EQ(img.size(), QSize(3200, 2000));
  ASSERT_TRUE(v.exportImage(svg, &error)) << error.toStdString();
  QFile f(svg);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&f);
  int elements = 0, texts = 0;
  QString root;
  while (!xml.atEnd()) {
    if (xml.readNext() == QXmlStreamReader::StartElement) {
      if (root.isEmpty()) root = xml.name().toString();
      ++elements;
      if (xml.name() == QLatin1String("text")) ++texts;
    }
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  EXPECT_EQ(root, "svg");
  EXPECT_GT(elements, 50);
  EXPECT_GT(texts, 10);
  EXPECT_FALSE(v.exportImage(dir.filePath("sweep.bmp"), &error));
}

TEST(SweepView, ScreenshotOfARealSweep) {
  SweepView v;
  v.resize(1600, 820);
  v.show();
  useSimulator(v);
  v.setBaseSource([] { return std::optional<PipelineConfig>(PipelineConfig{}); }, [] { return simulator(); });
  defineGrid(v, "1M,4M,16M,64M", "1,2,4,8", 20);
  v.form().setPrediction(false, "h200");
  ASSERT_TRUE(runToEnd(v));
  ASSERT_EQ(v.result().points.size(), 16u);
  QTest::qWait(50);
  const QImage img = v.grab().toImage();
  EXPECT_EQ(img.width(), 1600);
  if (const char* dir = std::getenv("PIPESCOPE_SCREENSHOT_DIR")) {
    QDir().mkpath(dir);
    img.save(QDir(dir).filePath("sweep.png"));
    QString error;
    EXPECT_TRUE(v.exportImage(QDir(dir).filePath("sweep-figure.png"), &error)) << error.toStdString();
  }
}

TEST(SweepView, TheAppExportsASavedSweepHeadless) {
  QTemporaryDir dir;
  SweepView v;
  useSimulator(v);
  defineGrid(v, "256K,1M", "1,2");
  ASSERT_TRUE(runToEnd(v));
  const QString json = dir.filePath("s.json"), png = dir.filePath("s.png");
  QString error;
  ASSERT_TRUE(v.saveResult(json, &error)) << error.toStdString();

  EXPECT_EQ(runGui({"--sweep-json", json, "--screenshot", png}, &error), 0) << error.toStdString();
  EXPECT_EQ(QImage(png).size(), QSize(3200, 2000));
  EXPECT_EQ(runGui({"--sweep-json", dir.filePath("missing.json"), "--screenshot", png}, &error), 1);
  EXPECT_TRUE(error.contains("missing.json")) << error.toStdString();
  EXPECT_EQ(runGui({"--sweep-json", json}, &error), 2);
  EXPECT_TRUE(error.contains("needs --screenshot")) << error.toStdString();
}

TEST(SweepView, InANarrowWindowTheSweepReflowsAndScrollsVerticallyInsteadOfWideningIt) {
  MainWindow w(MainWindow::Options{false});
  w.resize(1200, 800);
  w.show();
  auto* dock = w.findChild<QDockWidget*>("dock.sweep");
  ASSERT_NE(dock, nullptr);
  dock->raise();
  QTest::qWait(20);
  // The window keeps the size asked for; the sweep's parts move onto a second row
  // (the heatmaps under the grid) and the dock scrolls vertically, never sideways.
  EXPECT_EQ(w.width(), 1200);
  auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
  ASSERT_NE(scroll, nullptr);
  auto* view = w.findChild<SweepView*>();
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->width(), scroll->viewport()->width());
  EXPECT_FALSE(scroll->horizontalScrollBar()->isVisible());
  auto* form = view->findChild<SweepGridForm*>();
  const auto maps = view->findChildren<SweepHeatmap*>();
  ASSERT_TRUE(form && maps.size() == 2);
  EXPECT_GE(maps[0]->mapTo(view, QPoint(0, 0)).y(), form->mapTo(view, QPoint(0, form->height())).y());
  EXPECT_GE(maps[0]->width(), maps[0]->minimumSizeHint().width());
  EXPECT_GT(view->height(), scroll->viewport()->height());
  EXPECT_TRUE(scroll->verticalScrollBar()->isVisible());
  if (const char* dir = std::getenv("PIPESCOPE_SCREENSHOT_DIR")) {
    useSimulator(*view);
    defineGrid(*view, "1M,4M,16M,64M", "1,2,4,8", 20);
    ASSERT_TRUE(runToEnd(*view));
    QTest::qWait(50);
    w.grab().save(QDir(dir).filePath("sweep-in-1200-window.png"));
  }
}
