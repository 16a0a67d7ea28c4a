#pragma once
// A finished recording, made ready for the analysis imported traces get: its ops in
// start order and its iterations found the same way (--iteration-marker, ProfilerStep#N
// ranges, or a repeating sequence of NVTX ranges; io/IterationDetection.h), each
// iteration a batch. The live trace is left as it was recorded.
#include <memory>

#include "io/ImportOptions.h"
#include "trace/Trace.h"

namespace pipescope::record {

std::shared_ptr<Trace> analysedRecording(const Trace& recording, const ImportOptions& options);

}  // namespace pipescope::record
