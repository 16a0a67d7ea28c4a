#pragma once
// Metrics over time for the charts: the run (or a visible range of it) cut into
// intervals, one chart point each. Where batches (or an imported trace's iterations)
// complete, the intervals follow them: each ends where a batch completes, so a point
// is one batch (up to kSeriesPoints batches) or a group of consecutive batches (longer
// runs), and throughput is an exact count over an exact length instead of the 0, 1 or
// 2 completions that a fixed bin shorter than a batch catches. Without batches the
// range is cut into equal intervals. Each figure is the honest one for its interval:
// busy time in it over its length, bytes moved in it over its length, batches
// completed in it over its length; nothing is smoothed or interpolated. Busy and
// overlap follow the definitions of Metrics.h (unions of intervals).
#include <cstdint>
#include <string>
#include <vector>

#include "config/PipelineConfig.h"
#include "trace/Trace.h"

namespace pipescope {

/// Points a chart shows at most: one per batch up to this many batches; beyond, each
/// point covers ceil(batches / kSeriesPoints) batches, so a long run keeps more than
/// kSeriesPoints / 2 points. A range without batches gets kSeriesPoints / 2 equal
/// intervals.
inline constexpr int kSeriesPoints = 400;

/// One GPU's part of a run over several GPUs, on the same intervals as its TimeSeries.
struct GpuSeries {
  int device = 0;    ///< index into the trace's devices (Lane::device)
  std::string name;  ///< as the timeline's group header names it: "GPU 2", or "Rank 2" in a merged job
  /// Batches whose GPU work ran on this GPU and completed in the interval, and that
  /// over its length; empty when every batch runs on every GPU (TimeSeries::batchesSpanGpus).
  std::vector<int> batches;
  std::vector<double> batchesPerSec;
  std::vector<double> samplesPerSec;  ///< all 0 when the batch size is unknown
  std::vector<double> computeBusy;    ///< fraction of the interval with a kernel of this GPU running
};

struct TimeSeries {
  /// Interval i is (startNs[i], endNs[i]]: its batches complete in it, and its busy
  /// time and bytes are the parts of the ops that fall in it.
  std::vector<std::int64_t> startNs;
  std::vector<std::int64_t> endNs;
  std::vector<double> timeNs;         ///< interval centres, where a chart draws the point
  std::vector<int> batches;           ///< batches completed in the interval (their last op ends in it)
  std::vector<double> batchesPerSec;  ///< batches / interval length
  std::vector<double> samplesPerSec;  ///< batchesPerSec x samples per batch (all 0 when that is unknown)
  std::vector<double> h2dGBps;        ///< bytes copied in the interval / its length (wall bandwidth)
  std::vector<double> d2hGBps;
  std::vector<double> computeBusy;  ///< fraction of the interval, 0..1
  std::vector<double> h2dBusy;
  std::vector<double> d2hBusy;
  std::vector<double> overlap;  ///< fraction of the interval's compute time with a copy running
  /// Batches each interval was cut after (1: one point per batch); 0 when the
  /// intervals are equal because the range holds fewer than two batch completions.
  int batchesPerPoint = 0;
  /// Samples in a batch; 0 when the trace does not say (a profile imported without a
  /// configuration or a known batch size): throughput is then only in batches/s.
  std::int64_t samplesPerBatch = 0;

  /// A run over several GPUs: one series per GPU, in device order; empty for one GPU.
  /// Each batch counts for the GPU its work ran on, so in data parallel the GPUs'
  /// batches add up to `batches` (less any batch with no GPU work).
  std::vector<GpuSeries> gpus;
  /// Some batch has work on several GPUs: pipeline parallel (stage k on GPU k), or the
  /// ranks of a merged job, which number the same iteration alike. Every GPU then
  /// completes every batch, a GPU's throughput would repeat the total, and the GPU
  /// series hold only their busy share.
  bool batchesSpanGpus = false;

  std::size_t size() const { return timeNs.size(); }
  std::int64_t fromNs() const { return startNs.empty() ? 0 : startNs.front(); }
  std::int64_t toNs() const { return endNs.empty() ? 0 : endNs.back(); }
};

/// The series of the ops over [fromNs, toNs], at most maxPoints intervals. With two
/// or more batch completions in the range the intervals end at completions: the
/// first starts at the last completion before fromNs (or at fromNs when there is
/// none, e.g. the run's start), and the time after the last completion, whose batch
/// has not completed yet, is left for the point that batch will end. Otherwise
/// maxPoints / 2 equal intervals cover the range. An empty range or maxPoints < 2
/// gives an empty series. Copies are spread over the intervals they span in
/// proportion to the time spent in each.
/// `batchesPerStep`: batches that complete together by design (data parallel over N
/// GPUs deals N batches at a time): an interval holds at least that many, so batches
/// finishing microseconds apart on different GPUs do not make intervals of a few
/// microseconds with a spike of throughput and then one with none.
TimeSeries computeTimeSeries(const TraceView& ops, std::int64_t samplesPerBatch, std::int64_t fromNs, std::int64_t toNs,
                             int maxPoints = kSeriesPoints, int batchesPerStep = 1);
/// With the configuration's batch size (and its GPUs' step in data parallel).
TimeSeries computeTimeSeries(const TraceView& ops, const PipelineConfig& config, std::int64_t fromNs, std::int64_t toNs,
                             int maxPoints = kSeriesPoints);
/// The trace's ops; samples per batch from its configuration, or for an imported
/// trace from its iterations (0 when neither says), as computeMetrics() counts them.
/// A trace whose lanes span several GPUs also gets its GPU series (GpuTimeSeries.h).
TimeSeries computeTimeSeries(const Trace& trace, std::int64_t fromNs, std::int64_t toNs, int maxPoints = kSeriesPoints);

}  // namespace pipescope
