#include "cuda/HostStages.h"

#include <string>

#include <nvtx3/nvToolsExt.h>

#include "cuda/CpuWork.h"
#include "cuda/CudaError.h"
#include "cuda/NvtxRange.h"

namespace pipescope::cuda {

void HostStages::configure(const PipelineConfig& config, const PipelineLanes& lanes) {
  config_ = config;
  lanes_ = &lanes;
  if (!workers_ || workers_->size() != config.cpuWorkers) workers_ = std::make_unique<WorkerPool>(config.cpuWorkers);
}

void HostStages::begin(HostSlot& slot, int stream, std::int32_t batch) {
  slot.batch = batch;
  slot.stream = stream;
  slot.complete = false;
  const std::string name = "batch " + std::to_string(batch);
  slot.range = nvtxRangeStartA(name.c_str());
  if (config_.preprocessOpsPerByte <= 0) return;
  NvtxRange r("preprocess");
  auto* dst = static_cast<float*>(slot.in.host());
  const std::size_t n = config_.batchBytes() / sizeof(float);
  const double opb = config_.preprocessOpsPerByte;
  const auto& spans = workers_->run([&](int w, int ws) { preprocessShare(dst, n, batch, opb, w, ws); });
  recordCpu(OpKind::Preprocess, batch, spans, config_.batchBytes());
}

/// The host waits only here, and only for the batch whose host buffers the next batch
/// takes: in async mode on the batch's done event; a batch stopped midway has none, so
/// its stream is synchronised. A blocking copy back already waited; blocking runs
/// without one (mapped, managed memory) synchronise the device.
void HostStages::waitFor(HostSlot& slot, StreamSlot& stream) {
  const bool blockingCopyBack = !config_.isAsync() && config_.d2hBytes() > 0 && slot.complete &&
                                config_.memory != HostMemory::Mapped && !isManaged(config_.memory);
  if (blockingCopyBack) return;
  const std::int64_t s = steadyNowNs();
  if (!config_.isAsync()) PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  else if (slot.complete) PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(slot.done.get()));
  else PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(stream.handle()));
  const std::int64_t e = steadyNowNs();
  Op sync;
  sync.kind = OpKind::HostSync;
  sync.lane = lanes_->submit;
  sync.batch = slot.batch;
  sync.stream = std::int16_t(slot.stream);
  sync.name = lanes_->names.sync;
  sync.submit = sync.ready = sync.start = s - t0_;
  sync.end = e - t0_;
  trace_.ops().append(sync);
}

void HostStages::complete(HostSlot& slot, StreamSlot& stream) {
  const std::int32_t b = slot.batch;
  waitFor(slot, stream);
  if (slot.complete) {
    if (config_.postprocessOpsPerByte > 0) {
      NvtxRange r("postprocess");
      const auto* src = static_cast<const float*>(slot.out.host());
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
  recorder_.batchDone(b);
  trace_.ops().publish();
}

void HostStages::recordCpu(OpKind kind, std::int32_t batch, const std::vector<WorkerPool::Span>& spans,
                           std::uint64_t bytes) {
  for (std::size_t w = 0; w < spans.size(); ++w) {
    Op op;
    op.kind = kind;
    op.lane = lanes_->workers[w];
    op.batch = batch;
    std::size_t b0 = 0, b1 = 0;
    shareOf(std::size_t(bytes), int(w), int(spans.size()), b0, b1);
    op.bytes = b1 - b0;
    op.submit = op.ready = op.start = spans[w].start - t0_;
    op.end = spans[w].end - t0_;
    trace_.ops().append(op);
  }
}

}  // namespace pipescope::cuda
