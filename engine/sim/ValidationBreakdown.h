#pragma once
// Where the simulator is wrong: a validation report's error grouped by each knob's
// value (memory kind, stream count, model ...), so a miss points at what the model
// lacks rather than at one configuration.
#include <string>
#include <vector>

#include "sim/Validation.h"

namespace pipescope {

struct KnobError {
  std::string knob;   ///< "memory"
  std::string value;  ///< "pageable"
  int rows = 0;
  double medianAbsErrorPct = 0;
  double meanSignedErrorPct = 0;
  double maxAbsErrorPct = 0;
};

/// One entry per (knob, value) seen among the rows that ran, knobs in knobValues()
/// order, values in order of first appearance.
std::vector<KnobError> errorByKnob(const ValidationReport& report);

/// The breakdown as a markdown table.
std::string knobErrorMarkdown(const std::vector<KnobError>& errors);

}  // namespace pipescope
