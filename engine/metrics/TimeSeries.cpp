#include "metrics/TimeSeries.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "metrics/Intervals.h"

namespace pipescope {

std::int64_t readableBinWidth(std::int64_t spanNs, int maxBins) {
  if (spanNs <= 0 || maxBins <= 0) return 1;
  const std::int64_t needed = (spanNs + maxBins - 1) / maxBins;
  for (std::int64_t decade = 1;; decade *= 10) {
    for (std::int64_t step : {1, 2, 5})
      if (step * decade >= needed) return step * decade;
    if (decade > (std::int64_t(1) << 58)) return needed;  // beyond any real trace; avoid overflow
  }
}

namespace {

// Adds, for each bin, the length of [s, e) that falls into it (and before `until`),
// times `weight`.
class Binner {
 public:
  Binner(std::int64_t from, std::int64_t bin, std::size_t bins, std::int64_t until)
      : from_(from), bin_(bin), bins_(bins), until_(std::min(until, from + bin * std::int64_t(bins))) {}

  void add(std::vector<double>& out, std::int64_t s, std::int64_t e, double weightPerNs = 1.0) const {
    s = std::max(s, from_);
    e = std::min(e, until_);
    if (e <= s) return;
    for (std::size_t b = std::size_t((s - from_) / bin_); b < bins_; ++b) {
      const std::int64_t bs = from_ + std::int64_t(b) * bin_;
      const std::int64_t be = bs + bin_;
      if (bs >= e) break;
      out[b] += double(std::min(e, be) - std::max(s, bs)) * weightPerNs;
    }
  }
  void addIntervals(std::vector<double>& out, const Intervals& merged) const {
    for (const auto& [s, e] : merged) add(out, s, e);
  }
  /// The bin holding instant t, or bins_ when outside.
  std::size_t binOf(std::int64_t t) const {
    if (t < from_ || t >= from_ + bin_ * std::int64_t(bins_)) return bins_;
    return std::size_t((t - from_) / bin_);
  }

 private:
  std::int64_t from_, bin_;
  std::size_t bins_;
  std::int64_t until_;
};

// When each batch completed (its last op's end), by batch index.
std::unordered_map<std::int32_t, std::int64_t> batchEnds(const TraceView& ops) {
  std::unordered_map<std::int32_t, std::int64_t> batchEnd;
  ops.forEach([&](const Op& op) {
    if (op.kind == OpKind::Annotation || op.end < op.start || op.batch == kNoBatch) return;
    auto [it, inserted] = batchEnd.try_emplace(op.batch, op.end);
    if (!inserted) it->second = std::max(it->second, op.end);
  });
  return batchEnd;
}

double meanPeriod(const std::unordered_map<std::int32_t, std::int64_t>& batchEnd) {
  if (batchEnd.size() < 2) return 0.0;
  std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
  for (const auto& [batch, end] : batchEnd) {
    first = std::min(first, end);
    last = std::max(last, end);
  }
  return double(last - first) / double(batchEnd.size() - 1);
}

}  // namespace

double meanBatchPeriodNs(const TraceView& ops) { return meanPeriod(batchEnds(ops)); }

TimeSeries computeTimeSeries(const TraceView& ops, const PipelineConfig& config, std::int64_t fromNs,
                             std::int64_t toNs, int maxBins, int minBatchPeriods) {
  TimeSeries ts;
  if (toNs <= fromNs || maxBins <= 0) return ts;
  const std::unordered_map<std::int32_t, std::int64_t> batchEnd = batchEnds(ops);
  std::int64_t bin = readableBinWidth(toNs - fromNs, maxBins);
  if (minBatchPeriods > 0) {
    const double floorNs = meanPeriod(batchEnd) * minBatchPeriods;
    if (floorNs > double(bin)) bin = readableBinWidth(std::int64_t(std::ceil(floorNs)), 1);
  }
  // The range seldom ends on a bin boundary. A last bin that is mostly empty time
  // after `toNs` would read as a collapse of every rate at the end of the run, so
  // it counts only the time it covers, and one that covers under half a bin is
  // left out: its few ns would make a noisy point.
  std::size_t n = std::size_t((toNs - fromNs + bin - 1) / bin);
  std::int64_t lastWidth = toNs - (fromNs + std::int64_t(n - 1) * bin);
  if (n > 1 && 2 * lastWidth < bin) {
    --n;
    lastWidth = bin;
  }
  auto widthOf = [&](std::size_t b) { return double(b + 1 == n ? lastWidth : bin); };
  const Binner binner(fromNs, bin, n, toNs);
  ts.fromNs = fromNs;
  ts.binNs = bin;
  for (auto* v : {&ts.batchesPerSec, &ts.samplesPerSec, &ts.h2dGBps, &ts.d2hGBps, &ts.computeBusy, &ts.h2dBusy,
                  &ts.d2hBusy, &ts.overlap})
    v->assign(n, 0.0);
  ts.timeNs.resize(n);
  for (std::size_t b = 0; b < n; ++b) ts.timeNs[b] = double(fromNs) + double(b) * double(bin) + 0.5 * widthOf(b);

  Intervals h2d, d2h, kernel;
  ops.forEach([&](const Op& op) {
    if (op.kind == OpKind::Annotation || op.end < op.start) return;
    if (!isCopyKind(op.kind) && op.kind != OpKind::Kernel) return;
    if (op.kind == OpKind::Kernel) {
      kernel.emplace_back(op.start, op.end);
      return;
    }
    auto& gbps = op.kind == OpKind::CopyH2D ? ts.h2dGBps : ts.d2hGBps;
    (op.kind == OpKind::CopyH2D ? h2d : d2h).emplace_back(op.start, op.end);
    if (op.end > op.start) {
      binner.add(gbps, op.start, op.end, double(op.bytes) / double(op.end - op.start));
    } else if (auto b = binner.binOf(op.start); b < n) {
      gbps[b] += double(op.bytes);
    }
  });

  for (const auto& [batch, end] : batchEnd)
    if (auto b = binner.binOf(end); b < n) ts.batchesPerSec[b] += 1.0;
  for (std::size_t b = 0; b < n; ++b) {
    ts.batchesPerSec[b] /= widthOf(b) * 1e-9;
    ts.samplesPerSec[b] = ts.batchesPerSec[b] * double(config.batchSamples);
    // bytes per bin / ns per bin = GB/s
    ts.h2dGBps[b] /= widthOf(b);
    ts.d2hGBps[b] /= widthOf(b);
  }

  const Intervals h2dM = mergeIntervals(std::move(h2d)), d2hM = mergeIntervals(std::move(d2h));
  const Intervals kernelM = mergeIntervals(std::move(kernel));
  binner.addIntervals(ts.h2dBusy, h2dM);
  binner.addIntervals(ts.d2hBusy, d2hM);
  binner.addIntervals(ts.computeBusy, kernelM);
  std::vector<double> both(n, 0.0);
  binner.addIntervals(both, intersectMerged(kernelM, uniteMerged(h2dM, d2hM)));
  for (std::size_t b = 0; b < n; ++b) {
    ts.overlap[b] = ts.computeBusy[b] > 0 ? both[b] / ts.computeBusy[b] : 0.0;
    ts.computeBusy[b] /= widthOf(b);
    ts.h2dBusy[b] /= widthOf(b);
    ts.d2hBusy[b] /= widthOf(b);
  }
  return ts;
}

}  // namespace pipescope
