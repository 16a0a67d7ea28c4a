// Every lesson runs to completion on the simulator and shows the effect it claims.
// The checks read metrics (the lessons' expectations), never the lesson text.
#include <gtest/gtest.h>

#include <set>

#include "SimulatorTestSupport.h"
#include "analysis/LessonRunner.h"

namespace pipescope {
namespace {

TEST(Lessons, SequenceCoversTheElevenTopicsInOrder) {
  const auto& lessons = builtinLessons();
  ASSERT_EQ(lessons.size(), 11u);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < lessons.size(); ++i) {
    const Lesson& l = lessons[i];
    EXPECT_EQ(l.number, int(i + 1));
    EXPECT_TRUE(ids.insert(l.id).second) << l.id;
    EXPECT_FALSE(l.title.empty());
    EXPECT_FALSE(l.lookFor.empty());
    EXPECT_FALSE(l.runs.empty());
    EXPECT_FALSE(l.expectations.empty()) << l.id;
    EXPECT_GE(l.prediction.choices.size(), 2u);
    EXPECT_GE(l.prediction.answer, 0);
    EXPECT_LT(std::size_t(l.prediction.answer), l.prediction.choices.size());
    for (const auto& e : l.expectations) {
      EXPECT_LT(std::size_t(e.run), l.runs.size());
      EXPECT_LT(e.against, int(l.runs.size()));
    }
  }
  EXPECT_EQ(findLesson("1"), &lessons[0]);
  EXPECT_EQ(findLesson("issue-order"), &lessons[4]);
  EXPECT_EQ(findLesson("10"), &lessons[9]);
  EXPECT_EQ(findLesson("12"), nullptr);
  // The two lessons over several GPUs come last: a one-GPU class can stop before them.
  EXPECT_EQ(lessons[9].id, "allreduce-buckets");
  EXPECT_EQ(lessons[10].id, "pipeline-bubble");
  for (std::size_t i = 9; i < 11; ++i)
    for (const LessonRun& r : lessons[i].runs) EXPECT_EQ(r.config.gpuCount(), 2) << lessons[i].id;
}

TEST(Lessons, IssueOrderRunsOnTheLegacyProfilesAndTheCurrentOne) {
  const Lesson* l = findLesson("issue-order");
  ASSERT_NE(l, nullptr);
  std::set<std::string> profiles;
  for (const auto& r : l->runs) profiles.insert(r.profile);
  EXPECT_EQ(profiles, (std::set<std::string>{"c1060-like", "c2050-like", ""}));
}

// Lessons teach what is true on the card the user has: a run on a legacy device is
// labelled as a what-if, and no prediction question hangs on one.
TEST(Lessons, LegacyRunsAreLabelledWhatIfsAndPredictionsAreAboutThisGpu) {
  for (const Lesson& l : builtinLessons()) {
    for (const LessonRun& r : l.runs)
      if (!r.profile.empty()) {
        EXPECT_NE(r.label.find("legacy what-if"), std::string::npos) << l.id << ": " << r.label;
      }
    for (const PredictionChoice& c : l.prediction.choices)
      for (const Expectation& e : c.when) {
        EXPECT_TRUE(l.runs[std::size_t(e.run)].profile.empty()) << l.id << ": " << c.text;
        if (e.against >= 0) {
          EXPECT_TRUE(l.runs[std::size_t(e.against)].profile.empty()) << l.id << ": " << c.text;
        }
      }
  }
  // Lesson 3 keeps the old "same time" claim as a what-if on the device it was true on.
  const Lesson* async = findLesson("async-one-stream");
  ASSERT_NE(async, nullptr);
  bool legacyClaim = false;
  for (const Expectation& e : async->expectations)
    legacyClaim = legacyClaim || (e.relation == Relation::About && async->runs[std::size_t(e.run)].profile == "c2050-like");
  EXPECT_TRUE(legacyClaim);
}

class EachLesson : public ::testing::TestWithParam<int> {};

TEST_P(EachLesson, RunsOnTheSimulatorAndShowsTheClaimedEffect) {
  const Lesson& lesson = builtinLessons()[std::size_t(GetParam())];
  const LessonOutcome out = runLesson(lesson, simtest::h200());
  ASSERT_TRUE(out.ok()) << out.error;
  ASSERT_EQ(out.metrics.size(), lesson.runs.size());
  for (std::size_t i = 0; i < out.runs.size(); ++i) {
    EXPECT_EQ(out.runs[i].trace()->outcome().state, RunState::Finished);
    EXPECT_GT(out.metrics[i].batches, 0);
  }
  for (const auto& e : lesson.expectations)
    EXPECT_TRUE(e.holds(out.metrics)) << lesson.id << ": " << e.describe(lesson.runs);
  EXPECT_TRUE(out.allHold());
  // The answer the lesson gives is the one the numbers bear out.
  EXPECT_EQ(out.observedChoice, lesson.prediction.answer) << lesson.id;
  EXPECT_FALSE(out.numbers.empty());
}

INSTANTIATE_TEST_SUITE_P(Lessons, EachLesson, ::testing::Range(0, 11));

// The lessons teach what holds on today's cards: every claim holds on the profiles
// calibrated on an H100 and an H200 (the real cards: docs/analysis.md, "Claims on an
// H100 and an H200").
TEST(Lessons, EveryClaimHoldsOnTheCalibratedH100AndH200Profiles) {
  for (const char* name : {"h100-calibrated", "h200-calibrated"}) {
    const auto profile = builtinProfile(name);
    ASSERT_TRUE(profile) << name;
    for (const Lesson& lesson : builtinLessons()) {
      const LessonOutcome out = runLesson(lesson, *profile);
      ASSERT_TRUE(out.ok()) << name << " " << lesson.id << ": " << out.error;
      for (const ClaimVerdict& c : out.checks) EXPECT_TRUE(c.holds()) << name << " " << lesson.id << ": " << c.claim;
      EXPECT_EQ(out.observedChoice, lesson.prediction.answer) << name << " " << lesson.id;
    }
  }
}

TEST(Lessons, ExpectationsCompareWithMarginsAndThresholds) {
  Metrics a, b;
  a.makespanNs = 100;
  b.makespanNs = 40;
  const std::vector<Metrics> m{a, b};
  EXPECT_TRUE((Expectation{MetricId::Makespan, 1, Relation::Less, 0, 0, 0.5}).holds(m));
  EXPECT_FALSE((Expectation{MetricId::Makespan, 1, Relation::Less, 0, 0, 0.7}).holds(m));
  EXPECT_TRUE((Expectation{MetricId::Makespan, 0, Relation::Greater, 1, 0, 1.0}).holds(m));
  EXPECT_TRUE((Expectation{MetricId::Makespan, 1, Relation::About, -1, 42, 0.05}).holds(m));
  EXPECT_FALSE((Expectation{MetricId::Makespan, 1, Relation::About, -1, 50, 0.05}).holds(m));
  EXPECT_FALSE((Expectation{MetricId::Makespan, 2, Relation::Less, 0, 0, 0}).holds(m));  // no such run
}

TEST(Lessons, UnknownProfileIsAClearError) {
  Lesson l;
  l.id = "broken";
  l.runs = {{"somewhere", PipelineConfig{}, "no-such-profile"}};
  const LessonOutcome out = runLesson(l, simtest::h200());
  EXPECT_FALSE(out.ok());
  EXPECT_NE(out.error.find("no-such-profile"), std::string::npos) << out.error;
}

}  // namespace
}  // namespace pipescope
