// The built `pipescope` binary renders a screenshot headless and exits.
#include <gtest/gtest.h>

#include <QImage>
#include <QTemporaryDir>

#include "AppTestSupport.h"

using pipescope::ui::testing::runGui;

TEST(ScreenshotMode, WritesTheWindowAsPng) {
  QTemporaryDir dir;
  const QString out = dir.filePath("shot.png");
  QString err;
  ASSERT_EQ(runGui({"--screenshot", out, "--preset", "pinned", "--size", "1200x800"}, &err), 0) << err.toStdString();
  QImage image(out);
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.size(), QSize(1200, 800));
  EXPECT_FALSE(err.contains("below the window's minimum")) << err.toStdString();
}

TEST(ScreenshotMode, ASizeBelowTheMinimumIsReported) {
  QTemporaryDir dir;
  const QString out = dir.filePath("small.png");
  QString err;
  ASSERT_EQ(runGui({"--screenshot", out, "--preset", "pinned", "--size", "640x400"}, &err), 0) << err.toStdString();
  const QImage image(out);
  ASSERT_FALSE(image.isNull());
  EXPECT_GT(image.width(), 640);
  EXPECT_TRUE(err.contains("--size 640x400 is below the window's minimum")) << err.toStdString();
  EXPECT_TRUE(err.contains(QString("the screenshot is %1x%2").arg(image.width()).arg(image.height()))) << err.toStdString();
}

TEST(ScreenshotMode, WritesTheReportAsSvg) {
  QTemporaryDir dir;
  const QString out = dir.filePath("report.svg");
  QString err;
  ASSERT_EQ(runGui({"--screenshot", out, "--report", "--preset", "naive"}, &err), 0) << err.toStdString();
  QFile f(out);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  EXPECT_TRUE(f.readAll().contains("<svg"));
}

TEST(ScreenshotMode, BadOptionsExitWithAMessage) {
  QTemporaryDir dir;
  QString err;
  EXPECT_EQ(runGui({"--screenshot", dir.filePath("x.png"), "--preset", "nope"}, &err), 2);
  EXPECT_TRUE(err.contains("unknown preset")) << err.toStdString();
  EXPECT_EQ(runGui({"--screenshot", dir.filePath("x.png"), "--size", "12"}, &err), 2);
  EXPECT_TRUE(err.contains("--size")) << err.toStdString();
}
