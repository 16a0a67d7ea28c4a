#pragma once
// Metrics over time for the charts: the run cut into equal bins.
#include <cstdint>
#include <vector>

#include "trace/Trace.h"

namespace pipescope {

struct TimeSeries {
  std::int64_t binNs = 0;
  std::vector<double> timeNs;           ///< bin centres
  std::vector<double> samplesPerSec;    ///< batches completed in the bin (last D2H/post end) x samples
  std::vector<double> h2dGBps;          ///< bytes copied in the bin / bin length (wall bandwidth)
  std::vector<double> d2hGBps;
  std::vector<double> computeBusy;      ///< fraction of the bin, 0..1
  std::vector<double> h2dBusy;
  std::vector<double> d2hBusy;
  std::vector<double> overlap;          ///< fraction of the bin's compute time with a copy running
};

/// At most maxBins bins covering [fromNs, toNs); bin width rounded to a readable step.
TimeSeries computeTimeSeries(const TraceView& ops, const PipelineConfig& config, std::int64_t fromNs,
                             std::int64_t toNs, int maxBins = 200);

}  // namespace pipescope
