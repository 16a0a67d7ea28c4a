// A/B comparison: pin a run as A, the next run becomes B on the same time axis;
// the table holds the two runs' computeMetrics; the comparison exports as one PNG
// (2x) or a well-formed SVG.
#include <gtest/gtest.h>

#include <QAction>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "analysis/Comparison.h"
#include "compare/CompareController.h"
#include "compare/CompareView.h"
#include "compare/ComparisonImage.h"
#include "compare/ComparisonTableWidget.h"
#include "config/Presets.h"
#include "controls/ControlPanel.h"
#include "export/ImageExport.h"
#include "run/RunController.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;

namespace {

struct PinnedPair {
  MainWindow w{MainWindow::Options{false}};
  QSignalSpy completed{&w, &MainWindow::runCompleted};
  PinnedPair() {
    w.resize(1600, 1000);
    w.show();
    w.controlPanel().setBackendOptions(simulator());
  }
  bool run(const char* preset, int batches) {
    PipelineConfig c = findPreset(preset)->config;
    c.batchCount = batches;
    const int before = int(completed.count());
    w.startRun(c);
    return waitFor([&] { return completed.count() == before + 1; });
  }
};

}  // namespace

TEST(Compare, PinIsRefusedWithAReasonWhenThereIsNothingToPin) {
  PinnedPair f;
  EXPECT_FALSE(f.w.compare().pinAction()->isEnabled());
  QString error;
  EXPECT_FALSE(f.w.compare().pinCurrent(&error));
  EXPECT_TRUE(error.contains("start a run")) << error.toStdString();
  EXPECT_FALSE(f.w.compare().pinned());
}

TEST(Compare, TableHoldsTheTwoRunsMetricsAndBothTimelinesShareOneAxis) {
  PinnedPair f;
  ASSERT_TRUE(f.run("naive", 6)) << f.w.lastError().toStdString();
  EXPECT_TRUE(f.w.compare().pinAction()->isEnabled());
  f.w.compare().pinAction()->trigger();
  ASSERT_TRUE(f.w.compare().pinned());
  const auto a = f.w.currentTrace();
  ASSERT_TRUE(f.run("multi-stream", 6)) << f.w.lastError().toStdString();
  const auto b = f.w.currentTrace();
  ASSERT_NE(a, b);
  EXPECT_EQ(f.w.compare().traceA(), a);
  EXPECT_EQ(f.w.compare().traceB(), b);

  const Metrics ma = computeMetrics(*a), mb = computeMetrics(*b);
  const ComparisonTable expected = compareRuns(ma, mb);
  const ComparisonTableWidget& table = f.w.compare().view().table();
  ASSERT_EQ(table.table().rows.size(), expected.rows.size());
  ASSERT_EQ(table.rowCount(), int(expected.rows.size()));
  for (std::size_t i = 0; i < expected.rows.size(); ++i) {
    const ComparisonRow& r = table.table().rows[i];
    EXPECT_EQ(r.key, expected.rows[i].key);
    EXPECT_DOUBLE_EQ(r.a, expected.rows[i].a) << r.key;
    EXPECT_DOUBLE_EQ(r.b, expected.rows[i].b) << r.key;
    EXPECT_EQ(table.item(int(i), 1)->text().toStdString(), expected.rows[i].aText);
    EXPECT_EQ(table.item(int(i), 2)->text().toStdString(), expected.rows[i].bText);
    EXPECT_EQ(table.item(int(i), 3)->text().toStdString(), expected.rows[i].differenceText);
  }
  const ComparisonRow* makespan = table.table().find("makespan_ns");
  ASSERT_TRUE(makespan);
  EXPECT_DOUBLE_EQ(makespan->a, ma.makespanNs);
  EXPECT_DOUBLE_EQ(makespan->b, mb.makespanNs);
  EXPECT_EQ(makespan->better, Winner::B);  // 4 streams beat the naive pipeline

  // One time axis: same range, plots starting at the same x on screen, from time 0.
  CompareView& v = f.w.compare().view();
  EXPECT_EQ(v.timelineA().visibleRange(), v.timelineB().visibleRange());
  EXPECT_LE(v.timelineA().visibleRange().first, 0);
  EXPECT_GE(v.timelineA().visibleRange().second, std::max(ma.lastNs, mb.lastNs));
  const int leftA = v.timelineA().mapTo(&v, v.timelineA().plotRect().topLeft()).x();
  const int leftB = v.timelineB().mapTo(&v, v.timelineB().plotRect().topLeft()).x();
  EXPECT_EQ(leftA, leftB);
  EXPECT_EQ(v.timelineA().plotRect().width(), v.timelineB().plotRect().width());
  // Zooming one zooms the other.
  v.timelineA().setVisibleRange(1000, 2'000'000);
  EXPECT_EQ(v.timelineB().visibleRange(), std::make_pair(std::int64_t(1000), std::int64_t(2'000'000)));

  f.w.compare().clearAction()->trigger();
  EXPECT_FALSE(f.w.compare().pinned());
  EXPECT_FALSE(v.hasA());
  EXPECT_EQ(v.table().rowCount(), 0);
}

TEST(Compare, ExportWritesAPngAtTwiceThePageSizeAndAWellFormedSvg) {
  PinnedPair f;
  ASSERT_TRUE(f.run("pinned", 4));
  ASSERT_TRUE(f.w.compare().pinCurrent());
  QTemporaryDir dir;
  QString error;
  EXPECT_FALSE(f.w.compare().exportComparisonImage(dir.filePath("early.png"), &error));  // no B yet
  EXPECT_FALSE(error.isEmpty());
  ASSERT_TRUE(f.run("multi-stream", 4));
  EXPECT_TRUE(f.w.compare().exportAction()->isEnabled());

  const QString png = dir.filePath("ab.png");
  ASSERT_TRUE(f.w.compare().exportComparisonImage(png, &error)) << error.toStdString();
  const QImage img(png);
  const QSize page = comparisonPageSize(f.w.compare().comparisonContent());
  EXPECT_EQ(img.size(), page * kPngScale);
  EXPECT_EQ(page.width(), kComparisonPageWidth);
  EXPECT_GE(page.height(), 600);  // title, two timelines, legend, table
  EXPECT_LE(page.height(), 2000);

  const QString svg = dir.filePath("ab.svg");
  ASSERT_TRUE(f.w.compare().exportComparisonImage(svg, &error)) << error.toStdString();
  QFile file(svg);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&file);
  int texts = 0;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement() && xml.name() == QLatin1String("text")) ++texts;
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  EXPECT_GT(texts, 20);

  EXPECT_FALSE(f.w.compare().exportComparisonImage(dir.filePath("ab.bmp"), &error));
  EXPECT_TRUE(error.contains(".png")) << error.toStdString();
}
