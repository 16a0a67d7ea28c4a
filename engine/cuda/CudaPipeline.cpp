// The CUDA pipeline's loop (docs/cuda-backend.md, "The algorithm"): batch after
// batch, take the batch's slots (waiting only for the batch that used its host
// buffers before), preprocess, issue its GPU work, and at the end or at a
// configuration change, complete every batch still in flight. The steps live in
// their own files: resources (PipelineResources), issue (BatchIssue), record
// (OpRecorder), the host's part of a batch (HostStages).
#include "cuda/CudaPipeline.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/BatchIssue.h"
#include "cuda/CudaError.h"
#include "cuda/HostStages.h"
#include "cuda/Kernels.h"
#include "cuda/OpRecorder.h"
#include "cuda/PipelineLanes.h"
#include "cuda/PipelineResources.h"

namespace pipescope::cuda {

std::shared_ptr<BufferCache> makeBufferCache() { return std::make_shared<BufferCache>(); }
void clearBufferCache(BufferCache& cache) { cache.clear(); }

namespace {

class Pipeline {
 public:
  Pipeline(int device, DeviceInfo info, Trace& trace, RunControl& control, BufferCache* cache)
      : device_(device),
        info_(std::move(info)),
        trace_(trace),
        control_(control),
        t0_(steadyNowNs()),
        recorder_(trace, t0_),
        resources_(info_, cache),
        issuer_(device, recorder_),
        host_(trace, recorder_, t0_) {}

  ~Pipeline() {
    // After an error: leave the device idle before buffers are freed.
    cudaDeviceSynchronize();
  }
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  RunOutcome run(const PipelineConfig& first) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(device_));
    if (trace_.configHistory().empty()) trace_.setConfig(first);
    recorder_.start(info_);
    PipelineConfig config = first;
    bool stopped = false;
    resources_.adoptCached(first);
    for (;;) {
      configure(config);
      const std::optional<PipelineConfig> next = runSegment(config, stopped);
      drain();
      if (!next || stopped) break;
      config = *next;
      trace_.addConfigChange(nextBatch_, config);
    }
    recorder_.finish();
    resources_.returnToCache(config_);
    trace_.setCompletedBatches(host_.completed());
    trace_.ops().publish();
    std::string note;
    if (recorder_.unresolved() > 0)
      note = std::to_string(recorder_.unresolved()) + " GPU ops had no CUPTI record and are missing from the trace";
    return {stopped ? RunState::Stopped : RunState::Finished, note};
  }

 private:
  void configure(const PipelineConfig& c) {
    config_ = c;
    setSyncMode(c.sync);
    lanes_ = PipelineLanes::create(trace_, c, info_.copyEngines);
    resources_.prepare(c);
    if (!resources_.hosts().empty()) resources_.warmUpCopies(c, resources_.hosts().front());
    PIPESCOPE_CUDA_CHECK(loadKernels());
    issuer_.configure(c, lanes_, resources_.weights());
    host_.configure(c, lanes_);
  }

  void setSyncMode(SyncMode mode) {
    const unsigned sched = mode == SyncMode::Spin    ? cudaDeviceScheduleSpin
                           : mode == SyncMode::Yield ? cudaDeviceScheduleYield
                                                     : cudaDeviceScheduleBlockingSync;
    const cudaError_t err = cudaSetDeviceFlags(sched | cudaDeviceMapHost);
    if (err == cudaErrorSetOnActiveProcess) {
      (void)cudaGetLastError();
      info_.note += (info_.note.empty() ? "" : "; ") + std::string("sync mode could not be changed on the active device");
      trace_.setDevice(info_);
    } else if (err != cudaSuccess) {
      throwCudaError("cudaSetDeviceFlags", err, "the sync mode could not be set");
    }
  }

  /// Batch b runs on stream b % streams and owns host slot b % (2·streams): the host
  /// slot's previous batch is the one the host must finish before reusing its buffers.
  BatchSlots slotsOf(std::int32_t b) {
    const auto i = std::size_t(b - segmentFirst_);
    std::vector<StreamSlot>& streams = resources_.streams();
    std::vector<HostSlot>& hosts = resources_.hosts();
    const std::size_t stream = i % streams.size();
    return {b, int(stream), streams[stream], hosts[i % hosts.size()]};
  }

  void complete(HostSlot& h) { host_.complete(h, resources_.streams()[std::size_t(h.stream)]); }

  /// Runs batches until done, stopped, or a new configuration is queued (returned).
  std::optional<PipelineConfig> runSegment(const PipelineConfig& c, bool& stopped) {
    segmentFirst_ = nextBatch_;
    const int group = c.isAsync() && c.order == IssueOrder::BreadthFirst ? streamCount(c) : 1;
    for (;;) {
      if (control_.stopRequested()) {
        stopped = true;
        return std::nullopt;
      }
      if (!c.runsUntilStopped() && totalIssued_ >= c.batchCount) return std::nullopt;
      if (auto next = control_.takePendingConfig()) return next;
      int count = group;
      if (!c.runsUntilStopped()) count = int(std::min<std::int64_t>(count, c.batchCount - totalIssued_));
      std::vector<BatchSlots> batches;
      for (int k = 0; k < count; ++k) {
        const BatchSlots b = slotsOf(nextBatch_++);
        ++totalIssued_;
        if (b.host.batch != kNoBatch) complete(b.host);
        if (control_.stopRequested()) {
          stopped = true;
          return std::nullopt;
        }
        host_.begin(b.host, b.stream, b.batch);
        batches.push_back(b);
      }
      if (!c.isAsync()) {
        issuer_.h2d(batches[0]);
        issuer_.kernels(batches[0]);
        issuer_.d2h(batches[0]);
        batches[0].host.complete = true;
        complete(batches[0].host);
        continue;
      }
      // Depth-first: every stage of one batch. Breadth-first: each stage for the group.
      for (int stage = 0; stage < 3; ++stage) {
        if (control_.stopRequested()) {
          stopped = true;
          return std::nullopt;
        }
        for (const BatchSlots& b : batches) {
          if (stage == 0) issuer_.h2d(b);
          if (stage == 1) issuer_.kernels(b);
          if (stage == 2) {
            issuer_.d2h(b);
            issuer_.markDone(b);
            b.host.complete = true;
          }
        }
      }
    }
  }

  /// Completes every batch in flight, oldest first.
  void drain() {
    std::vector<HostSlot*> busy;
    for (HostSlot& h : resources_.hosts())
      if (h.batch != kNoBatch) busy.push_back(&h);
    std::sort(busy.begin(), busy.end(), [](const HostSlot* a, const HostSlot* b) { return a->batch < b->batch; });
    for (HostSlot* h : busy) complete(*h);
  }

  int device_;
  DeviceInfo info_;
  Trace& trace_;
  RunControl& control_;
  std::int64_t t0_;
  PipelineConfig config_;
  PipelineLanes lanes_;
  OpRecorder recorder_;
  PipelineResources resources_;
  BatchIssuer issuer_;
  HostStages host_;

  std::int32_t nextBatch_ = 0;
  std::int32_t segmentFirst_ = 0;
  std::int64_t totalIssued_ = 0;
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
