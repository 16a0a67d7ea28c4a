// The repeat judgement: one set measured twice in a row, the model's error judged
// beside the repeats' own difference; structural misses flagged and grouped by knob.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/RepeatJudgement.h"

namespace pipescope {
namespace {

PipelineConfig config(HostMemory memory, int streams) {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = memory;
  c.streams = streams;
  return c;
}

ValidationRow row(const std::string& name, const PipelineConfig& c, double measuredNs, double predictedNs) {
  ValidationRow r;
  r.name = name;
  r.config = c;
  r.measuredNs = r.measuredMinNs = r.measuredMaxNs = measuredNs;
  r.measuredRunsNs = {measuredNs};
  r.predictedNs = predictedNs;
  setValidationErrors(r);
  return r;
}

ValidationReport report(std::vector<ValidationRow> rows) {
  ValidationReport r;
  r.rows = std::move(rows);
  summarize(r);
  return r;
}

const PipelineConfig kPinned4 = config(HostMemory::Pinned, 4);
const PipelineConfig kMapped8 = config(HostMemory::Mapped, 8);
const PipelineConfig kPinned2 = config(HostMemory::Pinned, 2);
const PipelineConfig kManaged1 = config(HostMemory::Managed, 1);

TEST(RepeatJudgement, FlagsRowsMissedBeyondTheirOwnNoiseInBothRepeatsWithOneSign) {
  // a: noisy (10 % apart), missed by 20-27 %: under max(25, 3 x 10) = 30, not structural.
  // b: steady (5 % apart), missed by -50 % twice: above max(25, 15) = 25, structural.
  // c: very noisy (40 % apart), +50 / +7 %: under 3 x 40 = 120.
  // d: steady, -30 % then +40 %: above 25 both times, but the sign changes: noise, not a miss.
  const ValidationReport first = report({row("a", kPinned4, 100, 80), row("b", kMapped8, 10, 5),
                                         row("c", kPinned2, 20, 30), row("d", kManaged1, 100, 70)});
  const ValidationReport second = report({row("a", kPinned4, 110, 80), row("b", kMapped8, 10.5, 5),
                                          row("c", kPinned2, 28, 30), row("d", kManaged1, 50, 70)});
  const RepeatJudgement j = judgeRepeats({first, second});
  ASSERT_EQ(j.rows.size(), 4u);
  EXPECT_EQ(j.repeats, 2);
  EXPECT_EQ(j.rowsLeftOut, 0);

  const RepeatRow& a = j.rows[0];
  ASSERT_EQ(a.errorPct.size(), 2u);
  EXPECT_NEAR(a.errorPct[0], -20.0, 1e-9);
  EXPECT_NEAR(a.errorPct[1], (80.0 - 110) / 110 * 100, 1e-9);
  EXPECT_NEAR(a.floorPct[0], 10.0, 1e-9);                     // the other repeat (110) against this one (100)
  EXPECT_NEAR(a.floorPct[1], (100.0 - 110) / 110 * 100, 1e-9);  // -9.09 %
  EXPECT_NEAR(a.repeatDifferencePct, 10.0, 1e-9);             // |a - b| / min(a, b)
  EXPECT_NEAR(a.thresholdPct, 30.0, 1e-9);
  EXPECT_FALSE(a.structural);

  const RepeatRow& b = j.rows[1];
  EXPECT_NEAR(b.repeatDifferencePct, 5.0, 1e-9);
  EXPECT_NEAR(b.thresholdPct, 25.0, 1e-9);
  EXPECT_TRUE(b.structural);
  EXPECT_FALSE(j.rows[2].structural);
  EXPECT_NEAR(j.rows[2].thresholdPct, 120.0, 1e-9);
  // d: 100 vs 50 differ by 100 % of the smaller: threshold 300, and the sign flips anyway.
  EXPECT_FALSE(j.rows[3].structural);

  EXPECT_EQ(j.structuralRows, 1);
  // Model: |errors| 20, 27.27, 50, 52.38, 50, 7.14, 30, 40 -> median (30 + 40) / 2.
  EXPECT_NEAR(j.modelMedianPct, 35.0, 1e-9);
  // Floor: 10, 9.09, 5, 4.76, 40, 28.57, 50, 100 -> median (10 + 28.57) / 2.
  EXPECT_NEAR(j.floorMedianPct, (10.0 + (20.0 - 28) / 28 * -100) / 2, 1e-9);
  EXPECT_EQ(repeatVerdictLine(j), "model median 35.0 % vs floor median 19.3 %; structural rows: 1 of 4 (2 repeats)");
}

TEST(RepeatJudgement, GroupsModelFloorAndStructuralRowsByKnobValue) {
  const ValidationReport first = report({row("a", kPinned4, 100, 80), row("b", kMapped8, 10, 5)});
  const ValidationReport second = report({row("a", kPinned4, 110, 80), row("b", kMapped8, 10.5, 5)});
  const RepeatJudgement j = judgeRepeats({first, second});
  const RepeatKnob* mapped = nullptr;
  const RepeatKnob* pinned = nullptr;
  const RepeatKnob* many = nullptr;
  for (const RepeatKnob& k : j.byKnob) {
    if (k.knob == "memory" && k.value == "mapped") mapped = &k;
    if (k.knob == "memory" && k.value == "pinned") pinned = &k;
    if (k.knob == "streams" && k.value == "8-16") many = &k;
  }
  ASSERT_TRUE(mapped && pinned && many);
  EXPECT_EQ(mapped->rows, 1);
  EXPECT_NEAR(mapped->modelMedianPct, (50.0 + (10.5 - 5) / 10.5 * 100) / 2, 1e-9);
  EXPECT_NEAR(mapped->modelMeanSignedPct, -(50.0 + (10.5 - 5) / 10.5 * 100) / 2, 1e-9);
  EXPECT_NEAR(mapped->floorMedianPct, (5.0 + 0.5 / 10.5 * 100) / 2, 1e-9);
  EXPECT_EQ(mapped->structuralRows, std::vector<std::string>{"b"});
  EXPECT_EQ(many->structuralRows, std::vector<std::string>{"b"});
  EXPECT_TRUE(pinned->structuralRows.empty());
  // Knobs in knobValues() order: mode before memory before streams.
  ASSERT_GE(j.byKnob.size(), 3u);
  EXPECT_EQ(j.byKnob[0].knob, "mode");
  const std::string text = repeatReportText(j);
  EXPECT_NE(text.find("memory = mapped: b"), std::string::npos) << text;
  EXPECT_NE(text.find("STRUCTURAL"), std::string::npos) << text;
  // The report's last line is the verdict.
  EXPECT_EQ(text.substr(text.rfind('\n', text.size() - 2) + 1), repeatVerdictLine(j) + "\n");
  const std::string md = repeatReportMarkdown(j, "title");
  EXPECT_NE(md.find("| b | "), std::string::npos) << md;
  EXPECT_NE(md.find("| **yes** |"), std::string::npos) << md;
}

TEST(RepeatJudgement, MatchesRowsByConfigurationAndLeavesOutThoseNotInEveryRepeat) {
  ValidationRow failed = row("b", kMapped8, 0, 0);
  failed.failure = "out of memory";
  const ValidationReport first = report({row("a", kPinned4, 100, 90), row("b", kMapped8, 10, 5)});
  // The second repeat lists its rows in another order, b failed, and has a row the first lacks.
  const ValidationReport second = report({row("x", kPinned2, 5, 5), failed, row("a", kPinned4, 100, 90)});
  const RepeatJudgement j = judgeRepeats({first, second});
  ASSERT_EQ(j.rows.size(), 1u);
  EXPECT_EQ(j.rows[0].name, "a");
  EXPECT_NEAR(j.rows[0].repeatDifferencePct, 0.0, 1e-12);
  EXPECT_EQ(j.rowsLeftOut, 2);  // b (failed in the second), x (not in the first)
}

TEST(RepeatJudgement, ThreeRepeatsTakeTheOtherRepeatsMedianAsEachOnesFloor) {
  const RepeatJudgement j = judgeRepeats({report({row("a", kPinned4, 100, 100)}), report({row("a", kPinned4, 120, 100)}),
                                          report({row("a", kPinned4, 90, 100)})});
  ASSERT_EQ(j.rows.size(), 1u);
  // 100 against median(120, 90) = 105: +5 %; 120 against 95: -20.8 %; 90 against 110: +22.2 %.
  EXPECT_NEAR(j.rows[0].floorPct[0], 5.0, 1e-9);
  EXPECT_NEAR(j.rows[0].floorPct[1], (95.0 - 120) / 120 * 100, 1e-9);
  EXPECT_NEAR(j.rows[0].floorPct[2], (110.0 - 90) / 90 * 100, 1e-9);
  EXPECT_NEAR(j.rows[0].repeatDifferencePct, (110.0 - 90) / 90 * 100, 1e-9);
}

TEST(RepeatJudgement, RefusesASingleMeasurementAndSetsWithNothingInCommon) {
  EXPECT_THROW(judgeRepeats({report({row("a", kPinned4, 100, 90)})}), std::invalid_argument);
  EXPECT_THROW(judgeRepeats({report({row("a", kPinned4, 100, 90)}), report({row("b", kPinned2, 100, 90)})}),
               std::invalid_argument);
}

}  // namespace
}  // namespace pipescope
