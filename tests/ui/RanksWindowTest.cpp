// A job's ranks opened as one trace in the window (tests/fixtures/ddp): the legend
// names the collectives, the Controls dock says what was opened, the rank title bands
// are readable whole, and a rank whose clock cannot be aligned is said after the load.
#include <gtest/gtest.h>
#include <zlib.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <array>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "controls/TraceSourceBox.h"
#include "files/TraceFileActions.h"
#include "io/TraceFiles.h"
#include "timeline/TimelineLegend.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;

namespace {

QString ddp(const QString& job) { return QString(PIPESCOPE_FIXTURES_DIR) + "/ddp/" + job; }

QByteArray gunzip(const QString& path) {
  gzFile f = gzopen(path.toLocal8Bit().constData(), "rb");
  QByteArray out;
  if (f == nullptr) return out;
  std::array<char, 1 << 16> buf{};
  int n = 0;
  while ((n = gzread(f, buf.data(), unsigned(buf.size()))) > 0) out.append(buf.data(), n);
  gzclose(f);
  return out;
}

bool hasKind(const std::vector<OpKind>& kinds, OpKind k) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

/// One window on the 4-rank slowed job, shown at the designed size (opening costs
/// about a second: once for the suite).
class RanksWindow : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    window_ = new MainWindow(MainWindow::Options{false});
    window_->resize(1600, 1000);
    window_->show();
    window_->traceFiles().openRanks({ddp("ddp-w4-slowed")});
    ASSERT_TRUE(window_->traceFiles().waitForLoad()) << window_->lastError().toStdString();
    ASSERT_EQ(window_->currentTrace()->ranks().size(), 4u);
  }
  static void TearDownTestSuite() {
    delete window_;
    window_ = nullptr;
  }
  static MainWindow* window_;
};
MainWindow* RanksWindow::window_ = nullptr;

}  // namespace

TEST_F(RanksWindow, LegendNamesTheCollectivesTheTraceHolds) {
  const auto* legend = window_->findChild<TimelineLegend*>();
  ASSERT_NE(legend, nullptr);
  EXPECT_TRUE(hasKind(legend->kinds(), OpKind::Collective));
  EXPECT_TRUE(hasKind(legend->kinds(), OpKind::Memset)) << "the ranks' memsets";
  EXPECT_FALSE(hasKind(legend->kinds(), OpKind::PeerCopy)) << "DDP moves no data by peer copies";
}

TEST(RanksLegend, PeerCopiesGetAnEntryOnlyWhenPresent) {
  MainWindow w(MainWindow::Options{false});
  const auto* legend = w.findChild<TimelineLegend*>();
  ASSERT_NE(legend, nullptr);
  auto trace = std::make_shared<Trace>();
  trace->setDevices({DeviceInfo{}, DeviceInfo{}});
  const std::uint16_t stream = trace->lane(LaneKind::Stream, 0, 0, "stream 0");
  const std::uint16_t link = trace->lane(LaneKind::PeerLink, 1, 0, "GPU0→GPU1 NVLink");
  Op op;
  op.kind = OpKind::Kernel;
  op.lane = stream;
  op.submit = op.ready = op.start = 0;
  op.end = 1000;
  trace->ops().append(op);
  trace->ops().publish();
  w.showTrace(trace, "one kernel");
  EXPECT_FALSE(hasKind(legend->kinds(), OpKind::PeerCopy));
  EXPECT_FALSE(hasKind(legend->kinds(), OpKind::Collective));

  op.kind = OpKind::PeerCopy;
  op.engineLane = link;
  op.start = 1000;
  op.end = 2000;
  trace->ops().append(op);
  trace->ops().publish();
  w.timeline().refresh();  // a live run's tick picks up the new kind
  EXPECT_TRUE(hasKind(legend->kinds(), OpKind::PeerCopy));
  EXPECT_FALSE(hasKind(legend->kinds(), OpKind::Collective));
}

TEST_F(RanksWindow, ControlsSayWhichFolderAndRanksAreShown) {
  const auto* box = window_->findChild<TraceSourceBox*>("traceSource");
  ASSERT_NE(box, nullptr);
  const QString text = box->text();
  EXPECT_TRUE(text.contains("Folder: ddp-w4-slowed")) << text.toStdString();
  EXPECT_TRUE(text.contains("Format: 4 PyTorch profiler traces (ranks 0-3 of 4)")) << text.toStdString();
  EXPECT_TRUE(text.contains("Devices: 4 × NVIDIA H200")) << text.toStdString();
  EXPECT_FALSE(text.contains("unknown")) << text.toStdString();
}

TEST_F(RanksWindow, RankTitleBandsAreReadableWhole) {
  TimelineView& t = window_->timeline();
  t.setMarkers({});  // only the titles draw dark pixels into the bands
  QImage image(t.size(), QImage::Format_RGB32);
  {
    QPainter p(&image);
    t.renderTo(p, image.rect());
  }
  QFont bold = t.font();
  bold.setBold(true);
  const QFontMetrics bfm(bold);
  const QRect plot = t.plotRect();
  const int bandH = t.layout().sectionHeight;
  int checked = 0;
  for (const LaneRow& row : t.layout().rows) {
    if (row.device < 0 || row.section.isEmpty()) continue;
    const int top = plot.top() + row.top - bandH;
    if (top + bandH > image.height()) break;
    const QColor bg = image.pixelColor(image.width() - 3, top + bandH / 2);
    // The rightmost pixel of text in the band (inside it: the separator line is on its edge).
    int rightmost = -1;
    for (int y = top + 3; y < top + bandH - 2; ++y)
      for (int x = 0; x < image.width(); ++x)
        if (std::abs(image.pixelColor(x, y).lightness() - bg.lightness()) > 60) rightmost = std::max(rightmost, x);
    const int full = 8 + bfm.horizontalAdvance(row.section.toUpper());
    EXPECT_GT(rightmost, plot.left()) << row.section.toStdString() << ": the title stops at the lane names";
    EXPECT_GE(rightmost, full - 20) << row.section.toStdString() << ": drawn to x " << rightmost << " of " << full;
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

TEST(RanksProblems, ARankWhoseClockCannotBeAlignedIsSaidAfterTheLoad) {
  // Rank 1's NCCL kernels renamed: it shares no collective with rank 0, so its clock
  // cannot be aligned; the load still shows both ranks.
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  QStringList files;
  for (const auto& f : profilerTraceFilesIn(ddp("ddp-w2-slowed").toStdString())) files << QString::fromStdString(f);
  ASSERT_EQ(files.size(), 2);
  ASSERT_TRUE(QFile::copy(files[0], dir.filePath("rank0.pt.trace.json.gz")));
  QByteArray rank1 = gunzip(files[1]);
  ASSERT_FALSE(rank1.isEmpty());
  rank1.replace("ncclDevKernel_", "otherKernel_").replace("ncclKernel_", "otherKernel_");
  QFile out(dir.filePath("rank1.pt.trace.json"));
  ASSERT_TRUE(out.open(QIODevice::WriteOnly));
  out.write(rank1);
  out.close();

  MainWindow w(MainWindow::Options{false});  // headless: the message goes to lastError()
  w.traceFiles().openRanks({dir.path()});
  ASSERT_TRUE(w.traceFiles().waitForLoad()) << w.lastError().toStdString();
  ASSERT_EQ(w.currentTrace()->ranks().size(), 2u);
  const QString error = w.lastError();
  EXPECT_TRUE(error.contains("rank 1: clock not aligned (")) << error.toStdString();
  EXPECT_TRUE(error.contains("own time base")) << error.toStdString();
  EXPECT_FALSE(error.contains("rank 0: clock")) << error.toStdString();
}
