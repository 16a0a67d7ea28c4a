#pragma once
// CSV for spreadsheets and scripts: one row per op, or one row per metric.
#include <ostream>
#include <string>

#include "metrics/Metrics.h"
#include "trace/Trace.h"

namespace pipescope {

/// Header row then one row per published op: every timestamp (ns), the derived
/// waits and bandwidth, lane and op names.
void writeOpsCsv(const Trace& trace, std::ostream& out);
void saveOpsCsv(const Trace& trace, const std::string& path);

/// "metric,value,unit" rows for every figure of Metrics, then one row per lane's busy fraction.
void writeMetricsCsv(const Metrics& m, std::ostream& out);
void saveMetricsCsv(const Metrics& m, const std::string& path);

/// A CSV field, quoted when it holds a comma, quote or line break.
std::string csvField(const std::string& s);

}  // namespace pipescope
