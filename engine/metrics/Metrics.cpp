#include "metrics/Metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "metrics/BatchStageTable.h"
#include "metrics/BusySweep.h"
#include "metrics/Intervals.h"

namespace pipescope {

std::string_view toString(Bottleneck b) {
  switch (b) {
    case Bottleneck::CopyBound: return "copy-bound";
    case Bottleneck::ComputeBound: return "compute-bound";
    case Bottleneck::HostBound: return "host-bound";
    case Bottleneck::LatencyBound: return "latency-bound";
    case Bottleneck::Unknown: return "unknown";
    case Bottleneck::CommunicationBound: return "communication-bound";
  }
  return "?";
}

double idealBound(double h, double k, double d, std::int64_t batches, int copyEngines) {
  StageTimes t;
  t.h2dNs = h;
  t.kernelNs = k;
  t.d2hNs = d;
  return computeIdealBound(t, t, batches, copyEngines).ns;
}

double unionLength(std::vector<std::pair<std::int64_t, std::int64_t>> intervals) {
  return totalLength(mergeIntervals(std::move(intervals)));
}

int effectiveCopyEngines(const DeviceInfo& device, const std::vector<Lane>& lanes) {
  if (device.copyEngines >= 2) return 2;
  if (device.copyEngines == 1) return 1;
  for (const auto& l : lanes)
    if (l.kind == LaneKind::CopyEngine) return 1;
  return 2;
}

namespace {

int pct(double fraction) { return int(std::lround(fraction * 100.0)); }
std::string pctText(double fraction) { return std::to_string(pct(fraction)) + "%"; }

// What a first pass over a trace window's ops adds up (in the store's order, so sums
// of fractional bytes come out as they always did), and what the busy-time sweep
// needs to know before it starts.
struct Collected {
  std::vector<char> laneHasHostRanges;
  std::vector<double> apiNsPerLane, cpuNsPerLane;  // host lanes: API calls vs CPU stages
  StageTimes sums;                          // stage duration sums (not yet per batch)
  BatchStageTable batches;
  SweepPlan sweep;
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  std::int64_t ops = 0;
  double h2dBytes = 0, d2hBytes = 0;
  bool pageableCopies = false;

  explicit Collected(bool keepBatchEnds) : batches(keepBatchEnds) {}
};

Collected collect(const MetricsInput& in, const std::vector<LaneKind>& laneKind) {
  const bool windowed = in.toNs > in.fromNs;
  Collected c(windowed && in.completedBatches <= 0);
  c.apiNsPerLane.assign(in.lanes.size(), 0);
  c.cpuNsPerLane.assign(in.lanes.size(), 0);
  c.laneHasHostRanges.assign(in.lanes.size(), 0);
  c.sweep.blockFirstStart.assign(std::size_t((in.ops.size() + kStartOrderBlockOps - 1) / kStartOrderBlockOps),
                                 std::numeric_limits<std::int64_t>::max());

  for (std::uint64_t i = in.ops.begin(); i < in.ops.end(); ++i) {
    const Op op = in.ops.at(i);
    const PlacedOp p = placeOp(op, in, laneKind);
    if (p.role == PlacedOp::Skipped) continue;
    std::int64_t& blockFirst = c.sweep.blockFirstStart[std::size_t((i - in.ops.begin()) / kStartOrderBlockOps)];
    blockFirst = std::min(blockFirst, p.s);
    if (p.role == PlacedOp::HostRange) {
      c.laneHasHostRanges[op.lane] = 1;  // busy time only: the makespan is the pipeline's ops'
      continue;
    }
    const std::int64_t s = p.s, e = p.e;
    ++c.ops;
    c.first = std::min(c.first, s);
    c.last = std::max(c.last, e);
    const double dur = double(e - s);
    const bool batch = op.batch != kNoBatch;
    if (batch) c.batches.touch(op.batch, op.end);
    // Bytes of a clipped copy count in proportion to the part inside the window.
    const double share = op.end > op.start ? dur / double(op.end - op.start) : 1.0;
    switch (op.kind) {
      case OpKind::CopyH2D:
        c.sums.h2dNs += dur;
        c.h2dBytes += double(op.bytes) * share;
        if (batch) c.batches.add(op.batch, BatchStageTable::H2D, e - s);
        break;
      case OpKind::CopyD2H:
        c.sums.d2hNs += dur;
        c.d2hBytes += double(op.bytes) * share;
        if (batch) c.batches.add(op.batch, BatchStageTable::D2H, e - s);
        break;
      case OpKind::Kernel:
        c.sums.kernelNs += dur;
        if (batch) c.batches.add(op.batch, BatchStageTable::Kernel, e - s);
        break;
      // The workers' shares of a CPU stage run side by side: the batch's stage lasts at
      // least as long as its longest share.
      case OpKind::Preprocess:
        c.sums.preprocessNs += dur;
        if (batch) c.batches.raise(op.batch, BatchStageTable::Preprocess, e - s);
        break;
      case OpKind::Postprocess:
        c.sums.postprocessNs += dur;
        if (batch) c.batches.raise(op.batch, BatchStageTable::Postprocess, e - s);
        break;
      default: break;
    }
    if (isCopyKind(op.kind) && (op.flags & kOpPageable)) c.pageableCopies = true;

    if (op.lane < laneKind.size() && isHostLane(laneKind[op.lane])) {
      if (op.kind == OpKind::ApiCall) {
        c.apiNsPerLane[op.lane] += dur;
        c.sums.apiNs += dur;
      }
      if (op.kind == OpKind::Preprocess || op.kind == OpKind::Postprocess) c.cpuNsPerLane[op.lane] += dur;
    }
  }
  c.sweep.laneHasHostRanges = c.laneHasHostRanges;
  c.sweep.anyPipelineOps = c.ops > 0;
  c.sweep.first = c.first;
  c.sweep.last = c.last;
  return c;
}

std::int64_t countBatches(const MetricsInput& in, const Collected& c) {
  if (in.completedBatches > 0) return in.completedBatches;
  if (in.toNs > in.fromNs) return c.batches.countEndingIn(in.fromNs, in.toNs);
  return c.batches.count();
}

// The shortest time any one batch spent in each stage; without batch ids, the mean.
StageTimes shortestBatch(const Collected& c, const StageTimes& mean) {
  return c.batches.empty() ? mean : c.batches.shortest();
}

// Per-batch occupancy of each resource (Metrics::perBatchOccupancy). The host's parts
// never count one instant twice, so their sum is its busy time, never above the makespan.
StageTimes occupancy(const Collected& c, const BusyTimes& b, double n) {
  const double preNs = double(b.preprocess), cpuNs = double(b.cpu);
  const double apiNs = double(b.notDispatch - b.notApi);
  // Imported traces: the framework's dispatch (CPU ops, Python) around the API calls.
  // It runs beside its own iteration's GPU work (launches are asynchronous), so it is
  // host work *after* issue, like postprocessing: it counts in the host's work but not
  // in the fill before the GPU stages (that keeps the bound below the makespan).
  const double dispatchNs = double(b.dispatch);
  StageTimes o;
  // Summed durations count ops that ran side by side twice; the union never does.
  o.h2dNs = std::min(c.sums.h2dNs, double(b.h2d)) / n;
  o.kernelNs = std::min(c.sums.kernelNs, double(b.kernel)) / n;
  o.d2hNs = std::min(c.sums.d2hNs, double(b.d2h)) / n;
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

Metrics computeMetrics(const MetricsInput& in) {
  Metrics m;
  std::vector<LaneKind> laneKinds(in.lanes.size());
  for (std::size_t i = 0; i < in.lanes.size(); ++i) laneKinds[i] = in.lanes[i].kind;
  const Collected c = collect(in, laneKinds);
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

  const BusyTimes busy = sweepBusyTimes(in, laneKinds, c.sweep);
  m.h2dBytes = std::uint64_t(std::llround(c.h2dBytes));
  m.d2hBytes = std::uint64_t(std::llround(c.d2hBytes));
  m.h2dBusyNs = double(busy.h2d);
  m.d2hBusyNs = double(busy.d2h);
  // 1 GB/s = 1e9 B/s = 1 byte per ns.
  m.h2dGBpsBusy = ratio(c.h2dBytes, m.h2dBusyNs);
  m.d2hGBpsBusy = ratio(c.d2hBytes, m.d2hBusyNs);
  m.h2dGBpsWall = perWall(c.h2dBytes);
  m.d2hGBpsWall = perWall(c.d2hBytes);

  const double kernelNs = double(busy.kernel), copyNs = double(busy.copies);
  m.computeBusy = perWall(kernelNs);
  m.h2dBusy = perWall(m.h2dBusyNs);
  m.d2hBusy = perWall(m.d2hBusyNs);
  m.copyBusy = perWall(copyNs);
  m.gpuIdle = span > 0 ? 1.0 - perWall(double(busy.gpu)) : 0.0;
  const double bothNs = double(busy.kernelAndCopy);
  m.computeOverlappedByCopy = ratio(bothNs, kernelNs);
  m.copyOverlappedByCompute = ratio(bothNs, copyNs);

  double submitSum = 0, workerSum = 0;
  int submitLanes = 0, workerLanes = 0;
  for (std::size_t i = 0; i < in.lanes.size(); ++i) {
    const Lane& lane = in.lanes[i];
    double busyNs = double(busy.lane[i]);
    // A blocking copy call is waiting, not working.
    if (lane.kind == LaneKind::HostSubmit && busy.holds > 0) busyNs = double(busy.laneOutsideHolds[i]);
    // Imported host ranges minus the waits inside them (syncs, blocking copies). Only
    // what lies within the pipeline's span counts: ranges before the first GPU op or
    // API call (setup, the profiler's own spans) are not part of the measured makespan.
    if (c.laneHasHostRanges[i]) busyNs = double(busy.laneHostWork[i]);
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
    m.perBatchOccupancy = occupancy(c, busy, n);
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

namespace {
MetricsInput inputFor(const Trace& trace) {
  MetricsInput in;
  in.ops = trace.ops().snapshot();
  in.lanes = trace.lanes();
  if (!trace.configHistory().empty()) in.config = trace.config();
  in.device = trace.device();
  in.devices = trace.devices();
  in.ranks = trace.ranks();
  in.samplesPerBatch = trace.iterations().samplesPerIteration;
  return in;
}
}  // namespace

Metrics computeMetrics(const Trace& trace) {
  MetricsInput in = inputFor(trace);
  // With a bounded live window the run's batch count no longer matches the ops kept:
  // count the batches that finished inside the window instead.
  if (trace.ops().droppedCount() == 0) in.completedBatches = trace.completedBatches();
  return computeMetrics(in);
}

Metrics computeMetrics(const Trace& trace, std::int64_t fromNs, std::int64_t toNs) {
  MetricsInput in = inputFor(trace);
  in.fromNs = fromNs;
  in.toNs = toNs;
  if (toNs <= fromNs && trace.ops().droppedCount() == 0) in.completedBatches = trace.completedBatches();
  return computeMetrics(in);
}

Metrics computeMetrics(const TraceView& ops, const std::vector<Lane>& lanes, const PipelineConfig& config,
                       const DeviceInfo& device, std::int64_t completedBatches) {
  MetricsInput in;
  in.ops = ops;
  in.lanes = lanes;
  in.config = config;
  in.device = device;
  in.completedBatches = completedBatches;
  return computeMetrics(in);
}

}  // namespace pipescope
