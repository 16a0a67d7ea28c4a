// The charts take a TimeSeries in bulk and draw one point per interval of it.
#include <gtest/gtest.h>

#include <QImage>
#include <algorithm>
#include <QPainter>

#include "charts/GpuSeriesStyle.h"
#include "charts/ThroughputCharts.h"
#include "config/Presets.h"
#include "metrics/Metrics.h"
#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"

using namespace pipescope;
using namespace pipescope::ui;

namespace {
TimeSeries rampSeries(std::size_t n) {
  TimeSeries ts;
  ts.samplesPerBatch = 64;
  for (std::size_t i = 0; i < n; ++i) {
    ts.startNs.push_back(std::int64_t(i) * 1000);
    ts.endNs.push_back(std::int64_t(i + 1) * 1000);
    ts.timeNs.push_back(double(i) * 1000 + 500);
    ts.batchesPerSec.push_back(1e3);
    ts.samplesPerSec.push_back(64e3 + double(i));
    ts.h2dGBps.push_back(20);
    ts.d2hGBps.push_back(10);
    ts.computeBusy.push_back(0.5);
    ts.h2dBusy.push_back(0.4);
    ts.d2hBusy.push_back(0.2);
    ts.overlap.push_back(0.3);
  }
  return ts;
}
}  // namespace

TEST(Charts, EachIntervalIsOnePointWithItsOwnFigure) {
  ThroughputCharts charts;
  charts.setTimeSeries(rampSeries(50));
  for (int n : charts.pointCounts()) EXPECT_EQ(n, 50);
  charts.setTimeSeries(rampSeries(ThroughputCharts::kMaxPoints));
  for (int n : charts.pointCounts()) EXPECT_EQ(n, ThroughputCharts::kMaxPoints);
  charts.clear();
  for (int n : charts.pointCounts()) EXPECT_EQ(n, 0);
}

TEST(Charts, RenderToPaintsSomethingIntoTheTarget) {
  ThroughputCharts charts;
  charts.resize(900, 300);
  charts.setTimeSeries(rampSeries(100));
  QImage image(900, 300, QImage::Format_ARGB32);
  image.fill(Qt::white);
  {
    QPainter p(&image);
    charts.renderTo(p, QRectF(0, 0, 900, 300), Qt::Horizontal);
  }
  int nonWhite = 0;
  for (int y = 0; y < image.height(); y += 3)
    for (int x = 0; x < image.width(); x += 3)
      if (image.pixel(x, y) != qRgb(255, 255, 255)) ++nonWhite;
  EXPECT_GT(nonWhite, 500);
}

TEST(Charts, ChartsWithoutDataSaySoInsteadOfAFlatLine) {
  ThroughputCharts charts;
  EXPECT_EQ(charts.emptyNotes().size(), 3) << "cleared: every chart says it has no data yet";
  charts.setTimeSeries(rampSeries(1));  // one bin draws no line
  EXPECT_EQ(charts.emptyNotes().size(), 3);
  charts.setTimeSeries(rampSeries(20));
  EXPECT_TRUE(charts.emptyNotes().isEmpty()) << charts.emptyNotes().join("|").toStdString();
  TimeSeries noBatches = rampSeries(20);
  std::fill(noBatches.samplesPerSec.begin(), noBatches.samplesPerSec.end(), 0.0);
  std::fill(noBatches.h2dGBps.begin(), noBatches.h2dGBps.end(), 0.0);
  std::fill(noBatches.d2hGBps.begin(), noBatches.d2hGBps.end(), 0.0);
  charts.setTimeSeries(noBatches);
  const QStringList notes = charts.emptyNotes();
  ASSERT_EQ(notes.size(), 2) << notes.join("|").toStdString();
  EXPECT_EQ(notes[0], "Throughput (no batches)");
  EXPECT_EQ(notes[1], "Copy bandwidth (wall) (no copies)");
}

TEST(Charts, WithoutABatchSizeThroughputIsInBatchesPerSecond) {
  ThroughputCharts charts;
  TimeSeries ts = rampSeries(20);
  ts.samplesPerBatch = 0;  // an imported profile: iterations known, samples not
  std::fill(ts.samplesPerSec.begin(), ts.samplesPerSec.end(), 0.0);
  charts.setTimeSeries(ts);
  EXPECT_TRUE(charts.emptyNotes().isEmpty()) << charts.emptyNotes().join("|").toStdString();
  EXPECT_EQ(charts.seriesNames().front(), "batches/s");
}

namespace {
// A short simulated run of `gpus` GPUs, its series as the window computes them.
TimeSeries simulatedSeries(int gpus, ParallelMode mode) {
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchCount = 16;
  c.devices.clear();
  for (int g = 0; g < gpus && gpus > 1; ++g) c.devices.push_back(g);
  c.parallel = mode;
  if (gpus > 1 && mode == ParallelMode::Data) {
    c.allreduceBytes = 64ull << 20;
    c.buckets = 4;
  }
  if (mode == ParallelMode::Pipeline) c.microBatches = 4;
  Trace trace;
  trace.setConfig(c);
  RunControl control;
  const RunOutcome outcome = makeSimulatorBackend(*builtinProfile("h200"))->run(c, trace, control);
  EXPECT_NE(outcome.state, RunState::Failed) << outcome.message;
  const Metrics m = computeMetrics(trace);
  return computeTimeSeries(trace, 0, m.lastNs, ThroughputCharts::kMaxPoints);
}
}  // namespace

TEST(Charts, SeveralGpusDataParallelShowEachGpuAndTheTotal) {
  ThroughputCharts charts;
  charts.setTimeSeries(simulatedSeries(4, ParallelMode::Data));
  EXPECT_EQ(charts.seriesNames(ThroughputCharts::Chart::Throughput),
            (QStringList{"GPU 0", "GPU 1", "GPU 2", "GPU 3", "total"}));
  EXPECT_EQ(charts.seriesNames(ThroughputCharts::Chart::Utilisation),
            (QStringList{"compute", "H2D", "D2H", "overlap"}));
  EXPECT_TRUE(charts.emptyNotes().isEmpty()) << charts.emptyNotes().join("|").toStdString();
  // Every line carries the run's points.
  const std::vector<int> counts = charts.pointCounts();
  EXPECT_EQ(counts.size(), 5u + 2u + 4u);
  for (int n : counts) EXPECT_EQ(n, counts.front());
  EXPECT_GT(counts.front(), 2);

  // Back to one GPU: the single line as ever, the GPUs' lines gone.
  charts.setTimeSeries(simulatedSeries(1, ParallelMode::Data));
  EXPECT_EQ(charts.seriesNames(ThroughputCharts::Chart::Throughput), QStringList{"samples/s"});
  EXPECT_EQ(charts.seriesNames().size(), 7);
}

TEST(Charts, OneGpuKeepsItsSingleThroughputLine) {
  ThroughputCharts charts;
  charts.setTimeSeries(simulatedSeries(1, ParallelMode::Data));
  EXPECT_EQ(charts.seriesNames(), (QStringList{"samples/s", "H2D", "D2H", "compute", "H2D", "D2H", "overlap"}));
}

TEST(Charts, PipelineStagesShowTheTotalAndEachGpusBusyShare) {
  ThroughputCharts charts;
  charts.setTimeSeries(simulatedSeries(4, ParallelMode::Pipeline));
  EXPECT_EQ(charts.seriesNames(ThroughputCharts::Chart::Throughput), QStringList{"total (all stages)"});
  EXPECT_EQ(charts.seriesNames(ThroughputCharts::Chart::Utilisation),
            (QStringList{"GPU 0 compute", "GPU 1 compute", "GPU 2 compute", "GPU 3 compute", "H2D", "D2H", "overlap"}));
  charts.clear();
  EXPECT_EQ(charts.seriesNames(ThroughputCharts::Chart::Utilisation),
            (QStringList{"compute", "H2D", "D2H", "overlap"}));
}

TEST(Charts, EightGpuColoursStayApartOnLightDarkAndHighContrast) {
  for (OpColors colors : {OpColors::Standard, OpColors::HighContrast})
    for (const QColor& bg : {QColor(Qt::white), QColor(0x1e, 0x1e, 0x1e)}) {
      const double wanted = colors == OpColors::HighContrast ? 4.5 : 3.0;
      for (int g = 0; g < kGpuStyles; ++g) {
        const QColor c = gpuSeriesColor(g, bg, colors);
        EXPECT_GE(contrastRatio(c, bg), wanted) << "GPU " << g << " on " << bg.name().toStdString();
        // GPUs drawn alike (solid or dashed) differ in hue.
        for (int h = 0; h < g; ++h) {
          if (gpuSeriesPenStyle(h) != gpuSeriesPenStyle(g)) continue;
          const QColor o = gpuSeriesColor(h, bg, colors);
          const int dh = std::abs(c.hslHue() - o.hslHue());
          EXPECT_GE(std::min(dh, 360 - dh), 40) << "GPU " << h << " and GPU " << g;
        }
      }
    }
}

TEST(Charts, ClearingAfterGpuBandsGivesTheOneLineBack) {
  ThroughputCharts charts;
  charts.resize(1200, 300);
  charts.setTimeSeries(simulatedSeries(2, ParallelMode::Data));
  EXPECT_EQ(charts.seriesNames(ThroughputCharts::Chart::Throughput), (QStringList{"GPU 0", "GPU 1", "total"}));
  charts.setTimeSeries(TimeSeries{});  // cleared: every chart empty, one line again
  EXPECT_EQ(charts.emptyNotes().front(), "Throughput (no data yet)");
  EXPECT_EQ(charts.seriesNames(ThroughputCharts::Chart::Throughput), QStringList{"samples/s"});
}
