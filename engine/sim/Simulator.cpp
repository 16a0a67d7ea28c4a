#include "sim/Simulator.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>

#include "config/ModelWork.h"
#include "sim/StageCosts.h"

namespace pipescope {

namespace {

// std::llround without the libm call (it was the simulator's hottest function):
// round half away from zero, exact because x - trunc(x) is exact for |x| < 2^52.
std::int64_t ns(double t) {
  const auto r = static_cast<std::int64_t>(t);
  const double frac = t - static_cast<double>(r);
  if (frac >= 0.5) return r + 1;
  if (frac <= -0.5) return r - 1;
  return r;
}

}  // namespace

Simulator::Simulator(const DeviceProfile& profile, Trace& trace, RunControl& control, double slowdown)
    : profile_(profile), trace_(trace), control_(control), slowdown_(slowdown), gpu_(profile) {}

// A run that ends in an exception (a model bug) still reports every batch it completed.
Simulator::~Simulator() { publishCompleted(); }

double Simulator::wakeNs(double waitedNs) const {
  switch (cfg_.sync) {
    case SyncMode::Spin: return profile_.spinSyncWakeNs;
    case SyncMode::Yield: return profile_.yieldSyncWakeNs;
    case SyncMode::Blocking: break;
  }
  return blockingSyncWakeNs(profile_, waitedNs);
}

void Simulator::setupLanes() {
  submitLane_ = trace_.lane(LaneKind::HostSubmit, 0, "submit thread");
  if (profile_.copyEngines <= 1) {
    engineLanes_[0] = engineLanes_[1] = trace_.lane(LaneKind::CopyEngine, 0, "copy engine");
  } else {
    engineLanes_[0] = trace_.lane(LaneKind::CopyEngineH2D, 0, "H2D copy engine");
    engineLanes_[1] = trace_.lane(LaneKind::CopyEngineD2H, 0, "D2H copy engine");
  }
  engineLanes_[GpuModel::kComputeSlot] = engineLanes_[GpuModel::kLinkSlot] =
      trace_.lane(LaneKind::ComputeEngine, 0, "compute engine");
  names_.normalize = trace_.internName("normalize");
  names_.model = trace_.internName("model");
  names_.gemm = trace_.internName("gemm");
  names_.head = trace_.internName("model head");
  names_.gemmCall = trace_.internName("cublasSgemm");
  names_.memcpyAsync = trace_.internName("cudaMemcpyAsync");
  names_.memcpy = trace_.internName("cudaMemcpy");
  names_.memcpyWait = trace_.internName("wait for copy");
  names_.launch = trace_.internName("cudaLaunchKernel");
  names_.eventRecord = trace_.internName("cudaEventRecord");
  names_.eventSync = trace_.internName("cudaEventSynchronize");
  names_.deviceSync = trace_.internName("cudaDeviceSynchronize");
  names_.prefetchCall = trace_.internName("cudaMemPrefetchAsync");
  names_.prefetchIn = trace_.internName("prefetch to GPU");
  names_.prefetchOut = trace_.internName("prefetch to CPU");
}

std::uint16_t Simulator::streamLane(int stream) {
  const auto s = std::size_t(stream);
  if (streamLanes_.size() <= s) streamLanes_.resize(s + 1, kNoLane);
  if (streamLanes_[s] == kNoLane)
    streamLanes_[s] = trace_.lane(LaneKind::Stream, stream, "stream " + std::to_string(stream));
  return streamLanes_[s];
}

std::uint16_t Simulator::workerLane(int worker) {
  const auto w = std::size_t(worker);
  if (workerLanes_.size() <= w) workerLanes_.resize(w + 1, kNoLane);
  if (workerLanes_[w] == kNoLane)
    workerLanes_[w] = trace_.lane(LaneKind::HostWorker, worker, "CPU worker " + std::to_string(worker));
  return workerLanes_[w];
}

void Simulator::cpuStage(OpKind kind, std::int32_t batch, std::uint64_t bytes, double opsPerByte) {
  if (opsPerByte <= 0 || bytes == 0) return;
  // Fork-join: the batch is split evenly over the workers, the submit thread waits for all.
  const bool pre = kind == OpKind::Preprocess;
  double cost = cpuStageNs(profile_, bytes, opsPerByte, cfg_.cpuWorkers, pre);
  if (isManagedMemory()) {
    // The CPU touching managed pages that live on the device faults them over first.
    ManagedPages& pages = managedPages(batch);
    if (pre) {
      if (pages.inputOnDevice) cost += managedFaultNs(profile_, bytes_.in, ManagedTouch::CpuWrite);
      pages.inputOnDevice = false;
    } else {
      cost += managedFaultNs(profile_, bytes - std::min(bytes, pages.outputBytesOnHost), ManagedTouch::CpuRead);
      pages.outputBytesOnHost = std::max(pages.outputBytesOnHost, bytes);
    }
  }
  // The submit thread wakes the workers (half the hand-off), they run side by side,
  // the last one wakes the submit thread (the other half).
  const double handoff = cpuStageHandoffNs(profile_, cfg_.cpuWorkers);
  const double start = hostT_ + handoff / 2;
  const std::uint64_t share = bytes / std::uint64_t(cfg_.cpuWorkers);
  for (int w = 0; w < cfg_.cpuWorkers; ++w) {
    Op op;
    op.kind = kind;
    op.lane = workerLane(w);
    op.batch = batch;
    op.bytes = w + 1 == cfg_.cpuWorkers ? bytes - share * std::uint64_t(cfg_.cpuWorkers - 1) : share;
    op.submit = op.ready = op.start = ns(start);
    op.end = ns(start + cost);
    trace_.ops().append(op);
  }
  hostT_ += cost + handoff;
}

Simulator::ManagedPages& Simulator::managedPages(std::int32_t batch) {
  // Managed buffers are host buffers: one pair per host slot, as the backend has them.
  return managed_[std::size_t(batch % std::max(cfg_.hostSlots(), 1))];
}

bool Simulator::isManagedMemory() const {
  return cfg_.memory == HostMemory::Managed || cfg_.memory == HostMemory::ManagedPrefetch;
}

void Simulator::apiCall(std::uint16_t name, double cost, std::uint32_t correlation) {
  Op op;
  op.kind = OpKind::ApiCall;
  op.lane = submitLane_;
  op.name = name;
  op.correlation = correlation;
  op.submit = op.ready = op.start = ns(hostT_);
  op.end = ns(hostT_ + cost);
  trace_.ops().append(op);
  hostT_ += cost;
}

void Simulator::hostWait(std::uint64_t opId, std::uint16_t name) {
  gpu_.runUntilDone(opId);
  const double signal = gpu_.op(opId).signal;
  const double end = std::max(hostT_, signal + wakeNs(signal - hostT_));
  if (end > hostT_) {
    Op op;
    op.kind = OpKind::HostSync;
    op.lane = submitLane_;
    op.name = name;
    op.submit = op.ready = op.start = ns(hostT_);
    op.end = ns(end);
    trace_.ops().append(op);
  }
  hostT_ = end;
  lastWaited_ = opId;
}

std::uint64_t Simulator::issueGpu(const GpuCommand& cmd, std::int32_t batch, std::uint64_t bytes, std::uint16_t name,
                                  std::uint8_t flags, std::uint16_t apiName, double apiCost) {
  const std::uint64_t id = gpu_.nextId();
  const auto stream = std::size_t(cmd.stream);
  if (stream >= streamLanes_.size() || streamLanes_[stream] == kNoLane) streamLane(cmd.stream);
  if (apiName != 0) apiCall(apiName, apiCost, std::uint32_t(id + 1));
  gpu_.submit(cmd, hostT_);
  hostT_ += profile_.hostOpOverheadNs;  // the tool's own bookkeeping after the call
  meta_.push_back(OpMeta{batch, bytes, name, flags});
  streamLastOp_[std::size_t(cmd.stream)] = id;
  return id;
}

std::uint64_t Simulator::issueCopy(OpKind kind, std::int32_t batch, int stream, std::uint64_t bytes,
                                   bool hostBlocking) {
  const CopyDirection dir = kind == OpKind::CopyH2D ? CopyDirection::H2D : CopyDirection::D2H;
  const bool pageable = cfg_.memory == HostMemory::Pageable;
  GpuCommand cmd;
  cmd.kind = kind;
  cmd.stream = stream;
  cmd.engine = kind == OpKind::CopyH2D ? EngineId::H2D : EngineId::D2H;
  // Every batch copies the same sizes: remember the last cost per direction (the
  // curve's log-interpolation was a hot spot).
  CopyCost& cache = copyCache_[dir == CopyDirection::H2D ? 0 : 1];
  const bool blockingCall = !cfg_.isAsync();
  if (cache.bytes != bytes || cache.pageable != pageable) {
    const CopyPath path{.dir = dir,
                        .pageable = pageable,
                        .blocking = blockingCall,
                        .rotating = bytes_.rotatingHost,
                        .cpuWritten = bytes_.cpuWritesInput};
    cache = {bytes, pageable, copySoloNs(profile_, path, bytes), copyGBps(profile_, path, bytes)};
  }
  cmd.soloNs = cache.soloNs;
  cmd.gbps = cache.gbps;
  std::uint8_t flags = pageable ? kOpPageable : 0;
  if (blockingCall) flags |= kOpBlockingCall;
  const std::uint64_t id = issueGpu(cmd, batch, bytes, 0, flags, blockingCall ? names_.memcpy : names_.memcpyAsync,
                                    blockingCall ? profile_.memcpySyncCallNs : profile_.memcpyAsyncCallNs);
  // A blocking cudaMemcpy, and a cudaMemcpyAsync from pageable memory, return only
  // once the copy is done.
  if (hostBlocking) hostWait(id, names_.memcpyWait);
  return id;
}

void Simulator::issueAsyncStage(Stage stage, std::int32_t batch, int stream) {
  const bool blockingCopies = !cfg_.isAsync() || cfg_.memory == HostMemory::Pageable;
  const auto s = std::size_t(stream);
  const bool resident = cfg_.residency == DataResidency::KeepResident && streamHasData_[s];
  switch (stage) {
    case Stage::H2D: {
      if (resident || cfg_.memory == HostMemory::Mapped || cfg_.memory == HostMemory::Managed) return;
      if (cfg_.memory == HostMemory::ManagedPrefetch) {
        // Pages already on the device make the prefetch a no-op.
        ManagedPages& pages = managedPages(batch);
        // (a nanosecond, so the op still has an extent on the timeline).
        // A no-op moves nothing over the link: it must not take a share of the
        // bidirectional cap (its bytes over 1 ns claimed ~100 TB/s and slowed every
        // copy beside it a thousandfold).
        const bool moves = !pages.inputOnDevice;
        const double t = moves ? prefetchNs(profile_, bytes_.in, true) : 1.0;
        pages.inputOnDevice = true;
        GpuCommand cmd{OpKind::CopyH2D, stream, EngineId::H2D, t, moves ? double(bytes_.in) / std::max(t, 1.0) : 0.0};
        issueGpu(cmd, batch, bytes_.in, names_.prefetchIn, kOpManaged, names_.prefetchCall, profile_.memcpyAsyncCallNs);
        streamHasData_[s] = true;
        return;
      }
      const std::uint64_t total = bytes_.in;
      const auto chunks = std::uint64_t(cfg_.transferChunks);
      for (std::uint64_t c = 0; c < chunks; ++c) {
        const std::uint64_t bytes = c + 1 == chunks ? total - (total / chunks) * (chunks - 1) : total / chunks;
        if (bytes > 0) issueCopy(OpKind::CopyH2D, batch, stream, bytes, blockingCopies);
      }
      return;
    }
    case Stage::Kernels: issueKernels(batch, stream); return;
    case Stage::D2H: {
      const std::uint64_t total = bytes_.d2h;
      if (cfg_.memory == HostMemory::Mapped || cfg_.memory == HostMemory::Managed || total == 0) return;
      if (cfg_.memory == HostMemory::ManagedPrefetch) {
        ManagedPages& pages = managedPages(batch);
        const std::uint64_t moving = total - std::min(total, pages.outputBytesOnHost);
        const double t = moving > 0 ? prefetchNs(profile_, moving, false) : 1.0;
        pages.outputBytesOnHost = std::max(pages.outputBytesOnHost, total);
        GpuCommand cmd{OpKind::CopyD2H, stream, EngineId::D2H, t, double(moving) / std::max(t, 1.0)};
        issueGpu(cmd, batch, total, names_.prefetchOut, kOpManaged, names_.prefetchCall, profile_.memcpyAsyncCallNs);
        return;
      }
      const auto chunks = std::uint64_t(cfg_.transferChunks);
      for (std::uint64_t c = 0; c < chunks; ++c) {
        const std::uint64_t bytes = c + 1 == chunks ? total - (total / chunks) * (chunks - 1) : total / chunks;
        if (bytes > 0) issueCopy(OpKind::CopyD2H, batch, stream, bytes, blockingCopies);
      }
      return;
    }
  }
}

void Simulator::issueKernels(std::int32_t batch, int stream) {
  // The kernels of one batch, as the CUDA backend launches them: normalize, then the
  // custom model kernel, or the GEMM layers of a cuBLAS preset and their head kernel.
  struct Planned {
    std::uint16_t name, apiName;
    double apiCost, ns;
    std::uint64_t bytes;  // what the backend records: the data the kernel works on
    LinkKind link = LinkKind::None;  // bound by the host link: overlaps other streams' such kernels
  };
  Planned kernels[2 + 16];
  std::size_t count = 0;
  if (cfg_.normalizeKernel)
    kernels[count++] = {names_.normalize, names_.launch, profile_.kernelLaunchNs,
                        normalizeKernelNs(profile_, bytes_.in), bytes_.in};
  const GemmShape g = gemmShape(cfg_.model);
  if (g.width == 0) {
    kernels[count++] = {names_.model, names_.launch, profile_.kernelLaunchNs, modelKernelNs(profile_, cfg_), bytes_.in};
  } else {
    const std::uint64_t rows = gemmRows(cfg_);
    const double gemmNs = gemmLayerNs(profile_, cfg_.model, rows);
    const double call = gemmCallNs(profile_, cfg_.model);
    const std::uint64_t activations = rows > 0 ? rows * std::uint64_t(g.width) * 4 : bytes_.in;
    for (int l = 0; l < g.layers && rows > 0; ++l)
      kernels[count++] = {names_.gemm, names_.gemmCall, call, gemmNs, activations};
    kernels[count++] = {names_.head, names_.launch, profile_.kernelLaunchNs,
                        headKernelNs(profile_, activations, bytes_.out), bytes_.out};
  }
  const auto s = std::size_t(stream);
  std::uint8_t flags = 0;
  Planned& first = kernels[0];
  Planned& last = kernels[count - 1];
  if (cfg_.memory == HostMemory::Mapped) {
    // Zero-copy: the first kernel reads the input and the last writes the output over
    // PCIe; one kernel doing both reads and writes at once, each direction at its own
    // rate, the two together within the link's duplex rate for kernels.
    flags = kOpMapped;
    const double read = double(bytes_.in) / mappedReadGBps(profile_, bytes_.in, bytes_.cpuWritesInput);
    const double write =
        double(bytes_.out) / (profile_.mappedWriteGBps > 0 ? profile_.mappedWriteGBps : profile_.mappedReadGBps);
    const double firstCompute = first.ns, lastCompute = last.ns;
    first.ns = std::max(first.ns, read);
    last.ns = std::max(last.ns, write);
    if (count == 1 && profile_.mappedDuplexGBps > 0)
      first.ns = std::max(first.ns, double(bytes_.in + bytes_.out) / profile_.mappedDuplexGBps);
    // A kernel the link holds back (longer than its own work) overlaps other streams' ones.
    if (!profile_.mappedStreamsSpeedup.empty()) {
      if (first.ns > firstCompute) first.link = LinkKind::Mapped;
      if (last.ns > lastCompute) last.link = LinkKind::Mapped;
    }
  } else if (isManagedMemory()) {
    // Pages the host touched last are faulted over by the kernel that touches them first.
    flags = kOpManaged;
    ManagedPages& pages = managedPages(batch);
    const double faultIn = pages.inputOnDevice ? 0.0 : managedFaultNs(profile_, bytes_.in, ManagedTouch::Kernel);
    const double faultOut = managedFaultNs(profile_, pages.outputBytesOnHost, ManagedTouch::Kernel);
    first.ns += faultIn;
    last.ns += faultOut;
    // Faulting kernels of several streams overlap (the driver serves their faults together).
    if (!profile_.managedFaultStreamsSpeedup.empty()) {
      if (faultIn > 0) first.link = LinkKind::ManagedFault;
      if (faultOut > 0) last.link = LinkKind::ManagedFault;
    }
    pages.inputOnDevice = true;
    pages.outputBytesOnHost = 0;
  }
  for (std::size_t k = 0; k < count; ++k) {
    GpuCommand cmd;
    cmd.kind = OpKind::Kernel;
    cmd.stream = stream;
    cmd.engine = kernels[k].link == LinkKind::None ? EngineId::Compute : EngineId::Link;
    cmd.link = kernels[k].link;
    cmd.soloNs = kernels[k].ns;
    issueGpu(cmd, batch, kernels[k].bytes, kernels[k].name, flags, kernels[k].apiName, kernels[k].apiCost);
  }
  streamHasData_[s] = true;
}

void Simulator::runBlockingBatch(std::int32_t batch) {
  cpuStage(OpKind::Preprocess, batch, bytes_.in, cfg_.preprocessOpsPerByte);
  issueAsyncStage(Stage::H2D, batch, 0);
  issueAsyncStage(Stage::Kernels, batch, 0);
  issueAsyncStage(Stage::D2H, batch, 0);
  // Without a blocking copy back (zero-copy, managed) the host synchronises the device.
  if (lastWaited_ != streamLastOp_[0]) hostWait(streamLastOp_[0], names_.deviceSync);
  hostT_ += profile_.hostBatchOverheadNs;
  cpuStage(OpKind::Postprocess, batch, bytes_.d2h, cfg_.postprocessOpsPerByte);
  ++completed_;
}

void Simulator::finishIssuing(std::int32_t batch, int stream) {
  // The CUDA backend records one event per batch after its D2H and later waits on it.
  apiCall(names_.eventRecord, profile_.eventRecordNs, 0);
  inFlight_.push_back(InFlightBatch{batch, stream, streamLastOp_[std::size_t(stream)]});
}

void Simulator::retireOldest() {
  const InFlightBatch b = inFlight_.front();
  hostWait(b.lastOp, names_.eventSync);
  hostT_ += profile_.hostBatchOverheadNs;
  inFlight_.pop_front();
  cpuStage(OpKind::Postprocess, b.batch, bytes_.d2h, cfg_.postprocessOpsPerByte);
  ++completed_;
}

void Simulator::drain() {
  while (!inFlight_.empty()) retireOldest();
}

void Simulator::flushDoneOps() {
  while (flushed_ < gpu_.nextId()) {
    const GpuOpState& s = gpu_.op(flushed_);
    if (!s.done()) break;
    const OpMeta& m = meta_.front();
    Op op;
    op.kind = s.cmd.kind;
    op.submit = ns(s.submit);
    op.ready = ns(s.ready);
    op.start = ns(s.start);
    op.end = ns(s.end);
    op.bytes = m.bytes;
    op.batch = m.batch;
    op.correlation = std::uint32_t(flushed_ + 1);
    op.lane = streamLanes_[std::size_t(s.cmd.stream)];  // created when the op was issued
    op.engineLane = engineLanes_[s.engineSlot];
    op.name = m.name;
    op.stream = std::int16_t(s.cmd.stream);
    op.flags = m.flags;
    trace_.ops().append(op);
    meta_.pop_front();
    ++flushed_;
  }
  // Keep the ops the host may still wait on (the end of each in-flight batch).
  gpu_.forgetBefore(inFlight_.empty() ? flushed_ : std::min(flushed_, inFlight_.front().lastOp));
}

void Simulator::publishCompleted() {
  if (completed_ == publishedCompleted_) return;
  trace_.setCompletedBatches(completed_);  // takes the trace's lock: once per publication, not per batch
  publishedCompleted_ = completed_;
}

void Simulator::publishBatch() {
  flushDoneOps();
  publishCompleted();
  trace_.ops().publish();
  if (slowdown_ <= 0) return;
  // Pace publication so simulated time maps onto wall time (the live view).
  const auto target = wallStart_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       std::chrono::duration<double, std::nano>(hostT_ * slowdown_));
  while (!control_.stopRequested()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= target) break;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(target - now, std::chrono::milliseconds(10)));
  }
}

void Simulator::startConfig(const PipelineConfig& config) {
  cfg_ = config;
  bytes_ = {cfg_.batchBytes(), cfg_.outputBytes(), cfg_.d2hBytes(), copiesRotateHostBuffers(cfg_),
            cfg_.preprocessOpsPerByte > 0};
  copyCache_[0] = copyCache_[1] = CopyCost{};
  streamHasData_.assign(std::size_t(limits::kMaxStreams), false);
  // Every managed buffer starts on the host: the backend touches it once at allocation.
  managed_.assign(std::size_t(std::max(cfg_.hostSlots(), 1)), ManagedPages{false, bytes_.out});
  if (streamLastOp_.size() < std::size_t(limits::kMaxStreams))
    streamLastOp_.resize(std::size_t(limits::kMaxStreams), 0);
  for (int s = 0; s < cfg_.streams; ++s) streamLane(s);
  if (cfg_.preprocessOpsPerByte > 0 || cfg_.postprocessOpsPerByte > 0)
    for (int w = 0; w < cfg_.cpuWorkers; ++w) workerLane(w);
}

std::string Simulator::invalidMessage(const PipelineConfig& config) {
  std::string message;
  for (const auto& issue : validate(config)) message += (message.empty() ? "" : "; ") + issue.message();
  return message;
}

RunOutcome Simulator::run(const PipelineConfig& config) {
  if (auto problem = invalidMessage(config); !problem.empty())
    return {RunState::Failed, "invalid configuration: " + problem};
  setupLanes();
  startConfig(config);
  wallStart_ = std::chrono::steady_clock::now();
  std::int32_t batch = 0;
  bool stopped = false;
  while (cfg_.batchCount == 0 || batch < cfg_.batchCount) {
    if (control_.stopRequested()) {
      stopped = true;
      break;
    }
    if (auto next = control_.takePendingConfig()) {
      if (auto problem = invalidMessage(*next); !problem.empty()) {
        drain();
        publishBatch();
        return {RunState::Failed, "invalid configuration change at batch " + std::to_string(batch) + ": " + problem};
      }
      drain();
      trace_.addConfigChange(batch, *next);
      startConfig(*next);
      continue;
    }
    if (!cfg_.isAsync()) {
      runBlockingBatch(batch);
      ++batch;
    } else if (cfg_.order == IssueOrder::DepthFirst) {
      const int stream = batch % cfg_.streams;
      // Each batch in flight owns a host input and output buffer, two per stream
      // (PipelineConfig::hostSlots, as the CUDA backend allocates): batch b reuses the
      // buffers of batch b - 2·streams, so the host waits for that one, not b - streams.
      if (int(inFlight_.size()) >= cfg_.hostSlots()) retireOldest();
      cpuStage(OpKind::Preprocess, batch, bytes_.in, cfg_.preprocessOpsPerByte);
      issueAsyncStage(Stage::H2D, batch, stream);
      issueAsyncStage(Stage::Kernels, batch, stream);
      issueAsyncStage(Stage::D2H, batch, stream);
      finishIssuing(batch, stream);
      ++batch;
    } else {
      int group = cfg_.streams;
      if (cfg_.batchCount > 0) group = std::min(group, cfg_.batchCount - batch);
      for (int j = 0; j < group; ++j) {
        // Batch batch+j reuses the host buffers of the batch 2·streams earlier: every
        // batch of the group before the previous one is retired before this group is
        // issued (as the CUDA backend does).
        if (int(inFlight_.size()) + j >= cfg_.hostSlots()) retireOldest();
        cpuStage(OpKind::Preprocess, batch + j, bytes_.in, cfg_.preprocessOpsPerByte);
      }
      for (Stage stage : {Stage::H2D, Stage::Kernels, Stage::D2H})
        for (int j = 0; j < group; ++j) issueAsyncStage(stage, batch + j, (batch + j) % cfg_.streams);
      for (int j = 0; j < group; ++j) finishIssuing(batch + j, (batch + j) % cfg_.streams);
      batch += group;
    }
    publishBatch();
  }
  if (stopped) {
    // Work already issued still runs on the device; record it so nothing issued is lost.
    gpu_.runAll();
    publishBatch();
    return {RunState::Stopped, "stopped after " + std::to_string(completed_) + " batches"};
  }
  drain();
  gpu_.runAll();
  publishBatch();
  return {RunState::Finished, {}};
}

}  // namespace pipescope
