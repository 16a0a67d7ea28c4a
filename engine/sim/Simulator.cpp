#include "sim/Simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <thread>

#include "config/ModelWork.h"
#include "config/RecorderFlush.h"
#include "sim/InterconnectCosts.h"
#include "sim/StageCosts.h"

namespace pipescope {

namespace {

// How much of a pageable H2D copy the driver stages before the DMA starts: 1 MiB (the
// DMA started after 0.9-1.04 MB were staged in every trace of a larger copy).
constexpr std::uint64_t kPageableStagingChunkBytes = 1ull << 20;

// std::llround without the libm call (it was the simulator's hottest function):
// round half away from zero, exact because x - trunc(x) is exact for |x| < 2^52.
std::int64_t ns(double t) {
  const auto r = static_cast<std::int64_t>(t);
  const double frac = t - static_cast<double>(r);
  if (frac >= 0.5) return r + 1;
  if (frac <= -0.5) return r - 1;
  return r;
}

/// `total` split into `parts` pieces: equal shares, the remainder in the last.
std::uint64_t share(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
  return i + 1 == parts ? total - (total / parts) * (parts - 1) : total / parts;
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

std::string Simulator::gpuName(int device) const {
  return "GPU" + std::to_string(ordinals_[std::size_t(device)]);
}

void Simulator::setupLanes() {
  submitLane_ = trace_.lane(LaneKind::HostSubmit, 0, "submit thread");
  gpuLanes_.assign(std::size_t(gpus_), GpuLanes{});
  for (int g = 0; g < gpus_; ++g) {
    // One GPU keeps the names it always had; several say whose engine it is.
    const std::string prefix = gpus_ > 1 ? gpuName(g) + " " : std::string();
    GpuLanes& l = gpuLanes_[std::size_t(g)];
    if (profile_.copyEngines <= 1) {
      l.h2d = l.d2h = trace_.lane(LaneKind::CopyEngine, 0, g, prefix + "copy engine");
    } else {
      l.h2d = trace_.lane(LaneKind::CopyEngineH2D, 0, g, prefix + "H2D copy engine");
      l.d2h = trace_.lane(LaneKind::CopyEngineD2H, 0, g, prefix + "D2H copy engine");
    }
    l.compute = trace_.lane(LaneKind::ComputeEngine, 0, g, prefix + "compute engine");
  }
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
  if (gpus_ > 1) setupMultiGpu();
}

void Simulator::setupMultiGpu() {
  names_.allReduce = trace_.internName("all-reduce");
  names_.ncclAllReduce = trace_.internName("ncclAllReduce");
  names_.streamWaitEvent = trace_.internName("cudaStreamWaitEvent");
  names_.memcpyPeer = trace_.internName("cudaMemcpyPeerAsync");
  names_.activations = trace_.internName("activations");
  linkLanes_.assign(std::size_t(gpus_ * gpus_), kNoLane);
  // Every GPU is this profile's device; each says which ordinal it stands for.
  std::vector<DeviceInfo> devices;
  const DeviceInfo base = trace_.device();
  for (int g = 0; g < gpus_; ++g) {
    DeviceInfo d = base;
    d.ordinal = ordinals_[std::size_t(g)];
    devices.push_back(d);
  }
  trace_.setDevices(std::move(devices));
  if (cfg_.allReduces()) {
    std::string members;
    for (int g = 0; g < gpus_; ++g) members += (g ? ", " : "") + gpuName(g);
    collectiveLane_ = trace_.lane(LaneKind::Collective, 0, kSharedLane, "NCCL all-reduce (" + members + ")");
  }
}

std::uint16_t Simulator::streamLane(int global) {
  const auto s = std::size_t(global);
  if (streamLanes_.size() <= s) streamLanes_.resize(s + 1, kNoLane);
  if (streamLanes_[s] == kNoLane) {
    const int device = global / kStreamsPerGpu, stream = global % kStreamsPerGpu;
    const std::string prefix = gpus_ > 1 ? gpuName(device) + " " : std::string();
    const std::string name = stream == kCommStream ? "NCCL stream" : "stream " + std::to_string(stream);
    streamLanes_[s] = trace_.lane(LaneKind::Stream, stream, device, prefix + name);
  }
  return streamLanes_[s];
}

std::uint16_t Simulator::workerLane(int worker) {
  const auto w = std::size_t(worker);
  if (workerLanes_.size() <= w) workerLanes_.resize(w + 1, kNoLane);
  if (workerLanes_[w] == kNoLane)
    workerLanes_[w] = trace_.lane(LaneKind::HostWorker, worker, "CPU worker " + std::to_string(worker));
  return workerLanes_[w];
}

std::uint16_t Simulator::linkLane(int from, int to) {
  std::uint16_t& lane = linkLanes_[std::size_t(from * gpus_ + to)];
  if (lane == kNoLane) {
    const std::string how = profile_.peerAccess ? profile_.peerLinkName : std::string("via host");
    lane = trace_.lane(LaneKind::PeerLink, to, from, gpuName(from) + "→" + gpuName(to) + " " + how);
  }
  return lane;
}

std::uint16_t Simulator::engineLane(const GpuCommand& cmd) {
  const GpuLanes& l = gpuLanes_[std::size_t(cmd.device)];
  switch (cmd.engine) {
    case EngineId::H2D: return l.h2d;
    case EngineId::D2H: return l.d2h;
    case EngineId::Compute:
    case EngineId::Link:                          // link-bound kernels run on the SMs too
    case EngineId::Collective: return l.compute;  // NCCL's kernels run on the SMs
    case EngineId::PeerLink: return linkLane(cmd.device, cmd.peer);
  }
  return kNoLane;
}

void Simulator::cpuStage(OpKind kind, std::int32_t batch, std::uint64_t bytes, double opsPerByte) {
  if (opsPerByte <= 0 || bytes == 0) return;
  // Fork-join: the batch is split evenly over the workers, the submit thread waits for all.
  const bool pre = kind == OpKind::Preprocess;
  const int workers = cfg_.cpuWorkers;
  const double mean = cpuStageWorkerMeanNs(profile_, bytes, opsPerByte, workers, pre);
  // The last worker ends late (cpuStageLateWorker); the others share the rest so the
  // workers' mean time stays the fitted one, as in the measured traces.
  const double late = cpuStageLateWorkerFactor(profile_, workers);
  const double early = workers > 1 ? mean * (double(workers) - late) / double(workers - 1) : mean;
  double cost = mean * late;
  double extra = 0;  // time every worker spends beside its share
  if (isManagedMemory()) {
    // The CPU touching managed pages that live on the device faults them over first.
    ManagedPages& pages =
        cfg_.isPipelineParallel() ? pipelinePages(batch) : managedPages(batch, gpus_ > 1 ? batch % gpus_ : 0);
    // The workers fault their shares together: faster than one thread, by how much
    // depending on the buffer's size (managedCpu*FaultWorkers).
    if (pre) {
      if (pages.inputOnDevice)
        extra += managedMoveNs(bytes_.in, ManagedTouch::CpuWrite) /
                 managedCpuFaultWorkersSpeedup(profile_, workers, bytes_.in, ManagedTouch::CpuWrite);
      pages.inputOnDevice = false;
    } else {
      const std::uint64_t moved = bytes - std::min(bytes, pages.outputBytesOnHost);
      extra += managedMoveNs(moved, ManagedTouch::CpuRead) /
               managedCpuFaultWorkersSpeedup(profile_, workers, moved, ManagedTouch::CpuRead);
      pages.outputBytesOnHost = std::max(pages.outputBytesOnHost, bytes);
    }
  }
  // The submit thread wakes the workers (half the hand-off), they run side by side,
  // the last one wakes the submit thread (the other half).
  const double handoff = cpuStageHandoffNs(profile_, cfg_.cpuWorkers);
  const double start = hostT_ + handoff / 2;
  cost += extra;
  const std::uint64_t part = bytes / std::uint64_t(workers);
  for (int w = 0; w < workers; ++w) {
    Op op;
    op.kind = kind;
    op.lane = workerLane(w);
    op.batch = batch;
    const bool last = w + 1 == workers;
    op.bytes = last ? bytes - part * std::uint64_t(workers - 1) : part;
    op.submit = op.ready = op.start = ns(start);
    op.end = ns(start + (last ? cost : early + extra));
    trace_.ops().append(op);
  }
  hostT_ += cost + handoff;
  // The submit thread's next CUDA call runs with the driver's state cold after the
  // stage's memory traffic.
  AfterStageCost& after = afterStageCache_[pre ? 0 : 1];
  if (after.bytes != bytes) after = {bytes, callAfterCpuStageNs(profile_, bytes)};
  callAfterStageNs_ = after.ns;
}

Simulator::ManagedPages& Simulator::managedPages(std::int32_t batch, int device) {
  // Managed buffers are host buffers: one pair per host slot of each GPU, as the
  // backend has them; a GPU's batches take its slots in turn.
  const int slots = std::max(cfg_.hostSlots(), 1);
  const std::int32_t local = gpus_ > 1 ? batch / gpus_ : batch;
  return managed_[std::size_t(device * slots + local % slots)];
}

Simulator::ManagedPages& Simulator::pipelinePages(std::int32_t batch) {
  // Pipeline parallel: one host slot per batch in flight, whichever GPUs its stages use.
  return managed_[std::size_t(batch % std::max(cfg_.hostSlots(), 1))];
}

double Simulator::managedMoveNs(std::uint64_t bytes, ManagedTouch touch) const {
  // The fault curves are one buffer's; the pipeline's slots take turns (managedSlotsSlowdown).
  return managedFaultNs(profile_, bytes, touch) *
         (touch == ManagedTouch::Kernel ? managedSlotsFactor_ : managedSlotsCpuFactor_);
}

bool Simulator::isManagedMemory() const {
  return cfg_.memory == HostMemory::Managed || cfg_.memory == HostMemory::ManagedPrefetch;
}

double Simulator::callSwitchNs(std::uint16_t name, std::uint32_t kindKey) {
  // Over several GPUs a copy call right after a call of another kind costs more than
  // in a run of copies (docs/simulator.md); any call ends a run, a copy in the other
  // direction too.
  const std::uint32_t key = kindKey != 0 ? kindKey : std::uint32_t(name) << 2;
  const bool switched = key != lastCallKind_;
  lastCallKind_ = key;
  if (!switched || gpus_ <= 1 || profile_.multiGpuCopySwitchNs <= 0) return 0;
  const bool copy =
      name == names_.memcpyAsync || name == names_.memcpy || name == names_.prefetchCall || name == names_.memcpyPeer;
  return copy ? profile_.multiGpuCopySwitchNs : 0;
}

void Simulator::apiCall(std::uint16_t name, double cost, std::uint32_t correlation, std::uint32_t kindKey) {
  cost += callSwitchNs(name, kindKey);
  cost += callAfterStageNs_;
  callAfterStageNs_ = 0;
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

void Simulator::continueApiCall(std::uint16_t name, double cost) { apiCall(name, cost, 0, lastCallKind_); }

void Simulator::hostWait(std::uint64_t opId, std::uint16_t name, bool sleeps) {
  gpu_.runUntilDone(opId);
  const double signal = gpu_.op(opId).signal;
  const double wake = sleeps && cfg_.sync == SyncMode::Blocking && profile_.syncSleepWakeNs > 0
                          ? profile_.syncSleepWakeNs
                          : wakeNs(signal - hostT_);
  // A sync call that finds its work done still costs its return (syncReturnNs): the
  // backend calls one per retired batch, waiting or not.
  const double returnNs = name == names_.eventSync || name == names_.deviceSync ? profile_.syncReturnNs : 0.0;
  const double end = std::max(hostT_ + returnNs, signal + wake);
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
                                  std::uint8_t flags, std::uint16_t apiName, double apiCost, double stageOutNs,
                                  double callRestNs) {
  const std::uint64_t id = gpu_.nextId();
  const auto stream = std::size_t(cmd.stream);
  if (stream >= streamLanes_.size() || streamLanes_[stream] == kNoLane) streamLane(cmd.stream);
  if (apiName != 0)
    apiCall(apiName, apiCost, std::uint32_t(id + 1),
            (std::uint32_t(apiName) << 2) | (cmd.kind == OpKind::CopyD2H ? 1u : 0u));
  gpu_.submit(cmd, hostT_);
  if (callRestNs > 0) continueApiCall(apiName, callRestNs);
  meta_.push_back(OpMeta{batch, bytes, name, flags, 0});
  streamLastOp_[stream] = id;
  if (stageOutNs > 0) copyOutOfStaging(id, stageOutNs);
  if (gpuOpsIssued_++ == 0) lastRecorderFlushT_ = hostT_;  // the flushes count from the run's first op
  hostT_ += profile_.hostOpOverheadNs;  // the tool's own bookkeeping after the call
  hostT_ += multiGpuOpOverheadNs_;
  return id;
}

void Simulator::copyOutOfStaging(std::uint64_t opId, double stagingNs) {
  // The call waits inside the driver for its DMA as a sync in the context's mode does
  // (a 14-21 KiB copy spent 17-20 us after its DMA with blocking sync, 5 us with
  // yield, on an H200 host), then copies the bytes out.
  hostWait(opId, names_.memcpyWait);
  continueApiCall(names_.memcpyAsync, stagingNs);
}

std::uint64_t Simulator::issueCopy(OpKind kind, std::int32_t batch, int device, int stream, std::uint64_t bytes,
                                   bool hostBlocking) {
  const CopyDirection dir = kind == OpKind::CopyH2D ? CopyDirection::H2D : CopyDirection::D2H;
  const bool pageable = cfg_.memory == HostMemory::Pageable;
  GpuCommand cmd;
  cmd.kind = kind;
  cmd.stream = globalStream(device, stream);
  cmd.engine = kind == OpKind::CopyH2D ? EngineId::H2D : EngineId::D2H;
  cmd.device = device;
  // Every batch copies the same sizes: remember the last cost per direction (the
  // curve's log-interpolation was a hot spot).
  CopyCost& cache = copyCache_[dir == CopyDirection::H2D ? 0 : 1];
  const bool blockingCall = !cfg_.isAsync();
  // cudaMemcpyAsync with pageable memory copies the bytes through the driver's pinned
  // staging buffer inside the call, when the profile measured that: the DMA itself
  // moves pinned bytes (at the pinned rate; the trace shows no CPU-written slowdown).
  const bool staged = pageable && !blockingCall && stagesPageableCopiesOnHost(profile_, dir);
  // A blocking cudaMemcpy from pageable memory to the device returns once the bytes
  // are in the driver's staging buffer, as the async one does (CUDA's documented
  // behaviour): in all 68 pageable rows of five H200 sets, blocking and async, the H2D
  // DMA ended 0-21 us after its call had returned. So the host waits for no DMA and
  // wakes up from no sleep: the call lasts as long as the blocking pageable curve's
  // copy (calibrated from such calls' host time).
  const bool stagedBlocking = pageable && blockingCall && dir == CopyDirection::H2D;
  const bool toDevice = dir == CopyDirection::H2D;
  if (cache.bytes != bytes || cache.pageable != pageable) {
    const CopyPath path{.dir = dir,
                        .pageable = pageable && !staged,
                        .blocking = blockingCall,
                        .rotating = bytes_.rotatingHost,
                        .cpuWritten = bytes_.cpuWritesInput && !staged,
                        .footprintBytes = dir == CopyDirection::H2D ? bytes_.in : bytes_.d2h};
    // A staged copy's DMA moves pinned bytes at the engine's own rate.
    const CopyPath dma{.dir = dir, .footprintBytes = path.footprintBytes};
    if (stagedBlocking) {
      cache = {bytes, pageable, copySoloNs(profile_, dma, bytes), copyGBps(profile_, dma, bytes),
               copySoloNs(profile_, path, bytes)};
    } else {
      cache = {bytes, pageable, copySoloNs(profile_, path, bytes), copyGBps(profile_, path, bytes),
               staged ? pageableStagingNs(profile_, dir, bytes) : 0.0};
    }
    if ((staged || stagedBlocking) && toDevice && bytes > kPageableStagingChunkBytes) {
      // The driver stages 1 MiB at a time: the first chunk's DMA starts while the call
      // stages the rest, and the last chunk's DMA ends after the call returns. CUPTI
      // records one copy over all of it (rows of 1.06-83 MB: the DMA started once
      // 0.9-1.04 MB were staged, and lasted until the call's last chunk had moved).
      const double first = cache.stagingNs * double(kPageableStagingChunkBytes) / double(bytes);
      const std::uint64_t lastChunk = (bytes - 1) % kPageableStagingChunkBytes + 1;
      cache.stagingAfterDmaStartNs = cache.stagingNs - first;
      cache.soloNs = std::max(cache.soloNs, cache.stagingAfterDmaStartNs + copySoloNs(profile_, dma, lastChunk));
      cache.gbps = double(bytes) / cache.soloNs;
    }
  }
  cmd.soloNs = cache.soloNs;
  cmd.gbps = cache.gbps;
  std::uint8_t flags = pageable ? kOpPageable : 0;
  if (blockingCall) flags |= kOpBlockingCall;
  // Staged H2D: the call returns once the bytes are staged, the DMA starts then (after
  // the first chunk for a larger copy). Staged D2H: the call returns once the DMA is
  // done and the bytes copied out.
  const bool stagedIn = (staged || stagedBlocking) && toDevice;
  const double call = (blockingCall ? profile_.memcpySyncCallNs : profile_.memcpyAsyncCallNs) +
                      (stagedIn ? cache.stagingNs - cache.stagingAfterDmaStartNs : 0.0);
  const std::uint64_t id = issueGpu(cmd, batch, bytes, 0, flags, blockingCall ? names_.memcpy : names_.memcpyAsync,
                                    call, staged && !toDevice ? std::max(cache.stagingNs, 1e-9) : 0.0,
                                    stagedIn ? cache.stagingAfterDmaStartNs : 0.0);
  // A blocking cudaMemcpy (but the staged pageable H2D above), and (without a staging
  // curve) a cudaMemcpyAsync from pageable memory, return only once the copy is done.
  const bool sleeps = profile_.memcpySyncSleeps || (pageable && profile_.pageableMemcpySyncSleeps);
  if (hostBlocking && !staged && !stagedBlocking) hostWait(id, names_.memcpyWait, blockingCall && sleeps);
  return id;
}

void Simulator::issueCopies(OpKind kind, std::int32_t batch, int device, int stream, std::uint64_t total,
                            bool hostBlocking) {
  const auto chunks = std::uint64_t(cfg_.transferChunks);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const std::uint64_t bytes = share(total, chunks, c);
    if (bytes > 0) issueCopy(kind, batch, device, stream, bytes, hostBlocking);
  }
}

void Simulator::issuePrefetch(OpKind kind, std::int32_t batch, int device, int stream, std::uint64_t bytes,
                              std::uint64_t moving) {
  // A prefetch of pages already where it sends them is a no-op: a nanosecond, so the
  // op still has an extent on the timeline, and no bytes over the link (its bytes over
  // 1 ns would claim ~100 TB/s of the bidirectional cap and slow every copy beside it).
  const bool toDevice = kind == OpKind::CopyH2D;
  const double t = moving > 0 ? prefetchNs(profile_, moving, toDevice) * managedSlotsFactor_ : 1.0;
  GpuCommand cmd;
  cmd.kind = kind;
  cmd.stream = globalStream(device, stream);
  cmd.engine = toDevice ? EngineId::H2D : EngineId::D2H;
  cmd.soloNs = t;
  cmd.gbps = double(moving) / std::max(t, 1.0);
  cmd.device = device;
  // Pages going back to the host behind the kernel that wrote them: the driver moves
  // them only once it sees that kernel done (the wait shows before the DMA in the
  // traces of every managed-prefetch row).
  if (!toDevice && moving > 0) cmd.afterKernelNs = profile_.prefetchAfterKernelNs;
  issueGpu(cmd, batch, bytes, toDevice ? names_.prefetchIn : names_.prefetchOut, kOpManaged, names_.prefetchCall,
           profile_.memcpyAsyncCallNs);
}

void Simulator::issueAsyncStage(Stage stage, std::int32_t batch, int device, int stream) {
  const bool blockingCopies = !cfg_.isAsync() || cfg_.memory == HostMemory::Pageable;
  const auto s = std::size_t(globalStream(device, stream));
  const bool resident = cfg_.residency == DataResidency::KeepResident && streamHasData_[s];
  switch (stage) {
    case Stage::H2D: {
      if (resident || cfg_.memory == HostMemory::Mapped || cfg_.memory == HostMemory::Managed) return;
      if (cfg_.memory == HostMemory::ManagedPrefetch) {
        // Pages already on the device make the prefetch a no-op.
        ManagedPages& pages = managedPages(batch, device);
        issuePrefetch(OpKind::CopyH2D, batch, device, stream, bytes_.in, pages.inputOnDevice ? 0 : bytes_.in);
        pages.inputOnDevice = true;
        streamHasData_[s] = true;
        return;
      }
      issueCopies(OpKind::CopyH2D, batch, device, stream, bytes_.in, blockingCopies);
      return;
    }
    case Stage::Kernels: {
      // Data parallel with an all-reduce: a step's kernels wait for the step before
      // it to have reduced its gradients (the optimizer step needs them).
      const std::uint64_t after = cfg_.allReduces() ? lastCollective_[std::size_t(device)] : kNoGpuOp;
      if (after != kNoGpuOp) apiCall(names_.streamWaitEvent, profile_.eventRecordNs, 0);
      planKernels(batchWork());
      issueKernels(batch, device, stream, after);
      streamHasData_[s] = true;
      if (cfg_.allReduces()) {
        // The kernel each bucket follows (config/ModelWork.h).
        auto& follows = bucketAfter_[std::size_t(device)];
        follows.clear();
        const int buckets = std::max(1, cfg_.buckets), model = int(modelKernelIds_.size());
        for (int b = 0; b < buckets; ++b)
          follows.push_back(modelKernelIds_[std::size_t(bucketAfterModelKernel(b, cfg_.buckets, model))]);
      }
      return;
    }
    case Stage::D2H: {
      const std::uint64_t total = bytes_.d2h;
      if (cfg_.memory == HostMemory::Mapped || cfg_.memory == HostMemory::Managed || total == 0) return;
      if (cfg_.memory == HostMemory::ManagedPrefetch) {
        ManagedPages& pages = managedPages(batch, device);
        issuePrefetch(OpKind::CopyD2H, batch, device, stream, total, total - std::min(total, pages.outputBytesOnHost));
        pages.outputBytesOnHost = std::max(pages.outputBytesOnHost, total);
        return;
      }
      issueCopies(OpKind::CopyD2H, batch, device, stream, total, blockingCopies);
      return;
    }
  }
}

Simulator::KernelWork Simulator::batchWork() const {
  KernelWork w;
  w.in = bytes_.in;
  w.out = bytes_.out;
  w.normalize = cfg_.normalizeKernel;
  w.customFlopsPerByte = cfg_.modelFlopsPerByte;
  w.customPieces = customModelPieces(cfg_);
  w.endLayer = gemmShape(cfg_.model).layers;
  w.head = true;
  return w;
}

Simulator::KernelWork Simulator::stageWork(int stage, std::uint64_t in, std::uint64_t out) const {
  // Pipeline parallel (config/ModelWork.h): normalize on the first stage, the head on
  // the last, the GEMM layers split between the stages, the custom model's work too.
  KernelWork w;
  w.in = in;
  w.out = out;
  w.normalize = cfg_.normalizeKernel && stage == 0;
  w.customFlopsPerByte = cfg_.modelFlopsPerByte / gpus_;
  const LayerRange layers = stageLayers(stage, gpus_, gemmShape(cfg_.model).layers);
  w.firstLayer = layers.first;
  w.endLayer = layers.end;
  w.head = stage + 1 == gpus_;
  return w;
}

void Simulator::planKernels(const KernelWork& w) {
  // The kernels as the CUDA backend launches them: normalize, then the custom model
  // kernel (in pieces), or the GEMM layers of a cuBLAS preset and their head kernel.
  planned_.clear();
  if (w.normalize)
    planned_.push_back({names_.normalize, names_.launch, profile_.kernelLaunchNs, normalizeKernelNs(profile_, w.in), w.in,
                        false});
  const GemmShape g = gemmShape(cfg_.model);
  if (g.width == 0) {
    const double piece = w.customFlopsPerByte / w.customPieces;
    for (int p = 0; p < w.customPieces; ++p) {
      const ModelKernelTime kernel = customModelKernelTime(profile_, w.in, w.out, piece);
      planned_.push_back({names_.model, names_.launch, profile_.kernelLaunchNs, kernel.ns, w.in, true});
      planned_.back().tailNs = kernel.tailNs;
    }
  } else {
    const std::uint64_t rows = w.in / 4 / std::uint64_t(g.width);
    const double gemmNs = gemmLayerNs(profile_, cfg_.model, rows);
    const double call = gemmCallNs(profile_, cfg_.model);
    const std::uint64_t activations = rows > 0 ? rows * std::uint64_t(g.width) * 4 : w.in;
    for (int l = w.firstLayer; l < w.endLayer && rows > 0; ++l)
      planned_.push_back({names_.gemm, names_.gemmCall, call, gemmNs, activations, true});
    if (w.head)
      planned_.push_back({names_.head, names_.launch, profile_.kernelLaunchNs,
                          headKernelNs(profile_, activations, w.out), w.out, true});
  }
}

std::uint64_t Simulator::issueKernels(std::int32_t batch, int device, int stream, std::uint64_t after,
                                      const HostBytes* hostBytes) {
  modelKernelIds_.clear();
  if (planned_.empty()) return kNoGpuOp;
  std::uint8_t flags = 0;
  Planned& first = planned_.front();
  Planned& last = planned_.back();
  if (cfg_.memory == HostMemory::Mapped) {
    // Zero-copy: the kernels read the input and write the output over PCIe, each
    // direction at its own rate, a kernel doing both within the link's duplex rate for
    // kernels. As the CUDA backend launches them: the first kernel reads the input
    // (the normalize kernel, or the model); the custom model's pieces (one per bucket)
    // each read it when nothing normalized it onto the device, and each write the whole
    // output; otherwise the last kernel writes it.
    flags = kOpMapped;
    const std::uint64_t in = hostBytes ? hostBytes->in : bytes_.in;
    const std::uint64_t out = hostBytes ? hostBytes->out : bytes_.out;
    const double read = in > 0 ? double(in) / mappedReadGBps(profile_, in, bytes_.cpuWritesInput) : 0.0;
    const double write =
        double(out) / (profile_.mappedWriteGBps > 0 ? profile_.mappedWriteGBps : profile_.mappedReadGBps);
    const bool customPieces = gemmShape(cfg_.model).width == 0;
    const bool modelReadsHost = customPieces && planned_.front().name == names_.model;
    for (std::size_t k = 0; k < planned_.size(); ++k) {
      Planned& kernel = planned_[k];
      const bool piece = customPieces && kernel.name == names_.model;
      const bool reads = k == 0 || (piece && modelReadsHost);
      const bool writes = k + 1 == planned_.size() || piece;
      const double compute = kernel.ns;
      double linkNs = 0;
      if (reads) linkNs = read;
      if (writes) linkNs = std::max(linkNs, write);
      if (reads && writes && profile_.mappedDuplexGBps > 0)
        linkNs = std::max(linkNs, double(in + out) / profile_.mappedDuplexGBps);
      if (reads) kernel.ns = std::max(kernel.ns, read);
      if (writes) kernel.ns = mappedWriteKernelNs(profile_, kernel.ns, write);
      kernel.ns = std::max(kernel.ns, linkNs);
      // A kernel the link holds back (its bytes take longer than its work) overlaps
      // other streams' ones. One whose work is longer keeps the SMs busy and runs one
      // at a time like any compute kernel, even when part of its write shows
      // (mappedWriteOverlap): in an H200 trace six streams' model kernels, each doing
      // 640 us of work and writing 2.4 MiB, never ran two at once (docs/fidelity.md).
      if (!profile_.mappedStreamsSpeedup.empty() && linkNs > compute) kernel.link = LinkKind::Mapped;
      kernel.hostIn = reads ? in : 0;
      kernel.hostOut = writes ? out : 0;
    }
  } else if (isManagedMemory()) {
    // Pages the host touched last are faulted over by the kernel that touches them first.
    flags = kOpManaged;
    std::uint64_t movedIn = 0, movedOut = 0;
    if (hostBytes) {
      // A pipeline stage: the caller worked out which of its pages are on the host.
      movedIn = hostBytes->in;
      movedOut = hostBytes->out;
    } else {
      ManagedPages& pages = managedPages(batch, device);
      movedIn = pages.inputOnDevice ? 0 : bytes_.in;
      movedOut = pages.outputBytesOnHost;
      pages.inputOnDevice = true;
      pages.outputBytesOnHost = 0;
    }
    const double faultIn = managedMoveNs(movedIn, ManagedTouch::Kernel);
    const double faultOut = managedMoveNs(movedOut, ManagedTouch::Kernel);
    first.ns += faultIn;
    last.ns += faultOut;
    // The pages cross the host link towards the GPU either way (the output's too: the
    // kernel faults them in to write them); how much the faults of several streams
    // overlap depends on those bytes too.
    first.hostIn += faultIn > 0 ? movedIn : 0;
    last.hostIn += faultOut > 0 ? movedOut : 0;
    // Faulting kernels of several streams overlap (the driver serves their faults
    // together), by how much depending on the size they fault.
    if (hasManagedFaultOverlap(profile_)) {
      if (faultIn > 0) first.link = LinkKind::ManagedFault;
      if (faultOut > 0) last.link = LinkKind::ManagedFault;
    }
  }
  std::uint64_t id = kNoGpuOp;
  for (std::size_t k = 0; k < planned_.size(); ++k) {
    GpuCommand cmd;
    cmd.kind = OpKind::Kernel;
    cmd.stream = globalStream(device, stream);
    cmd.engine = planned_[k].link == LinkKind::None ? EngineId::Compute : EngineId::Link;
    cmd.link = planned_[k].link;
    cmd.device = device;
    cmd.soloNs = planned_[k].ns;
    // Zero-copy kernels' time is the link's or a blend with it: no wave of their own.
    cmd.tailNs = flags == kOpMapped ? 0.0 : planned_[k].tailNs;
    cmd.hostInBytes = planned_[k].hostIn;
    cmd.hostOutBytes = planned_[k].hostOut;
    if (k == 0) cmd.after = after;
    id = issueGpu(cmd, batch, planned_[k].bytes, planned_[k].name, flags, planned_[k].apiName, planned_[k].apiCost);
    if (planned_[k].model) modelKernelIds_.push_back(id);
  }
  // No model kernel (the custom model at 0 FLOP/B): buckets follow the last kernel.
  if (modelKernelIds_.empty()) modelKernelIds_.push_back(id);
  return id;
}

void Simulator::runBlockingBatch(std::int32_t batch, int device) {
  cpuStage(OpKind::Preprocess, batch, bytes_.in, cfg_.preprocessOpsPerByte);
  issueAsyncStage(Stage::H2D, batch, device, 0);
  issueAsyncStage(Stage::Kernels, batch, device, 0);
  issueAsyncStage(Stage::D2H, batch, device, 0);
  // Without a blocking copy back (zero-copy, managed) the host synchronises the device.
  const std::uint64_t last = streamLastOp_[std::size_t(globalStream(device, 0))];
  if (lastWaited_ != last) hostWait(last, names_.deviceSync);
  retireBookkeeping(gpuOpsIssued_);
  cpuStage(OpKind::Postprocess, batch, bytes_.d2h, cfg_.postprocessOpsPerByte);
  ++completed_;
}

void Simulator::makeRoom(int device) {
  // Each GPU's batches in flight own its host buffers (hostSlots per GPU); the host
  // retires in issue order, so it may retire another GPU's older batch first.
  while (inFlightOn_[std::size_t(device)] >= cfg_.hostSlots()) retireOldest();
}

void Simulator::runDataParallelStep(std::int32_t first, int count) {
  // One step: batch first + g on GPU g, every GPU on the same stream number.
  const int stream = (first / gpus_) % cfg_.streams;
  for (int g = 0; g < count; ++g) {
    makeRoom(g);
    cpuStage(OpKind::Preprocess, first + g, bytes_.in, cfg_.preprocessOpsPerByte);
  }
  if (cfg_.order == IssueOrder::DepthFirst) {
    for (int g = 0; g < count; ++g)
      for (Stage stage : {Stage::H2D, Stage::Kernels, Stage::D2H}) issueAsyncStage(stage, first + g, g, stream);
  } else {
    for (Stage stage : {Stage::H2D, Stage::Kernels, Stage::D2H})
      for (int g = 0; g < count; ++g) issueAsyncStage(stage, first + g, g, stream);
  }
  if (cfg_.allReduces()) issueAllReduces(first);
  for (int g = 0; g < count; ++g) finishIssuing(first + g, g, stream);
}

void Simulator::issueAllReduces(std::int32_t first) {
  // Each bucket is one NCCL all-reduce over every GPU, issued for all of them at once
  // (one group call): on each GPU's NCCL stream, after an event recorded behind the
  // kernel its share of the gradients waits for.
  const int buckets = std::max(1, cfg_.buckets);
  const double callNs = allreduceCallNsPerGpu(profile_);
  for (int b = 0; b < buckets; ++b) {
    const std::uint64_t bytes = share(cfg_.allreduceBytes, std::uint64_t(buckets), std::uint64_t(b));
    const double soloNs = allreduceNs(profile_, bytes, gpus_);
    const int call = gpu_.beginCollective(gpus_);
    for (int g = 0; g < gpus_; ++g) {
      apiCall(names_.eventRecord, profile_.eventRecordNs, 0);
      apiCall(names_.streamWaitEvent, profile_.eventRecordNs, 0);
      GpuCommand cmd;
      cmd.kind = OpKind::Collective;
      cmd.stream = globalStream(g, kCommStream);
      cmd.engine = EngineId::Collective;
      cmd.device = g;
      cmd.soloNs = soloNs;
      cmd.after = bucketAfter_[std::size_t(g)][std::size_t(b)];
      cmd.collective = call;
      const std::uint64_t id = issueGpu(cmd, first + g, bytes, names_.allReduce, 0, names_.ncclAllReduce, callNs);
      lastCollective_[std::size_t(g)] = id;
    }
    meta_.back().collectiveMembers = std::uint8_t(gpus_);
  }
}

void Simulator::runPipelineBatch(std::int32_t batch) {
  // GPipe: the batch's micro-batches flow through the stages, stage k on GPU k; the
  // step ends with a flush (every micro-batch done) before the next one starts, so
  // each step fills and drains the pipeline: the bubble.
  cpuStage(OpKind::Preprocess, batch, bytes_.in, cfg_.preprocessOpsPerByte);
  drain();
  const int micro = cfg_.microBatches, last = gpus_ - 1;
  const bool pageable = cfg_.memory == HostMemory::Pageable;
  const bool mapped = cfg_.memory == HostMemory::Mapped;
  const bool managed = isManagedMemory(), prefetch = cfg_.memory == HostMemory::ManagedPrefetch;
  // Managed memory, as the backend has it: stage 0 reads the input from the batch's
  // managed buffer (prefetched to GPU 0 per micro-batch, or faulted over by the first
  // kernel), the last stage's kernels write each micro-batch's output straight into
  // the managed output buffer, faulting over the pages the host holds (all of them in
  // a fresh slot, which the host filled; the prefetched-back ROI in a reused one).
  ManagedPages* pages = managed ? &pipelinePages(batch) : nullptr;
  const bool inputOnHost = managed && !pages->inputOnDevice;
  const double outputOnHost =
      managed && bytes_.out > 0 ? std::min(1.0, double(pages->outputBytesOnHost) / double(bytes_.out)) : 0.0;
  handoff_.assign(std::size_t(micro), kNoGpuOp);
  // Phases of one micro-batch in order: H2D to GPU 0, stage 0's kernels, the copy to
  // GPU 1, stage 1's kernels, ..., the last stage's kernels, D2H from the last GPU.
  const int phases = 2 * gpus_ + 1;
  auto issue = [&](int phase, int m) {
    const int stream = m % cfg_.streams;
    const std::uint64_t in = std::uint64_t(microBatchSamples(cfg_, m)) * cfg_.sampleBytes;
    const std::uint64_t out = std::uint64_t(std::llround(double(in) * cfg_.outputRatio));
    if (phase == 0) {
      const auto s = std::size_t(globalStream(0, stream));
      if (cfg_.residency == DataResidency::KeepResident && streamHasData_[s]) return;
      // Mapped and managed: the first stage's kernels read the input from host memory.
      if (mapped || cfg_.memory == HostMemory::Managed) return;
      if (prefetch)
        issuePrefetch(OpKind::CopyH2D, batch, 0, stream, in, inputOnHost ? in : 0);
      else
        issueCopies(OpKind::CopyH2D, batch, 0, stream, in, pageable);
    } else if (phase == phases - 1) {
      // Mapped and managed: the last stage's kernels wrote the output to host memory.
      if (mapped || cfg_.memory == HostMemory::Managed) return;
      const auto back = std::uint64_t(std::llround(double(out) * cfg_.roiFraction));
      if (prefetch) {
        if (back > 0) issuePrefetch(OpKind::CopyD2H, batch, last, stream, back, back);
      } else {
        issueCopies(OpKind::CopyD2H, batch, last, stream, back, pageable);
      }
    } else if (phase % 2 == 1) {
      const int stage = phase / 2;
      const std::uint64_t after = handoff_[std::size_t(m)];
      if (after != kNoGpuOp) apiCall(names_.streamWaitEvent, profile_.eventRecordNs, 0);
      planKernels(stageWork(stage, in, out));
      // With mapped memory only the first stage reads host memory (its micro-batch's
      // input) and only the last writes it (its micro-batch's output); the stages
      // between work on device buffers.
      HostBytes touched{stage == 0 ? in : 0, stage == last ? out : 0};
      if (managed) {
        // Managed: what faults over is what of those bytes the host holds.
        touched.in = inputOnHost && !prefetch ? touched.in : 0;
        touched.out = std::uint64_t(std::llround(double(touched.out) * outputOnHost));
      }
      const std::uint64_t id = issueKernels(batch, stage, stream, after, mapped || managed ? &touched : nullptr);
      if (id != kNoGpuOp) handoff_[std::size_t(m)] = id;
      if (stage == 0) streamHasData_[std::size_t(globalStream(0, stream))] = true;
    } else {
      const int from = phase / 2 - 1;
      if (cfg_.activationBytes == 0) return;  // the next stage still waits for this one's kernels
      GpuCommand cmd;
      cmd.kind = OpKind::PeerCopy;
      cmd.stream = globalStream(from, stream);
      cmd.engine = EngineId::PeerLink;
      cmd.device = from;
      cmd.peer = from + 1;
      cmd.soloNs = peerCopySoloNs(profile_, cfg_.activationBytes);
      handoff_[std::size_t(m)] = issueGpu(cmd, batch, cfg_.activationBytes, names_.activations, 0, names_.memcpyPeer,
                                          profile_.memcpyAsyncCallNs);
      apiCall(names_.eventRecord, profile_.eventRecordNs, 0);
    }
  };
  if (cfg_.order == IssueOrder::DepthFirst) {
    for (int m = 0; m < micro; ++m)
      for (int p = 0; p < phases; ++p) issue(p, m);
  } else {
    for (int p = 0; p < phases; ++p)
      for (int m = 0; m < micro; ++m) issue(p, m);
  }
  if (managed) {
    pages->inputOnDevice = true;
    pages->outputBytesOnHost = prefetch ? bytes_.d2h : 0;
  }
  // The step ends when the last GPU's streams are done with it.
  apiCall(names_.eventRecord, profile_.eventRecordNs, 0);
  pipelineWaits_.clear();
  for (int s = 0; s < std::min(micro, cfg_.streams); ++s)
    pipelineWaits_.push_back(streamLastOp_[std::size_t(globalStream(last, s))]);
  inFlight_.push_back(
      InFlightBatch{batch, last, *std::min_element(pipelineWaits_.begin(), pipelineWaits_.end()), true, gpuOpsIssued_});
  ++inFlightOn_[std::size_t(last)];
}

void Simulator::finishIssuing(std::int32_t batch, int device, int stream) {
  // The CUDA backend records one event per batch after its D2H and later waits on it.
  apiCall(names_.eventRecord, profile_.eventRecordNs, 0);
  inFlight_.push_back(
      InFlightBatch{batch, device, streamLastOp_[std::size_t(globalStream(device, stream))], false, gpuOpsIssued_});
  ++inFlightOn_[std::size_t(device)];
}

void Simulator::retireOldest() {
  const InFlightBatch b = inFlight_.front();
  if (b.pipeline)
    for (std::uint64_t id : pipelineWaits_) hostWait(id, names_.eventSync);
  else
    hostWait(b.lastOp, names_.eventSync);
  retireBookkeeping(b.opsThrough);
  inFlight_.pop_front();
  --inFlightOn_[std::size_t(b.device)];
  cpuStage(OpKind::Postprocess, b.batch, bytes_.d2h, cfg_.postprocessOpsPerByte);
  ++completed_;
}

void Simulator::retireBookkeeping(std::uint64_t opsThrough) {
  // The CUDA backend's finalising scans every op it still holds, up to the newest
  // batch's, each time a batch is done (engine/cuda/OpRecorder.cpp): its cost grows
  // with the ops in flight, streams x ops a batch, not with the batch's own ops.
  hostT_ += profile_.hostBatchOverheadNs + profile_.hostPendingOpNs * double(gpuOpsIssued_ - gpuOpsRetired_);
  gpuOpsRetired_ = std::max(gpuOpsRetired_, opsThrough);
  // A retired batch is where the backend checks whether a CUPTI flush is due; the flush
  // resolves every op issued since the last one, on this thread.
  if (profile_.recorderFlushNsPerOp > 0 && lastRecorderFlushT_ >= 0 &&
      hostT_ - lastRecorderFlushT_ >= double(kRecorderFlushIntervalNs)) {
    lastRecorderFlushT_ = hostT_;
    hostT_ += profile_.recorderFlushNsPerOp * double(gpuOpsIssued_ - opsAtRecorderFlush_);
    opsAtRecorderFlush_ = gpuOpsIssued_;
  }
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
    op.engineLane = engineLane(s.cmd);
    op.name = m.name;
    op.stream = std::int16_t(s.cmd.stream % kStreamsPerGpu);
    op.flags = m.flags;
    trace_.ops().append(op);
    if (m.collectiveMembers > 0) recordCollectiveCall(flushed_, m.collectiveMembers);
    meta_.pop_front();
    ++flushed_;
  }
  // Keep the ops the host may still wait on (the end of each in-flight batch), and
  // those the next step's kernels wait for (each GPU's last all-reduce).
  std::uint64_t keep = inFlight_.empty() ? flushed_ : std::min(flushed_, inFlight_.front().lastOp);
  for (std::uint64_t id : lastCollective_) keep = std::min(keep, id);
  gpu_.forgetBefore(keep);
}

void Simulator::recordCollectiveCall(std::uint64_t lastMember, int members) {
  // The call as a whole on the communicator's lane: from the last GPU joining it
  // (when the data can move) to its end, the same on every GPU.
  Op op;
  op.kind = OpKind::Collective;
  op.lane = collectiveLane_;
  op.name = names_.allReduce;
  op.bytes = meta_.front().bytes;
  op.submit = op.ready = op.start = std::numeric_limits<std::int64_t>::min();
  op.end = 0;
  std::int64_t firstSubmit = std::numeric_limits<std::int64_t>::max();
  for (std::uint64_t id = lastMember + 1 - std::uint64_t(members); id <= lastMember; ++id) {
    const GpuOpState& s = gpu_.op(id);
    firstSubmit = std::min(firstSubmit, ns(s.submit));
    op.ready = std::max(op.ready, ns(s.ready));
    op.start = std::max(op.start, ns(s.start));
    op.end = std::max(op.end, ns(s.end));
  }
  op.submit = std::min(firstSubmit, op.ready);
  trace_.ops().append(op);
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
  afterStageCache_[0] = afterStageCache_[1] = AfterStageCost{};
  callAfterStageNs_ = 0;
  gpuOpsIssued_ = gpuOpsRetired_ = 0;
  lastRecorderFlushT_ = -1;
  opsAtRecorderFlush_ = 0;
  const auto streams = std::size_t(gpus_ * kStreamsPerGpu);
  streamHasData_.assign(streams, false);
  // Every managed buffer starts on the host: the backend touches it once at allocation.
  managed_.assign(std::size_t(gpus_ * std::max(cfg_.hostSlots(), 1)), ManagedPages{false, bytes_.out});
  managedSlotsFactor_ = managedSlotsFactor(profile_.managedSlotsSlowdown, cfg_.hostSlots());
  managedSlotsCpuFactor_ = managedSlotsFactor(profile_.managedSlotsCpuSlowdown, cfg_.hostSlots());
  multiGpuOpOverheadNs_ = multiGpuHostOpOverheadNs(profile_, gpus_);
  if (streamLastOp_.size() < streams) streamLastOp_.resize(streams, 0);
  inFlightOn_.resize(std::size_t(gpus_), 0);
  if (lastCollective_.empty() && cfg_.allReduces()) lastCollective_.assign(std::size_t(gpus_), kNoGpuOp);
  bucketAfter_.resize(std::size_t(gpus_));
  for (int g = 0; g < gpus_; ++g)
    for (int s = 0; s < cfg_.streams; ++s) streamLane(globalStream(g, s));
  if (cfg_.preprocessOpsPerByte > 0 || cfg_.postprocessOpsPerByte > 0)
    for (int w = 0; w < cfg_.cpuWorkers; ++w) workerLane(w);
}

std::string Simulator::invalidMessage(const PipelineConfig& config) {
  std::string message;
  for (const auto& issue : validate(config)) message += (message.empty() ? "" : "; ") + issue.message();
  if (message.empty() && config.gpuCount() > kMaxModelGpus)
    message = "the simulator models at most " + std::to_string(kMaxModelGpus) + " GPUs";
  return message;
}

RunOutcome Simulator::run(const PipelineConfig& config) {
  if (auto problem = invalidMessage(config); !problem.empty())
    return {RunState::Failed, "invalid configuration: " + problem};
  gpus_ = config.gpuCount();
  ordinals_ = config.deviceOrdinals();
  cfg_ = config;
  setupLanes();
  if (gpus_ == 1 && !config.devices.empty()) {
    DeviceInfo d = trace_.device();
    d.ordinal = ordinals_.front();
    trace_.setDevice(d);
  }
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
      // The GPUs of a run are fixed when it starts (their lanes, streams and
      // communicator); a live change applies every other knob.
      next->devices = cfg_.devices;
      next->parallel = cfg_.parallel;
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
    if (gpus_ > 1) {
      if (cfg_.isPipelineParallel()) {
        runPipelineBatch(batch);
        ++batch;
      } else if (!cfg_.isAsync()) {
        runBlockingBatch(batch, batch % gpus_);  // one host thread: the GPUs take turns
        ++batch;
      } else {
        int count = gpus_;
        if (cfg_.batchCount > 0) count = std::min(count, cfg_.batchCount - batch);
        runDataParallelStep(batch, count);
        batch += count;
      }
    } else if (!cfg_.isAsync()) {
      runBlockingBatch(batch, 0);
      ++batch;
    } else if (cfg_.order == IssueOrder::DepthFirst) {
      const int stream = batch % cfg_.streams;
      // Each batch in flight owns a host input and output buffer, two per stream
      // (PipelineConfig::hostSlots, as the CUDA backend allocates): batch b reuses the
      // buffers of batch b - 2·streams, so the host waits for that one, not b - streams.
      if (int(inFlight_.size()) >= cfg_.hostSlots()) retireOldest();
      cpuStage(OpKind::Preprocess, batch, bytes_.in, cfg_.preprocessOpsPerByte);
      issueAsyncStage(Stage::H2D, batch, 0, stream);
      issueAsyncStage(Stage::Kernels, batch, 0, stream);
      issueAsyncStage(Stage::D2H, batch, 0, stream);
      finishIssuing(batch, 0, stream);
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
        for (int j = 0; j < group; ++j) issueAsyncStage(stage, batch + j, 0, (batch + j) % cfg_.streams);
      for (int j = 0; j < group; ++j) finishIssuing(batch + j, 0, (batch + j) % cfg_.streams);
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
