#include "sim/HostOverheadFit.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "metrics/Spread.h"
#include "sim/FitRuns.h"
#include "sim/PipelineCallTimes.h"
#include "sim/RecorderFlushFit.h"
#include "sim/SimulatorBackend.h"
#include "sim/Validation.h"

namespace pipescope {

namespace {

constexpr double kMaxOverheadNs = 1e6;  // 1 ms per op or batch: beyond any real tool
constexpr int kTraceRuns = 3;
const std::string kWhat = "host overhead fit";

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string fmt1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

struct TracedRuns {
  PipelineCallTimes calls;  ///< each figure's median over the runs
  double makespanNs = 0;    ///< the runs' median
};

/// The GPU ops the simulator's backend holds, on average, when a batch of `c`
/// retires: the retire gap it gives with 1 us per held op and nothing else there.
double heldOpsAtRetire(const DeviceProfile& p, const PipelineConfig& c) {
  DeviceProfile q = p;
  q.hostBatchOverheadNs = 0;
  q.hostPendingOpNs = 1000;
  q.syncReturnNs = std::max(q.syncReturnNs, 1.0);  // every sync recorded, so every retire has its gap
  auto sim = makeSimulatorBackend(q);
  return tracedCallTimes(*sim, c, kWhat).retireGapNs / 1000;
}

/// `runs` runs of `c` on `measured`, each read from its trace.
TracedRuns tracedRuns(Backend& measured, const PipelineConfig& c, int runs) {
  std::vector<double> launch, copy, record, gap, syncReturn, retireGap, makespans;
  int gaps = 0, retireGaps = 0;
  for (int i = 0; i < runs; ++i) {
    double makespan = 0;
    const PipelineCallTimes t = tracedCallTimes(measured, c, kWhat, &makespan);
    makespans.push_back(makespan);
    if (!t.complete())
      throw std::runtime_error(kWhat + ": the backend's trace of " + describeCase(c) +
                               " holds no kernel launch, cudaMemcpyAsync or cudaEventRecord calls to read their "
                               "costs from; calibrate needs a backend that records its API calls");
    launch.push_back(t.kernelLaunchNs);
    copy.push_back(t.memcpyAsyncNs);
    record.push_back(t.eventRecordNs);
    gap.push_back(t.gapNs);
    gaps += t.gaps;
    if (t.retireGaps > 0) {
      syncReturn.push_back(t.syncReturnNs);
      retireGap.push_back(t.retireGapNs);
      retireGaps += t.retireGaps;
    }
  }
  TracedRuns out;
  out.calls.kernelLaunchNs = spreadOf(launch).median;
  out.calls.memcpyAsyncNs = spreadOf(copy).median;
  out.calls.eventRecordNs = spreadOf(record).median;
  out.calls.gapNs = spreadOf(gap).median;
  out.calls.gaps = gaps;
  // Only a run whose every trace had retire gaps gives retire figures.
  if (int(retireGap.size()) == runs) {
    out.calls.syncReturnNs = spreadOf(syncReturn).median;
    out.calls.retireGapNs = spreadOf(retireGap).median;
    out.calls.retireGaps = retireGaps;
  }
  out.makespanNs = spreadOf(makespans).median;
  return out;
}

}  // namespace

std::vector<PipelineConfig> hostOverheadConfigs() {
  const PipelineConfig c = tinyBatchFitConfig(300);  // 64 KiB batches: host costs dominate
  // 8 + 2 + 8 GPU ops per batch instead of 4, over 8 streams: the host issuing them
  // is the bottleneck, so the run's length measures the per-op cost. (On one stream
  // the copies' latency hid it: the fit gave 0 ns per op on an H100 while each
  // cudaMemcpyAsync cost 1.2 us more inside the pipeline than bare.)
  PipelineConfig chunked = c;
  chunked.transferChunks = 8;
  chunked.streams = 8;
  return {c, chunked};
}

HostOverheadResult fitHostOverhead(Backend& measured, const DeviceProfile& profile, int reps,
                                   const std::function<void(const std::string&)>& log) {
  const std::vector<PipelineConfig> configs = hostOverheadConfigs();
  HostOverheadResult r;
  // The plain run's makespan (logged; the per-batch cost is solved on it where the
  // traces hold no syncs), then both runs' traces: the op-heavy one's give what the
  // calls cost (its makespan, from the same runs, for the log), both what retiring costs.
  r.measuredNs = measureInterleavedNs(measured, {configs[0]}, reps, kWhat);
  const TracedRuns plain = tracedRuns(measured, configs[0], kTraceRuns);
  const TracedRuns heavy = tracedRuns(measured, configs[1], kTraceRuns);
  r.measuredNs.push_back(heavy.makespanNs);
  const PipelineCallTimes& calls = heavy.calls;
  DeviceProfile p = profile;
  p.kernelLaunchNs = r.kernelLaunchNs = calls.kernelLaunchNs;
  p.memcpyAsyncCallNs = r.memcpyAsyncCallNs = calls.memcpyAsyncNs;
  p.eventRecordNs = r.eventRecordNs = calls.eventRecordNs;
  p.hostOpOverheadNs = r.perOpNs = calls.gapNs;
  p.hostPendingOpNs = p.syncReturnNs = 0;
  if (plain.calls.retireGaps > 0 && calls.retireGaps > 0) {
    // Retiring a batch, read from both runs' traces: the sync's return, then the gap
    // before the next call, which grows with the ops the backend still holds (few
    // on one stream, 8 streams x 18 in the op-heavy run): a line through the two.
    p.syncReturnNs = r.syncReturnNs = calls.syncReturnNs;
    const double heldPlain = heldOpsAtRetire(p, configs[0]), heldHeavy = heldOpsAtRetire(p, configs[1]);
    r.retireGapsNs = {plain.calls.retireGapNs, calls.retireGapNs};
    r.heldOps = {heldPlain, heldHeavy};
    if (heldHeavy > heldPlain)
      r.perHeldOpNs = std::max(0.0, (calls.retireGapNs - plain.calls.retireGapNs) / (heldHeavy - heldPlain));
    r.perBatchNs = std::max(0.0, plain.calls.retireGapNs - r.perHeldOpNs * heldPlain);
    p.hostPendingOpNs = r.perHeldOpNs;
    p.hostBatchOverheadNs = r.perBatchNs;
  } else {
    // A backend that records no syncs: the per-batch cost is what the plain run (few
    // ops a batch) takes beyond its ops.
    p.hostBatchOverheadNs = r.perBatchNs = solveProfileField(p, &DeviceProfile::hostBatchOverheadNs, configs[0],
                                                             r.measuredNs[0], 0, kMaxOverheadNs, kWhat);
  }
  // The recorder's flush: one run long enough to pass the first; the stall is what
  // retiring that batch took beyond a retire without a flush, per op issued before it.
  const RecorderFlushReading flush = fitRecorderFlush(measured, kWhat, &r.flushRunMeasuredNs);
  if (flush.found) {
    p.recorderFlushNsPerOp = r.recorderFlushNsPerOp = flush.nsPerOp;
    r.flushStallNs = flush.stallNs;
    r.flushAtNs = flush.atNs;
    r.flushOps = flush.ops;
  }
  for (const PipelineConfig& c : configs) r.predictedNs.push_back(simulatedMakespanNs(p, c, kWhat));
  r.flushRunPredictedNs = simulatedMakespanNs(p, recorderFlushConfig(), kWhat);
  if (log) {
    logFitRuns(log, "host overhead", configs, r.measuredNs, r.predictedNs);
    if (flush.found)
      log("the recorder's CUPTI flush (a run of " + std::to_string(recorderFlushConfig().batchCount) +
          " op-heavy batches): " + fitMicros(flush.stallNs) + " us at " + fitMicros(flush.atNs) + " us, after " +
          std::to_string(flush.ops) + " GPU ops, beyond a retire's " + fitMicros(flush.baselineNs) + " us: " +
          fmt(r.recorderFlushNsPerOp) + " ns per op; the run measured " + fitMicros(r.flushRunMeasuredNs) +
          " us, simulated with the fit " + fitMicros(r.flushRunPredictedNs) + " us");
    else
      log("the recorder's CUPTI flush: the run of " + std::to_string(recorderFlushConfig().batchCount) +
          " op-heavy batches (" + fitMicros(r.flushRunMeasuredNs) + " us) retired no batch after its first flush "
          "was due; none charged");
    log("host API calls inside the pipeline (its trace, median of " + std::to_string(kTraceRuns) +
        " runs): kernel launch " + fitMicros(r.kernelLaunchNs) + " us (bare " + fitMicros(profile.kernelLaunchNs) +
        "), cudaMemcpyAsync " + fitMicros(r.memcpyAsyncCallNs) + " us (bare " + fitMicros(profile.memcpyAsyncCallNs) +
        "), cudaEventRecord " + fitMicros(r.eventRecordNs) + " us (bare " + fitMicros(profile.eventRecordNs) + ")");
    log("host overhead of the measuring backend: " + fmt(r.perOpNs) + " ns per GPU op (between calls, over " +
        std::to_string(calls.gaps) + " gaps), " + fmt(r.perBatchNs) + " ns per batch");
    if (!r.retireGapsNs.empty())
      log("retiring a batch (the traces): a sync that finds it done " + fitMicros(r.syncReturnNs) +
          " us, then before the next call " + fitMicros(r.retireGapsNs[0]) + " us with " + fmt1(r.heldOps[0]) +
          " ops held and " + fitMicros(r.retireGapsNs[1]) + " us with " + fmt1(r.heldOps[1]) +
          ": " + fmt(r.perHeldOpNs) + " ns per held op");
  }
  return r;
}

void applyHostOverhead(DeviceProfile& profile, const HostOverheadResult& fit) {
  profile.kernelLaunchNs = fit.kernelLaunchNs;
  profile.memcpyAsyncCallNs = fit.memcpyAsyncCallNs;
  profile.eventRecordNs = fit.eventRecordNs;
  profile.hostOpOverheadNs = fit.perOpNs;
  profile.hostBatchOverheadNs = fit.perBatchNs;
  profile.hostPendingOpNs = fit.perHeldOpNs;
  profile.syncReturnNs = fit.syncReturnNs;
  profile.recorderFlushNsPerOp = fit.recorderFlushNsPerOp;
}

}  // namespace pipescope
