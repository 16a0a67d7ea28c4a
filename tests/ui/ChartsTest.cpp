// The charts take a TimeSeries in bulk and draw one point per interval of it.
#include <gtest/gtest.h>

#include <QImage>
#include <algorithm>
#include <QPainter>

#include "charts/ThroughputCharts.h"

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
