#include "sim/PipelineCallTimes.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "metrics/Spread.h"

namespace pipescope {

namespace {

enum class CallKind { Launch, MemcpyAsync, EventRecord, Gemm, EventSync, Other };

CallKind kindOf(const std::string& name) {
  if (name == "cudaLaunchKernel") return CallKind::Launch;
  // The CUDA backend names each direction ("cudaMemcpyAsync H2D"), the simulator not.
  if (name.rfind("cudaMemcpyAsync", 0) == 0) return CallKind::MemcpyAsync;
  if (name == "cudaEventRecord") return CallKind::EventRecord;
  if (name == "cublasSgemm") return CallKind::Gemm;
  if (name == "cudaEventSynchronize") return CallKind::EventSync;  // a host wait, not a call
  return CallKind::Other;
}

double medianOrZero(const std::vector<double>& v) { return v.empty() ? 0 : spreadOf(v).median; }

double lowerQuartileOrZero(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto q = v.begin() + std::ptrdiff_t(v.size() / 4);
  std::nth_element(v.begin(), q, v.end());
  return *q;
}

/// The mean of `v` without its slowest 5 %.
double trimmedMeanOrZero(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t kept = std::max<std::size_t>(1, v.size() - v.size() / 20);
  double sum = 0;
  for (std::size_t i = 0; i < kept; ++i) sum += v[i];
  return sum / double(kept);
}

}  // namespace

PipelineCallTimes readPipelineCallTimes(const Trace& trace) {
  const std::vector<std::string> names = trace.names();
  std::vector<CallKind> kinds;
  kinds.reserve(names.size());
  for (const std::string& n : names) kinds.push_back(kindOf(n));
  std::vector<bool> submitLane;
  for (const Lane& l : trace.lanes()) submitLane.push_back(l.kind == LaneKind::HostSubmit);
  std::map<std::uint16_t, std::vector<Op>> byLane;  // every op of each submit lane
  std::vector<double> launch, copy, record, gemm, syncs;
  auto isEventSync = [&](const Op& op) {
    return op.kind == OpKind::HostSync && op.name < kinds.size() && kinds[op.name] == CallKind::EventSync;
  };
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.lane >= submitLane.size() || !submitLane[op.lane]) return;
    byLane[op.lane].push_back(op);
    if (isEventSync(op)) syncs.push_back(double(op.duration()));
    if (op.kind != OpKind::ApiCall || op.name >= kinds.size()) return;
    switch (kinds[op.name]) {
      case CallKind::Launch: launch.push_back(double(op.duration())); break;
      case CallKind::MemcpyAsync: copy.push_back(double(op.duration())); break;
      case CallKind::EventRecord: record.push_back(double(op.duration())); break;
      case CallKind::Gemm: gemm.push_back(double(op.duration())); break;
      case CallKind::EventSync:
      case CallKind::Other: break;
    }
  });
  std::vector<double> gaps, retireGaps;
  for (auto& [lane, ops] : byLane) {
    std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
    for (std::size_t i = 1; i < ops.size(); ++i) {
      const Op& a = ops[i - 1];
      const Op& b = ops[i];
      // Calls without a batch (the simulator records none) count alike: in a run of
      // many calls per batch the median leaves the few batch boundaries out.
      if (a.kind == OpKind::ApiCall && b.kind == OpKind::ApiCall && a.batch == b.batch && b.start >= a.end)
        gaps.push_back(double(b.start - a.end));
      if (isEventSync(a) && b.kind == OpKind::ApiCall && b.start >= a.end) retireGaps.push_back(double(b.start - a.end));
    }
  }
  PipelineCallTimes t;
  t.kernelLaunchNs = medianOrZero(launch);
  t.memcpyAsyncNs = medianOrZero(copy);
  t.eventRecordNs = medianOrZero(record);
  t.gemmCallNs = medianOrZero(gemm);
  t.gapNs = medianOrZero(gaps);
  t.gaps = int(gaps.size());
  t.syncReturnNs = lowerQuartileOrZero(std::move(syncs));
  t.retireGaps = int(retireGaps.size());
  t.retireGapNs = trimmedMeanOrZero(std::move(retireGaps));
  return t;
}

}  // namespace pipescope
