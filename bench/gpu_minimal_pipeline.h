#pragma once
// The minimal reference of gpu_pipeline_bench: the plainest correct pipeline for the
// work pipescope's CUDA backend runs (async, pinned, stream s = batch % streams, one
// input and one output buffer per stream, H2D -> model kernel -> D2H per batch, one
// synchronisation at the end). Stream order alone protects every buffer: the host
// never touches them while the run is under way.
//
// Each of pipescope's structural differences can be switched on alone (Options), so
// the bench measures what each one costs on the hardware, one at a time.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include <cuda_runtime_api.h>

#include "config/ModelWork.h"
#include "config/PipelineConfig.h"
#include "cuda/CudaError.h"
#include "cuda/CuptiTracer.h"
#include "cuda/Kernels.h"

namespace pipescope::bench {

class MinimalPipeline {
 public:
  struct Options {
    /// The separate normalisation kernel before the model (pipescope's normalizeKernel).
    bool normalize = false;
    /// 0: one synchronisation at the end. k > 0: before issuing batch b the host waits
    /// for batch b - k (pipescope waits for b - streams: the batch that used the slot).
    int waitBehind = 0;
    /// Wait on an event recorded after each batch's D2H instead of cudaStreamSynchronize
    /// on the slot's stream (needed when waitBehind is not the stream count).
    bool eventWait = false;
    /// A timing event before and after every op (pipescope without CUPTI).
    bool opEvents = false;
    /// CUPTI activity collection on (kernel, memcpy, API records: what pipescope enables).
    bool cupti = false;
  };

  explicit MinimalPipeline(const PipelineConfig& c) : c_(c), streams_(std::max(1, c.streams)) {
    for (int s = 0; s < streams_; ++s) {
      Slot slot;
      PIPESCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&slot.stream, cudaStreamNonBlocking));
      PIPESCOPE_CUDA_CHECK(cudaMallocHost(&slot.hin, c.batchBytes()));
      PIPESCOPE_CUDA_CHECK(cudaMallocHost(&slot.hout, c.outputBytes()));
      std::memset(slot.hin, 0, c.batchBytes());
      std::memset(slot.hout, 0, c.outputBytes());
      PIPESCOPE_CUDA_CHECK(cudaMalloc(&slot.din, c.batchBytes()));
      PIPESCOPE_CUDA_CHECK(cudaMalloc(&slot.dout, c.outputBytes()));
      PIPESCOPE_CUDA_CHECK(cudaMemset(slot.din, 0, c.batchBytes()));
      slots_.push_back(slot);
    }
    batchEnd_.resize(std::size_t(std::max(1, c.batchCount)));
    for (cudaEvent_t& e : batchEnd_) PIPESCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    opEvents_.resize(std::size_t(std::max(1, c.batchCount)) * 8);
    for (cudaEvent_t& e : opEvents_) PIPESCOPE_CUDA_CHECK(cudaEventCreate(&e));
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  ~MinimalPipeline() {
    cudaDeviceSynchronize();
    for (cudaEvent_t e : batchEnd_) cudaEventDestroy(e);
    for (cudaEvent_t e : opEvents_) cudaEventDestroy(e);
    for (Slot& s : slots_) {
      cudaStreamDestroy(s.stream);
      cudaFreeHost(s.hin);
      cudaFreeHost(s.hout);
      cudaFree(s.din);
      cudaFree(s.dout);
    }
  }
  MinimalPipeline(const MinimalPipeline&) = delete;
  MinimalPipeline& operator=(const MinimalPipeline&) = delete;

  /// Makespan in ms: first call to the last batch back on the host. 0 when CUPTI was
  /// asked for and could not be enabled.
  double run(const Options& o) {
    cuda::CuptiTracer tracer;
    if (o.cupti) {
      std::string why;
      if (!tracer.start(why)) return 0;
    }
    const std::size_t nIn = c_.batchBytes() / 4, nOut = c_.outputBytes() / 4;
    const std::uint32_t fmas = modelFmasPerElement(c_.modelFlopsPerByte);
    std::size_t nextEvent = 0;
    // An op, bracketed by timing events when asked (pipescope's CUPTI-less timing).
    auto op = [&](cudaStream_t st, auto&& call) {
      if (o.opEvents) PIPESCOPE_CUDA_CHECK(cudaEventRecord(opEvents_[nextEvent++ % opEvents_.size()], st));
      PIPESCOPE_CUDA_CHECK(call());
      if (o.opEvents) PIPESCOPE_CUDA_CHECK(cudaEventRecord(opEvents_[nextEvent++ % opEvents_.size()], st));
    };
    const auto t0 = std::chrono::steady_clock::now();
    for (int b = 0; b < c_.batchCount; ++b) {
      Slot& s = slots_[std::size_t(b % streams_)];
      if (o.waitBehind > 0 && b >= o.waitBehind) {
        const int w = b - o.waitBehind;
        if (o.eventWait) PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(batchEnd_[std::size_t(w) % batchEnd_.size()]));
        else PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(slots_[std::size_t(w % streams_)].stream));
      }
      auto* din = static_cast<float*>(s.din);
      auto* dout = static_cast<float*>(s.dout);
      op(s.stream, [&] { return cudaMemcpyAsync(din, s.hin, c_.batchBytes(), cudaMemcpyHostToDevice, s.stream); });
      if (o.normalize) op(s.stream, [&] { return cuda::launchNormalize(din, din, nIn, s.stream); });
      op(s.stream, [&] { return cuda::launchModel(din, nIn, dout, nOut, fmas, s.stream); });
      op(s.stream, [&] { return cudaMemcpyAsync(s.hout, dout, c_.d2hBytes(), cudaMemcpyDeviceToHost, s.stream); });
      if (o.eventWait) PIPESCOPE_CUDA_CHECK(cudaEventRecord(batchEnd_[std::size_t(b) % batchEnd_.size()], s.stream));
    }
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (o.cupti) tracer.stop();
    return ms;
  }

 private:
  struct Slot {
    cudaStream_t stream = nullptr;
    void *hin = nullptr, *hout = nullptr, *din = nullptr, *dout = nullptr;
  };
  PipelineConfig c_;
  int streams_;
  std::vector<Slot> slots_;
  std::vector<cudaEvent_t> batchEnd_;
  std::vector<cudaEvent_t> opEvents_;
};

}  // namespace pipescope::bench
