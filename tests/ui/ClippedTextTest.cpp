// Every text of the window readable whole, on the screens a class meets: a 1280x720
// projector, a 1366x768 laptop and a 1920x1080 monitor (where the window takes its
// designed size, and maximised). One window goes through a run, a lesson, an A/B
// comparison, the advice and a small sweep, so every panel has its figures; then for
// each size every dock is raised in turn and every visible widget is checked
// (ClippedText.h). Runs offscreen and, in CI, under Xvfb with the xcb platform.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <algorithm>

#include "AppTestSupport.h"
#include "ClippedText.h"
#include "MainWindow.h"
#include "analysis/AdvicePanel.h"
#include "compare/CompareController.h"
#include "config/Presets.h"
#include "controls/ControlPanel.h"
#include "lessons/LessonsPanel.h"
#include "sweep/SweepGridForm.h"
#include "sweep/SweepView.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;

namespace {

const char* const kDocks[] = {"dock.controls", "dock.lessons", "dock.metrics", "dock.advice",
                              "dock.charts",   "dock.compare", "dock.sweep"};

/// One window with every panel filled, shared by the sizes (a run, a lesson, an A/B
/// pair, advice and a sweep cost a few seconds once, not per size).
class ClippedText : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    window_ = new MainWindow(MainWindow::Options{false});
    MainWindow& w = *window_;
    w.resize(1600, 1000);
    w.show();
    w.controlPanel().setBackendOptions(simulator());
    QSignalSpy completed(&w, &MainWindow::runCompleted);

    // Lesson 1 (the longest title and question of the sequence), answered and run.
    LessonsPanel& lessons = w.lessons();
    lessons.player().setSlowMotion(false);
    lessons.selectLesson(1);
    lessons.choose(0);
    QSignalSpy lessonDone(&lessons, &LessonsPanel::lessonFinished);
    lessons.run();
    ASSERT_TRUE(waitFor([&] { return lessonDone.count() == 1; })) << lessons.statusText().toStdString();

    // A pinned run and a second one: the A/B table with its difference column.
    const int before = int(completed.count());
    w.startRun(findPreset("naive")->config);
    ASSERT_TRUE(waitFor([&] { return completed.count() == before + 1; })) << w.lastError().toStdString();
    QString error;
    ASSERT_TRUE(w.compare().pinCurrent(&error)) << error.toStdString();
    QSignalSpy advised(&w.advice(), &AdvicePanel::adviceReady);
    w.startRun(findPreset("multi-stream")->config);
    ASSERT_TRUE(waitFor([&] { return completed.count() == before + 2; })) << w.lastError().toStdString();
    ASSERT_TRUE(waitFor([&] { return advised.count() >= 1; }));

    // A 2 x 2 sweep on the simulator, with its prediction on another profile.
    SweepView& sweep = w.sweepView();
    sweep.form().batchSizesEdit()->setText("4M,16M");
    sweep.form().streamsEdit()->setText("1,4");
    sweep.form().setPrediction(true, "pcie4-desktop");
    QSignalSpy swept(&sweep, &SweepView::sweepEnded);
    ASSERT_TRUE(sweep.startSweep(&error)) << error.toStdString();
    ASSERT_TRUE(waitFor([&] { return swept.count() == 1; }));
  }
  static void TearDownTestSuite() {
    delete window_;
    window_ = nullptr;
  }

  /// The window at `size`, each dock raised in turn: what is cut, per dock.
  static QString clippedAt(QSize size) {
    MainWindow& w = *window_;
    w.resize(size);
    // Under xcb the new size arrives with the server's configure event.
    waitFor([&] { return w.size() == size; }, 5000);
    QTest::qWait(50);
    QString report;
    if (w.size() != size)
      report += QStringLiteral("the window is %1x%2, not %3x%4: its minimum size does not fit the screen\n")
                    .arg(w.width())
                    .arg(w.height())
                    .arg(size.width())
                    .arg(size.height());
    for (const char* name : kDocks) {
      auto* dock = w.findChild<QDockWidget*>(name);
      if (!dock) {
        report += QStringLiteral("no %1\n").arg(name);
        continue;
      }
      dock->show();
      dock->raise();
      // The sweep's row grows once the view is shown (a queued fit): let it settle.
      QTest::qWait(QByteArray(name) == "dock.sweep" ? 150 : 20);
      // The designed size and up: the sweep's grid, progress and figures fit the
      // bottom row whole (on a small screen it may scroll).
      if (QByteArray(name) == "dock.sweep" && size.width() >= 1600)
        for (const QScrollBar* bar : dock->findChildren<QScrollBar*>())
          if (bar->orientation() == Qt::Vertical && bar->isVisible())
            report += QStringLiteral("the Sweep panel scrolls at %1x%2: it needs %3 px, has %4\n")
                          .arg(size.width())
                          .arg(size.height())
                          .arg(bar->maximum() + bar->pageStep())
                          .arg(bar->pageStep());
      if (const QString dir = qEnvironmentVariable("PIPESCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
        w.grab().save(QStringLiteral("%1/clipped-%2x%3-%4.png").arg(dir).arg(size.width()).arg(size.height()).arg(name));
      if (const auto found = findClippedText(&w); !found.empty())
        report += QStringLiteral("with %1 raised:\n%2\n").arg(name, describe(found));
    }
    return report;
  }

  static MainWindow* window_;
};

MainWindow* ClippedText::window_ = nullptr;

}  // namespace

TEST_F(ClippedText, NothingIsCutOnA1280x720Projector) {
  const QString report = clippedAt(QSize(1280, 720));
  EXPECT_TRUE(report.isEmpty()) << report.toStdString();
}

TEST_F(ClippedText, NothingIsCutOnA1366x768Laptop) {
  const QString report = clippedAt(QSize(1366, 768));
  EXPECT_TRUE(report.isEmpty()) << report.toStdString();
}

TEST_F(ClippedText, NothingIsCutAtTheDesignedSizeOnA1920x1080Monitor) {
  const QString report = clippedAt(QSize(1600, 1000));
  EXPECT_TRUE(report.isEmpty()) << report.toStdString();
}

TEST_F(ClippedText, NothingIsCutMaximisedOnA1920x1080Monitor) {
  const QString report = clippedAt(QSize(1920, 1080));
  EXPECT_TRUE(report.isEmpty()) << report.toStdString();
}

// The checker itself: it must see what a user sees cut, and nothing else.
TEST(ClippedTextCheck, SeesANarrowLabelAShortWrappedLabelAndAWidgetCutByItsParent) {
  QWidget window;
  window.resize(400, 300);
  auto* narrow = new QLabel("a label much wider than forty pixels", &window);
  narrow->setGeometry(0, 0, 40, 30);
  auto* wrapped = new QLabel("words that wrap onto several lines in a narrow label", &window);
  wrapped->setWordWrap(true);
  wrapped->setGeometry(0, 40, 80, 16);
  auto* outside = new QLabel("half outside", &window);
  outside->setGeometry(380, 100, outside->sizeHint().width(), outside->sizeHint().height());
  auto* fine = new QLabel("fits", &window);
  fine->setGeometry(0, 200, fine->sizeHint().width(), fine->sizeHint().height());
  window.show();
  const auto found = findClippedText(&window);
  auto reported = [&](const QString& text) {
    return std::any_of(found.begin(), found.end(), [&](const auto& c) { return c.text == text; });
  };
  EXPECT_TRUE(reported(narrow->text())) << describe(found).toStdString();
  EXPECT_TRUE(reported(wrapped->text())) << describe(found).toStdString();
  EXPECT_TRUE(reported(outside->text())) << describe(found).toStdString();
  EXPECT_FALSE(reported(fine->text())) << describe(found).toStdString();
}
