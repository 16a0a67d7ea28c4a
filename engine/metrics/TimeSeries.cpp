#include "metrics/TimeSeries.h"

#include <algorithm>
#include <limits>

#include "metrics/BatchStageTable.h"
#include "metrics/GpuTimeSeries.h"
#include "metrics/IntervalBinner.h"
#include "metrics/MultiGpuMetrics.h"
#include "metrics/StartOrder.h"

namespace pipescope {

namespace {

bool isBusyKind(OpKind k) { return isCopyKind(k) || k == OpKind::Kernel; }

// When each batch completed (its last op's end), in time order; and per block of
// kStartOrderBlockOps ops, the earliest start of a copy or kernel (for StartOrder).
std::vector<std::int64_t> completions(const TraceView& ops, std::vector<std::int64_t>& blockFirstStart) {
  BatchStageTable batches(/*keepEnds=*/true, /*keepStages=*/false);
  blockFirstStart.assign(std::size_t((ops.size() + kStartOrderBlockOps - 1) / kStartOrderBlockOps),
                         std::numeric_limits<std::int64_t>::max());
  for (std::uint64_t i = ops.begin(); i < ops.end(); ++i) {
    const Op op = ops.at(i);
    if (op.kind == OpKind::Annotation || op.end < op.start) continue;
    if (op.batch != kNoBatch) batches.touch(op.batch, op.end);
    if (isBusyKind(op.kind)) {
      std::int64_t& first = blockFirstStart[std::size_t((i - ops.begin()) / kStartOrderBlockOps)];
      first = std::min(first, op.start);
    }
  }
  std::vector<std::int64_t> ends = batches.ends();
  std::sort(ends.begin(), ends.end());
  return ends;
}

// Busy time per interval: a sweep over the copies and kernels in start order (see
// BusySweep.h for why each kind covers a prefix of the stretch between two starts).
class BusyBinner {
 public:
  BusyBinner(TimeSeries& ts, const std::vector<std::int64_t>& edges, std::vector<double>& both)
      : ts_(ts), edges_(edges), both_(both) {}

  struct Item {
    std::int64_t s = 0, e = 0;
    OpKind kind = OpKind::Kernel;
  };

  void add(const Item& it) {
    if (pos_ == kNone) {
      pos_ = it.s;
    } else if (it.s > pos_) {
      closeSegment(it.s);
      pos_ = it.s;
    }
    std::int64_t& end = it.kind == OpKind::Kernel ? kernelEnd_ : it.kind == OpKind::CopyH2D ? h2dEnd_ : d2hEnd_;
    end = std::max(end, it.e);
  }
  void finish() {
    if (pos_ != kNone) closeSegment(std::numeric_limits<std::int64_t>::max());
  }

 private:
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();

  void closeSegment(std::int64_t next) {
    const std::int64_t pos = pos_;
    const auto len = [pos, next](std::int64_t end) { return end > pos ? std::min(next, end) - pos : 0; };
    const std::int64_t h = len(h2dEnd_), d = len(d2hEnd_), k = len(kernelEnd_);
    addToIntervals(ts_.h2dBusy, pos, pos + h);
    addToIntervals(ts_.d2hBusy, pos, pos + d);
    addToIntervals(ts_.computeBusy, pos, pos + k);
    addToIntervals(both_, pos, pos + std::min(k, std::max(h, d)));
  }

  // Adds the length of [s, e) that falls into each interval; s never decreases.
  void addToIntervals(std::vector<double>& out, std::int64_t s, std::int64_t e) {
    if (edges_.size() < 2) return;
    s = std::max(s, edges_.front());
    e = std::min(e, edges_.back());
    if (e <= s) return;
    while (cursor_ + 2 < edges_.size() && edges_[cursor_ + 1] <= s) ++cursor_;
    for (std::size_t i = cursor_; i + 1 < edges_.size() && edges_[i] < e; ++i)
      out[i] += double(std::min(e, edges_[i + 1]) - std::max(s, edges_[i]));
  }

  TimeSeries& ts_;
  const std::vector<std::int64_t>& edges_;
  std::vector<double>& both_;
  std::size_t cursor_ = 0;
  std::int64_t pos_ = kNone;
  std::int64_t h2dEnd_ = kNone, d2hEnd_ = kNone, kernelEnd_ = kNone;
};

// Interval edges that end at batch completions, `perPoint` completions each (the last
// may hold fewer), and the completions counted in each. Completions at the same
// instant as an edge belong to the interval that edge ends.
void cutAtCompletions(const std::vector<std::int64_t>& done, std::int64_t start, int perPoint,
                      std::vector<std::int64_t>& edges, std::vector<int>& counts) {
  edges.push_back(start);
  int pending = 0;
  for (std::size_t i = 0; i < done.size(); ++i) {
    const std::int64_t c = done[i];
    if (c == edges.back() && !counts.empty()) {
      ++counts.back();
      continue;
    }
    ++pending;
    if (pending >= perPoint || i + 1 == done.size()) {
      edges.push_back(c);
      counts.push_back(pending);
      pending = 0;
    }
  }
}

// Data parallel deals one batch to each GPU at a time: they complete together.
int batchesPerStep(const PipelineConfig& config) {
  return config.isMultiGpu() && config.parallel == ParallelMode::Data ? config.gpuCount() : 1;
}

}  // namespace

TimeSeries computeTimeSeries(const TraceView& ops, const PipelineConfig& config, std::int64_t fromNs, std::int64_t toNs,
                             int maxPoints) {
  return computeTimeSeries(ops, std::int64_t(config.batchSamples), fromNs, toNs, maxPoints, batchesPerStep(config));
}

TimeSeries computeTimeSeries(const Trace& trace, std::int64_t fromNs, std::int64_t toNs, int maxPoints) {
  const std::int64_t samples = !trace.configHistory().empty() ? std::int64_t(trace.config().batchSamples)
                                                              : trace.iterations().samplesPerIteration;
  const int step = !trace.configHistory().empty() ? batchesPerStep(trace.config()) : 1;
  const TraceView ops = trace.ops().snapshot();
  TimeSeries ts = computeTimeSeries(ops, samples, fromNs, toNs, maxPoints, step);
  const std::vector<Lane> lanes = trace.lanes();
  if (gpuCountOf(lanes) > 1) addGpuSeries(ts, ops, lanes, trace.ranks());
  return ts;
}

TimeSeries computeTimeSeries(const TraceView& ops, std::int64_t samplesPerBatch, std::int64_t fromNs, std::int64_t toNs,
                             int maxPoints, int batchesPerStep) {
  TimeSeries ts;
  ts.samplesPerBatch = std::max<std::int64_t>(samplesPerBatch, 0);
  if (toNs <= fromNs || maxPoints < 2) return ts;

  // Intervals: one per batch (or group of batches) where batches complete in the range.
  std::vector<std::int64_t> blockFirstStart;
  const std::vector<std::int64_t> ends = completions(ops, blockFirstStart);
  const auto firstAfter = std::upper_bound(ends.begin(), ends.end(), fromNs);
  const std::int64_t start = firstAfter == ends.begin() ? fromNs : *(firstAfter - 1);
  const std::vector<std::int64_t> inRange(firstAfter, std::upper_bound(firstAfter, ends.end(), toNs));
  std::vector<std::int64_t> edges;
  std::vector<int> counts;
  if (inRange.size() >= 2) {
    ts.batchesPerPoint = std::max(int((inRange.size() + std::size_t(maxPoints) - 1) / std::size_t(maxPoints)),
                                  std::max(1, batchesPerStep));
    cutAtCompletions(inRange, start, ts.batchesPerPoint, edges, counts);
  } else {
    // Equal intervals (at least 1 ns each); a lone completion is counted where it falls.
    const std::int64_t span = toNs - fromNs;
    const std::int64_t n = std::min<std::int64_t>(maxPoints / 2, span);
    for (std::int64_t i = 0; i <= n; ++i) edges.push_back(fromNs + span / n * i + span % n * i / n);
    counts.assign(std::size_t(n), 0);
    for (std::int64_t c : inRange) {
      const auto at = std::lower_bound(edges.begin() + 1, edges.end(), c);
      if (at != edges.end()) ++counts[std::size_t(at - (edges.begin() + 1))];
    }
  }

  const std::size_t n = counts.size();
  ts.startNs.assign(edges.begin(), edges.end() - 1);
  ts.endNs.assign(edges.begin() + 1, edges.end());
  ts.batches = counts;
  for (auto* v : {&ts.batchesPerSec, &ts.samplesPerSec, &ts.h2dGBps, &ts.d2hGBps, &ts.computeBusy, &ts.h2dBusy,
                  &ts.d2hBusy, &ts.overlap})
    v->assign(n, 0.0);
  ts.timeNs.resize(n);
  auto widthOf = [&](std::size_t i) { return double(ts.endNs[i] - ts.startNs[i]); };
  for (std::size_t i = 0; i < n; ++i) ts.timeNs[i] = 0.5 * (double(ts.startNs[i]) + double(ts.endNs[i]));

  const IntervalBinner binner(edges);
  std::vector<double> both(n, 0.0);
  BusyBinner busy(ts, edges, both);
  StartOrder<BusyBinner::Item> order(blockFirstStart);
  const auto sweep = [&busy](const BusyBinner::Item& it) { busy.add(it); };
  for (std::size_t block = 0; block < blockFirstStart.size(); ++block) {
    const std::uint64_t from = ops.begin() + block * kStartOrderBlockOps;
    const std::uint64_t to = std::min(ops.end(), from + kStartOrderBlockOps);
    for (std::uint64_t i = from; i < to; ++i) {
      const Op op = ops.at(i);
      if (op.kind == OpKind::Annotation || op.end < op.start || !isBusyKind(op.kind)) continue;
      order.push({op.start, op.end, op.kind});
      if (op.kind == OpKind::Kernel) continue;
      auto& gbps = op.kind == OpKind::CopyH2D ? ts.h2dGBps : ts.d2hGBps;
      if (op.end > op.start) {
        binner.add(gbps, op.start, op.end, double(op.bytes) / double(op.end - op.start));
      } else if (op.start >= edges.front() && op.start < edges.back()) {
        const auto at = std::upper_bound(edges.begin() + 1, edges.end(), op.start);
        gbps[std::size_t(at - (edges.begin() + 1))] += double(op.bytes);
      }
    }
    order.endBlock(block, sweep);
  }
  order.finish(sweep);
  busy.finish();

  for (std::size_t i = 0; i < n; ++i) {
    ts.batchesPerSec[i] = double(ts.batches[i]) / (widthOf(i) * 1e-9);
    ts.samplesPerSec[i] = ts.batchesPerSec[i] * double(ts.samplesPerBatch);
    // bytes per interval / ns per interval = GB/s
    ts.h2dGBps[i] /= widthOf(i);
    ts.d2hGBps[i] /= widthOf(i);
  }

  for (std::size_t i = 0; i < n; ++i) {
    ts.overlap[i] = ts.computeBusy[i] > 0 ? both[i] / ts.computeBusy[i] : 0.0;
    ts.computeBusy[i] /= widthOf(i);
    ts.h2dBusy[i] /= widthOf(i);
    ts.d2hBusy[i] /= widthOf(i);
  }
  return ts;
}

}  // namespace pipescope
