// The figures as computeMetrics found them before it streamed over the ops: every
// op's interval kept in per-kind and per-lane lists, merged at the end. Kept (test
// only) as the reference the streaming computation must match figure for figure.
#include "MetricsByIntervalsReference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "metrics/Intervals.h"

namespace pipescope::reference {

namespace {

// Host work: what a thread spends its own time on. Syncs are waiting, annotations
// carry no pipeline meaning, GPU kinds run elsewhere.
bool isHostWork(OpKind k) { return !isGpuKind(k) && k != OpKind::HostSync && k != OpKind::Annotation; }
// Imported host ranges (CPU ops, user ranges) in which the thread was dispatching work.
bool isImportedHostWork(const Op& op) { return op.kind == OpKind::Annotation && (op.flags & kOpHostWork) != 0; }

// A copy whose API call holds the host until the copy is done (blocking cudaMemcpy,
// or any pageable copy): the submit thread is waiting then, not working.
bool holdsHost(const Op& op) { return isCopyKind(op.kind) && (op.flags & (kOpBlockingCall | kOpPageable)) != 0; }

int pct(double fraction) { return int(std::lround(fraction * 100.0)); }
std::string pctText(double fraction) { return std::to_string(pct(fraction)) + "%"; }

// One batch's own stage times and where it ends.
struct BatchStages {
  std::int64_t end = 0;  // its last op's end
  StageTimes t;          // GPU stages: summed op durations; CPU stages: the longest worker share
};

// The intervals the ops of a trace window cover, sorted out by what they mean.
struct Collected {
  Intervals h2d, d2h, kernel, gpuAll, holdsHost;
  Intervals preprocess, postprocess, api;   // host work: CPU stages (any worker), API calls on host lanes
  Intervals hostRanges, syncs;              // imported host work (kOpHostWork) and the host's waits in it
  std::vector<char> laneHasHostRanges;
  std::vector<Intervals> perLane;           // by lane id: what the lane is busy with
  std::vector<double> apiNsPerLane, cpuNsPerLane;  // host lanes: API calls vs CPU stages
  StageTimes sums;                          // stage duration sums (not yet per batch)
  std::unordered_map<std::int32_t, BatchStages> batches;
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  std::int64_t ops = 0;
  double h2dBytes = 0, d2hBytes = 0;
  bool pageableCopies = false;
};

Collected collect(const MetricsInput& in) {
  Collected c;
  c.perLane.resize(in.lanes.size());
  c.apiNsPerLane.assign(in.lanes.size(), 0);
  c.cpuNsPerLane.assign(in.lanes.size(), 0);
  std::vector<LaneKind> laneKind(in.lanes.size(), LaneKind::HostOther);
  for (std::size_t i = 0; i < in.lanes.size(); ++i) laneKind[i] = in.lanes[i].kind;
  const bool windowed = in.toNs > in.fromNs;

  c.laneHasHostRanges.assign(in.lanes.size(), 0);
  in.ops.forEach([&](const Op& op) {
    if (op.end < op.start) return;  // inconsistent imports are skipped
    if (op.kind == OpKind::Annotation) {
      if (!isImportedHostWork(op) || op.lane >= laneKind.size() || !isHostLane(laneKind[op.lane])) return;
      std::int64_t s = op.start, e = op.end;
      if (windowed) s = std::max(s, in.fromNs), e = std::min(e, in.toNs);
      if (e <= s) return;
      c.hostRanges.emplace_back(s, e);  // busy time only: the makespan is the pipeline's ops'
      c.perLane[op.lane].emplace_back(s, e);
      c.laneHasHostRanges[op.lane] = 1;
      return;
    }
    std::int64_t s = op.start, e = op.end;
    if (windowed) {
      s = std::max(s, in.fromNs);
      e = std::min(e, in.toNs);
      if (e < s || (e == s && (op.start >= in.toNs || op.end < in.fromNs))) return;
    }
    ++c.ops;
    c.first = std::min(c.first, s);
    c.last = std::max(c.last, e);
    const double dur = double(e - s);
    BatchStages* batch = nullptr;
    if (op.batch != kNoBatch) {
      auto [it, inserted] = c.batches.try_emplace(op.batch, BatchStages{op.end, {}});
      if (!inserted) it->second.end = std::max(it->second.end, op.end);
      batch = &it->second;
    }
    // Bytes of a clipped copy count in proportion to the part inside the window.
    const double share = op.end > op.start ? dur / double(op.end - op.start) : 1.0;
    switch (op.kind) {
      case OpKind::CopyH2D:
        c.h2d.emplace_back(s, e);
        c.sums.h2dNs += dur;
        c.h2dBytes += double(op.bytes) * share;
        if (batch) batch->t.h2dNs += dur;
        break;
      case OpKind::CopyD2H:
        c.d2h.emplace_back(s, e);
        c.sums.d2hNs += dur;
        c.d2hBytes += double(op.bytes) * share;
        if (batch) batch->t.d2hNs += dur;
        break;
      case OpKind::Kernel:
        c.kernel.emplace_back(s, e);
        c.sums.kernelNs += dur;
        if (batch) batch->t.kernelNs += dur;
        break;
      // The workers' shares of a CPU stage run side by side: the batch's stage lasts at
      // least as long as its longest share.
      case OpKind::Preprocess:
        c.preprocess.emplace_back(s, e);
        c.sums.preprocessNs += dur;
        if (batch) batch->t.preprocessNs = std::max(batch->t.preprocessNs, dur);
        break;
      case OpKind::Postprocess:
        c.postprocess.emplace_back(s, e);
        c.sums.postprocessNs += dur;
        if (batch) batch->t.postprocessNs = std::max(batch->t.postprocessNs, dur);
        break;
      default: break;
    }
    if (isGpuKind(op.kind)) c.gpuAll.emplace_back(s, e);
    if (holdsHost(op)) c.holdsHost.emplace_back(s, e);
    if (op.kind == OpKind::HostSync) c.syncs.emplace_back(s, e);
    if (isCopyKind(op.kind) && (op.flags & kOpPageable)) c.pageableCopies = true;

    if (op.lane < c.perLane.size()) {
      const bool hostLane = isHostLane(laneKind[op.lane]);
      if (hostLane ? isHostWork(op.kind) : (op.kind != OpKind::HostSync)) c.perLane[op.lane].emplace_back(s, e);
      if (hostLane && op.kind == OpKind::ApiCall) {
        c.apiNsPerLane[op.lane] += dur;
        c.api.emplace_back(s, e);
        c.sums.apiNs += dur;
      }
      if (hostLane && (op.kind == OpKind::Preprocess || op.kind == OpKind::Postprocess))
        c.cpuNsPerLane[op.lane] += dur;
    }
    if (op.engineLane != op.lane && op.engineLane < c.perLane.size() && isGpuKind(op.kind))
      c.perLane[op.engineLane].emplace_back(s, e);
  });
  return c;
}

std::int64_t countBatches(const MetricsInput& in, const Collected& c) {
  if (in.completedBatches > 0) return in.completedBatches;
  const bool windowed = in.toNs > in.fromNs;
  std::int64_t n = 0;
  for (const auto& [batch, stages] : c.batches)
    if (!windowed || (stages.end > in.fromNs && stages.end <= in.toNs)) ++n;
  return n;
}

// The shortest time any one batch spent in each stage; without batch ids, the mean.
StageTimes shortestBatch(const Collected& c, const StageTimes& mean) {
  if (c.batches.empty()) return mean;
  StageTimes m = c.batches.begin()->second.t;
  for (const auto& [batch, stages] : c.batches) {
    const StageTimes& t = stages.t;
    m.h2dNs = std::min(m.h2dNs, t.h2dNs);
    m.kernelNs = std::min(m.kernelNs, t.kernelNs);
    m.d2hNs = std::min(m.d2hNs, t.d2hNs);
    m.preprocessNs = std::min(m.preprocessNs, t.preprocessNs);
    m.postprocessNs = std::min(m.postprocessNs, t.postprocessNs);
  }
  m.apiNs = 0;
  return m;
}

// Per-batch occupancy of each resource (Metrics::perBatchOccupancy). The host's parts
// never count one instant twice, so their sum is its busy time, never above the makespan.
StageTimes occupancy(const Collected& c, double n, double h2dNs, double kernelNs, double d2hNs, const Intervals& holds,
                     const Intervals& hostDispatch) {
  const Intervals pre = mergeIntervals(c.preprocess), post = mergeIntervals(c.postprocess);
  const Intervals cpu = uniteMerged(pre, post);
  const Intervals notApi = uniteMerged(cpu, holds);  // CPU stages, or a blocking copy holding the host
  const double preNs = totalLength(pre), cpuNs = totalLength(cpu);
  const Intervals api = mergeIntervals(c.api);
  const Intervals notDispatch = uniteMerged(api, notApi);
  const double apiNs = totalLength(notDispatch) - totalLength(notApi);
  // Imported traces: the framework's dispatch (CPU ops, Python) around the API calls.
  // It runs beside its own iteration's GPU work (launches are asynchronous), so it is
  // host work *after* issue, like postprocessing: it counts in the host's work but not
  // in the fill before the GPU stages (that keeps the bound below the makespan).
  const double dispatchNs =
      hostDispatch.empty() ? 0.0 : totalLength(uniteMerged(hostDispatch, notDispatch)) - totalLength(notDispatch);
  StageTimes o;
  // Summed durations count ops that ran side by side twice; the union never does.
  o.h2dNs = std::min(c.sums.h2dNs, h2dNs) / n;
  o.kernelNs = std::min(c.sums.kernelNs, kernelNs) / n;
  o.d2hNs = std::min(c.sums.d2hNs, d2hNs) / n;
  o.preprocessNs = preNs / n;
  o.postprocessNs = (cpuNs - preNs + dispatchNs) / n;
  o.apiNs = apiNs / n;
  return o;
}

// One resource that could limit throughput, for the bottleneck verdict.
struct Resource {
  Bottleneck cls;
  std::string subject;  // "the H2D copy engine", "kernels", "CPU worker 'worker 0'"
  double fraction;
  std::size_t lane = 0;  // host resources: the lane
};

std::string engineSummary(const Metrics& m) {
  if (m.copyEngines <= 1) return "copies " + pctText(m.copyBusy) + ", kernels " + pctText(m.computeBusy);
  return "H2D " + pctText(m.h2dBusy) + ", kernels " + pctText(m.computeBusy) + ", D2H " + pctText(m.d2hBusy);
}

void classify(Metrics& m, const MetricsInput& in, const Collected& c) {
  if (m.ops == 0 || m.makespanNs <= 0) {
    m.bottleneck = Bottleneck::Unknown;
    m.bottleneckSentence = m.ops == 0 ? "No operations were recorded, so there is no bottleneck to explain."
                                      : "The recorded operations take no time, so there is no bottleneck to explain.";
    return;
  }
  const bool anyCopies = m.h2dBusyNs > 0 || m.d2hBusyNs > 0;
  std::vector<Resource> resources;
  if (m.copyEngines <= 1) {
    resources.push_back({Bottleneck::CopyBound, "the copy engine (both directions)", m.copyBusy});
  } else {
    resources.push_back({Bottleneck::CopyBound, "the H2D copy engine", m.h2dBusy});
    resources.push_back({Bottleneck::CopyBound, "the D2H copy engine", m.d2hBusy});
  }
  resources.push_back({Bottleneck::ComputeBound, "kernels", m.computeBusy});
  for (const auto& lb : m.lanes) {
    if (!isHostLane(lb.kind)) continue;
    std::string subject = lb.kind == LaneKind::HostSubmit   ? "the submit thread"
                          : lb.kind == LaneKind::HostWorker ? lb.name
                                                            : "host thread '" + lb.name + "'";
    resources.push_back({Bottleneck::HostBound, subject, lb.fraction, lb.lane});
  }
  // Ties go to the engine listed first: the GPU side is where the lesson is.
  const auto busiest = std::max_element(resources.begin(), resources.end(),
                                        [](const Resource& a, const Resource& b) { return a.fraction < b.fraction; });

  if (busiest->fraction < kSaturatedBusyFraction) {
    m.bottleneck = Bottleneck::LatencyBound;
    std::string advice;
    if (in.config && !in.config->isAsync())
      advice = c.pageableCopies ? "pinned memory, async copies and several streams would help most"
                                : "async copies and several streams would let them overlap";
    else if (in.config && in.config->streams == 1)
      advice = "several streams would let them overlap";
    else if (in.config)
      advice = "larger batches or more streams would amortise the per-batch latency";
    else
      advice = "overlapping them (async copies, several streams) would help most";
    // Either the GPU sits idle (waiting on syncs and launches) or it is busy with one
    // stage at a time; say which, so the advice makes sense.
    const std::string evidence =
        m.gpuIdle >= 0.25 ? "the GPU is idle " + pctText(m.gpuIdle) + " of the time"
                          : "kernels have a copy beside them only " + pctText(m.computeOverlappedByCopy) + " of the time";
    m.bottleneckSentence = "Latency-bound: nothing is busy more than " + pctText(busiest->fraction) +
                           " of the time (" + engineSummary(m) + ") and " + evidence +
                           "; the stages wait for each other, so " + advice + ".";
    return;
  }

  m.bottleneck = busiest->cls;
  switch (busiest->cls) {
    case Bottleneck::CopyBound:
      m.bottleneckSentence = "Copy-bound: " + busiest->subject + " is busy " + pctText(busiest->fraction) +
                             " of the time while kernels run " + pctText(m.computeBusy) + "; " +
                             (c.pageableCopies ? "pinned host memory would make the copies several times faster."
                                               : "faster or fewer copies would help most.");
      break;
    case Bottleneck::ComputeBound: {
      std::string copies;
      if (!anyCopies)
        copies = "no copies run";
      else if (m.copyEngines <= 1)
        copies = "the copy engine is busy " + pctText(m.copyBusy);
      else if (m.h2dBusy >= m.d2hBusy)
        copies = "the busiest copy engine (H2D) is busy " + pctText(m.h2dBusy);
      else
        copies = "the busiest copy engine (D2H) is busy " + pctText(m.d2hBusy);
      m.bottleneckSentence = "Compute-bound: kernels run " + pctText(m.computeBusy) + " of the time while " + copies +
                             "; a cheaper model or a faster GPU would help most.";
      break;
    }
    case Bottleneck::HostBound: {
      if (busiest->lane < c.laneHasHostRanges.size() && c.laneHasHostRanges[busiest->lane]) {
        // An imported program's own thread: Python and its framework issuing the work.
        m.bottleneckSentence = "Host-bound: " + busiest->subject + " is busy " + pctText(busiest->fraction) +
                               " of the time dispatching work (CPU ops and the CUDA calls they make) while kernels "
                               "run " + pctText(m.computeBusy) +
                               "; fewer, larger GPU operations per iteration (a bigger batch, fused or captured "
                               "kernels) would help most.";
        break;
      }
      const bool apiDominates = c.apiNsPerLane[busiest->lane] > c.cpuNsPerLane[busiest->lane];
      m.bottleneckSentence =
          "Host-bound: " + busiest->subject + " is busy " + pctText(busiest->fraction) + " of the time " +
          (apiDominates ? "in CUDA API calls" : "with CPU work") + " while kernels run " + pctText(m.computeBusy) +
          "; " +
          (apiDominates ? "fewer, larger operations (bigger batches, fewer chunks) would help most."
                        : "more CPU workers or less CPU work per batch would help most.");
      break;
    }
    default: break;
  }
}

// Several GPUs: the per-GPU figures, and the bound and verdict they give.
void addMultiGpu(Metrics& m, const MetricsInput& in) {
  MultiGpuInput mi;
  mi.ops = in.ops;
  mi.lanes = in.lanes;
  mi.devices = in.devices;
  mi.ranks = in.ranks;
  mi.config = in.config ? &*in.config : nullptr;
  mi.fromNs = in.fromNs;
  mi.toNs = in.toNs;
  mi.makespanNs = m.makespanNs;
  mi.batches = m.batches;
  mi.hostPerBatchNs = m.hostPerBatchNs;
  mi.copyEngines = m.copyEngines;
  MultiGpuMetrics g = computeMultiGpuMetrics(mi);
  if (g.idealBoundNs > 0) {
    m.idealBoundNs = g.idealBoundNs;
    m.efficiency = m.makespanNs > 0 ? g.idealBoundNs / m.makespanNs : 0.0;
  }
  if (m.ops == 0 || m.makespanNs <= 0) {
    m.multiGpu = std::move(g);
    return;
  }
  // The verdict from the busiest resource of any GPU, link or host thread.
  std::vector<Resource> resources;
  for (const GpuFigures& f : g.perGpu) {
    resources.push_back({Bottleneck::ComputeBound, f.name + "'s kernels", f.computeBusy});
    resources.push_back({Bottleneck::CopyBound, f.name + "'s H2D copies", f.h2dBusy});
    resources.push_back({Bottleneck::CopyBound, f.name + "'s D2H copies", f.d2hBusy});
    resources.push_back({Bottleneck::CommunicationBound, f.name + "'s communication", f.commBusy});
  }
  for (const LinkFigures& l : g.links)
    resources.push_back({Bottleneck::CommunicationBound, "the " + l.name + " link", l.busy});
  for (const auto& lb : m.lanes)
    if (isHostLane(lb.kind))
      resources.push_back({Bottleneck::HostBound, lb.kind == LaneKind::HostSubmit ? "the submit thread" : lb.name,
                           lb.fraction, lb.lane});
  const auto busiest = std::max_element(resources.begin(), resources.end(),
                                        [](const Resource& a, const Resource& b) { return a.fraction < b.fraction; });
  const std::string exposed =
      g.commNs > 0 ? "; " + pctText(g.commNs > 0 ? g.exposedCommNs / g.commNs : 0.0) +
                         " of the communication had no kernel beside it (exposed)"
                   : std::string();
  double lowest = 1.0, highest = 0.0;
  for (const GpuFigures& f : g.perGpu) lowest = std::min(lowest, f.computeBusy), highest = std::max(highest, f.computeBusy);
  const std::string spread = "kernels run " + pctText(lowest) + (lowest == highest ? "" : "-" + pctText(highest)) +
                             " of the time on the " + std::to_string(g.gpus) + " GPUs";
  if (busiest->fraction < kSaturatedBusyFraction) {
    m.bottleneck = Bottleneck::LatencyBound;
    m.bottleneckSentence =
        "Latency-bound: nothing on any GPU is busy more than " + pctText(busiest->fraction) + " of the time (" +
        spread + exposed + "); " +
        (g.pipeline ? "the stages wait for each other: more micro-batches shrink the pipeline's fill and drain."
                    : "the GPUs wait for each other and for the host: several streams per GPU, larger batches or "
                      "more all-reduce buckets would help.");
  } else {
    m.bottleneck = busiest->cls;
    switch (busiest->cls) {
      case Bottleneck::CommunicationBound:
        m.bottleneckSentence = "Communication-bound: " + busiest->subject + " is busy " + pctText(busiest->fraction) +
                               " of the time (" + spread + exposed + "); " +
                               (g.pipeline ? "smaller activations or fewer stages would help most."
                                           : "more buckets (overlap), fewer GPUs or more work per GPU would help most.");
        break;
      case Bottleneck::ComputeBound:
        m.bottleneckSentence = "Compute-bound: " + busiest->subject + " run " + pctText(busiest->fraction) +
                               " of the time (" + spread + exposed + "); " +
                               (g.pipeline ? "balancing the stages' work would help most."
                                           : "a cheaper model or more GPUs would help most.");
        break;
      case Bottleneck::CopyBound:
        m.bottleneckSentence = "Copy-bound: " + busiest->subject + " run " + pctText(busiest->fraction) +
                               " of the time (" + spread + exposed + "); faster or fewer copies would help most.";
        break;
      default:
        m.bottleneckSentence = "Host-bound: " + busiest->subject + " is busy " + pctText(busiest->fraction) +
                               " of the time issuing the work of " + std::to_string(g.gpus) + " GPUs (" + spread +
                               exposed + "); fewer, larger operations or more CPU workers would help most.";
        break;
    }
  }
  m.multiGpu = std::move(g);
}

}  // namespace

Metrics computeMetricsByIntervals(const MetricsInput& in) {
  Metrics m;
  const Collected c = collect(in);
  m.ops = c.ops;
  m.copyEngines = effectiveCopyEngines(in.device, in.lanes);
  m.batches = countBatches(in, c);
  m.samples = in.config ? m.batches * std::int64_t(in.config->batchSamples) : m.batches * in.samplesPerBatch;
  if (c.ops > 0) {
    m.firstNs = c.first;
    m.lastNs = c.last;
    m.makespanNs = double(c.last - c.first);
  }
  const double span = m.makespanNs;
  auto perWall = [span](double v) { return span > 0 ? v / span : 0.0; };
  auto ratio = [](double num, double den) { return den > 0 ? num / den : 0.0; };

  m.batchesPerSec = perWall(double(m.batches)) * 1e9;
  m.samplesPerSec = perWall(double(m.samples)) * 1e9;

  const Intervals h2d = mergeIntervals(c.h2d), d2h = mergeIntervals(c.d2h), kernel = mergeIntervals(c.kernel);
  const Intervals copies = uniteMerged(h2d, d2h);
  m.h2dBytes = std::uint64_t(std::llround(c.h2dBytes));
  m.d2hBytes = std::uint64_t(std::llround(c.d2hBytes));
  m.h2dBusyNs = totalLength(h2d);
  m.d2hBusyNs = totalLength(d2h);
  // 1 GB/s = 1e9 B/s = 1 byte per ns.
  m.h2dGBpsBusy = ratio(c.h2dBytes, m.h2dBusyNs);
  m.d2hGBpsBusy = ratio(c.d2hBytes, m.d2hBusyNs);
  m.h2dGBpsWall = perWall(c.h2dBytes);
  m.d2hGBpsWall = perWall(c.d2hBytes);

  const double kernelNs = totalLength(kernel), copyNs = totalLength(copies);
  m.computeBusy = perWall(kernelNs);
  m.h2dBusy = perWall(m.h2dBusyNs);
  m.d2hBusy = perWall(m.d2hBusyNs);
  m.copyBusy = perWall(copyNs);
  m.gpuIdle = span > 0 ? 1.0 - perWall(unionLength(c.gpuAll)) : 0.0;
  const double bothNs = totalLength(intersectMerged(kernel, copies));
  m.computeOverlappedByCopy = ratio(bothNs, kernelNs);
  m.copyOverlappedByCompute = ratio(bothNs, copyNs);

  const Intervals holds = mergeIntervals(c.holdsHost);
  const double holdsNs = totalLength(holds);
  // Imported host ranges minus the waits inside them (syncs, blocking copies).
  // Only what lies within the pipeline's span counts: ranges before the first GPU op or
  // API call (setup, the profiler's own spans) are not part of the measured makespan.
  const Intervals waits = c.hostRanges.empty() ? Intervals{} : uniteMerged(mergeIntervals(c.syncs), holds);
  const Intervals pipelineSpan = c.ops > 0 ? Intervals{{c.first, c.last}} : Intervals{};
  const Intervals hostDispatch =
      c.hostRanges.empty() ? Intervals{}
                           : subtractMerged(intersectMerged(mergeIntervals(c.hostRanges), pipelineSpan), waits);
  double submitSum = 0, workerSum = 0;
  int submitLanes = 0, workerLanes = 0;
  for (std::size_t i = 0; i < in.lanes.size(); ++i) {
    const Lane& lane = in.lanes[i];
    Intervals busy = mergeIntervals(c.perLane[i]);
    double busyNs = totalLength(busy);
    // |busy \ holds| = |busy U holds| - |holds|: a blocking copy call is waiting, not working.
    if (lane.kind == LaneKind::HostSubmit && holdsNs > 0) busyNs = totalLength(uniteMerged(busy, holds)) - holdsNs;
    if (c.laneHasHostRanges[i]) busyNs = totalLength(subtractMerged(intersectMerged(busy, pipelineSpan), waits));
    const double fraction = perWall(busyNs);
    m.lanes.push_back({lane.id, lane.kind, lane.name, busyNs, fraction});
    if (lane.kind == LaneKind::HostSubmit) submitSum += fraction, ++submitLanes;
    if (lane.kind == LaneKind::HostWorker) workerSum += fraction, ++workerLanes;
  }
  m.submitThreadBusy = submitLanes > 0 ? submitSum / submitLanes : 0.0;
  m.workersBusy = workerLanes > 0 ? workerSum / workerLanes : 0.0;

  if (m.batches > 0) {
    const double n = double(m.batches);
    m.perBatch = {c.sums.h2dNs / n,           c.sums.kernelNs / n,      c.sums.d2hNs / n,
                  c.sums.preprocessNs / n,    c.sums.postprocessNs / n, c.sums.apiNs / n};
    // The bound needs how long each resource is occupied per batch. Where a stage's ops
    // run side by side (kernels of different streams sharing the SMs at their tails, a
    // GPU with several copy engines per direction, the workers' shares of a CPU stage)
    // summed durations count that time twice and the "bound" could exceed the makespan.
    m.perBatchOccupancy = occupancy(c, n, m.h2dBusyNs, kernelNs, m.d2hBusyNs, holds, hostDispatch);
    m.shortestBatch = shortestBatch(c, m.perBatchOccupancy);
  }
  const IdealBound bound = computeIdealBound(m.perBatchOccupancy, m.shortestBatch, m.batches, m.copyEngines);
  m.idealBoundNs = bound.ns;
  m.critical = bound.critical;
  m.hostPerBatchNs = bound.hostPerBatchNs;
  m.efficiency = ratio(m.idealBoundNs, span);

  classify(m, in, c);
  if (gpuCountOf(in.lanes) > 1) addMultiGpu(m, in);
  return m;
}

}  // namespace pipescope::reference
