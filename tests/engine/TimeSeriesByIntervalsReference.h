#pragma once
// Test-only reference for computeTimeSeries (see TimeSeriesByIntervalsReference.cpp).
#include "metrics/TimeSeries.h"

namespace pipescope::reference {

TimeSeries computeTimeSeriesByIntervals(const TraceView& ops, std::int64_t samplesPerBatch, std::int64_t fromNs,
                                        std::int64_t toNs, int maxPoints, int batchesPerStep);

}  // namespace pipescope::reference
