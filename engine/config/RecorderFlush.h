#pragma once
// How often pipescope's CUDA backend asks CUPTI for the records of a running
// pipeline (engine/cuda/OpRecorder.cpp), counted from the run's first GPU op. The
// simulator charges the submit thread what each of those flushes costs
// (DeviceProfile::recorderFlushNsPerOp), so the two share the interval.
#include <cstdint>

namespace pipescope {

inline constexpr std::int64_t kRecorderFlushIntervalNs = 100'000'000;

}  // namespace pipescope
