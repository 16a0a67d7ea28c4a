// The screenshot mode's --lesson and --compare: the built binary plays a lesson or
// runs an A/B pair headless and saves the window or the comparison image.
#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QTemporaryDir>

#include "AppTestSupport.h"

using pipescope::ui::testing::runGui;

TEST(AnalysisScreenshots, LessonAndComparisonAreSavedHeadless) {
  QTemporaryDir dir;
  QString err;
  const QString lesson = dir.filePath("lesson.png");
  ASSERT_EQ(runGui({"--screenshot", lesson, "--lesson", "2", "--size", "1200x800"}, &err), 0) << err.toStdString();
  EXPECT_EQ(QImage(lesson).size(), QSize(1200, 800));

  const QString compare = dir.filePath("compare.svg");
  ASSERT_EQ(runGui({"--screenshot", compare, "--report", "--compare", "pinned", "async"}, &err), 0) << err.toStdString();
  QFile f(compare);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QByteArray svg = f.readAll();
  EXPECT_TRUE(svg.contains("<svg"));
  EXPECT_TRUE(svg.contains("A/B comparison: pinned vs async"));
}

TEST(AnalysisScreenshots, BadLessonOrPresetExitsWithAMessage) {
  QTemporaryDir dir;
  QString err;
  EXPECT_EQ(runGui({"--screenshot", dir.filePath("x.png"), "--compare", "naive,nope"}, &err), 2);
  EXPECT_TRUE(err.contains("'nope' is not a preset")) << err.toStdString();
  EXPECT_EQ(runGui({"--screenshot", dir.filePath("x.png"), "--lesson", "zero"}, &err), 2);
  EXPECT_TRUE(err.contains("--lesson")) << err.toStdString();
  EXPECT_EQ(runGui({"--screenshot", dir.filePath("x.png"), "--lesson", "12"}, &err), 1);
  EXPECT_TRUE(err.contains("lessons 1 to 11")) << err.toStdString();
}
