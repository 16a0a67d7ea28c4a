// Claims judged on repeated runs: clear on the medians when the whole run-to-run
// spread agrees, "not shown clearly" when the outcome flips inside it.
#include <gtest/gtest.h>

#include "analysis/ClaimVerdict.h"

namespace pipescope {
namespace {

Metrics makespan(double ns) {
  Metrics m;
  m.makespanNs = ns;
  return m;
}

std::vector<Metrics> makespans(std::initializer_list<double> ns) {
  std::vector<Metrics> v;
  for (double x : ns) v.push_back(makespan(x));
  return v;
}

const std::vector<LessonRun> kRuns{{"slow", PipelineConfig{}, ""}, {"fast", PipelineConfig{}, ""}};

Expectation fasterBy(double margin) { return {MetricId::Makespan, 1, Relation::Less, 0, 0, margin}; }

TEST(ClaimVerdict, ClearWhenTheWholeSpreadAgrees) {
  const RepeatedMetrics runs{makespans({100, 104, 98}), makespans({41, 40, 43})};
  const ClaimVerdict v = judgeClaim(fasterBy(0.5), kRuns, runs);
  EXPECT_EQ(v.verdict, Verdict::Holds);
  EXPECT_TRUE(v.holds());
  EXPECT_DOUBLE_EQ(v.value, 41);
  EXPECT_DOUBLE_EQ(v.reference, 100);
  EXPECT_EQ(v.valueSpread, (Spread{41, 40, 43}));
  EXPECT_EQ(v.referenceSpread, (Spread{100, 98, 104}));
  EXPECT_EQ(judgeClaim(fasterBy(0.7), kRuns, runs).verdict, Verdict::Fails);  // 41 is not below 30 anywhere
}

TEST(ClaimVerdict, OutcomeThatFlipsWithinTheSpreadIsNotShownClearly) {
  // Median 88 < 90 (10% below 100) holds, but the slowest "fast" run (93) against the
  // fastest "slow" run (95, 85.5 after the margin) does not.
  const RepeatedMetrics runs{makespans({100, 95, 105}), makespans({88, 93, 80})};
  const ClaimVerdict v = judgeClaim(fasterBy(0.1), kRuns, runs);
  EXPECT_EQ(v.verdict, Verdict::Unclear);
  EXPECT_FALSE(v.holds());
  EXPECT_EQ(toString(v.verdict), "not shown clearly on this GPU");
  // The same medians with a tight spread are clear.
  const RepeatedMetrics tight{makespans({100, 99.5, 100.5}), makespans({88, 88.2, 87.9})};
  EXPECT_EQ(judgeClaim(fasterBy(0.1), kRuns, tight).verdict, Verdict::Holds);
  // A claim that fails on the medians but holds at one extreme is unclear too.
  const RepeatedMetrics failing{makespans({100, 95, 105}), makespans({92, 93, 84})};
  EXPECT_EQ(judgeClaim(fasterBy(0.1), kRuns, failing).verdict, Verdict::Unclear);
}

TEST(ClaimVerdict, AboutIsUnclearWhenTheSpreadsStraddleTheMargin) {
  const Expectation same{MetricId::Makespan, 1, Relation::About, 0, 0, 0.05};
  // Medians 7% apart (fails) but the spreads overlap: equal times are within the noise.
  EXPECT_EQ(judgeClaim(same, kRuns, {makespans({100, 90, 110}), makespans({107, 98, 115})}).verdict,
            Verdict::Unclear);
  EXPECT_EQ(judgeClaim(same, kRuns, {makespans({100, 100.5, 99.5}), makespans({101, 101.2, 100.8})}).verdict,
            Verdict::Holds);
  EXPECT_EQ(judgeClaim(same, kRuns, {makespans({100, 100.5, 99.5}), makespans({130, 131, 129})}).verdict,
            Verdict::Fails);
}

TEST(ClaimVerdict, ThresholdClaimsUseTheRunsOwnSpread) {
  auto busy = [](std::initializer_list<double> f) {
    std::vector<Metrics> v;
    for (double x : f) {
      Metrics m;
      m.computeBusy = x;
      v.push_back(m);
    }
    return v;
  };
  const Expectation below{MetricId::ComputeBusy, 0, Relation::Less, -1, 0.2, 0};
  const RepeatedMetrics clear{busy({0.10, 0.12, 0.11})}, noisy{busy({0.18, 0.19, 0.22})};
  const ClaimVerdict c = judgeClaim(below, {kRuns[0]}, clear);
  EXPECT_EQ(c.verdict, Verdict::Holds);
  EXPECT_DOUBLE_EQ(c.reference, 0.2);
  EXPECT_EQ(judgeClaim(below, {kRuns[0]}, noisy).verdict, Verdict::Unclear);
}

TEST(ClaimVerdict, OneRepetitionHasNoSpreadAndIsAlwaysClear) {
  const RepeatedMetrics runs{makespans({100}), makespans({89.9})};
  EXPECT_EQ(judgeClaim(fasterBy(0.1), kRuns, runs).verdict, Verdict::Holds);
  EXPECT_EQ(judgeClaim(fasterBy(0.2), kRuns, runs).verdict, Verdict::Fails);
}

TEST(ClaimVerdict, MissingRunsFailAndTheEvidenceQuotesBothSpreads) {
  EXPECT_EQ(judgeClaim(fasterBy(0.1), kRuns, {makespans({100})}).verdict, Verdict::Fails);
  const ClaimVerdict v = judgeClaim(fasterBy(0.1), kRuns, {makespans({100e6, 95e6, 105e6}), makespans({88e6, 93e6, 80e6})});
  const std::string e = v.evidence();
  EXPECT_NE(e.find("88"), std::string::npos) << e;
  EXPECT_NE(e.find("80"), std::string::npos) << e;
  EXPECT_NE(e.find("against"), std::string::npos) << e;
}

TEST(ClaimVerdict, ObservedChoiceIsReadOnTheMedians) {
  Prediction p;
  p.choices = {{"same", {{MetricId::Makespan, 1, Relation::About, 0, 0, 0.1}}},
               {"faster", {{MetricId::Makespan, 1, Relation::Less, 0, 0, 0.1}}}};
  // One outlier repetition (30) does not move the median (95).
  EXPECT_EQ(observedChoiceOnMedians(p, {makespans({100, 101, 99}), makespans({95, 30, 96})}), 0);
  EXPECT_EQ(observedChoiceOnMedians(p, {makespans({100, 101, 99}), makespans({50, 52, 49})}), 1);
  EXPECT_EQ(observedChoiceOnMedians(p, {makespans({100})}), -1);
}

}  // namespace
}  // namespace pipescope
