// The Ranks dock on a job's ranks (tests/fixtures/ddp/ddp-w4-slowed, rank 1 slowed on
// purpose): the per-rank table with units, sortable, the straggler in bold; a rank's
// row brings its lanes into view; the what-ifs with K buckets; hidden for one run.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QHeaderView>
#include <QSpinBox>
#include <QTableWidget>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "files/TraceFileActions.h"
#include "ranks/RanksPanel.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;

namespace {

QString ddp(const QString& job) { return QString(PIPESCOPE_FIXTURES_DIR) + "/ddp/" + job; }

/// One window on the 4-rank slowed job at the smallest supported screen (opening costs
/// about a second: once for the suite).
class RanksPanelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    window_ = new MainWindow(MainWindow::Options{false});
    window_->resize(1366, 768);
    window_->show();
    window_->traceFiles().openRanks({ddp("ddp-w4-slowed")});
    ASSERT_TRUE(window_->traceFiles().waitForLoad()) << window_->lastError().toStdString();
    QCoreApplication::processEvents();
  }
  static void TearDownTestSuite() {
    delete window_;
    window_ = nullptr;
  }
  static QDockWidget* dock() { return window_->findChild<QDockWidget*>("dock.ranks"); }
  static MainWindow* window_;
};
MainWindow* RanksPanelTest::window_ = nullptr;

int rowOfRank(const QTableWidget& t, int rank) {
  for (int r = 0; r < t.rowCount(); ++r)
    if (t.item(r, 0)->text() == QString::number(rank)) return r;
  return -1;
}

}  // namespace

TEST_F(RanksPanelTest, TheTableHasARowPerRankWithUnitsAndTheStragglerInBold) {
  ASSERT_NE(dock(), nullptr);
  EXPECT_TRUE(dock()->isVisible());
  const RanksPanel& panel = window_->ranks();
  const QTableWidget& t = panel.table();
  ASSERT_EQ(t.rowCount(), 4);
  ASSERT_EQ(t.columnCount(), 10);
  for (int c = 0; c < t.columnCount(); ++c) EXPECT_FALSE(t.horizontalHeaderItem(c)->toolTip().isEmpty()) << c;
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(t.item(r, 0)->text(), QString::number(r)) << "in rank order";
    for (int c : {1, 2, 4, 5, 6, 7, 8, 9})
      EXPECT_TRUE(t.item(r, c)->text().endsWith("s")) << "a time with its unit: " << t.item(r, c)->text().toStdString();
    EXPECT_TRUE(t.item(r, 3)->text().endsWith("%"));
    EXPECT_EQ(t.item(r, 1)->font().bold(), r == 1) << "rank " << r;
  }
  EXPECT_TRUE(panel.stragglerText().contains("rank 1")) << panel.stragglerText().toStdString();
  // Every rank readable without scrolling at 1366x768.
  const int lastRow = t.rowViewportPosition(3) + t.rowHeight(3);
  EXPECT_LE(lastRow, t.viewport()->height()) << "the fourth rank is cut off";
  EXPECT_LE(t.horizontalHeader()->length(), t.viewport()->width()) << "the columns need a scroll bar";
}

TEST_F(RanksPanelTest, SortingByMadeOthersWaitPutsTheStragglerFirst) {
  QTableWidget& t = window_->ranks().table();
  t.sortByColumn(8, Qt::DescendingOrder);
  EXPECT_EQ(t.item(0, 0)->text(), "1");
  // By number, not by text ("787 ms" before "0 ns").
  t.sortByColumn(1, Qt::AscendingOrder);
  EXPECT_EQ(t.item(0, 0)->text(), "1") << "the slowed rank computes least";
  t.sortByColumn(0, Qt::AscendingOrder);
  EXPECT_EQ(t.item(0, 0)->text(), "0");
}

TEST_F(RanksPanelTest, SelectingARankBringsItsLanesIntoView) {
  TimelineView& timeline = window_->timeline();
  QTableWidget& t = window_->ranks().table();
  const int row = rowOfRank(t, 3);
  ASSERT_GE(row, 0);
  const int device = window_->ranks().analysis().ranks[3].device;
  timeline.setDeviceCollapsed(device, true);
  const int before = timeline.scrollTop();
  t.selectRow(row);
  EXPECT_FALSE(timeline.deviceCollapsed(device)) << "its group unfolds";
  EXPECT_GT(timeline.scrollTop(), before) << "rank 3's group is below the others";
  t.selectRow(rowOfRank(t, 0));
  EXPECT_EQ(timeline.scrollTop(), 0) << "rank 0's group is the first";
}

TEST_F(RanksPanelTest, TheBucketWhatIfShowsTheMeasuredRowThePredictionsAndTheAskedCount) {
  RanksPanel& panel = window_->ranks();
  ASSERT_TRUE(panel.buckets().ok()) << panel.buckets().why;
  QTableWidget& b = panel.bucketTable();
  panel.askedBuckets().setValue(16);
  ASSERT_EQ(b.rowCount(), 6);  // measured, 1, 2, 4, 8, 16
  EXPECT_EQ(b.item(0, 0)->text(), "4 (measured)");
  EXPECT_EQ(b.item(5, 0)->text(), "16");
  panel.askedBuckets().setValue(2);  // already among 1, 2, 4, 8
  EXPECT_EQ(b.rowCount(), 5);
  panel.askedBuckets().setValue(3);
  ASSERT_EQ(b.rowCount(), 6);
  const BucketPrediction three = predictWithBuckets(panel.buckets(), 3);
  EXPECT_TRUE(b.item(5, 1)->text().contains("ms"));
  EXPECT_NEAR(three.stepNs, panel.buckets().stepNs, 1e6);
  for (const char* said : {"Assumes", "equal bytes", "stay as measured", "as fast as the median rank"})
    EXPECT_TRUE(panel.whatIfText().contains(said)) << said << " in " << panel.whatIfText().toStdString();
}

TEST_F(RanksPanelTest, AOneRunTraceHidesTheDock) {
  window_->showTrace(std::make_shared<Trace>(), "one run");
  EXPECT_FALSE(dock()->isVisible());
  EXPECT_FALSE(dock()->toggleViewAction()->isEnabled());
  EXPECT_FALSE(window_->ranks().hasRanks());
  EXPECT_EQ(window_->ranks().table().rowCount(), 0);
  // And back.
  window_->traceFiles().openRanks({ddp("ddp-w2-balanced")});
  ASSERT_TRUE(window_->traceFiles().waitForLoad());
  EXPECT_TRUE(dock()->isVisible());
  EXPECT_EQ(window_->ranks().table().rowCount(), 2);
}
