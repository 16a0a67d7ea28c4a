// The chart series as computeTimeSeries found them before it streamed over the ops
// (every GPU op's interval kept, merged at the end; batch ends in a hash map). Kept
// (test only) as the reference the streaming computation must match point for point.
#include "TimeSeriesByIntervalsReference.h"

#include <algorithm>
#include <unordered_map>

#include "metrics/IntervalBinner.h"
#include "metrics/Intervals.h"

namespace pipescope::reference {

namespace {

// When each batch completed (its last op's end), in time order.
std::vector<std::int64_t> completions(const TraceView& ops) {
  std::unordered_map<std::int32_t, std::int64_t> batchEnd;
  ops.forEach([&](const Op& op) {
    if (op.kind == OpKind::Annotation || op.end < op.start || op.batch == kNoBatch) return;
    auto [it, inserted] = batchEnd.try_emplace(op.batch, op.end);
    if (!inserted) it->second = std::max(it->second, op.end);
  });
  std::vector<std::int64_t> ends;
  ends.reserve(batchEnd.size());
  for (const auto& [batch, end] : batchEnd) ends.push_back(end);
  std::sort(ends.begin(), ends.end());
  return ends;
}

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

}  // namespace

TimeSeries computeTimeSeriesByIntervals(const TraceView& ops, std::int64_t samplesPerBatch, std::int64_t fromNs, std::int64_t toNs,
                             int maxPoints, int batchesPerStep) {
  TimeSeries ts;
  ts.samplesPerBatch = std::max<std::int64_t>(samplesPerBatch, 0);
  if (toNs <= fromNs || maxPoints < 2) return ts;

  // Intervals: one per batch (or group of batches) where batches complete in the range.
  const std::vector<std::int64_t> ends = completions(ops);
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
    } else if (op.start >= edges.front() && op.start < edges.back()) {
      const auto at = std::upper_bound(edges.begin() + 1, edges.end(), op.start);
      gbps[std::size_t(at - (edges.begin() + 1))] += double(op.bytes);
    }
  });

  for (std::size_t i = 0; i < n; ++i) {
    ts.batchesPerSec[i] = double(ts.batches[i]) / (widthOf(i) * 1e-9);
    ts.samplesPerSec[i] = ts.batchesPerSec[i] * double(ts.samplesPerBatch);
    // bytes per interval / ns per interval = GB/s
    ts.h2dGBps[i] /= widthOf(i);
    ts.d2hGBps[i] /= widthOf(i);
  }

  const Intervals h2dM = mergeIntervals(std::move(h2d)), d2hM = mergeIntervals(std::move(d2h));
  const Intervals kernelM = mergeIntervals(std::move(kernel));
  binner.addIntervals(ts.h2dBusy, h2dM);
  binner.addIntervals(ts.d2hBusy, d2hM);
  binner.addIntervals(ts.computeBusy, kernelM);
  std::vector<double> both(n, 0.0);
  binner.addIntervals(both, intersectMerged(kernelM, uniteMerged(h2dM, d2hM)));
  for (std::size_t i = 0; i < n; ++i) {
    ts.overlap[i] = ts.computeBusy[i] > 0 ? both[i] / ts.computeBusy[i] : 0.0;
    ts.computeBusy[i] /= widthOf(i);
    ts.h2dBusy[i] /= widthOf(i);
    ts.d2hBusy[i] /= widthOf(i);
  }
  return ts;
}

}  // namespace pipescope::reference
