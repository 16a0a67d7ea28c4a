// Renders simulator runs of the presets the way a user sees them (timeline and
// legend in one widget, grabbed offscreen) and checks the picture has what a
// reader needs. With PIPESCOPE_SCREENSHOT_DIR set, the PNGs are written there
// (timeline-only pictures; the docs/screenshots/ of the whole window come from
// `pipescope --screenshot`, see docs/user-guide.md).
#include <gtest/gtest.h>

#include <QDir>
#include <QImage>
#include <QPixmap>
#include <QVBoxLayout>
#include <QWidget>
#include <cstdlib>
#include <set>

#include "OpPalette.h"
#include "TimelineTestSupport.h"
#include "timeline/TimelineLegend.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;

namespace {

QImage shoot(const std::string& preset, LaneGrouping grouping, int batches) {
  QWidget frame;
  auto* layout = new QVBoxLayout(&frame);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  auto* view = new TimelineView;
  auto* legend = new TimelineLegend;
  layout->addWidget(view, 1);
  layout->addWidget(legend);
  frame.resize(1400, 620);
  view->setTrace(uitest::simulatePreset(preset, batches));
  view->setGrouping(grouping);
  frame.show();
  view->fit();
  QImage img = frame.grab().toImage();
  if (const char* dir = std::getenv("PIPESCOPE_SCREENSHOT_DIR")) {
    QDir().mkpath(dir);
    img.save(QDir(dir).filePath(QString::fromStdString("timeline-" + preset + ".png")));
  }
  return img;
}

std::set<QRgb> colours(const QImage& img) {
  std::set<QRgb> out;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) out.insert(img.pixel(x, y) & 0xFFFFFF);
  return out;
}

}  // namespace

TEST(TimelineScreenshot, PresetsShowEveryPipelineKind) {
  for (const char* preset : {"naive", "multi-stream"}) {
    const QImage img = shoot(preset, LaneGrouping::Both, 8);
    ASSERT_FALSE(img.isNull());
    const auto cs = colours(img);
    for (OpKind k : {OpKind::CopyH2D, OpKind::Kernel, OpKind::CopyD2H})
      EXPECT_TRUE(cs.count(opKindColor(k).rgb() & 0xFFFFFF)) << preset << ": no " << opKindLabel(k).toStdString();
  }
}
