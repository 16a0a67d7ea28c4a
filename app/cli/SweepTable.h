#pragma once
// What `pipescope-cli sweep` prints: one row per grid point (throughput spread,
// makespan, efficiency, buffer memory, what limited it), then the recommendation and
// the stream knee of each batch size.
#include <string>

#include "sweep/Recommendation.h"
#include "sweep/SweepResult.h"

namespace pipescope::cli {

std::string formatSweepTable(const SweepResult& result);
std::string formatRecommendation(const SweepResult& result, const Recommendation& recommendation);

/// "12.3 k", "1.05 M": three significant digits with an SI prefix.
std::string formatRate(double perSecond);

}  // namespace pipescope::cli
