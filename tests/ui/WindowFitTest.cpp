// Where the window goes: the first launch takes the screen's available area up to the
// designed size; a saved geometry from a screen that is gone (a laptop after its
// monitor is unplugged) comes back onto one that exists; below 1400x850 the docks
// take their compact arrangement, and the user's arrangement of each size class
// comes back with it.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "app/DockLayout.h"
#include "app/WindowFit.h"

using namespace pipescope::ui;
using namespace pipescope::ui::testing;

TEST(WindowFit, TheFirstLaunchTakesTheAvailableAreaUpToTheDesignedSize) {
  EXPECT_EQ(firstLaunchGeometry(QRect(0, 0, 1366, 740)), QRect(0, 0, 1366, 740));
  EXPECT_EQ(firstLaunchGeometry(QRect(0, 0, 1280, 720)), QRect(0, 0, 1280, 720));
  // A big screen: the designed size, centred on it (a panel on the left included).
  EXPECT_EQ(firstLaunchGeometry(QRect(64, 0, 1856, 1080)), QRect(64 + 128, 40, 1600, 1000));
  EXPECT_EQ(firstLaunchGeometry(QRect(0, 0, 1366, 768), QSize(1600, 1000)).size(), QSize(1366, 768));
}

TEST(WindowFit, ASavedGeometryIsPutBackOntoAScreenThatExists) {
  const QList<QRect> laptop{QRect(0, 0, 1366, 768)};
  // Saved on an external monitor to the right, which is gone now.
  EXPECT_EQ(clampOntoScreens(QRect(2000, 100, 1600, 1000), laptop), QRect(0, 0, 1366, 768));
  // Partly off the laptop's screen: moved on, size kept.
  EXPECT_EQ(clampOntoScreens(QRect(900, 500, 800, 600), laptop), QRect(566, 168, 800, 600));
  // Wholly on a screen: left as it is.
  EXPECT_EQ(clampOntoScreens(QRect(10, 10, 800, 600), laptop), QRect(10, 10, 800, 600));
  // Two screens: onto the one it overlaps most.
  const QList<QRect> two{QRect(0, 0, 1920, 1080), QRect(1920, 0, 1280, 720)};
  EXPECT_EQ(clampOntoScreens(QRect(2400, 100, 1600, 900), two), QRect(1920, 0, 1280, 720));
  EXPECT_EQ(clampOntoScreens(QRect(2400, 100, 1600, 900), {}), QRect(2400, 100, 1600, 900));
}

TEST(WindowFit, CompactBelow1400x850) {
  EXPECT_TRUE(isCompactSize({1366, 768}));
  EXPECT_TRUE(isCompactSize({1280, 720}));
  EXPECT_TRUE(isCompactSize({1600, 800}));
  EXPECT_FALSE(isCompactSize({1600, 1000}));
  EXPECT_FALSE(isCompactSize({1920, 1080}));
}

TEST(WindowFit, ANewWindowFitsTheScreenItOpensOn) {
  IsolatedSettings settings;  // no saved geometry: a first launch
  MainWindow w;
  const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
  EXPECT_EQ(w.geometry(), firstLaunchGeometry(available));
  w.show();
  QTest::qWait(20);
  EXPECT_TRUE(available.contains(w.frameGeometry())) << w.frameGeometry().width() << "x" << w.frameGeometry().height();
}

TEST(WindowFit, AWindowSavedOnAScreenThatIsGoneOpensOnOneThatExists) {
  IsolatedSettings settings;
  const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
  {
    MainWindow w;
    w.setGeometry(available.right() + 500, available.top() + 50, available.width() + 400, available.height() + 300);
    w.close();  // saves the geometry
  }
  MainWindow w;
  EXPECT_TRUE(available.contains(w.frameGeometry()))
      << w.frameGeometry().x() << "," << w.frameGeometry().y() << " " << w.frameGeometry().width() << "x"
      << w.frameGeometry().height();
}

TEST(WindowFit, SmallWindowsTabTheSidePanelsTogetherAndGetTheirOwnArrangementBack) {
  MainWindow w(MainWindow::Options{false});
  w.resize(1600, 1000);
  w.show();
  QTest::qWait(20);
  ASSERT_EQ(w.dockArrangement(), DockArrangement::Wide);
  auto dock = [&](const char* name) { return w.findChild<QDockWidget*>(name); };
  EXPECT_EQ(w.dockWidgetArea(dock("dock.metrics")), Qt::RightDockWidgetArea);
  dock("dock.advice")->hide();  // the user closes one panel

  w.resize(1280, 720);
  QTest::qWait(20);
  EXPECT_EQ(w.size(), QSize(1280, 720));
  EXPECT_EQ(w.dockArrangement(), DockArrangement::Compact);
  for (const char* name : {"dock.lessons", "dock.metrics"}) {
    EXPECT_EQ(w.dockWidgetArea(dock(name)), Qt::LeftDockWidgetArea) << name;
    EXPECT_TRUE(w.tabifiedDockWidgets(dock("dock.controls")).contains(dock(name))) << name;
  }
  EXPECT_TRUE(dock("dock.advice")->isHidden());  // closed stays closed
  // The timeline keeps most of the width: one side column.
  EXPECT_GT(w.centralWidget()->width(), w.width() / 2);

  w.resize(1600, 1000);
  QTest::qWait(20);
  EXPECT_EQ(w.dockArrangement(), DockArrangement::Wide);
  EXPECT_EQ(w.dockWidgetArea(dock("dock.metrics")), Qt::RightDockWidgetArea);
  EXPECT_TRUE(dock("dock.advice")->isHidden());
}
