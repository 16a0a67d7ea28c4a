// The built `pipescope` binary renders a screenshot headless and exits.
#include <gtest/gtest.h>

#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

namespace {
int runGui(const QStringList& args, QString* err) {
  QProcess p;
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  p.setProcessEnvironment(env);
  p.start(PIPESCOPE_GUI, args);
  if (!p.waitForFinished(180000)) {
    p.kill();
    return -1;
  }
  *err = QString::fromLocal8Bit(p.readAllStandardError());
  return p.exitCode();
}
}  // namespace

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
