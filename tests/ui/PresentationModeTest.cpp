// Presentation mode for a projector at 1280x720: only the timeline, the limits bar
// and one chart (and the lesson once one is under way), text at least 18 px high,
// lanes as high as their labels, a high-contrast palette whose op colours stay apart
// for colour-blind viewers; a clicker (PageDown/PageUp, Space) steps a lesson; Esc
// leaves and puts the window back as it was.
#include <gtest/gtest.h>

#include <QApplication>
#include <QChartView>
#include <QDockWidget>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QMenuBar>
#include <QScrollArea>
#include <QSignalSpy>
#include <QStatusBar>
#include <algorithm>
#include <array>
#include <cmath>

#include "AppTestSupport.h"
#include "ClippedText.h"
#include "MainWindow.h"
#include "OpPalette.h"
#include "analysis/LimitsBar.h"
#include "app/PresentationMode.h"
#include "app/Theme.h"
#include "charts/ThroughputCharts.h"
#include "config/Presets.h"
#include "controls/ControlPanel.h"
#include "lessons/LessonPlayer.h"
#include "lessons/LessonSlide.h"
#include "lessons/LessonsPanel.h"
#include "run/RunController.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;

namespace {

struct Window {
  MainWindow w{MainWindow::Options{false}};
  Window() {
    w.resize(1280, 720);
    w.show();
    w.activateWindow();
    (void)QTest::qWaitForWindowActive(&w);  // the keys below need an active window; checked by their effects
    w.controlPanel().setBackendOptions(simulator());
    w.lessons().player().setSlowMotion(false);
  }
  bool run(const char* preset) {
    QSignalSpy done(&w, &MainWindow::runCompleted);
    w.startRun(findPreset(preset)->config);
    return waitFor([&] { return done.count() == 1; });
  }
  void key(int key) {
    QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : &w, Qt::Key(key));
    QTest::qWait(10);
  }
};

// --- colour: WCAG contrast and a colour-blindness simulation (Machado et al. 2009,
// severity 1), distances in CIELAB.
double linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
std::array<double, 3> linearRgb(const QColor& c) { return {linear(c.redF()), linear(c.greenF()), linear(c.blueF())}; }
double luminance(const std::array<double, 3>& l) { return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; }
double contrast(const QColor& a, const QColor& b) {
  const double la = luminance(linearRgb(a)), lb = luminance(linearRgb(b));
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
using Matrix = std::array<std::array<double, 3>, 3>;
const Matrix kNormal{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
const Matrix kProtan{{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}};
const Matrix kDeutan{{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}};
const Matrix kTritan{{{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}};
std::array<double, 3> lab(const QColor& c, const Matrix& m) {
  const auto l = linearRgb(c);
  std::array<double, 3> s{};
  for (int i = 0; i < 3; ++i) s[i] = std::clamp(m[i][0] * l[0] + m[i][1] * l[1] + m[i][2] * l[2], 0.0, 1.0);
  const double x = (0.4124 * s[0] + 0.3576 * s[1] + 0.1805 * s[2]) / 0.95047;
  const double y = 0.2126 * s[0] + 0.7152 * s[1] + 0.0722 * s[2];
  const double z = (0.0193 * s[0] + 0.1192 * s[1] + 0.9505 * s[2]) / 1.08883;
  auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}
/// The closest two op colours under any of the four visions, in CIELAB units.
double closestPair() {
  double least = 1e9;
  for (const Matrix* m : {&kNormal, &kProtan, &kDeutan, &kTritan})
    for (int a = 0; a < kOpKindCount; ++a)
      for (int b = a + 1; b < kOpKindCount; ++b) {
        const auto la = lab(opKindColor(OpKind(a)), *m), lb = lab(opKindColor(OpKind(b)), *m);
        least = std::min(least, std::hypot(la[0] - lb[0], la[1] - lb[1], la[2] - lb[2]));
      }
  return least;
}
double weakestContrast(const QColor& background) {
  double least = 1e9;
  for (int k = 0; k < kOpKindCount; ++k) least = std::min(least, contrast(opKindColor(OpKind(k)), background));
  return least;
}

}  // namespace

TEST(PresentationMode, HighContrastOpColoursStandOutAndStayApartForColourBlindViewers) {
  const QColor paper = presentationPalette().color(QPalette::Base);
  // The everyday colours: host sync's yellow all but vanishes on a projected white.
  setOpColors(OpColors::Standard);
  EXPECT_LT(weakestContrast(paper), 3.0);
  setOpColors(OpColors::HighContrast);
  EXPECT_GE(weakestContrast(paper), 3.0);  // WCAG's contrast for graphics
  EXPECT_GE(closestPair(), 10.0);           // normal, protan, deutan and tritan vision
  EXPECT_GE(contrast(presentationPalette().color(QPalette::WindowText), paper), 15.0);
  EXPECT_GE(contrast(presentationPalette().color(QPalette::PlaceholderText), paper), 4.5);
  setOpColors(OpColors::Standard);
}

TEST(PresentationMode, ShowsTheTimelineTheLimitsAndOneChartLargeEnoughForTheBackOfTheRoom) {
  Window f;
  MainWindow& w = f.w;
  ASSERT_TRUE(f.run("multi-stream")) << w.lastError().toStdString();
  const QFont before = w.timeline().font();
  w.presentation().enter(false);
  QTest::qWait(50);
  ASSERT_TRUE(w.presentation().active());
  EXPECT_EQ(w.size(), QSize(1280, 720));
  for (QDockWidget* d : w.findChildren<QDockWidget*>()) EXPECT_FALSE(d->isVisible()) << d->objectName().toStdString();
  EXPECT_FALSE(w.menuBar()->isVisible());
  EXPECT_FALSE(w.statusBar()->isVisible());
  EXPECT_TRUE(w.timeline().isVisible());
  EXPECT_TRUE(w.presentation().limitsBar().isVisible());
  EXPECT_FALSE(w.presentation().limitsBar().toolTip().isEmpty());  // it shows this run's limits
  int charts = 0;
  for (const QChartView* v : w.charts().findChildren<QChartView*>()) charts += v->isVisible() ? 1 : 0;
  EXPECT_TRUE(w.charts().isVisible());
  EXPECT_EQ(charts, 1);
  EXPECT_FALSE(w.presentation().showsLesson());  // no lesson under way

  // Lane labels and figures at least 18 px high, rows as high as their labels.
  const QFontMetrics lanes(w.timeline().font());
  EXPECT_GE(QFontInfo(w.timeline().font()).pixelSize(), 18);
  EXPECT_GE(lanes.tightBoundingRect("H2D copy engine").height(), 18);
  for (const LaneRow& row : w.timeline().layout().rows) EXPECT_GE(row.height, lanes.height() + 8) << row.name.toStdString();
  EXPECT_GE(QFontInfo(w.presentation().limitsBar().font()).pixelSize(), 18);
  EXPECT_GE(w.charts().textPixelSize(), 18);
  EXPECT_EQ(opColors(), OpColors::HighContrast);
  EXPECT_EQ(QApplication::palette().color(QPalette::Base), presentationPalette().color(QPalette::Base));
  const auto cut = findClippedText(&w);
  EXPECT_TRUE(cut.empty()) << describe(cut).toStdString();

  // Esc puts everything back.
  f.key(Qt::Key_Escape);
  EXPECT_FALSE(w.presentation().active());
  EXPECT_TRUE(w.menuBar()->isVisible());
  EXPECT_TRUE(w.statusBar()->isVisible());
  EXPECT_EQ(w.timeline().font(), before);
  EXPECT_EQ(opColors(), OpColors::Standard);
  EXPECT_EQ(QApplication::palette().color(QPalette::Window), themePalette(currentTheme()).color(QPalette::Window));
  EXPECT_TRUE(w.findChild<QDockWidget*>("dock.charts")->isVisible());
  EXPECT_EQ(w.charts().parentWidget(), w.findChild<QDockWidget*>("dock.charts"));
  EXPECT_EQ(w.size(), QSize(1280, 720));
}

TEST(PresentationMode, RunKeysWorkWithTheMenuBarHidden) {
  // The Run menu is out of sight in the mode; its keys still start and stop a run of
  // the controls, so a presenter need not leave the mode to show one.
  Window f;
  MainWindow& w = f.w;
  PipelineConfig endless = findPreset("multi-stream")->config;
  endless.batchCount = 0;  // runs until stopped
  w.loadConfig(endless);
  w.presentation().enter(false);
  QTest::qWait(20);
  ASSERT_FALSE(w.menuBar()->isVisible());
  QSignalSpy done(&w, &MainWindow::runCompleted);
  f.key(Qt::Key_F5);
  EXPECT_TRUE(w.runController().running());
  QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : &w, Qt::Key_F5, Qt::ShiftModifier);
  EXPECT_TRUE(waitFor([&] { return done.count() == 1; }));
  EXPECT_FALSE(w.runController().running());
  w.presentation().leave();
}

TEST(PresentationMode, LeavingFullScreenPutsTheWindowAndItsPanelsBackWhereTheyWere) {
  Window f;
  MainWindow& w = f.w;
  QTest::qWait(20);
  const QRect before = w.geometry();
  const int chartsHeight = w.findChild<QDockWidget*>("dock.charts")->height();
  const int timelineHeight = w.timeline().height();
  w.presentation().enter();  // full screen, as F11 does
  QTest::qWait(50);
  w.presentation().leave();
  QTest::qWait(50);
  EXPECT_EQ(w.geometry(), before);
  EXPECT_EQ(w.findChild<QDockWidget*>("dock.charts")->height(), chartsHeight);
  EXPECT_EQ(w.timeline().height(), timelineHeight);
}

TEST(PresentationMode, LeavingTheModeItStartedInGivesThePanelsTheirUsualSizes) {
  // `pipescope --presentation` enters the mode as soon as the window is shown, before
  // its docks have their sizes: leaving must lay them out as a usual start would.
  const QRect place(0, 0, 1280, 720);
  MainWindow usual{MainWindow::Options{false}};
  usual.setGeometry(place);
  usual.show();
  MainWindow presented{MainWindow::Options{false}};
  presented.setGeometry(place);
  presented.show();
  presented.presentation().enter(false);
  QTest::qWait(50);
  presented.presentation().leave();
  QTest::qWait(50);
  EXPECT_EQ(presented.geometry(), usual.geometry());
  for (const char* dock : {"dock.charts", "dock.controls"})
    EXPECT_EQ(presented.findChild<QDockWidget*>(dock)->size(), usual.findChild<QDockWidget*>(dock)->size()) << dock;
  EXPECT_EQ(presented.timeline().height(), usual.timeline().height());
}

TEST(PresentationMode, AnEmptyChartSaysSoInFullInLargePrint) {
  Window f;  // no run yet: the chart's title carries "no data yet"
  f.w.presentation().enter(false);
  QTest::qWait(50);
  QStringList titles;
  for (QChartView* v : f.w.charts().findChildren<QChartView*>())
    if (v->isVisible())
      for (QGraphicsItem* item : v->scene()->items())
        if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible())
          if (text->toPlainText().contains("Engines")) titles << text->toPlainText();
  ASSERT_EQ(titles.size(), 1) << titles.join("|").toStdString();
  EXPECT_TRUE(titles[0].contains("no data yet")) << titles[0].toStdString();  // whole, not "(no dat..."
  EXPECT_FALSE(titles[0].contains("...")) << titles[0].toStdString();
  f.w.presentation().leave();
}

TEST(PresentationMode, AClickerStepsThroughALessonAndBack) {
  Window f;
  MainWindow& w = f.w;
  LessonsPanel& lessons = w.lessons();
  w.presentation().enter(false);
  QTest::qWait(20);
  ASSERT_FALSE(w.presentation().showsLesson());
  f.key(Qt::Key_PageDown);  // the lesson comes on screen: its question
  EXPECT_TRUE(w.presentation().showsLesson());
  EXPECT_EQ(lessons.currentLesson(), 1);
  EXPECT_EQ(lessons.stage(), LessonsPanel::Stage::Question);
  EXPECT_TRUE(w.presentation().slide().text().contains(lessons.questionText())) << w.presentation().slide().text().toStdString();
  f.key(Qt::Key_2);  // the class's answer
  EXPECT_EQ(lessons.chosen(), 1);

  QSignalSpy finished(&lessons, &LessonsPanel::lessonFinished);
  QSignalSpy started(&lessons.player(), &LessonPlayer::runStarted);
  f.key(Qt::Key_Space);  // run it (flat out here: it may be over already)
  EXPECT_GE(started.count(), 1);
  ASSERT_TRUE(waitFor([&] { return finished.count() == 1; })) << lessons.statusText().toStdString();
  EXPECT_EQ(lessons.stage(), LessonsPanel::Stage::Results);
  EXPECT_TRUE(w.presentation().slide().text().contains(lessons.numbersText().section('\n', 0, 0)))
      << w.presentation().slide().text().toStdString();

  QTest::qWait(50);  // the slide's new text laid out
  const auto cut = findClippedText(&w);  // the lesson's text beside the timeline, whole
  EXPECT_TRUE(cut.empty()) << describe(cut).toStdString();

  for (int i = 0; i < 5 && w.presentation().slide().moreBelow(); ++i)
    f.key(Qt::Key_PageDown);  // the rest of the results
  f.key(Qt::Key_PageDown);  // the next lesson's question
  EXPECT_EQ(lessons.currentLesson(), 2);
  EXPECT_EQ(lessons.stage(), LessonsPanel::Stage::Question);
  f.key(Qt::Key_PageUp);  // back to lesson 1 as it was left: what happened
  EXPECT_EQ(lessons.currentLesson(), 1);
  EXPECT_EQ(lessons.stage(), LessonsPanel::Stage::Results);
  f.key(Qt::Key_PageUp);  // its question
  EXPECT_EQ(lessons.stage(), LessonsPanel::Stage::Question);
  f.key(Qt::Key_PageUp);  // nothing before the first lesson's question
  EXPECT_EQ(lessons.currentLesson(), 1);
  EXPECT_EQ(lessons.stage(), LessonsPanel::Stage::Question);
  f.key(Qt::Key_Escape);
  EXPECT_FALSE(w.presentation().active());
}

TEST(PresentationMode, AClickerScrollsThroughResultsTallerThanTheScreenBeforeGoingOn) {
  Window f;
  MainWindow& w = f.w;
  LessonsPanel& lessons = w.lessons();
  LessonSlide& slide = w.presentation().slide();
  w.presentation().enter(false);
  QTest::qWait(20);
  f.key(Qt::Key_PageDown);  // lesson 1's question
  f.key(Qt::Key_2);
  QSignalSpy finished(&lessons, &LessonsPanel::lessonFinished);
  f.key(Qt::Key_PageDown);  // run it
  ASSERT_TRUE(waitFor([&] { return finished.count() == 1; })) << lessons.statusText().toStdString();
  QTest::qWait(50);  // the results laid out
  const auto* numbers = slide.findChild<QLabel*>("slideNumbers");
  const auto* area = slide.findChild<QScrollArea*>();
  ASSERT_TRUE(numbers && area);
  auto numbersInView = [&] {
    const QRect r(numbers->mapTo(area->viewport(), QPoint(0, 0)), numbers->size());
    return area->viewport()->rect().contains(r);
  };
  // At 1280x720 the question, the answers, what happened and the numbers are more
  // than the column beside the timeline holds.
  ASSERT_FALSE(numbersInView());
  EXPECT_TRUE(slide.text().contains("PageDown or ↓: more")) << slide.text().toStdString();
  f.key(Qt::Key_Down);  // a few lines
  EXPECT_TRUE(slide.moreAbove());
  f.key(Qt::Key_Up);
  EXPECT_FALSE(slide.moreAbove());
  for (int i = 0; i < 5 && !numbersInView(); ++i) {
    f.key(Qt::Key_PageDown);  // the clicker shows the rest first, staying on the results
    EXPECT_EQ(lessons.currentLesson(), 1);
    EXPECT_EQ(lessons.stage(), LessonsPanel::Stage::Results);
  }
  EXPECT_TRUE(numbersInView());
  EXPECT_FALSE(slide.moreBelow());
  EXPECT_TRUE(slide.text().contains("PageDown: the next lesson")) << slide.text().toStdString();
  f.key(Qt::Key_PageDown);  // then goes on: the next lesson's question, from its top
  EXPECT_EQ(lessons.currentLesson(), 2);
  EXPECT_EQ(lessons.stage(), LessonsPanel::Stage::Question);
  EXPECT_FALSE(slide.moreAbove());
  w.presentation().leave();
}

TEST(PresentationMode, TheLessonsPanelStepsForwardWithoutAnAnswerAndBackFromItsResults) {
  Window f;
  LessonsPanel& lessons = f.w.lessons();
  lessons.selectLesson(3);
  QSignalSpy finished(&lessons, &LessonsPanel::lessonFinished);
  ASSERT_EQ(lessons.chosen(), -1);
  ASSERT_TRUE(lessons.stepForward());  // a clicker cannot pick an answer: the runs go anyway
  ASSERT_TRUE(waitFor([&] { return finished.count() == 1; })) << lessons.statusText().toStdString();
  EXPECT_TRUE(lessons.feedbackText().contains("What happened")) << lessons.feedbackText().toStdString();
  ASSERT_TRUE(lessons.stepBack());  // the question again
  EXPECT_EQ(lessons.stage(), LessonsPanel::Stage::Question);
  EXPECT_EQ(lessons.currentLesson(), 3);
  ASSERT_TRUE(lessons.stepBack());
  EXPECT_EQ(lessons.currentLesson(), 2);
  // The panel's own Run button still wants an answer first.
  lessons.run();
  EXPECT_EQ(lessons.stage(), LessonsPanel::Stage::Question);
}

TEST(PresentationMode, TextGrowsWithTheWindow) {
  EXPECT_GE(PresentationMode::textPixelsFor(720), 18);
  EXPECT_EQ(PresentationMode::textPixelsFor(720), 24);
  EXPECT_EQ(PresentationMode::textPixelsFor(1080), 36);
  EXPECT_EQ(PresentationMode::textPixelsFor(480), 20);
}
