#pragma once
// Runs the simulator on a configuration and hands back every op, for the simulator tests.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <ostream>
#include <vector>

#include "backend/Backend.h"
#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "trace/Trace.h"

namespace pipescope::simtest {

struct SimRun {
  std::unique_ptr<Trace> trace = std::make_unique<Trace>();
  RunOutcome outcome;
  std::vector<Op> ops;
  std::vector<Lane> lanes;

  std::vector<Op> of(OpKind kind) const {
    std::vector<Op> out;
    for (const Op& op : ops)
      if (op.kind == kind) out.push_back(op);
    std::sort(out.begin(), out.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
    return out;
  }
  /// The API call that issued each of `gpu` (its part correlated with the op), in order.
  std::vector<Op> callsOf(const std::vector<Op>& gpu) const {
    std::vector<Op> out;
    for (const Op& g : gpu)
      for (const Op& op : ops)
        if (op.kind == OpKind::ApiCall && op.correlation == g.correlation && g.correlation != 0) {
          out.push_back(op);
          break;
        }
    return out;
  }
  std::vector<Op> gpuOps() const {
    std::vector<Op> out;
    for (const Op& op : ops)
      if (isGpuKind(op.kind)) out.push_back(op);
    return out;
  }
  /// Latest end minus earliest start over every op.
  std::int64_t makespan() const {
    std::int64_t first = INT64_MAX, last = INT64_MIN;
    for (const Op& op : ops) {
      first = std::min(first, op.start);
      last = std::max(last, op.end);
    }
    return ops.empty() ? 0 : last - first;
  }
  LaneKind laneKind(std::uint16_t lane) const { return lanes.at(lane).kind; }
};

inline SimRun runSim(const PipelineConfig& config, const DeviceProfile& profile, RunControl* control = nullptr) {
  SimRun r;
  r.trace->setConfig(config);
  auto backend = makeSimulatorBackend(profile);
  RunControl own;
  r.outcome = backend->run(config, *r.trace, control ? *control : own);
  r.trace->ops().snapshot().forEach([&](const Op& op) { r.ops.push_back(op); });
  r.lanes = r.trace->lanes();
  return r;
}

inline DeviceProfile h200() { return *builtinProfile("h200"); }

/// A device with round numbers: 1 byte/ns copies, no fixed costs, so stage times
/// are exactly the byte counts.
inline DeviceProfile roundProfile() {
  DeviceProfile p;
  p.name = "round";
  p.copyEngines = 2;
  p.hardwareQueues = 32;
  p.h2dPinnedGBps = p.d2hPinnedGBps = 1.0;
  p.h2dPageableGBps = p.d2hPageableGBps = 0.5;
  p.bidirectionalGBps = 2.0;
  p.copyLatencyNs = 0;
  p.modelGflops = 2.0;  // 2 flops per ns: the model kernel's 2 flops/byte run at 1 byte per ns
  p.deviceMemoryGBps = 1e9;  // memory time negligible: kernels cost their flops alone
  p.kernelGapNs = 0;
  p.kernelLaunchNs = 0;
  p.memcpyAsyncCallNs = 0;
  p.memcpySyncCallNs = 0;
  p.eventRecordNs = 0;
  p.syncWakeNs = p.spinSyncWakeNs = p.yieldSyncWakeNs = 0;
  p.cpuNsPerOp = 1.0;
  return p;
}

/// roundProfile() with managed memory's curves: B bytes fault in over B ns, prefetch to
/// the GPU at 0.5 byte/ns and back to the host at 0.25 byte/ns.
inline DeviceProfile roundManagedProfile() {
  DeviceProfile p = roundProfile();
  p.managedGpuFaultCurve = {{1000, 1.0}};
  p.prefetchToDeviceCurve = {{1000, 0.5}};
  p.prefetchToHostCurve = {{1000, 0.25}};
  return p;
}

/// A small configuration whose stage times on roundProfile() are `bytes` ns each
/// (H2D, model kernel with 2 flops/byte -- the kernel's smallest step, one round of
/// four FMAs per float --, D2H).
inline PipelineConfig roundConfig(std::uint64_t bytes, int batches) {
  PipelineConfig c;
  c.batchSamples = 1;
  c.sampleBytes = bytes;
  c.batchCount = batches;
  c.normalizeKernel = false;
  c.modelFlopsPerByte = 2.0;
  return c;
}

/// An op's start and end: what the hand-computed timelines compare.
struct Span {
  std::int64_t start, end;
  bool operator==(const Span&) const = default;
};
inline void PrintTo(const Span& s, std::ostream* os) { *os << "{" << s.start << ", " << s.end << "}"; }
inline std::vector<Span> spans(const std::vector<Op>& ops) {
  std::vector<Span> s;
  for (const Op& op : ops) s.push_back({op.start, op.end});
  return s;
}

}  // namespace pipescope::simtest
