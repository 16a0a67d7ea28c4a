#pragma once
// Test-only reference for computeMetrics (see MetricsByIntervalsReference.cpp).
#include "metrics/Metrics.h"

namespace pipescope::reference {

Metrics computeMetricsByIntervals(const MetricsInput& input);

}  // namespace pipescope::reference
