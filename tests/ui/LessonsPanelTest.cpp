// The Lessons panel on the simulator: a lesson runs live through the main window to
// completion, shows its numbers, and says whether the prediction was right.
#include <gtest/gtest.h>

#include <QComboBox>
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

TEST(LessonsPanel, ListsTheElevenLessonsAndAsksForAPredictionBeforeRunning) {
  LessonFixture f;
  EXPECT_EQ(builtinLessons().size(), 11u);
  EXPECT_EQ(f.panel.currentLesson(), 1);
  EXPECT_FALSE(f.panel.runButton()->isEnabled());  // no answer picked yet
  f.panel.choose(0);
  EXPECT_TRUE(f.panel.runButton()->isEnabled());
  EXPECT_FALSE(f.panel.previousButton()->isEnabled());
  f.panel.nextButton()->click();
  EXPECT_EQ(f.panel.currentLesson(), 2);
  EXPECT_EQ(f.panel.chosen(), -1);  // a new lesson, a new question
  EXPECT_TRUE(f.panel.selectLesson(10));
  EXPECT_FALSE(f.panel.selectLesson(12));
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

namespace {
BackendOptions autoBackend() {
  BackendOptions b = simulator();
  b.choice = BackendChoice::Auto;
  return b;
}
}  // namespace

// Auto (the Controls default) measures the runs first, then replays them in the main
// window: on the GPU when there is one, on the simulator (which says so) otherwise.
TEST(LessonsPanel, AutoMeasuresTheRunsThenReplaysThemAndJudgesTheMeasurements) {
  LessonFixture f;
  f.w.controlPanel().setBackendOptions(autoBackend());
  ASSERT_TRUE(f.panel.selectLesson(2));
  f.panel.choose(builtinLessons()[1].prediction.answer);
  ASSERT_TRUE(f.runLesson()) << f.panel.statusText().toStdString();
  const auto measured = f.panel.player().measured();
  ASSERT_TRUE(measured);
  const LessonResult& r = f.panel.lastResult();
  ASSERT_EQ(r.traces.size(), 2u);
  EXPECT_EQ(r.traces[1], measured->runs[1].trace());  // the results are the measured runs...
  const auto shown = f.w.currentTrace();             // ...the window shows their replay
  EXPECT_NE(shown, r.traces[1]);
  EXPECT_NE(shown->device().note.find("replay"), std::string::npos) << shown->device().note;
  EXPECT_EQ(shown->ops().publishedCount(), r.traces[1]->ops().publishedCount());
  EXPECT_DOUBLE_EQ(computeMetrics(*shown).makespanNs, r.metrics[1].makespanNs);
  ASSERT_EQ(r.checks.size(), measured->checks.size());
  for (std::size_t i = 0; i < r.checks.size(); ++i) EXPECT_EQ(r.checks[i].verdict, measured->checks[i].verdict);
  const QString where = f.panel.measuredText();
  EXPECT_TRUE(where.contains("Measured on") || where.contains("no usable CUDA GPU") ||
              where.contains("no CUDA backend"))
      << where.toStdString();
  EXPECT_TRUE(f.panel.checksText().contains("checked on")) << f.panel.checksText().toStdString();
  EXPECT_EQ(f.w.controlPanel().backendOptions().choice, BackendChoice::Auto);  // the user's choice is back
}

TEST(LessonsPanel, SlowMotionReplayBuildsTheTimelineUpAndStops) {
  LessonFixture f;
  f.w.controlPanel().setBackendOptions(autoBackend());
  f.panel.player().setSlowMotion(true);  // the replay takes about kWatchSeconds
  f.panel.choose(0);
  f.panel.run();
  ASSERT_TRUE(waitFor([&] { return f.panel.player().measured() != nullptr || !f.panel.player().playing(); }));
  ASSERT_TRUE(f.panel.player().playing()) << f.panel.statusText().toStdString();
  const auto recorded = f.panel.player().measured()->runs[0].trace();
  ASSERT_TRUE(waitFor([&] { return f.w.currentTrace() && f.w.currentTrace()->ops().publishedCount() > 0; }));
  EXPECT_LT(f.w.currentTrace()->ops().publishedCount(), recorded->ops().publishedCount());  // still building up
  EXPECT_TRUE(f.panel.statusText().contains("replay")) << f.panel.statusText().toStdString();
  f.panel.player().stop();
  ASSERT_TRUE(waitFor([&] { return !f.panel.player().playing(); }));
  EXPECT_TRUE(f.panel.statusText().contains("stopped")) << f.panel.statusText().toStdString();
  EXPECT_EQ(f.done.count(), 0);
}

TEST(LessonsPanel, ThisGpuWithoutAGpuSaysWhatIsWrong) {
  BackendOptions cuda;
  cuda.choice = BackendChoice::Cuda;
  if (makeBackend(cuda).backend) GTEST_SKIP() << "this machine has a usable GPU";
  LessonFixture f;
  f.panel.backendBox()->setCurrentIndex(2);  // this GPU
  EXPECT_EQ(f.panel.player().backendChoice(), BackendChoice::Cuda);
  f.panel.choose(0);
  f.panel.run();
  ASSERT_TRUE(waitFor([&] { return !f.panel.player().playing(); }));
  EXPECT_TRUE(f.panel.statusText().contains("could not be measured")) << f.panel.statusText().toStdString();
  EXPECT_TRUE(f.panel.runButton()->isEnabled());
}
