#pragma once
// Which host lanes only carry call-stack ranges: in a PyTorch profile, the Python
// thread's nested cpu_op / python_function / user_annotation ranges become one lane
// per nesting depth (engine/io/ChromeTraceImport), ten or more rows that push the
// streams and engines below the fold. Such lanes fold into one group row
// (LaneLayout), unfolded by a click on it.
//
// The rule is keyed on what the trace model says, not on names: a lane of kind
// HostOther whose indexed ops are all OpKind::Annotation (or that has none). The
// host thread calling CUDA (HostSubmit, its API calls) and CPU workers never fold.
#include <vector>

#include "timeline/LaneIndex.h"
#include "trace/Lane.h"

namespace pipescope::ui {

/// By lane id: true for a lane that only carries call-stack ranges.
std::vector<bool> callStackOnlyLanes(const std::vector<Lane>& lanes, const LaneIndex& index);

}  // namespace pipescope::ui
