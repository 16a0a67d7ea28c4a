// Light and dark themes: every custom-painted area follows the application palette,
// the choice persists, and the screenshot mode takes --theme.
#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "app/Theme.h"
#include "charts/ThroughputCharts.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;

namespace {

double lightness(const QImage& img, QPoint p) { return QColor(img.pixel(p)).lightnessF(); }

// Puts the light theme back whatever a test did, so the other suites see the default.
struct ThemeGuard {
  ~ThemeGuard() { applyTheme(Theme::Light); }
};

}  // namespace

TEST(Theme, NamesRoundTripAndUnknownNamesAreRejected) {
  for (Theme t : {Theme::Light, Theme::Dark}) EXPECT_EQ(parseTheme(toString(t)), t);
  EXPECT_EQ(parseTheme(" Dark "), Theme::Dark);
  EXPECT_FALSE(parseTheme("sepia"));
  EXPECT_TRUE(isDarkPalette(themePalette(Theme::Dark)));
  EXPECT_FALSE(isDarkPalette(themePalette(Theme::Light)));
}

TEST(Theme, TimelineAndChartsFollowTheApplicationPalette) {
  ThemeGuard guard;
  MainWindow w(MainWindow::Options{false});
  w.resize(1200, 800);
  w.show();
  for (Theme t : {Theme::Dark, Theme::Light}) {
    w.setTheme(t);
    QApplication::processEvents();
    const bool dark = t == Theme::Dark;
    const QImage timeline = w.timeline().grab().toImage();
    const QPoint plotCorner = w.timeline().plotRect().topLeft() + QPoint(5, 5);
    EXPECT_EQ(lightness(timeline, plotCorner) < 0.5, dark) << toString(t).toStdString();
    const QImage charts = w.charts().grab().toImage();
    EXPECT_EQ(lightness(charts, QPoint(charts.width() / 6, charts.height() / 2)) < 0.5, dark)
        << toString(t).toStdString();
  }
}

TEST(Theme, TheChoicePersistsAcrossWindows) {
  ThemeGuard guard;
  pipescope::ui::testing::IsolatedSettings settings;
  {
    MainWindow w;
    w.setTheme(Theme::Dark);
    w.close();
  }
  applyTheme(Theme::Light);
  MainWindow again;
  EXPECT_EQ(currentTheme(), Theme::Dark);
  EXPECT_TRUE(isDarkPalette(QApplication::palette()));
}

TEST(Theme, ScreenshotModeTakesTheTheme) {
  QTemporaryDir dir;
  QProcess p;
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  p.setProcessEnvironment(env);
  const QString out = dir.filePath("dark.png");
  p.start(PIPESCOPE_GUI, {"--screenshot", out, "--preset", "pinned", "--size", "1000x700", "--theme", "dark"});
  ASSERT_TRUE(p.waitForFinished(120000));
  ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  const QImage img(out);
  ASSERT_FALSE(img.isNull());
  EXPECT_LT(lightness(img, QPoint(img.width() / 2, img.height() - 5)), 0.5);  // the status bar

  p.start(PIPESCOPE_GUI, {"--screenshot", out, "--theme", "sepia"});
  ASSERT_TRUE(p.waitForFinished(60000));
  EXPECT_EQ(p.exitCode(), 2);
  EXPECT_TRUE(p.readAllStandardError().contains("--theme sepia")) ;
}
