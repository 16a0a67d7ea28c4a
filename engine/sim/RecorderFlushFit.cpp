#include "sim/RecorderFlushFit.h"

#include <algorithm>
#include <climits>
#include <map>
#include <stdexcept>
#include <vector>

#include "config/RecorderFlush.h"
#include "metrics/Spread.h"
#include "sim/HostOverheadFit.h"
#include "sim/Validation.h"

namespace pipescope {

namespace {
// The first flush comes at the first retired batch once it is due: within a batch's
// time of it. Later flushes resolve only the ops since the one before, and the
// longest gap of the whole run was as often the second or third (H200 calibrations).
constexpr std::int64_t kFirstFlushWindowNs = 5'000'000;
}  // namespace

RecorderFlushReading readRecorderFlush(const Trace& trace) {
  const std::vector<std::string> names = trace.names();
  std::vector<bool> submitLane;
  for (const Lane& l : trace.lanes()) submitLane.push_back(l.kind == LaneKind::HostSubmit);
  std::map<std::uint16_t, std::vector<Op>> byLane;
  std::vector<std::int64_t> gpuSubmits;
  // The interval counts from the call of the run's first GPU op (the backend's first
  // op), on a submit lane: a GPU op the trace holds from before (none is expected)
  // must not move it.
  std::int64_t first = INT64_MAX;
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (isGpuKind(op.kind)) gpuSubmits.push_back(op.submit);
    if (op.lane < submitLane.size() && submitLane[op.lane]) {
      byLane[op.lane].push_back(op);
      if (op.kind == OpKind::ApiCall && op.correlation != 0) first = std::min(first, op.start);
    }
  });
  RecorderFlushReading r;
  if (first == INT64_MAX) return r;
  std::sort(gpuSubmits.begin(), gpuSubmits.end());
  const std::int64_t due = first + kRecorderFlushIntervalNs;
  auto isEventSync = [&](const Op& op) {
    return op.kind == OpKind::HostSync && op.name < names.size() && names[op.name] == "cudaEventSynchronize";
  };
  // Gaps between consecutive ops of a submit lane; those after a sync are the batches'
  // retires, the baseline (a trace with none: every gap).
  std::vector<double> gaps, retires;
  std::int64_t stallStart = -1;
  for (auto& [lane, ops] : byLane) {
    std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
    for (std::size_t i = 1; i < ops.size(); ++i) {
      const Op& a = ops[i - 1];
      const Op& b = ops[i];
      if (b.start < a.end) continue;
      const double gap = double(b.start - a.end);
      gaps.push_back(gap);
      if (isEventSync(a)) retires.push_back(gap);
      if (a.end >= due && a.end < due + kFirstFlushWindowNs && gap > r.stallNs) {
        r.stallNs = gap;
        stallStart = a.end;
      }
    }
  }
  if (stallStart < 0) return r;
  r.found = true;
  r.baselineNs = spreadOf(retires.empty() ? gaps : retires).median;
  r.ops = std::uint64_t(std::lower_bound(gpuSubmits.begin(), gpuSubmits.end(), stallStart) -
                        std::lower_bound(gpuSubmits.begin(), gpuSubmits.end(), first));
  r.atNs = double(stallStart - first);
  r.nsPerOp = r.ops > 0 ? std::max(0.0, r.stallNs - r.baselineNs) / double(r.ops) : 0.0;
  return r;
}

PipelineConfig recorderFlushConfig() {
  // 300 batches of the op-heavy run took 18-30 ms on H200 hosts: 3500 pass 100 ms with
  // room on a host twice as fast.
  PipelineConfig c = hostOverheadConfigs()[1];
  c.batchCount = 3500;
  return c;
}

RecorderFlushReading fitRecorderFlush(Backend& measured, const std::string& what, double* makespanNs) {
  std::string failure;
  RecorderFlushReading r;
  const double ns = measureMakespanNs(measured, recorderFlushConfig(), failure, nullptr,
                                      [&](const Trace& trace) { r = readRecorderFlush(trace); });
  if (!failure.empty()) throw std::runtime_error(what + ": " + failure);
  if (makespanNs) *makespanNs = ns;
  return r;
}

}  // namespace pipescope
