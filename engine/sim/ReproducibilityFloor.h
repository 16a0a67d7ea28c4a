#pragma once
// The error no fixed prediction can beat: how far a GPU's own measurements of the
// same configurations differ between sessions (hosts, days). Each row of each set
// is "predicted" by the median of the other sets' measurements of exactly that
// configuration -- the best a model could do if it knew every other measurement --
// so the report's median, 90th percentile and maximum are the floor under any
// simulator's error on that GPU and those machines (docs/fidelity.md).
#include <string>
#include <vector>

#include "sim/ValidationFile.h"

namespace pipescope {

struct ReproducibilityFloor {
  /// One row per (set, configuration) judged: name "SET/ROW" (SET = 1-based index of
  /// the set), measured = that set's runs, predicted = the other sets' median.
  /// Summarised (median, p90, max, bias) like a validation; errorByKnob() applies.
  ValidationReport report;
  int sets = 0;
  int configurations = 0;  ///< distinct configurations judged (measured in enough sets)
  int rowsWithoutPeers = 0;  ///< rows skipped: their configuration is in too few other sets
};

/// Judges every row whose exact configuration (batch count included) ran in at least
/// `minOtherSets` other sets; failed rows are ignored. Throws std::invalid_argument
/// when fewer than two sets are given, when `minOtherSets` < 1, or when the sets were
/// measured on different devices (a floor is one GPU's).
ReproducibilityFloor reproducibilityFloor(const std::vector<ValidationRecord>& sets, int minOtherSets = 2);

}  // namespace pipescope
