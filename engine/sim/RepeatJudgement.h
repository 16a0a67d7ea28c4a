#pragma once
// Model error against the machine's own noise: the same set of configurations
// measured two (or more) times in a row on one machine. Each row's repeats differ by
// what the machine itself changes within minutes (its repeat difference); the
// model's error is judged beside that floor, row by row and knob by knob. A row the
// model misses by more than the larger of 25 % and three times its own repeat
// difference, in every repeat and in the same direction, is a structural miss: no
// noise explains it, so the model lacks something (docs/fidelity.md).
#include <string>
#include <vector>

#include "sim/Validation.h"

namespace pipescope {

/// The threshold of a structural miss: |error| above max(kStructuralMinPct, kStructuralNoiseFactor x the
/// row's repeat difference) in every repeat, with one sign.
inline constexpr double kStructuralMinPct = 25.0;
inline constexpr double kStructuralNoiseFactor = 3.0;

struct RepeatRow {
  std::string name;
  PipelineConfig config;
  double predictedNs = 0;
  std::vector<double> measuredNs;  ///< per repeat: the median of its runs
  std::vector<double> errorPct;    ///< per repeat: (predicted - measured) / measured x 100
  /// Per repeat: how far the other repeats' measurement (their median) lies from this
  /// one's, in % of this one: the floor's "error" for this row and repeat.
  std::vector<double> floorPct;
  /// The row's repeat difference: the largest |floorPct| (for two repeats,
  /// |a - b| / min(a, b) x 100).
  double repeatDifferencePct = 0;
  /// max(kStructuralMinPct, kStructuralNoiseFactor x repeatDifferencePct).
  double thresholdPct = 0;
  bool structural = false;
};

struct RepeatKnob {
  std::string knob, value;
  int rows = 0;
  double modelMedianPct = 0;  ///< median |error| over the rows' repeats
  double modelMeanSignedPct = 0;
  double floorMedianPct = 0;  ///< median |floorPct| over the same rows' repeats
  std::vector<std::string> structuralRows;  ///< names, in row order
};

struct RepeatJudgement {
  int repeats = 0;
  std::vector<RepeatRow> rows;   ///< rows measured and predicted in every repeat, in the first repeat's order
  int rowsLeftOut = 0;           ///< rows failed in a repeat, or missing from one
  double modelMedianPct = 0;     ///< median |error| over every row's repeats
  double modelMeanSignedPct = 0;
  double floorMedianPct = 0;     ///< median |floorPct| over the same
  int structuralRows = 0;
  std::vector<RepeatKnob> byKnob;  ///< knobValues() order; values in order of first appearance
};

/// Judges repeats of one set: `repeats[i]` holds the rows of repeat i with their
/// predictions (one profile). Rows are matched by configuration (batch count
/// included); a row counts when it ran on both sides in every repeat, and each
/// repeat's error uses that repeat's own prediction. Throws std::invalid_argument
/// for fewer than two repeats, or when no row is in every repeat.
RepeatJudgement judgeRepeats(const std::vector<ValidationReport>& repeats);

/// "model median 10.6 % vs floor median 9.0 %; structural rows: 1 of 40 (2 repeats)".
std::string repeatVerdictLine(const RepeatJudgement& judgement);

/// Plain-text tables: every row (measured per repeat, predicted, errors, repeat
/// difference, a STRUCTURAL mark), the model and floor by knob value, the structural
/// rows by knob; ends with repeatVerdictLine.
std::string repeatReportText(const RepeatJudgement& judgement);

/// The same as markdown, under `title`.
std::string repeatReportMarkdown(const RepeatJudgement& judgement, const std::string& title);

}  // namespace pipescope
