#include "cuda/CudaPipeline.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <nvtx3/nvToolsExt.h>

#include "cuda/CpuWork.h"
#include "cuda/CudaError.h"
#include "cuda/CudaResources.h"
#include "cuda/CuptiTracer.h"
#include "cuda/Kernels.h"
#include "cuda/WorkerPool.h"

namespace pipescope::cuda {

namespace {

// cuBLAS presets: the batch is viewed as rows of `width` features run through
// `layers` square GEMMs, i.e. 2*width*layers flops per element, like the
// convolutions of an image network seen as GEMMs (im2col). Light ~ 512 flops/byte
// (a small mobile network), heavy ~ 6,656 flops/byte (a ResNet-50-class network).
struct GemmShape {
  int width = 0;
  int layers = 0;
};
GemmShape gemmShape(ModelPreset p) {
  switch (p) {
    case ModelPreset::Light: return {128, 8};
    case ModelPreset::Heavy: return {1024, 13};
    case ModelPreset::Custom: break;
  }
  return {};
}

// cuBLAS keeps a workspace per handle (32 MiB on Hopper); counted in the memory check.
constexpr std::uint64_t kCublasWorkspaceBytes = 40ull << 20;
// How often the CUPTI-to-host clock map is refreshed while running.
constexpr std::int64_t kCalibrateIntervalNs = 20'000'000;

class NvtxRange {
 public:
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

bool isManaged(HostMemory m) { return m == HostMemory::Managed || m == HostMemory::ManagedPrefetch; }

std::uint64_t physicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

/// The part of a configuration that decides what is allocated.
struct AllocKey {
  HostMemory memory;
  int streams;
  std::uint64_t in, out;
  ModelPreset model;
  bool operator==(const AllocKey&) const = default;
};
AllocKey allocKey(const PipelineConfig& c) {
  return {c.memory, c.isAsync() ? c.streams : 1, c.batchBytes(), c.outputBytes(), c.model};
}

/// Buffers and stream of one in-flight batch slot (one per stream).
struct Slot {
  HostBuffer hostIn, hostOut;
  DeviceBuffer devIn, devOut, devScratch;
  Stream stream;  // empty in blocking mode: the legacy default stream
  CublasHandle blas;
  std::int32_t batch = kNoBatch;  // batch in flight, kNoBatch when free
  bool complete = false;          // all of its GPU work was issued (not stopped midway)
  bool residentLoaded = false;
  nvtxRangeId_t range = 0;
  cudaStream_t handle() const { return stream.get(); }
};

/// A GPU op waiting for its timestamps.
struct PendingOp {
  Op op;
  std::uint64_t id = 0;
  int eventStart = -1, eventEnd = -1;  // event-pool indices when event-timed
};

}  // namespace

/// What a finished run leaves to the next run of the same backend while a sweep is
/// under way: its slots (buffers, streams, cuBLAS handles) and GEMM weights. The
/// sweep runs the largest batch of each memory/model block first, so the slots fit
/// every later point of the block and pinning (417 ms per GiB on an H200) happens once.
struct BufferCache {
  bool valid = false;
  HostMemory memory = HostMemory::Pinned;
  bool async = true;
  ModelPreset model = ModelPreset::Custom;
  std::vector<Slot> slots;
  DeviceBuffer weights;

  BufferCache() = default;
  BufferCache(const BufferCache&) = delete;
  BufferCache& operator=(const BufferCache&) = delete;
  ~BufferCache() {
    if (!slots.empty() || weights.get()) cudaDeviceSynchronize();
  }
  void clear() {
    // The device must be idle before its buffers are freed.
    cudaDeviceSynchronize();
    slots.clear();
    weights = DeviceBuffer();
    valid = false;
  }
};

std::shared_ptr<BufferCache> makeBufferCache() { return std::make_shared<BufferCache>(); }
void clearBufferCache(BufferCache& cache) { cache.clear(); }

namespace {

class Pipeline {
 public:
  Pipeline(int device, DeviceInfo info, Trace& trace, RunControl& control, BufferCache* cache)
      : device_(device), info_(std::move(info)), trace_(trace), control_(control), cache_(cache) {}

  ~Pipeline() {
    // After an error: leave the device idle before buffers are freed.
    cudaDeviceSynchronize();
  }

  RunOutcome run(const PipelineConfig& first) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(device_));
    if (trace_.configHistory().empty()) trace_.setConfig(first);
    t0_ = steadyNowNs();
    startTiming();
    PipelineConfig config = first;
    bool stopped = false;
    adoptCached(first);
    for (;;) {
      configure(config);
      const std::optional<PipelineConfig> next = runSegment(config, stopped);
      drain();
      if (!next || stopped) break;
      config = *next;
      trace_.addConfigChange(nextBatch_, config);
    }
    finishTiming();
    returnToCache();
    trace_.setCompletedBatches(completed_);
    trace_.ops().publish();
    std::string note;
    if (unresolved_ > 0)
      note = std::to_string(unresolved_) + " GPU ops had no CUPTI record and are missing from the trace";
    return {stopped ? RunState::Stopped : RunState::Finished, note};
  }

 private:
  // ---------------------------------------------------------------- set-up
  void startTiming() {
    refEvent_ = Event::create(true);
    std::string whyNot;
    cupti_ = tracer_.start(whyNot);
    if (cupti_) {
      info_.timingSource = "CUPTI";
    } else {
      info_.timingSource = "CUDA events";
      info_.note = "CUPTI unavailable (" + whyNot +
                   "): copy and kernel times come from CUDA events recorded around each op, so time spent "
                   "waiting for a busy engine is counted as execution";
    }
    trace_.setDevice(info_);
    calibrate();
    alignEventClock();
  }

  /// Ties the CUDA-event clock to the host time base. Without CUPTI, events are the
  /// only GPU clock: the reference event, recorded on an idle device, completes a
  /// few µs after the call. With CUPTI, event-timed ops (managed prefetches) sit next
  /// to CUPTI-timed ones, so the event clock is aligned to CUPTI's instead: a tiny
  /// memset between two events has its start/end in both clocks (median of 5).
  void alignEventClock() {
    const std::int64_t before = steadyNowNs();
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(refEvent_.get(), nullptr));
    PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(refEvent_.get()));
    refEventHostNs_ = before - t0_;
    if (!cupti_) return;
    DeviceBuffer probe(4096, "clock alignment buffer");
    Event a = Event::create(true), b = Event::create(true);
    std::vector<std::int64_t> offsets;
    for (int i = 0; i < 5; ++i) {
      const std::uint64_t id = ++nextId_;
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(a.get(), nullptr));
      tracer_.push(id);
      const cudaError_t err = cudaMemsetAsync(probe.get(), i, probe.bytes(), nullptr);
      tracer_.pop();
      PIPESCOPE_CUDA_CHECK(err);
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(b.get(), nullptr));
      PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(b.get()));
      tracer_.flush(true);
      tracer_.collect(intervals_, id);
      const auto it = intervals_.find(id);
      if (it == intervals_.end()) continue;
      float msA = 0, msB = 0;
      PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&msA, refEvent_.get(), a.get()));
      PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&msB, refEvent_.get(), b.get()));
      // Event a completes just before the memset starts, b just after it ends.
      const std::int64_t fromStart = cuptiToHost(it->second.start) - std::int64_t(double(msA) * 1e6);
      const std::int64_t fromEnd = cuptiToHost(it->second.end) - std::int64_t(double(msB) * 1e6);
      offsets.push_back((fromStart + fromEnd) / 2);
      intervals_.erase(it);
    }
    if (offsets.empty()) return;  // CUPTI delivered nothing: keep the host-side estimate
    std::sort(offsets.begin(), offsets.end());
    refEventHostNs_ = offsets[offsets.size() / 2];
  }

  void finishTiming() {
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    if (cupti_) {
      calibrate();
      tracer_.stop();  // delivers every remaining record
      tracer_.collect(intervals_, 0);
    }
    finalize(/*all=*/true);
    if (cupti_) {
      unresolved_ += std::int64_t(pending_.size());
      pending_.clear();
    }
  }

  /// One (CUPTI clock, host clock) pair; the map from CUPTI to host time is the
  /// line through the first and the latest pair.
  void calibrate() {
    if (!cupti_) return;
    std::int64_t bestSpread = INT64_MAX;
    std::pair<std::uint64_t, std::int64_t> best{};
    for (int i = 0; i < 5; ++i) {
      const std::int64_t a = steadyNowNs();
      const std::uint64_t c = CuptiTracer::timestamp();
      const std::int64_t b = steadyNowNs();
      if (b - a < bestSpread) {
        bestSpread = b - a;
        best = {c, (a + b) / 2 - t0_};
      }
    }
    if (!calFirst_) calFirst_ = best;
    calLast_ = best;
    const double dc = double(calLast_.first) - double(calFirst_->first);
    slope_ = dc > 1e6 ? (double(calLast_.second) - double(calFirst_->second)) / dc : 1.0;
  }

  std::int64_t cuptiToHost(std::uint64_t c) const {
    return calFirst_->second + std::int64_t(std::llround((double(c) - double(calFirst_->first)) * slope_));
  }

  void configure(const PipelineConfig& c) {
    config_ = c;
    const unsigned sched = c.sync == SyncMode::Spin    ? cudaDeviceScheduleSpin
                           : c.sync == SyncMode::Yield ? cudaDeviceScheduleYield
                                                       : cudaDeviceScheduleBlockingSync;
    const cudaError_t err = cudaSetDeviceFlags(sched | cudaDeviceMapHost);
    if (err == cudaErrorSetOnActiveProcess) {
      (void)cudaGetLastError();
      info_.note += (info_.note.empty() ? "" : "; ") + std::string("sync mode could not be changed on the active device");
      trace_.setDevice(info_);
    } else if (err != cudaSuccess) {
      throwCudaError("cudaSetDeviceFlags", err, "the sync mode could not be set");
    }
    setUpLanes();
    const AllocKey key = allocKey(c);
    if (!allocated_ || !(key == allocatedKey_)) {
      slots_.clear();
      weights_ = DeviceBuffer();
      checkMemory(c);
      allocate(c);
      allocatedKey_ = key;
      allocated_ = true;
    }
    for (Slot& s : slots_) s.residentLoaded = s.residentLoaded && c.residency == DataResidency::KeepResident;
    if (!workers_ || workers_->size() != c.cpuWorkers) workers_ = std::make_unique<WorkerPool>(c.cpuWorkers);
    // Sized for the most streams: ops of an earlier segment may still be pending.
    lastEnd_.resize(std::size_t(limits::kMaxStreams), 0);
    held_.resize(std::size_t(limits::kMaxStreams));
  }

  void setUpLanes() {
    submitLane_ = trace_.lane(LaneKind::HostSubmit, 0, "submit thread");
    workerLanes_.clear();
    for (int w = 0; w < config_.cpuWorkers; ++w)
      workerLanes_.push_back(trace_.lane(LaneKind::HostWorker, w, "worker " + std::to_string(w)));
    const int streams = config_.isAsync() ? config_.streams : 1;
    streamLanes_.clear();
    for (int s = 0; s < streams; ++s)
      streamLanes_.push_back(trace_.lane(LaneKind::Stream, s, "stream " + std::to_string(s)));
    if (info_.copyEngines <= 1) {
      h2dLane_ = d2hLane_ = trace_.lane(LaneKind::CopyEngine, 0, "copy engine");
    } else {
      h2dLane_ = trace_.lane(LaneKind::CopyEngineH2D, 0, "H2D copy engine");
      d2hLane_ = trace_.lane(LaneKind::CopyEngineD2H, 0, "D2H copy engine");
    }
    computeLane_ = trace_.lane(LaneKind::ComputeEngine, 0, "compute engine");
    names_.h2dApi = trace_.internName(config_.isAsync() ? "cudaMemcpyAsync H2D" : "cudaMemcpy H2D");
    names_.d2hApi = trace_.internName(config_.isAsync() ? "cudaMemcpyAsync D2H" : "cudaMemcpy D2H");
    names_.launch = trace_.internName("cudaLaunchKernel");
    names_.gemmApi = trace_.internName("cublasSgemm");
    names_.prefetchApi = trace_.internName("cudaMemPrefetchAsync");
    names_.sync = trace_.internName(config_.isAsync() ? "cudaStreamSynchronize" : "cudaDeviceSynchronize");
    names_.normalize = trace_.internName("normalize");
    names_.model = trace_.internName("model");
    names_.gemm = trace_.internName("gemm");
    names_.head = trace_.internName("model head");
    names_.prefetchIn = trace_.internName("prefetch to GPU");
    names_.prefetchOut = trace_.internName("prefetch to CPU");
  }

  void checkMemory(const PipelineConfig& c) {
    const std::uint64_t streams = std::uint64_t(c.isAsync() ? c.streams : 1);
    const GemmShape g = gemmShape(c.model);
    const bool copies = c.usesCopies() && !isManaged(c.memory);
    std::uint64_t device = streams * c.batchBytes();                   // devIn
    if (copies) device += streams * c.outputBytes();                     // devOut
    if (g.width > 0) device += streams * (c.batchBytes() + kCublasWorkspaceBytes) + std::uint64_t(g.width) * g.width * 4;
    const std::uint64_t hostSide = streams * (c.batchBytes() + c.outputBytes());
    const std::uint64_t managed = isManaged(c.memory) ? hostSide : 0;
    std::size_t freeBytes = 0, totalBytes = 0;
    PIPESCOPE_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    // Leave room for the context, CUPTI's buffers and fragmentation.
    const std::uint64_t usable = std::uint64_t(double(freeBytes) * 0.92);
    if (device + managed > usable) {
      throw std::runtime_error(
          "configuration needs " + formatBytes(device + managed) + " of GPU memory (" + std::to_string(streams) +
          " streams x " + formatBytes(c.batchBytes()) + " batches" + (managed ? ", managed buffers included" : "") +
          ") but only " + formatBytes(freeBytes) + " of " + formatBytes(totalBytes) + " is free on " + info_.name +
          ": use fewer streams, smaller batches (batch samples x sample bytes) or a smaller output ratio");
    }
    const std::uint64_t physical = physicalMemoryBytes();
    if (!isManaged(c.memory) && physical > 0 && hostSide > physical / 10 * 8) {
      throw std::runtime_error("configuration needs " + formatBytes(hostSide) + " of " +
                               std::string(toString(c.memory)) + " host memory but this machine has " +
                               formatBytes(physical) + ": use fewer streams or smaller batches");
    }
  }

  void allocate(const PipelineConfig& c) {
    const int streams = c.isAsync() ? c.streams : 1;
    slots_.resize(std::size_t(streams));
    for (Slot& s : slots_) allocateSlot(s, c);
    allocateWeights(c);
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void allocateSlot(Slot& s, const PipelineConfig& c) {
    const GemmShape g = gemmShape(c.model);
    const bool copies = c.usesCopies() && !isManaged(c.memory);
    if (c.isAsync()) s.stream = Stream::create();
    s.hostIn = HostBuffer(c.memory, c.batchBytes(), "host input buffer");
    s.hostOut = HostBuffer(c.memory, c.outputBytes(), "host output buffer");
    s.devIn = DeviceBuffer(c.batchBytes(), "device input buffer");
    if (copies) s.devOut = DeviceBuffer(c.outputBytes(), "device output buffer");
    if (g.width > 0) {
      s.devScratch = DeviceBuffer(c.batchBytes(), "GEMM activation buffer");
      s.blas = CublasHandle::create();
      PIPESCOPE_CUBLAS_CHECK(cublasSetStream(s.blas.get(), s.handle()));
      PIPESCOPE_CUBLAS_CHECK(cublasSetMathMode(s.blas.get(), CUBLAS_TF32_TENSOR_OP_MATH));
    }
  }

  void allocateWeights(const PipelineConfig& c) {
    const GemmShape g = gemmShape(c.model);
    if (g.width <= 0) return;
    const std::size_t n = std::size_t(g.width) * std::size_t(g.width);
    std::vector<float> w(n);
    for (std::size_t i = 0; i < n; ++i) w[i] = (float((i * 7919) % 101) / 101.0f - 0.5f) / float(g.width);
    weights_ = DeviceBuffer(n * sizeof(float), "GEMM weights");
    PIPESCOPE_CUDA_CHECK(cudaMemcpy(weights_.get(), w.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }

  /// Whether a cached slot can serve `c`: every buffer it needs exists and is large
  /// enough (copies use the configuration's sizes, never the buffer's).
  static bool slotFits(const Slot& s, const PipelineConfig& c) {
    const bool copies = c.usesCopies() && !isManaged(c.memory);
    const bool gemm = gemmShape(c.model).width > 0;
    return s.hostIn.bytes() >= c.batchBytes() && s.hostOut.bytes() >= c.outputBytes() &&
           s.devIn.bytes() >= c.batchBytes() && (!copies || s.devOut.bytes() >= c.outputBytes()) &&
           (!gemm || (s.devScratch.bytes() >= c.batchBytes() && s.blas.get() != nullptr)) &&
           (c.isAsync() == (s.stream.get() != nullptr));
  }

  /// Takes the cached slots when they were made for the same host memory, mode and
  /// model and are large enough; missing slots (more streams) are allocated, extra
  /// ones stay in the cache. Anything else empties the cache first, so old and new
  /// buffers are never held at once. Managed memory is never reused: where its pages
  /// live depends on the previous run.
  void adoptCached(const PipelineConfig& c) {
    if (!cache_ || !cache_->valid) return;
    const std::size_t streams = std::size_t(c.isAsync() ? c.streams : 1);
    const std::size_t take = std::min(streams, cache_->slots.size());
    bool fits = cache_->memory == c.memory && !isManaged(c.memory) && cache_->async == c.isAsync() &&
                cache_->model == c.model && take > 0;
    for (std::size_t i = 0; fits && i < take; ++i) fits = slotFits(cache_->slots[i], c);
    if (!fits) {
      cache_->clear();
      return;
    }
    slots_.clear();
    for (std::size_t i = 0; i < take; ++i) slots_.push_back(std::move(cache_->slots[i]));
    cache_->slots.erase(cache_->slots.begin(), cache_->slots.begin() + std::ptrdiff_t(take));
    for (Slot& s : slots_) {
      s.batch = kNoBatch;
      s.complete = false;
      s.residentLoaded = false;  // each run loads its resident data itself
      s.range = 0;
    }
    if (take < streams) {
      checkMemory(c);  // conservative: counts the adopted slots again
      slots_.resize(streams);
      for (std::size_t i = take; i < streams; ++i) allocateSlot(slots_[i], c);
    }
    weights_ = std::move(cache_->weights);
    if (gemmShape(c.model).width > 0 && !weights_.get()) allocateWeights(c);
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    allocatedKey_ = allocKey(c);
    allocated_ = true;
  }

  /// After a run that ended normally: its slots (then any the cache still holds for
  /// the same kind of run) go back to the cache for the next run.
  void returnToCache() {
    if (!cache_ || isManaged(config_.memory)) return;
    const bool same = cache_->valid && cache_->memory == config_.memory && cache_->async == config_.isAsync() &&
                      cache_->model == config_.model;
    std::vector<Slot> all = std::move(slots_);
    slots_.clear();
    if (same)
      for (Slot& s : cache_->slots) all.push_back(std::move(s));
    if (!same) cache_->clear();
    cache_->slots = std::move(all);
    if (weights_.get()) cache_->weights = std::move(weights_);
    cache_->memory = config_.memory;
    cache_->async = config_.isAsync();
    cache_->model = config_.model;
    cache_->valid = true;
    allocated_ = false;
  }

  // ---------------------------------------------------------------- the loop
  /// Runs batches until done, stopped, or a new configuration is queued (returned).
  std::optional<PipelineConfig> runSegment(const PipelineConfig& c, bool& stopped) {
    segmentFirst_ = nextBatch_;
    const int streams = int(slots_.size());
    const int group = c.isAsync() && c.order == IssueOrder::BreadthFirst ? streams : 1;
    for (;;) {
      if (control_.stopRequested()) {
        stopped = true;
        return std::nullopt;
      }
      if (!c.runsUntilStopped() && totalIssued_ >= c.batchCount) return std::nullopt;
      if (auto next = control_.takePendingConfig()) return next;
      int count = group;
      if (!c.runsUntilStopped()) count = int(std::min<std::int64_t>(count, c.batchCount - totalIssued_));
      std::vector<int> batches;
      for (int k = 0; k < count; ++k) {
        const int b = nextBatch_++;
        ++totalIssued_;
        Slot& slot = slotOf(b);
        if (slot.batch != kNoBatch) complete(slot);
        if (control_.stopRequested()) {
          stopped = true;
          return std::nullopt;
        }
        beginBatch(slot, b);
        batches.push_back(b);
      }
      if (!c.isAsync()) {
        issueBlocking(slotOf(batches[0]), batches[0]);
        complete(slotOf(batches[0]));
        continue;
      }
      // Depth-first: every stage of one batch. Breadth-first: each stage for the group.
      for (int stage = 0; stage < 3; ++stage) {
        if (control_.stopRequested()) {
          stopped = true;
          return std::nullopt;
        }
        for (int b : batches) {
          Slot& slot = slotOf(b);
          if (stage == 0) issueH2D(slot, b);
          if (stage == 1) issueKernels(slot, b);
          if (stage == 2) {
            issueD2H(slot, b);
            slot.complete = true;
          }
        }
      }
    }
  }

  Slot& slotOf(int batch) { return slots_[std::size_t(batch - segmentFirst_) % slots_.size()]; }

  void beginBatch(Slot& slot, int b) {
    slot.batch = b;
    slot.complete = false;
    const std::string name = "batch " + std::to_string(b);
    slot.range = nvtxRangeStartA(name.c_str());
    if (config_.preprocessOpsPerByte <= 0) return;
    NvtxRange r("preprocess");
    auto* dst = static_cast<float*>(slot.hostIn.host());
    const std::size_t n = config_.batchBytes() / sizeof(float);
    const double opb = config_.preprocessOpsPerByte;
    const auto& spans = workers_->run([&](int w, int ws) { preprocessShare(dst, n, b, opb, w, ws); });
    recordCpu(OpKind::Preprocess, b, spans, config_.batchBytes());
  }

  /// Waits for the slot's batch, publishes its ops and postprocesses it.
  void complete(Slot& slot) {
    const int b = slot.batch;
    // A blocking cudaMemcpy back already waited for the batch; anything else needs a sync.
    const bool blockingCopyBack = !config_.isAsync() && config_.d2hBytes() > 0 && slot.complete &&
                                  config_.memory != HostMemory::Mapped && !isManaged(config_.memory);
    if (!blockingCopyBack) {
      const std::int64_t s = steadyNowNs();
      PIPESCOPE_CUDA_CHECK(config_.isAsync() ? cudaStreamSynchronize(slot.handle()) : cudaDeviceSynchronize());
      const std::int64_t e = steadyNowNs();
      Op sync;
      sync.kind = OpKind::HostSync;
      sync.lane = submitLane_;
      sync.batch = b;
      sync.stream = std::int16_t(&slot - slots_.data());
      sync.name = names_.sync;
      sync.submit = sync.ready = sync.start = s - t0_;
      sync.end = e - t0_;
      trace_.ops().append(sync);
    }
    if (slot.complete) {
      if (config_.postprocessOpsPerByte > 0) {
        NvtxRange r("postprocess");
        const auto* src = static_cast<const float*>(slot.hostOut.host());
        const std::size_t n = config_.d2hBytes() / sizeof(float);
        const double opb = config_.postprocessOpsPerByte;
        std::vector<double> sums(std::size_t(workers_->size()));
        const auto& spans =
            workers_->run([&](int w, int ws) { sums[std::size_t(w)] = postprocessShare(src, n, opb, w, ws); });
        for (double v : sums) checksum_ += v;
        recordCpu(OpKind::Postprocess, b, spans, config_.d2hBytes());
      }
      ++completed_;
      trace_.setCompletedBatches(completed_);
    }
    nvtxRangeEnd(slot.range);
    slot.batch = kNoBatch;
    syncedBatches_.push_back(b);
    finalize(false);
    trace_.ops().publish();
  }

  void drain() {
    // Oldest first, so batches complete in order.
    std::vector<Slot*> busy;
    for (Slot& s : slots_)
      if (s.batch != kNoBatch) busy.push_back(&s);
    std::sort(busy.begin(), busy.end(), [](const Slot* a, const Slot* b) { return a->batch < b->batch; });
    for (Slot* s : busy) complete(*s);
  }

  void recordCpu(OpKind kind, int batch, const std::vector<WorkerPool::Span>& spans, std::uint64_t bytes) {
    for (std::size_t w = 0; w < spans.size(); ++w) {
      Op op;
      op.kind = kind;
      op.lane = workerLanes_[w];
      op.batch = batch;
      std::size_t b0 = 0, b1 = 0;
      shareOf(std::size_t(bytes), int(w), int(spans.size()), b0, b1);
      op.bytes = b1 - b0;
      op.submit = op.ready = op.start = spans[w].start - t0_;
      op.end = spans[w].end - t0_;
      trace_.ops().append(op);
    }
  }

  // ---------------------------------------------------------------- GPU ops
  /// Issues one GPU op through `call`, records its API call now and the op once
  /// its GPU timestamps are known.
  template <typename Call>
  void gpuOp(Slot& slot, int batch, OpKind kind, std::uint64_t bytes, std::uint16_t name, std::uint16_t apiName,
             std::uint8_t flags, bool forceEvents, const char* what, Call&& call) {
    const int si = int(&slot - slots_.data());
    const bool events = !cupti_ || forceEvents;
    PendingOp p;
    p.id = ++nextId_;
    if (events) {
      p.eventStart = takeEvent();
      p.eventEnd = takeEvent();
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(eventPool_[std::size_t(p.eventStart)].get(), slot.handle()));
    }
    tracer_.push(p.id);
    const std::int64_t a = steadyNowNs();
    const cudaError_t err = call();
    const std::int64_t e = steadyNowNs();
    tracer_.pop();
    if (err != cudaSuccess) throwCudaError(what, err, std::string());
    if (events) PIPESCOPE_CUDA_CHECK(cudaEventRecord(eventPool_[std::size_t(p.eventEnd)].get(), slot.handle()));
    Op api;
    api.kind = OpKind::ApiCall;
    api.lane = submitLane_;
    api.batch = batch;
    api.stream = std::int16_t(si);
    api.name = apiName;
    api.correlation = std::uint32_t(p.id);
    api.submit = api.ready = api.start = a - t0_;
    api.end = e - t0_;
    api.flags = flags & (kOpBlockingCall | kOpPageable);
    trace_.ops().append(api);
    Op& op = p.op;
    op.kind = kind;
    op.lane = streamLanes_[std::size_t(si)];
    op.engineLane = kind == OpKind::CopyH2D ? h2dLane_ : kind == OpKind::CopyD2H ? d2hLane_ : computeLane_;
    op.batch = batch;
    op.stream = std::int16_t(si);
    op.bytes = bytes;
    op.name = name;
    op.correlation = std::uint32_t(p.id);
    op.submit = a - t0_;
    op.flags = std::uint8_t(flags | (events ? kOpEventTimed : 0));
    pending_.push_back(p);
  }

  std::uint8_t copyFlags() const {
    std::uint8_t f = 0;
    if (config_.memory == HostMemory::Pageable) f |= kOpPageable;
    if (!config_.isAsync()) f |= kOpBlockingCall;
    return f;
  }

  void copy(Slot& slot, int batch, OpKind kind, void* dst, const void* src, std::uint64_t bytes) {
    const bool h2d = kind == OpKind::CopyH2D;
    const cudaMemcpyKind dir = h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    const int chunks = std::max(1, config_.transferChunks);
    for (int k = 0; k < chunks; ++k) {
      const std::uint64_t o0 = bytes * std::uint64_t(k) / std::uint64_t(chunks);
      const std::uint64_t o1 = bytes * std::uint64_t(k + 1) / std::uint64_t(chunks);
      if (o1 == o0) continue;
      char* d = static_cast<char*>(dst) + o0;
      const char* s = static_cast<const char*>(src) + o0;
      const cudaStream_t st = slot.handle();
      const bool async = config_.isAsync();
      gpuOp(slot, batch, kind, o1 - o0, 0, h2d ? names_.h2dApi : names_.d2hApi, copyFlags(), false,
            async ? "cudaMemcpyAsync" : "cudaMemcpy", [&] {
              return async ? cudaMemcpyAsync(d, s, o1 - o0, dir, st) : cudaMemcpy(d, s, o1 - o0, dir);
            });
    }
  }

  void prefetch(Slot& slot, int batch, OpKind kind, void* ptr, std::uint64_t bytes) {
    cudaMemLocation loc{};
    if (kind == OpKind::CopyH2D) {
      loc.type = cudaMemLocationTypeDevice;
      loc.id = device_;
    } else {
      loc.type = cudaMemLocationTypeHost;
      loc.id = 0;
    }
    const cudaStream_t st = slot.handle();
    // CUPTI has no memcpy record for a prefetch: always event-timed.
    gpuOp(slot, batch, kind, bytes, kind == OpKind::CopyH2D ? names_.prefetchIn : names_.prefetchOut,
          names_.prefetchApi, kOpManaged, true, "cudaMemPrefetchAsync",
          [&] { return cudaMemPrefetchAsync(ptr, bytes, loc, 0, st); });
  }

  bool needsInputTransfer(Slot& slot) {
    if (config_.residency != DataResidency::KeepResident) return true;
    if (slot.residentLoaded) return false;
    slot.residentLoaded = true;
    return true;
  }

  void issueH2D(Slot& slot, int b) {
    if (config_.memory == HostMemory::Mapped || config_.memory == HostMemory::Managed) return;
    if (!needsInputTransfer(slot)) return;
    NvtxRange r("cpu_to_gpu");
    if (config_.memory == HostMemory::ManagedPrefetch)
      prefetch(slot, b, OpKind::CopyH2D, slot.hostIn.host(), config_.batchBytes());
    else
      copy(slot, b, OpKind::CopyH2D, slot.devIn.get(), slot.hostIn.host(), config_.batchBytes());
  }

  void issueKernels(Slot& slot, int b) {
    const HostMemory m = config_.memory;
    const bool copies = m != HostMemory::Mapped && !isManaged(m);
    const std::uint8_t flags = m == HostMemory::Mapped ? kOpMapped : isManaged(m) ? kOpManaged : 0;
    const std::size_t nIn = config_.batchBytes() / sizeof(float);
    const std::size_t nOut = config_.outputBytes() / sizeof(float);
    const cudaStream_t st = slot.handle();
    auto* devIn = static_cast<float*>(slot.devIn.get());
    const float* modelIn = copies ? devIn : static_cast<const float*>(slot.hostIn.device());
    float* out = static_cast<float*>(copies ? slot.devOut.get() : slot.hostOut.device());
    if (config_.normalizeKernel) {
      NvtxRange r("normalize");
      const float* src = modelIn;
      gpuOp(slot, b, OpKind::Kernel, config_.batchBytes(), names_.normalize, names_.launch, flags, false,
            "normalize kernel launch", [&] { return launchNormalize(src, devIn, nIn, st); });
      modelIn = devIn;
    }
    NvtxRange r("model");
    const GemmShape g = gemmShape(config_.model);
    if (g.width == 0) {
      const std::uint32_t fmas = modelFmasPerElement(config_.modelFlopsPerByte);
      gpuOp(slot, b, OpKind::Kernel, config_.batchBytes(), names_.model, names_.launch, flags, false,
            "model kernel launch", [&] { return launchModel(modelIn, nIn, out, nOut, fmas, st); });
      return;
    }
    const int rows = int(nIn / std::size_t(g.width));
    const float* x = modelIn;
    float* bufs[2] = {static_cast<float*>(slot.devScratch.get()), devIn};
    const float alpha = 1.0f, beta = 0.0f;
    const auto* w = static_cast<const float*>(weights_.get());
    for (int l = 0; l < g.layers && rows > 0; ++l) {
      float* y = bufs[l % 2];
      cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
      gpuOp(slot, b, OpKind::Kernel, std::uint64_t(rows) * std::uint64_t(g.width) * 4, names_.gemm, names_.gemmApi,
            flags, false, "cublasSgemm", [&] {
              status = cublasSgemm(slot.blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, g.width, rows, g.width, &alpha, w,
                                   g.width, x, g.width, &beta, y, g.width);
              return cudaSuccess;
            });
      if (status != CUBLAS_STATUS_SUCCESS) throwCublasError("cublasSgemm", status, std::string());
      x = y;
    }
    const std::size_t nAct = rows > 0 ? std::size_t(rows) * std::size_t(g.width) : nIn;
    gpuOp(slot, b, OpKind::Kernel, config_.outputBytes(), names_.head, names_.launch, flags, false,
          "model head kernel launch", [&] { return launchModel(x, nAct, out, nOut, 0, st); });
  }

  void issueD2H(Slot& slot, int b) {
    const HostMemory m = config_.memory;
    if (m == HostMemory::Mapped || m == HostMemory::Managed) return;
    if (config_.d2hBytes() == 0) return;
    NvtxRange r("gpu_to_cpu");
    if (m == HostMemory::ManagedPrefetch)
      prefetch(slot, b, OpKind::CopyD2H, slot.hostOut.host(), config_.d2hBytes());
    else
      copy(slot, b, OpKind::CopyD2H, slot.hostOut.host(), slot.devOut.get(), config_.d2hBytes());
  }

  void issueBlocking(Slot& slot, int b) {
    issueH2D(slot, b);
    issueKernels(slot, b);
    issueD2H(slot, b);
    slot.complete = true;
  }

  // ---------------------------------------------------------------- timestamps
  int takeEvent() {
    if (freeEvents_.empty()) {
      eventPool_.push_back(Event::create(true));
      return int(eventPool_.size() - 1);
    }
    const int e = freeEvents_.back();
    freeEvents_.pop_back();
    return e;
  }

  std::int64_t eventTime(int e) {
    float ms = 0;
    PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, refEvent_.get(), eventPool_[std::size_t(e)].get()));
    return refEventHostNs_ + std::int64_t(double(ms) * 1e6);
  }

  /// Appends the GPU ops of synchronised batches whose timestamps are known.
  void finalize(bool all) {
    if (pending_.empty()) return;
    if (cupti_ && tracer_.active()) {
      const std::int64_t now = steadyNowNs();
      if (now - lastFlushNs_ >= kCalibrateIntervalNs) {
        calibrate();
        lastFlushNs_ = now;
      }
      tracer_.collect(intervals_, pending_.front().id);
    }
    std::sort(syncedBatches_.begin(), syncedBatches_.end());
    auto synced = [&](std::int32_t b) { return all || std::binary_search(syncedBatches_.begin(), syncedBatches_.end(), b); };
    std::deque<PendingOp> keep;
    // Ops of a stream are finalised in issue order: once one must wait (batch not
    // synchronised, CUPTI record not delivered), every later op of its stream waits too.
    std::vector<char> blocked(held_.size(), 0);
    for (PendingOp& p : pending_) {
      const std::size_t si = std::size_t(p.op.stream);
      if (blocked[si] || !synced(p.op.batch)) {
        blocked[si] = 1;
        keep.push_back(p);
        continue;
      }
      Op& op = p.op;
      if (p.eventStart >= 0) {
        // The event clock is tied to the host clock by one sample at run start (a few
        // µs of error) while neighbours may be CUPTI-timed: never let an event-timed
        // op begin before its stream reached it.
        op.start = std::max({op.submit, eventTime(p.eventStart), lastEnd_[si]});
        op.end = std::max(op.start, eventTime(p.eventEnd));
        freeEvents_.push_back(p.eventStart);
        freeEvents_.push_back(p.eventEnd);
      } else {
        auto it = intervals_.find(p.id);
        if (it == intervals_.end()) {
          if (all && !tracer_.active()) {
            ++unresolved_;  // CUPTI has stopped: this record will never come
            continue;
          }
          blocked[si] = 1;
          keep.push_back(p);  // record not delivered yet
          continue;
        }
        op.start = cuptiToHost(it->second.start);
        op.end = cuptiToHost(it->second.end);
        intervals_.erase(it);
      }
      // Ready: the stream reached the op once it was submitted and the stream's previous op ended.
      op.ready = std::min(std::max(op.submit, lastEnd_[si]), op.start);
      const std::int64_t previousEnd = lastEnd_[si];
      lastEnd_[si] = std::max(lastEnd_[si], op.end);
      emit(op, si, p.eventStart >= 0 && cupti_, previousEnd);
    }
    if (all)
      for (std::size_t si = 0; si < held_.size(); ++si) emit(std::nullopt, si, false);
    pending_.swap(keep);
    // Batches older than every pending op are no longer needed for lookups.
    std::int32_t oldest = INT32_MAX;
    for (const PendingOp& p : pending_) oldest = std::min(oldest, p.op.batch);
    syncedBatches_.erase(syncedBatches_.begin(),
                         std::lower_bound(syncedBatches_.begin(), syncedBatches_.end(), oldest));
  }

  /// Appends `op`. An event-timed op among CUPTI-timed ones is held until the next
  /// op of its stream: the two clocks disagree by microseconds, and the next op's
  /// engine start bounds the held op's end.
  void emit(std::optional<Op> op, std::size_t si, bool hold, std::int64_t previousEnd = 0) {
    if (held_[si]) {
      Op& h = held_[si]->op;
      if (op && op->start < h.end) {
        // The held op lies between the end of the op before it and the start of this one.
        h.end = std::max(op->start, held_[si]->previousEnd);
        h.start = std::clamp(h.start, held_[si]->previousEnd, h.end);
        h.ready = std::min(h.ready, h.start);
        h.submit = std::min(h.submit, h.ready);
      }
      trace_.ops().append(h);
      held_[si].reset();
    }
    if (!op) return;
    if (hold) held_[si] = HeldOp{*op, previousEnd};
    else trace_.ops().append(*op);
  }

  // ---------------------------------------------------------------- state
  int device_;
  DeviceInfo info_;
  Trace& trace_;
  RunControl& control_;
  PipelineConfig config_;
  std::int64_t t0_ = 0;

  CuptiTracer tracer_;
  bool cupti_ = false;
  std::optional<std::pair<std::uint64_t, std::int64_t>> calFirst_;
  std::pair<std::uint64_t, std::int64_t> calLast_{};
  double slope_ = 1.0;
  std::int64_t lastFlushNs_ = 0;
  std::unordered_map<std::uint64_t, GpuInterval> intervals_;
  Event refEvent_;
  std::int64_t refEventHostNs_ = 0;
  std::vector<Event> eventPool_;
  std::vector<int> freeEvents_;

  std::deque<PendingOp> pending_;
  std::vector<std::int32_t> syncedBatches_;
  std::vector<std::int64_t> lastEnd_;
  struct HeldOp {
    Op op;
    std::int64_t previousEnd = 0;  ///< end of the stream's op before it
  };
  std::vector<std::optional<HeldOp>> held_;
  std::uint64_t nextId_ = 0;
  std::int64_t unresolved_ = 0;

  BufferCache* cache_ = nullptr;
  bool allocated_ = false;
  AllocKey allocatedKey_{};
  std::vector<Slot> slots_;
  DeviceBuffer weights_;
  std::unique_ptr<WorkerPool> workers_;

  std::uint16_t submitLane_ = 0, h2dLane_ = 0, d2hLane_ = 0, computeLane_ = 0;
  std::vector<std::uint16_t> workerLanes_, streamLanes_;
  struct Names {
    std::uint16_t h2dApi, d2hApi, launch, gemmApi, prefetchApi, sync, normalize, model, gemm, head, prefetchIn,
        prefetchOut;
  } names_{};

  std::int32_t nextBatch_ = 0;
  std::int32_t segmentFirst_ = 0;
  std::int64_t totalIssued_ = 0;
  std::int64_t completed_ = 0;
  double checksum_ = 0;
};

}  // namespace

RunOutcome runPipeline(int device, const DeviceInfo& info, const PipelineConfig& config, Trace& trace,
                       RunControl& control, BufferCache* cache) {
  const std::vector<ConfigIssue> issues = validate(config);
  if (!issues.empty()) throw std::invalid_argument(issues.front().message());
  Pipeline p(device, info, trace, control, cache);
  return p.run(config);
}

}  // namespace pipescope::cuda
