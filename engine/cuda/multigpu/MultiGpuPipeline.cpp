// The pipeline over several GPUs (docs/cuda-backend.md, "Several GPUs"). One thread
// issues everything: each GPU's work through that GPU's BatchIssuer (its streams,
// buffers, cuBLAS handles), NCCL's all-reduces as one group call over every GPU, and
// the host's part of each batch through the shared HostStages (one worker pool).
#include "cuda/multigpu/MultiGpuPipeline.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/ModelWork.h"
#include "cuda/BatchIssue.h"
#include "cuda/CudaError.h"
#include "cuda/DeviceDescription.h"
#include "cuda/HostStages.h"
#include "cuda/Kernels.h"
#include "cuda/NvtxRange.h"
#include "cuda/OpRecorder.h"
#include "cuda/PipelineResources.h"
#include "cuda/multigpu/MultiGpuLanes.h"
#include "cuda/multigpu/NcclClique.h"
#include "cuda/multigpu/PeerAccess.h"

namespace pipescope::cuda {

namespace {

/// Recorder stream keys per GPU: its compute streams, then its communication stream.
constexpr int kKeysPerGpu = kCommStream + 1;

/// What one GPU of the run owns.
struct Gpu {
  int index = 0;    // in the run: trace device, recorder device
  int ordinal = 0;  // CUDA device
  DeviceInfo info;
  std::unique_ptr<PipelineResources> resources;
  std::unique_ptr<BatchIssuer> issuer;
  Stream comm;  // NCCL's stream (data parallel with an all-reduce)
  /// Recorded on a compute stream and waited for by another stream at once (a bucket's
  /// share of the kernels is issued; a stage's output is ready): one event serves all,
  /// since a wait takes the event's latest record at the time it is issued.
  Event mark;
  std::vector<Event> bucketReady;    // data parallel, per bucket: its share of the kernels is issued
  Event reduced;                     // data parallel: the step's all-reduce done (recorded after its last bucket)
  const Event* lastReduced = nullptr;  // set once a step reduced: the next step's kernels wait for it
  DeviceBuffer gradients;            // allreduceBytes, reduced in place
  std::vector<DeviceBuffer> send, recv;           // pipeline, per stream: activations out, in
  /// Pipeline, per stream: where a stage before the last writes its model output when
  /// the host memory kind has no device output buffer (mapped, managed).
  std::vector<DeviceBuffer> stageOut;
  std::vector<HostBuffer> stagingHost;            // pipeline without peer access: the host hop
  std::vector<Event> stagingFree;                 // pipeline without peer access: the next GPU read the hop
  bool peerToNext = false;                        // pipeline: peer access to the next stage's GPU
};

/// One batch in flight: which GPU (data parallel) or the last stage (pipeline) owns its
/// host slot, and its stream.
struct Batch {
  std::int32_t batch = kNoBatch;
  int gpu = 0;
  int stream = 0;
  int slot = 0;
};

std::uint64_t share(std::uint64_t total, int i, int n) { return total * std::uint64_t(i) / std::uint64_t(n); }

class MultiGpuRun {
 public:
  MultiGpuRun(const PipelineConfig& first, Trace& trace, RunControl& control)
      : ordinals_(first.deviceOrdinals()),
        trace_(trace),
        control_(control),
        t0_(steadyNowNs()),
        recorder_(trace, t0_),
        host_(trace, recorder_, t0_) {}

  ~MultiGpuRun() {
    // After an error: every GPU idle before anything is freed (NCCL, then buffers).
    for (const Gpu& g : gpus_) {
      if (cudaSetDevice(g.ordinal) == cudaSuccess) cudaDeviceSynchronize();
    }
    clique_.reset();
  }
  MultiGpuRun(const MultiGpuRun&) = delete;
  MultiGpuRun& operator=(const MultiGpuRun&) = delete;

  RunOutcome run(const PipelineConfig& first) {
    if (trace_.configHistory().empty()) trace_.setConfig(first);
    setUp(first);
    PipelineConfig config = first;
    bool stopped = false;
    for (;;) {
      configure(config);
      const std::optional<PipelineConfig> next = runSegment(config, stopped);
      drain();
      if (!next || stopped) break;
      config = *next;
      // The GPUs of a run and how they share the work are fixed when it starts (their
      // lanes, streams and communicators); a live change applies every other knob.
      config.devices = first.devices;
      config.parallel = first.parallel;
      trace_.addConfigChange(nextBatch_, config);
    }
    recorder_.finish();
    trace_.setCompletedBatches(host_.completed());
    trace_.ops().publish();
    std::string note;
    if (recorder_.unresolved() > 0)
      note = std::to_string(recorder_.unresolved()) + " GPU ops had no CUPTI record and are missing from the trace";
    if (!stagedNote_.empty()) note += (note.empty() ? "" : "; ") + stagedNote_;
    return {stopped ? RunState::Stopped : RunState::Finished, note};
  }

 private:
  // ---------------------------------------------------------------- set-up
  void setUp(const PipelineConfig& c) {
    checkDevicesPresent(ordinals_);
    const int n = int(ordinals_.size());
    gpus_.resize(std::size_t(n));
    std::vector<DeviceInfo> infos;
    for (int g = 0; g < n; ++g) {
      Gpu& gpu = gpus_[std::size_t(g)];
      gpu.index = g;
      gpu.ordinal = ordinals_[std::size_t(g)];
      gpu.info = describeDevice(gpu.ordinal);
      gpu.info.ordinal = gpu.ordinal;
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
      setSyncMode(gpu, c.sync);
      gpu.resources = std::make_unique<PipelineResources>(gpu.info, nullptr);
      gpu.issuer = std::make_unique<BatchIssuer>(gpu.ordinal, recorder_);
      gpu.issuer->setTarget(g, g * kKeysPerGpu);
      gpu.mark = Event::create(false);
    }
    if (c.parallel == ParallelMode::Pipeline) connectStages();
    for (Gpu& gpu : gpus_) infos.push_back(gpu.info);
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpus_.front().ordinal));
    recorder_.start(infos, ordinals_);
    for (std::size_t g = 0; g < infos.size(); ++g) gpus_[g].info = infos[g];
    trace_.setDevices(infos);
  }

  void setSyncMode(Gpu& gpu, SyncMode mode) {
    const unsigned sched = mode == SyncMode::Spin    ? cudaDeviceScheduleSpin
                           : mode == SyncMode::Yield ? cudaDeviceScheduleYield
                                                     : cudaDeviceScheduleBlockingSync;
    const cudaError_t err = cudaSetDeviceFlags(sched | cudaDeviceMapHost);
    if (err == cudaErrorSetOnActiveProcess) {
      (void)cudaGetLastError();
      gpu.info.note += (gpu.info.note.empty() ? "" : "; ") + std::string("sync mode could not be changed on the active device");
    } else if (err != cudaSuccess) {
      throwCudaError("cudaSetDeviceFlags", err, "the sync mode could not be set");
    }
  }

  /// Pipeline parallel: peer access from each stage's GPU to the next one's, or the
  /// host hop where a pair has none (said in the run's note and on the link's lane).
  void connectStages() {
    for (std::size_t k = 0; k + 1 < gpus_.size(); ++k) {
      Gpu& from = gpus_[k];
      Gpu& to = gpus_[k + 1];
      // The copy is issued on the sender's stream; access both ways, as NCCL has it.
      const bool forward = enablePeerAccess(from.ordinal, to.ordinal);
      const bool backward = enablePeerAccess(to.ordinal, from.ordinal);
      from.peerToNext = forward && backward;
      linkNames_.push_back(linkName(from.ordinal, to.ordinal, from.peerToNext));
      if (!from.peerToNext) {
        const std::string what = "GPU " + std::to_string(from.ordinal) + " and GPU " + std::to_string(to.ordinal) +
                                 " have no peer access: activations go through pinned host memory";
        stagedNote_ += (stagedNote_.empty() ? "" : "; ") + what;
        from.info.note += (from.info.note.empty() ? "" : "; ") + what;
      }
    }
  }

  // ---------------------------------------------------------------- configuration
  void configure(const PipelineConfig& c) {
    config_ = c;
    const int n = int(gpus_.size());
    std::vector<int> copyEngines;
    for (const Gpu& g : gpus_) copyEngines.push_back(g.info.copyEngines);
    lanes_ = MultiGpuLanes::create(trace_, c, copyEngines, linkNames_);
    const bool pipeline = c.parallel == ParallelMode::Pipeline;
    for (int g = 0; g < n; ++g) {
      Gpu& gpu = gpus_[std::size_t(g)];
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
      // Pipeline: the last stage finishes each batch, so it owns the host slots.
      gpu.resources->setOwnsHostSlots(!pipeline || g == n - 1);
      gpu.resources->prepare(c);
      PIPESCOPE_CUDA_CHECK(loadKernels());
      gpu.issuer->configure(c, lanes_.gpus[std::size_t(g)], gpu.resources->weights());
      gpu.issuer->setModelPieces(customModelPieces(c));
      prepareCommunication(gpu, c);
    }
    host_.configure(c, lanes_.gpus.front());
    if (c.allReduces() && !clique_) {
      clique_ = std::make_unique<NcclClique>(ordinals_, NcclClique::defaultTimeout());
      warmUpAllReduce();
      // Every GPU is idle here (prepareCommunication and the warm-up waited for them).
      std::vector<GpuTarget> comm;
      for (const Gpu& g : gpus_) comm.push_back({g.comm.get(), g.index * kKeysPerGpu + kCommStream, g.index});
      recorder_.watchGroupStreams(comm);
    }
    warmUpCopies(c);
  }

  /// The first cudaMemcpyAsync on each GPU of a run over several GPUs cost 390-520 us on
  /// the host (4 x H200, after NCCL's set-up; later ones 9-18 us), which delayed the
  /// first step by ~1.8 ms. Paid here, after NCCL's set-up, before the run's first op
  /// and outside its timing: where a training program pays it, before its steady state.
  void warmUpCopies(const PipelineConfig& c) {
    const bool pipeline = c.isPipelineParallel();
    for (Gpu& gpu : gpus_) {
      const Gpu& owner = pipeline ? gpus_.back() : gpu;
      if (owner.resources->hosts().empty()) continue;
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
      gpu.resources->warmUpCopies(c, owner.resources->hosts().front());
    }
  }

  void prepareCommunication(Gpu& gpu, const PipelineConfig& c) {
    const std::size_t streams = std::size_t(streamCount(c));
    if (c.allReduces()) {
      if (!gpu.comm.get()) gpu.comm = Stream::create();
      if (gpu.gradients.bytes() != c.allreduceBytes)
        gpu.gradients = DeviceBuffer(c.allreduceBytes, "all-reduce (gradient) buffer");
      gpu.bucketReady.resize(std::size_t(std::max(1, c.buckets)));
      for (Event& e : gpu.bucketReady)
        if (!e.get()) e = Event::create(false);
      if (!gpu.reduced.get()) gpu.reduced = Event::create(false);
    }
    gpu.lastReduced = nullptr;
    if (c.isPipelineParallel()) {
      const bool sends = std::size_t(gpu.index) + 1 < gpus_.size();
      const bool receives = gpu.index > 0;
      auto fit = [&](std::vector<DeviceBuffer>& v, bool need, const char* what) {
        if (!need) return v.clear();
        v.resize(streams);
        for (DeviceBuffer& b : v)
          if (b.bytes() != c.activationBytes) b = DeviceBuffer(c.activationBytes, what);
      };
      fit(gpu.send, sends, "activation buffer (sent to the next stage)");
      fit(gpu.recv, receives, "activation buffer (received from the previous stage)");
      const bool noDeviceOutput = c.memory == HostMemory::Mapped || isManaged(c.memory);
      if (!sends || !noDeviceOutput) {
        gpu.stageOut.clear();
      } else {
        gpu.stageOut.resize(streams);
        for (DeviceBuffer& b : gpu.stageOut)
          if (b.bytes() != c.outputBytes()) b = DeviceBuffer(c.outputBytes(), "stage output buffer");
      }
      // Without peer access the hop goes GPU k -> pinned host -> GPU k+1; the next GPU
      // tells GPU k (an event) when it has read the host buffer, before it is refilled.
      const bool staged = sends && !gpu.peerToNext;
      if (!staged) {
        gpu.stagingHost.clear();
        gpu.stagingFree.clear();
      } else {
        gpu.stagingHost.resize(streams);
        for (HostBuffer& h : gpu.stagingHost)
          if (h.bytes() != c.activationBytes) h = HostBuffer(HostMemory::Pinned, c.activationBytes, "staging buffer");
        PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpus_[std::size_t(gpu.index) + 1].ordinal));
        gpu.stagingFree.resize(streams);
        for (Event& e : gpu.stagingFree)
          if (!e.get()) e = Event::create(false);
        PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
      }
    }
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }

  /// NCCL connects its channels at a communicator's first collectives: done before the
  /// run (and outside its timing) by one all-reduce of each size the run uses.
  void warmUpAllReduce() {
    const int buckets = std::max(1, config_.buckets);
    std::vector<std::uint64_t> sizes;
    for (int j = 0; j < buckets; ++j) sizes.push_back(bucketFloats(j, buckets));
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    for (std::uint64_t count : sizes) groupAllReduce(0, count);
    for (const Gpu& g : gpus_) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(g.ordinal));
      PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(g.comm.get()));
    }
  }

  /// Floats of bucket j of `buckets` (equal shares of allreduceBytes, in floats).
  std::uint64_t bucketFloats(int j, int buckets) const {
    const std::uint64_t floats = config_.allreduceBytes / sizeof(float);
    return share(floats, j + 1, buckets) - share(floats, j, buckets);
  }

  /// One in-place float-sum all-reduce of `count` floats at `offset` on every GPU's
  /// communication stream: one NCCL group call from this thread.
  void groupAllReduce(std::uint64_t offset, std::uint64_t count) {
    const NcclApi& nccl = clique_->api();
    ncclResult_t r = nccl.groupStart();
    const char* failed = r == ncclSuccess ? nullptr : "ncclGroupStart";
    for (std::size_t g = 0; !failed && g < gpus_.size(); ++g) {
      float* buf = static_cast<float*>(gpus_[g].gradients.get()) + offset;
      r = nccl.allReduce(buf, buf, count, ncclFloat, ncclSum, clique_->comm(int(g)), gpus_[g].comm.get());
      if (r != ncclSuccess) failed = "ncclAllReduce";
    }
    const ncclResult_t end = nccl.groupEnd();
    clique_->check(failed ? failed : "ncclGroupEnd", failed ? r : end);
  }

  // ---------------------------------------------------------------- the loop
  BatchSlots slots(const Batch& b) {
    Gpu& gpu = gpus_[std::size_t(b.gpu)];
    Gpu& owner = config_.isPipelineParallel() ? gpus_.back() : gpu;
    return {b.batch, b.stream, gpu.resources->streams()[std::size_t(b.stream)],
            owner.resources->hosts()[std::size_t(b.slot)]};
  }
  /// Pipeline: the batch's host slot with GPU `gpu`'s stream `stream`.
  BatchSlots slotsOn(const Batch& b, int gpu, int stream) {
    Batch on = b;
    on.gpu = gpu;
    on.stream = stream;
    return slots(on);
  }
  /// Pipeline: micro-batch m runs on stream m % streams of every GPU.
  int microStream(int m) const { return m % streamCount(config_); }

  /// Takes the slot of the next batch for `gpu` (its step's index `i` in the segment):
  /// completes the slot's previous batch first, then preprocesses into it.
  Batch take(int gpu, std::int64_t i) {
    const int streams = streamCount(config_);
    Batch b;
    b.batch = nextBatch_++;
    b.gpu = gpu;
    // Pipeline batches spread their micro-batches over the streams and end on stream 0.
    b.stream = config_.isPipelineParallel() ? 0 : int(i % streams);
    b.slot = int(i % hostSlotCount(config_));
    HostSlot& h = slots(b).host;
    if (h.batch != kNoBatch) complete(h, b.gpu);
    host_.begin(h, b.stream, b.batch);
    return b;
  }

  /// Waits for the slot's batch, postprocesses it and frees the slot. (The host never
  /// waits for an all-reduce: it touches no host buffer, and the next step's kernels
  /// wait for it on the GPU.)
  void complete(HostSlot& h, int gpu) {
    Gpu& owner = gpus_[std::size_t(gpu)];
    if (!h.complete) {
      // Stopped midway: parts of it may be queued on any GPU.
      for (const Gpu& g : gpus_) {
        PIPESCOPE_CUDA_CHECK(cudaSetDevice(g.ordinal));
        PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
      }
    }
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(owner.ordinal));
    host_.complete(h, owner.resources->streams()[std::size_t(h.stream)]);
  }

  bool stopNow(bool& stopped) {
    if (control_.stopRequested()) stopped = true;
    return stopped;
  }

  /// Runs until done, stopped, or a new configuration is queued (returned).
  std::optional<PipelineConfig> runSegment(const PipelineConfig& c, bool& stopped) {
    segmentStep_ = 0;
    const int n = int(gpus_.size());
    const bool pipeline = c.isPipelineParallel();
    // A step: one batch on every GPU (data parallel) or one batch through every stage.
    const int perStep = pipeline ? 1 : n;
    for (;;) {
      if (stopNow(stopped)) return std::nullopt;
      if (!c.runsUntilStopped() && totalIssued_ >= c.batchCount) return std::nullopt;
      if (auto next = control_.takePendingConfig()) return next;
      std::vector<Batch> step;
      for (int g = 0; g < perStep; ++g) {
        if (!c.runsUntilStopped() && totalIssued_ >= c.batchCount) break;
        step.push_back(take(pipeline ? n - 1 : g, segmentStep_));
        ++totalIssued_;
        if (stopNow(stopped)) return std::nullopt;
      }
      ++segmentStep_;
      if (pipeline) {
        // GPipe: a batch starts once the one before it has left every stage (the
        // optimizer step between them), so each batch fills and drains the pipeline.
        drain(step.front().batch);
        issuePipeline(step.front(), stopped);
      } else if (c.isAsync()) {
        issueData(step, stopped);
      } else {
        issueDataBlocking(step);
      }
      if (stopped) return std::nullopt;
    }
  }

  /// Completes every batch in flight older than `before` (all of them by default), oldest first.
  void drain(std::int32_t before = INT32_MAX) {
    std::vector<std::pair<HostSlot*, int>> busy;
    for (Gpu& g : gpus_)
      for (HostSlot& h : g.resources->hosts())
        if (h.batch != kNoBatch && h.batch < before) busy.emplace_back(&h, g.index);
    std::sort(busy.begin(), busy.end(), [](const auto& a, const auto& b) { return a.first->batch < b.first->batch; });
    for (auto& [h, g] : busy) complete(*h, g);
  }

  // ---------------------------------------------------------------- data parallel
  /// Blocking copies: each GPU's batch in turn, the host waiting for each.
  void issueDataBlocking(const std::vector<Batch>& step) {
    for (const Batch& b : step) {
      Gpu& gpu = gpus_[std::size_t(b.gpu)];
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
      const BatchSlots s = slots(b);
      gpu.issuer->h2d(s);
      gpu.issuer->kernels(s);
      gpu.issuer->d2h(s);
      s.host.complete = true;
      complete(s.host, b.gpu);
    }
  }

  /// One step: each GPU's input copy, kernels and copy back (depth-first: GPU by GPU;
  /// breadth-first: stage by stage over the GPUs), then the all-reduce buckets, then
  /// each batch's done event.
  void issueData(const std::vector<Batch>& step, bool& stopped) {
    const bool reduces = config_.allReduces() && int(step.size()) == int(gpus_.size());
    auto stage = [&](int which, const Batch& b) {
      Gpu& gpu = gpus_[std::size_t(b.gpu)];
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
      const BatchSlots s = slots(b);
      if (which == 0) gpu.issuer->h2d(s);
      if (which == 1) issueKernels(gpu, s, reduces);
      if (which == 2) gpu.issuer->d2h(s);
    };
    if (config_.order == IssueOrder::DepthFirst) {
      for (const Batch& b : step)
        for (int which = 0; which < 3; ++which) stage(which, b);
    } else {
      for (int which = 0; which < 3; ++which) {
        for (const Batch& b : step) stage(which, b);
        if (stopNow(stopped)) return;
      }
    }
    if (reduces) issueAllReduces(step);
    for (const Batch& b : step) {
      Gpu& gpu = gpus_[std::size_t(b.gpu)];
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
      const BatchSlots s = slots(b);
      gpu.issuer->markDone(s);
      s.host.complete = true;
    }
  }

  /// One batch's kernels on its GPU. With an all-reduce: they wait for the previous
  /// step's all-reduce on this GPU (the reduced gradients update the model before the
  /// next batch runs through it, as in PyTorch DDP), and behind the launch each bucket
  /// follows (config/ModelWork.h) an event marks that bucket's gradients ready.
  void issueKernels(Gpu& gpu, const BatchSlots& s, bool reduces) {
    if (reduces && gpu.lastReduced) waitEvent(s, *gpu.lastReduced);
    gpu.issuer->normalize(s);
    const int launches = gpu.issuer->modelLaunches();
    const int buckets = std::max(1, config_.buckets);
    int next = 0;
    for (int k = 0; k < launches; ++k) {
      gpu.issuer->modelLaunch(s, k);
      for (; reduces && next < buckets && bucketAfterModelKernel(next, config_.buckets, launches) == k; ++next)
        recordEvent(gpu.bucketReady[std::size_t(next)], s.device.handle(), s.batch, s.stream);
    }
  }

  /// Bucket after bucket: every GPU's communication stream waits for the bucket's
  /// event, then one group call all-reduces it on every GPU. After the last, an event
  /// on each communication stream that the next step's kernels wait for.
  void issueAllReduces(const std::vector<Batch>& step) {
    const int buckets = std::max(1, config_.buckets);
    std::uint64_t offset = 0;
    for (int j = 0; j < buckets; ++j) {
      for (const Batch& b : step) {
        Gpu& gpu = gpus_[std::size_t(b.gpu)];
        PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
        commWaits(gpu, gpu.bucketReady[std::size_t(j)], b.batch);
      }
      const std::uint64_t count = bucketFloats(j, buckets);
      recordAllReduce(step, offset, count);
      offset += count;
    }
    for (const Batch& b : step) {
      Gpu& gpu = gpus_[std::size_t(b.gpu)];
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
      recordEvent(gpu.reduced, gpu.comm.get(), b.batch, kCommStream);
      gpu.lastReduced = &gpu.reduced;
    }
  }

  void recordAllReduce(const std::vector<Batch>& step, std::uint64_t offset, std::uint64_t count) {
    NvtxRange r("all-reduce");
    const std::size_t n = gpus_.size();
    std::vector<Op> ops(n);
    std::vector<GpuTarget> where(n);
    for (std::size_t g = 0; g < n; ++g) {
      Op& op = ops[g];
      op.kind = OpKind::Collective;
      op.lane = lanes_.comm[g];
      op.engineLane = lanes_.gpus[g].compute;
      op.batch = step[g].batch;
      op.stream = std::int16_t(kCommStream);
      op.bytes = count * sizeof(float);
      op.name = lanes_.allReduceName;
      where[g] = {gpus_[g].comm.get(), int(g) * kKeysPerGpu + kCommStream, int(g)};
    }
    Op whole = ops.front();
    whole.lane = lanes_.collective;
    whole.engineLane = kNoLane;
    whole.stream = kNoStream;
    Op api = apiOp(step.front().batch, kCommStream, lanes_.allReduceApi);
    recorder_.recordGroup(api, ops, where, whole, [&] { groupAllReduce(offset, count); });
  }

  // ---------------------------------------------------------------- pipeline parallel
  /// One batch's micro-batches through every stage; micro-batch m on stream
  /// m % streams of every GPU. Each micro-batch's phases in order: the input copy to
  /// GPU 0, stage 0's kernels, the copy to GPU 1, stage 1's kernels, ..., the last
  /// stage's kernels, the copy back from the last GPU. Depth-first issues every phase
  /// of a micro-batch before the next micro-batch; breadth-first each phase for every
  /// micro-batch before the next phase.
  void issuePipeline(const Batch& b, bool& stopped) {
    const int micro = config_.microBatches, n = int(gpus_.size());
    const int phases = 2 * n + 1;
    auto issue = [&](int phase, int m) {
      if (phase == 0) stageInput(b, m);
      else if (phase == phases - 1) stageOutput(b, m);
      else if (phase % 2 == 1) stageKernels(b, phase / 2, m);
      else handOver(b, phase / 2, m);
    };
    if (config_.order == IssueOrder::DepthFirst) {
      for (int m = 0; m < micro; ++m)
        for (int p = 0; p < phases; ++p) issue(p, m);
    } else {
      for (int p = 0; p < phases; ++p) {
        for (int m = 0; m < micro; ++m) issue(p, m);
        if (stopNow(stopped)) return;
      }
    }
    finishBatch(b);
  }

  /// Micro-batch m's share of the batch: first sample, samples.
  std::pair<std::uint64_t, std::uint64_t> microSamples(int m) const {
    std::uint64_t first = 0;
    for (int i = 0; i < m; ++i) first += std::uint64_t(microBatchSamples(config_, i));
    return {first, std::uint64_t(microBatchSamples(config_, m))};
  }

  bool copies() const { return config_.memory != HostMemory::Mapped && !isManaged(config_.memory); }

  /// Stage 0 gets micro-batch m's input: a copy (or prefetch) of its samples.
  void stageInput(const Batch& b, int m) {
    if (config_.memory == HostMemory::Mapped || config_.memory == HostMemory::Managed) return;
    Gpu& gpu = gpus_.front();
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
    const BatchSlots s = slotsOn(b, 0, microStream(m));
    if (config_.residency == DataResidency::KeepResident && s.device.residentLoaded) return;
    const auto [first, samples] = microSamples(m);
    const std::uint64_t o = first * config_.sampleBytes, bytes = samples * config_.sampleBytes;
    NvtxRange r("cpu_to_gpu");
    char* dev = static_cast<char*>(s.device.devIn.get()) + o;
    char* host = static_cast<char*>(s.host.in.host()) + o;
    if (config_.memory == HostMemory::ManagedPrefetch) gpu.issuer->prefetch(s, OpKind::CopyH2D, host, bytes);
    else gpu.issuer->copy(s, OpKind::CopyH2D, dev, host, bytes);
  }

  /// Stage k's kernels on micro-batch m: normalize on the first stage; the custom model
  /// as 1/stages of its FMAs on every stage, or the stage's GEMM layers; the head on
  /// the last stage.
  void stageKernels(const Batch& b, int k, int m) {
    Gpu& gpu = gpus_[std::size_t(k)];
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
    const int stream = microStream(m);
    const BatchSlots s = slotsOn(b, k, stream);
    if (k == 0 && config_.residency == DataResidency::KeepResident) s.device.residentLoaded = true;
    const int stages = int(gpus_.size());
    const bool last = k + 1 == stages;
    const auto [first, samples] = microSamples(m);
    const std::size_t e0 = std::size_t(first * config_.sampleBytes / sizeof(float));
    const std::size_t n = std::size_t(samples * config_.sampleBytes / sizeof(float));
    const std::size_t outFloats = config_.outputBytes() / sizeof(float);
    const std::size_t f0 = std::size_t(share(outFloats, int(first), config_.batchSamples));
    const std::size_t f1 = std::size_t(share(outFloats, int(first + samples), config_.batchSamples));
    const PipelineLanes::Names& names = lanes_.gpus[std::size_t(k)].names;
    const std::uint8_t flags = config_.memory == HostMemory::Mapped ? kOpMapped
                               : isManaged(config_.memory)          ? kOpManaged
                                                                     : 0;
    const cudaStream_t st = s.device.handle();
    auto* devIn = static_cast<float*>(s.device.devIn.get()) + e0;
    // What the first stage reads: the copied input, or host memory read directly.
    const float* in = devIn;
    if (k == 0 && !copies()) in = static_cast<const float*>(s.host.in.device()) + e0;
    float* out = copies() ? static_cast<float*>(s.device.devOut.get())
                 : last   ? static_cast<float*>(s.host.out.device())
                          : static_cast<float*>(gpu.stageOut[std::size_t(stream)].get());
    out += f0;
    BatchIssuer& issue = *gpu.issuer;
    if (k == 0 && config_.normalizeKernel) {
      NvtxRange r("normalize");
      const float* src = in;
      issue.gpuOp(s, OpKind::Kernel, samples * config_.sampleBytes, names.normalize, names.launch, flags, false,
                  "normalize kernel launch", [&] { return launchNormalize(src, devIn, n, st); });
      in = devIn;
    }
    NvtxRange r("model");
    const GemmShape g = gemmShape(config_.model);
    if (g.width == 0) {
      const std::uint32_t rounds = modelFmasPerElement(config_.modelFlopsPerByte) / 4;
      const auto fmas = std::uint32_t(4 * (share(rounds, k + 1, stages) - share(rounds, k, stages)));
      issue.gpuOp(s, OpKind::Kernel, samples * config_.sampleBytes, names.model, names.launch, flags, false,
                  "model kernel launch", [&] { return launchModel(in, n, out, f1 - f0, fmas, st); });
      return;
    }
    const int rows = int(n / std::size_t(g.width));
    const LayerRange layers = rows > 0 ? stageLayers(k, stages, g.layers) : LayerRange{};
    float* bufs[2] = {static_cast<float*>(s.device.devScratch.get()) + e0, devIn};
    const float* x = in;
    const float alpha = 1.0f, beta = 0.0f;
    for (int l = layers.first; l < layers.end; ++l) {
      float* y = bufs[(l - layers.first) % 2];
      cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
      issue.gpuOp(s, OpKind::Kernel, std::uint64_t(rows) * std::uint64_t(g.width) * 4, names.gemm, names.gemmApi,
                  flags, false, "cublasSgemm", [&] {
                    status = cublasSgemm(s.device.blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, g.width, rows, g.width,
                                         &alpha, issue.weights(), g.width, x, g.width, &beta, y, g.width);
                    return cudaSuccess;
                  });
      if (status != CUBLAS_STATUS_SUCCESS) throwCublasError("cublasSgemm", status, std::string());
      x = y;
    }
    if (!last) return;
    const std::size_t nAct = rows > 0 ? std::size_t(rows) * std::size_t(g.width) : n;
    issue.gpuOp(s, OpKind::Kernel, (f1 - f0) * sizeof(float), names.head, names.launch, flags, false,
                "model head kernel launch", [&] { return launchModel(x, nAct, out, f1 - f0, 0, st); });
  }

  /// Micro-batch m's activations from stage k-1 to stage k, sent on the sender's stream
  /// once its kernels are done (cudaMemcpyPeerAsync, or through the host hop); the
  /// receiving stream waits for an event behind the copy (behind the kernels when
  /// there are no activation bytes) before stage k's kernels.
  void handOver(const Batch& b, int k, int m) {
    Gpu& from = gpus_[std::size_t(k - 1)];
    Gpu& to = gpus_[std::size_t(k)];
    const int stream = microStream(m);
    const std::size_t si = std::size_t(stream);
    const BatchSlots src = slotsOn(b, k - 1, stream), dst = slotsOn(b, k, stream);
    const std::uint64_t bytes = config_.activationBytes;
    const std::uint16_t link = lanes_.links[std::size_t(k - 1)];
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(from.ordinal));
    if (bytes > 0 && from.peerToNext) {
      NvtxRange r("activations");
      void* d = to.recv[si].get();
      const void* sp = from.send[si].get();
      from.issuer->gpuOp(src, OpKind::PeerCopy, bytes, lanes_.peerCopyName, lanes_.peerCopyApi, 0, false,
                         "cudaMemcpyPeerAsync",
                         [&] { return cudaMemcpyPeerAsync(d, to.ordinal, sp, from.ordinal, bytes, src.device.handle()); },
                         link);
    } else if (bytes > 0) {
      // Through pinned host memory: GPU k-1 refills the hop once GPU k has read what it
      // held before; GPU k reads it once GPU k-1 has written it.
      NvtxRange r("activations via host");
      void* hop = from.stagingHost[si].host();
      if (stagingUsed_.size() < gpus_.size() * std::size_t(limits::kMaxStreams))
        stagingUsed_.resize(gpus_.size() * std::size_t(limits::kMaxStreams), 0);
      char& used = stagingUsed_[std::size_t(k - 1) * std::size_t(limits::kMaxStreams) + si];
      if (used) waitEvent(src, from.stagingFree[si]);
      from.issuer->gpuOp(src, OpKind::PeerCopy, bytes, lanes_.peerCopyName, lanes_.stagedOutApi, 0, false,
                         "cudaMemcpyAsync", [&] {
                           return cudaMemcpyAsync(hop, from.send[si].get(), bytes, cudaMemcpyDeviceToHost,
                                                  src.device.handle());
                         },
                         link);
      recordEvent(from.mark, src.device.handle(), b.batch, stream);
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(to.ordinal));
      waitEvent(dst, from.mark);
      to.issuer->gpuOp(dst, OpKind::PeerCopy, bytes, lanes_.peerCopyName, lanes_.stagedInApi, 0, false,
                       "cudaMemcpyAsync", [&] {
                         return cudaMemcpyAsync(to.recv[si].get(), hop, bytes, cudaMemcpyHostToDevice,
                                                dst.device.handle());
                       },
                       link);
      recordEvent(from.stagingFree[si], dst.device.handle(), b.batch, stream);
      used = 1;
      return;
    }
    recordEvent(from.mark, src.device.handle(), b.batch, stream);
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(to.ordinal));
    waitEvent(dst, from.mark);
  }

  /// The last stage sends micro-batch m's share of the output back.
  void stageOutput(const Batch& b, int m) {
    if (config_.memory == HostMemory::Mapped || config_.memory == HostMemory::Managed) return;
    if (config_.d2hBytes() == 0) return;
    Gpu& gpu = gpus_.back();
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
    const BatchSlots s = slotsOn(b, gpu.index, microStream(m));
    const auto [first, samples] = microSamples(m);
    const std::uint64_t d0 = share(config_.d2hBytes() / sizeof(float), int(first), config_.batchSamples) * 4;
    const std::uint64_t d1 = share(config_.d2hBytes() / sizeof(float), int(first + samples), config_.batchSamples) * 4;
    if (d1 == d0) return;
    NvtxRange r("gpu_to_cpu");
    char* host = static_cast<char*>(s.host.out.host()) + d0;
    if (config_.memory == HostMemory::ManagedPrefetch)
      gpu.issuer->prefetch(s, OpKind::CopyD2H, host, d1 - d0);
    else
      gpu.issuer->copy(s, OpKind::CopyD2H, host, static_cast<char*>(s.device.devOut.get()) + d0, d1 - d0);
  }

  /// The batch is done when every stream its micro-batches used on the last GPU is:
  /// stream 0 waits for the others, then records the batch's done event.
  void finishBatch(const Batch& b) {
    Gpu& gpu = gpus_.back();
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
    const BatchSlots s = slotsOn(b, gpu.index, 0);
    for (int st = 1; st < std::min(config_.microBatches, streamCount(config_)); ++st) {
      const BatchSlots other = slotsOn(b, gpu.index, st);
      recordEvent(gpu.mark, other.device.handle(), b.batch, st);
      waitEvent(s, gpu.mark);
    }
    gpu.issuer->markDone(s);
    s.host.complete = true;
  }

  // ---------------------------------------------------------------- small calls
  Op apiOp(std::int32_t batch, int stream, std::uint16_t name) const {
    Op api;
    api.lane = lanes_.gpus.front().submit;
    api.batch = batch;
    api.stream = std::int16_t(stream);
    api.name = name;
    return api;
  }

  /// Records `event` on `stream` (the current device must be the event's GPU).
  void recordEvent(const Event& event, cudaStream_t stream, std::int32_t batch, int streamIndex) {
    Op api = apiOp(batch, streamIndex, lanes_.gpus.front().names.eventRecord);
    const cudaEvent_t e = event.get();
    recorder_.recordCall(api, "cudaEventRecord", [&] { return cudaEventRecord(e, stream); });
  }

  /// The GPU's communication stream waits for `event` (the current device must be the GPU).
  void commWaits(Gpu& gpu, const Event& event, std::int32_t batch) {
    Op api = apiOp(batch, kCommStream, lanes_.streamWaitEvent);
    const cudaEvent_t e = event.get();
    recorder_.recordCall(api, "cudaStreamWaitEvent", [&] { return cudaStreamWaitEvent(gpu.comm.get(), e, 0); });
  }

  /// The slots' stream waits for `event` (the current device must be the stream's GPU).
  void waitEvent(const BatchSlots& s, const Event& event) {
    Op api = apiOp(s.batch, s.stream, lanes_.streamWaitEvent);
    const cudaEvent_t e = event.get();
    recorder_.recordCall(api, "cudaStreamWaitEvent",
                         [&] { return cudaStreamWaitEvent(s.device.handle(), e, 0); });
  }

  std::vector<int> ordinals_;
  Trace& trace_;
  RunControl& control_;
  std::int64_t t0_;
  PipelineConfig config_;
  MultiGpuLanes lanes_;
  std::vector<std::string> linkNames_;
  std::string stagedNote_;
  OpRecorder recorder_;
  HostStages host_;
  std::vector<Gpu> gpus_;
  std::unique_ptr<NcclClique> clique_;
  std::vector<char> stagingUsed_;

  std::int32_t nextBatch_ = 0;
  std::int64_t segmentStep_ = 0;
  std::int64_t totalIssued_ = 0;
};

}  // namespace

RunOutcome runMultiGpuPipeline(const PipelineConfig& config, Trace& trace, RunControl& control) {
  const std::vector<ConfigIssue> issues = validate(config);
  if (!issues.empty()) throw std::invalid_argument(issues.front().message());
  MultiGpuRun run(config, trace, control);
  return run.run(config);
}

}  // namespace pipescope::cuda
