#pragma once
// Metrics over time for the charts: the run cut into equal bins. Busy and overlap
// follow the definitions of Metrics.h (unions of intervals), per bin.
#include <cstdint>
#include <vector>

#include "config/PipelineConfig.h"
#include "trace/Trace.h"

namespace pipescope {

struct TimeSeries {
  std::int64_t fromNs = 0;              ///< start of the first bin
  std::int64_t binNs = 0;               ///< 0 when there is nothing to show
  std::vector<double> timeNs;           ///< bin centres (the last bin may end early: the centre of what it covers)
  std::vector<double> batchesPerSec;    ///< batches completed in the bin (their last op ends in it) / bin length
  std::vector<double> samplesPerSec;    ///< batchesPerSec x samples per batch
  std::vector<double> h2dGBps;          ///< bytes copied in the bin / bin length (wall bandwidth)
  std::vector<double> d2hGBps;
  std::vector<double> computeBusy;      ///< fraction of the bin, 0..1
  std::vector<double> h2dBusy;
  std::vector<double> d2hBusy;
  std::vector<double> overlap;          ///< fraction of the bin's compute time with a copy running

  std::size_t size() const { return timeNs.size(); }
};

/// A readable bin width: the smallest 1, 2 or 5 x 10^k ns that covers spanNs in at
/// most maxBins bins (at least 1 ns).
std::int64_t readableBinWidth(std::int64_t spanNs, int maxBins);

/// Bins must span at least this many batch periods: a batch completes at one instant,
/// so a bin shorter than a few periods holds 0, 1 or 2 completions and the
/// throughput curve turns into spikes that show the binning, not the pipeline.
inline constexpr int kMinBatchPeriodsPerBin = 4;

/// Mean time between consecutive batch completions (a batch completes when its last
/// op ends) among the ops, or 0 with fewer than two completed batches.
double meanBatchPeriodNs(const TraceView& ops);

/// At most maxBins bins covering [fromNs, toNs); bin width rounded to a readable step
/// and at least minBatchPeriods x the mean batch period (0 disables that floor).
/// An empty range or maxBins <= 0 gives an empty series. Copies are spread over the
/// bins they span in proportion to the time spent in each.
TimeSeries computeTimeSeries(const TraceView& ops, const PipelineConfig& config, std::int64_t fromNs,
                             std::int64_t toNs, int maxBins = 200, int minBatchPeriods = kMinBatchPeriodsPerBin);

}  // namespace pipescope
