// The Lessons panel on the simulator: a lesson runs live through the main window to
// completion, shows its numbers, and says whether the prediction was right.
#include <gtest/gtest.h>

#include <QPushButton>
#include <QSignalSpy>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "analysis/Lesson.h"
#include "analysis/SimulatedRun.h"
#include "sim/DeviceProfile.h"
#include "compare/CompareController.h"
#include "controls/ControlPanel.h"
#include "lessons/LessonsPanel.h"
#include "run/RunController.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;

namespace {

struct LessonFixture {
  MainWindow w{MainWindow::Options{false}};
  LessonsPanel& panel = w.lessons();
  QSignalSpy done{&panel, &LessonsPanel::lessonFinished};
  LessonFixture() {
    w.resize(1600, 1000);
    w.show();
    w.controlPanel().setBackendOptions(simulator());
    panel.player().setSlowMotion(false);  // the simulator flat out: tests never wait on wall time
  }
  bool runLesson() {
    const int before = int(done.count());
    panel.run();
    return waitFor([&] { return done.count() == before + 1 || !panel.player().playing(); }) &&
           done.count() == before + 1;
  }
};

}  // namespace

TEST(LessonsPanel, ListsTheNineLessonsAndAsksForAPredictionBeforeRunning) {
  LessonFixture f;
  EXPECT_EQ(builtinLessons().size(), 9u);
  EXPECT_EQ(f.panel.currentLesson(), 1);
  EXPECT_FALSE(f.panel.runButton()->isEnabled());  // no answer picked yet
  f.panel.choose(0);
  EXPECT_TRUE(f.panel.runButton()->isEnabled());
  EXPECT_FALSE(f.panel.previousButton()->isEnabled());
  f.panel.nextButton()->click();
  EXPECT_EQ(f.panel.currentLesson(), 2);
  EXPECT_EQ(f.panel.chosen(), -1);  // a new lesson, a new question
  EXPECT_FALSE(f.panel.selectLesson(10));
}

TEST(LessonsPanel, LessonOneRunsToCompletionOnTheSimulatorAndShowsTheNumbers) {
  LessonFixture f;
  const Lesson& lesson = builtinLessons()[0];
  f.panel.choose(lesson.prediction.answer);
  ASSERT_TRUE(f.runLesson()) << f.panel.statusText().toStdString();
  const LessonResult& r = f.panel.lastResult();
  ASSERT_EQ(r.traces.size(), lesson.runs.size());
  EXPECT_EQ(f.w.currentTrace(), r.traces.back());  // watched live in the main window
  EXPECT_EQ(r.traces[0]->outcome().state, RunState::Finished);
  EXPECT_EQ(r.metrics[0].makespanNs, computeMetrics(*r.traces[0]).makespanNs);
  EXPECT_TRUE(f.panel.numbersText().contains("makespan")) << f.panel.numbersText().toStdString();
  EXPECT_TRUE(r.allHold()) << f.panel.checksText().toStdString();
  EXPECT_TRUE(f.panel.checksText().contains("✓"));
  EXPECT_EQ(r.observedChoice, lesson.prediction.answer);
  EXPECT_TRUE(f.panel.feedbackText().contains("right")) << f.panel.feedbackText().toStdString();
  // The user's backend choice is back.
  EXPECT_EQ(f.w.controlPanel().backendOptions().simulatorProfile, "h200");
  EXPECT_TRUE(f.panel.runButton()->isEnabled());
}

TEST(LessonsPanel, AWrongPredictionIsCorrectedWithWhatHappened) {
  LessonFixture f;
  ASSERT_TRUE(f.panel.selectLesson(2));
  const Lesson& lesson = builtinLessons()[1];
  const int wrong = (lesson.prediction.answer + 1) % int(lesson.prediction.choices.size());
  f.panel.choose(wrong);
  ASSERT_TRUE(f.runLesson()) << f.panel.statusText().toStdString();
  EXPECT_EQ(f.panel.lastResult().traces.size(), 2u);
  EXPECT_EQ(f.panel.lastResult().observedChoice, lesson.prediction.answer);
  const QString fb = f.panel.feedbackText();
  EXPECT_TRUE(fb.contains("Not quite")) << fb.toStdString();
  EXPECT_TRUE(fb.contains(QString::fromStdString(lesson.prediction.choices[std::size_t(lesson.prediction.answer)].text)))
      << fb.toStdString();
}

TEST(LessonsPanel, IssueOrderRunsLegacyProfilesOnTheSimulatorWhateverTheBackend) {
  LessonFixture f;
  ASSERT_TRUE(f.panel.selectLesson(5));
  f.panel.choose(builtinLessons()[4].prediction.answer);
  ASSERT_TRUE(f.runLesson()) << f.panel.statusText().toStdString();
  const LessonResult& r = f.panel.lastResult();
  ASSERT_EQ(r.traces.size(), 6u);
  EXPECT_NE(r.traces[0]->device().summary().find("c1060"), std::string::npos) << r.traces[0]->device().summary();
  EXPECT_TRUE(r.allHold()) << f.panel.checksText().toStdString();
}

TEST(LessonsPanel, SlowMotionSlowsASimulatedRunToAboutTheWatchTime) {
  const Lesson& naive = builtinLessons()[0];
  QString error;
  const BackendOptions fast = lessonBackend(naive.runs[0], simulator(), false, &error);
  EXPECT_EQ(fast.simulatorSlowdown, 0.0);
  const BackendOptions slow = lessonBackend(naive.runs[0], simulator(), true, &error);
  ASSERT_TRUE(error.isEmpty()) << error.toStdString();
  // The naive run takes ~0.24 s simulated: slowed to about 2.5 s of wall time.
  const SimulatedRun preview = simulate(naive.runs[0].config, *builtinProfile("h200"));
  EXPECT_NEAR(slow.simulatorSlowdown * preview.metrics.makespanNs * 1e-9, LessonPlayer::kWatchSeconds, 0.01);
  // A legacy profile named by the lesson wins over the user's backend.
  const LessonRun& c1060 = builtinLessons()[4].runs[0];
  BackendOptions gpu = simulator();
  gpu.choice = BackendChoice::Cuda;
  const BackendOptions legacy = lessonBackend(c1060, gpu, false, &error);
  EXPECT_EQ(legacy.choice, BackendChoice::Simulator);
  EXPECT_EQ(legacy.simulatorProfile, c1060.profile);
  // A profile that cannot be loaded is an error the panel shows.
  BackendOptions broken = simulator();
  broken.simulatorProfile = "/nonexistent/profile.json";
  lessonBackend(naive.runs[0], broken, true, &error);
  EXPECT_TRUE(error.contains("profile")) << error.toStdString();
}

TEST(LessonsPanel, StopEndsTheLessonAndKeepsWhatWasRecorded) {
  LessonFixture f;
  f.w.controlPanel().setBackendOptions(simulator(1.0));
  f.panel.player().setSlowMotion(true);  // the first run takes ~2.5 s: stopped long before its end
  f.panel.choose(0);
  f.panel.run();
  ASSERT_TRUE(f.panel.player().playing());
  ASSERT_TRUE(waitFor([&] { return f.w.currentTrace() && f.w.currentTrace()->ops().publishedCount() > 0; }));
  f.panel.player().stop();
  ASSERT_TRUE(waitFor([&] { return !f.panel.player().playing(); }));
  EXPECT_TRUE(f.panel.statusText().contains("stopped")) << f.panel.statusText().toStdString();
  EXPECT_EQ(f.done.count(), 0);
  EXPECT_GT(f.w.currentTrace()->ops().publishedCount(), 0u);
  EXPECT_EQ(f.w.controlPanel().backendOptions().simulatorSlowdown, 1.0);  // the user's choice is back
  EXPECT_TRUE(f.panel.runButton()->isEnabled());
}
