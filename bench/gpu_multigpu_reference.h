#pragma once
// The hand-written reference of gpu_multigpu_bench: the plainest correct program doing
// the work pipescope's CUDA backend does over several GPUs, with the same streams,
// kernels and NCCL calls, and nothing else: no recording, no host waits until the
// end, no pre/postprocessing. CUDA and NCCL are called directly (NCCL linked, not
// pipescope's loader), so nothing of pipescope's runs in it but the two kernels.
//
// Data parallel: batch b on GPU b % n; on each GPU stream s = step % streams, one input
// and output buffer per stream; per step, GPU after GPU: H2D, normalize (after the
// previous step's all-reduce), the custom model as `buckets` launches (one without
// buckets) with an event behind the launch each bucket follows, D2H; then bucket by
// bucket every GPU's communication stream waits for its event and one group call of
// ncclAllReduce covers every GPU; after the last an event on each communication
// stream.
// Pipeline parallel: stage k on GPU k; micro-batch m on stream m % streams of every
// GPU: H2D and normalize on the first GPU, 1/stages of the model's FMAs on each,
// cudaMemcpyPeerAsync of the activations on the sender's stream and an event the
// receiver waits for, D2H from the last GPU; the next batch once this one is back.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "config/ModelWork.h"
#include "config/PipelineConfig.h"
#include "cuda/CudaError.h"
#include "cuda/Kernels.h"

namespace pipescope::bench {

#define REF_NCCL_CHECK(call)                                                                                   \
  do {                                                                                                         \
    const ncclResult_t ref_r_ = (call);                                                                        \
    if (ref_r_ != ncclSuccess)                                                                                 \
      throw std::runtime_error(std::string(#call) + " failed: " + ncclGetErrorString(ref_r_));                 \
  } while (0)

/// One blocking communicator per GPU in one group, as pipescope, ncclCommInitAll and
/// nccl-tests make them.
class ReferenceComms {
 public:
  explicit ReferenceComms(const std::vector<int>& devices) : comms_(devices.size(), nullptr) {
    ncclUniqueId id{};
    REF_NCCL_CHECK(ncclGetUniqueId(&id));
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 1;
    REF_NCCL_CHECK(ncclGroupStart());
    for (std::size_t r = 0; r < devices.size(); ++r) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[r]));
      REF_NCCL_CHECK(ncclCommInitRankConfig(&comms_[r], int(devices.size()), id, int(r), &config));
    }
    REF_NCCL_CHECK(ncclGroupEnd());
  }
  ~ReferenceComms() {
    for (ncclComm_t c : comms_) ncclCommFinalize(c);
    for (ncclComm_t c : comms_) ncclCommDestroy(c);
  }
  ReferenceComms(const ReferenceComms&) = delete;
  ReferenceComms& operator=(const ReferenceComms&) = delete;

  ncclComm_t operator[](std::size_t r) const { return comms_[r]; }

  /// In-place float sums of `count` floats, one per GPU, in one group call.
  void allReduce(const std::vector<float*>& bufs, std::size_t count, const std::vector<cudaStream_t>& streams) const {
    REF_NCCL_CHECK(ncclGroupStart());
    for (std::size_t r = 0; r < comms_.size(); ++r)
      REF_NCCL_CHECK(ncclAllReduce(bufs[r], bufs[r], count, ncclFloat, ncclSum, comms_[r], streams[r]));
    REF_NCCL_CHECK(ncclGroupEnd());
  }

 private:
  std::vector<ncclComm_t> comms_;
};

class MultiGpuReference {
 public:
  explicit MultiGpuReference(const PipelineConfig& c) : c_(c), devices_(c.deviceOrdinals()) {
    const std::size_t n = devices_.size();
    const int streams = std::max(1, c.streams);
    gpus_.resize(n);
    for (std::size_t g = 0; g < n; ++g) {
      Gpu& gpu = gpus_[g];
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_[g]));
      for (int s = 0; s < streams; ++s) {
        Slot slot;
        PIPESCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&slot.stream, cudaStreamNonBlocking));
        PIPESCOPE_CUDA_CHECK(cudaMalloc(&slot.din, c.batchBytes()));
        PIPESCOPE_CUDA_CHECK(cudaMalloc(&slot.dout, c.outputBytes()));
        PIPESCOPE_CUDA_CHECK(cudaMemset(slot.din, 0, c.batchBytes()));
        PIPESCOPE_CUDA_CHECK(cudaMemset(slot.dout, 0, c.outputBytes()));
        PIPESCOPE_CUDA_CHECK(cudaHostAlloc(&slot.hin, c.batchBytes(), cudaHostAllocPortable));
        PIPESCOPE_CUDA_CHECK(cudaHostAlloc(&slot.hout, c.outputBytes(), cudaHostAllocPortable));
        std::memset(slot.hin, 0, c.batchBytes());
        if (c.activationBytes > 0) {
          PIPESCOPE_CUDA_CHECK(cudaMalloc(&slot.send, c.activationBytes));
          PIPESCOPE_CUDA_CHECK(cudaMalloc(&slot.recv, c.activationBytes));
        }
        gpu.slots.push_back(slot);
      }
      PIPESCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&gpu.mark, cudaEventDisableTiming));
      PIPESCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&gpu.reduced, cudaEventDisableTiming));
      if (c.allReduces()) {
        gpu.bucketReady.resize(std::size_t(std::max(1, c.buckets)));
        for (cudaEvent_t& e : gpu.bucketReady) PIPESCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        PIPESCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&gpu.comm, cudaStreamNonBlocking));
        PIPESCOPE_CUDA_CHECK(cudaMalloc(&gpu.grad, c.allreduceBytes));
        PIPESCOPE_CUDA_CHECK(cudaMemset(gpu.grad, 0, c.allreduceBytes));
      }
      PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    }
    if (c.isPipelineParallel())
      for (std::size_t k = 0; k + 1 < n; ++k) {
        int can = 0;
        PIPESCOPE_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, devices_[k], devices_[k + 1]));
        if (!can) throw std::runtime_error("the reference needs peer access between the pipeline's GPUs");
        for (int way = 0; way < 2; ++way) {
          PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_[k + std::size_t(way)]));
          const cudaError_t e = cudaDeviceEnablePeerAccess(devices_[k + 1 - std::size_t(way)], 0);
          if (e != cudaErrorPeerAccessAlreadyEnabled) PIPESCOPE_CUDA_CHECK(e);
          (void)cudaGetLastError();
        }
      }
    if (c.allReduces()) {
      comms_ = std::make_unique<ReferenceComms>(devices_);
      // Connect NCCL's channels before any timing, as pipescope does.
      const int buckets = std::max(1, c.buckets);
      for (int j = 0; j < buckets; ++j) reduceBucket(j, buckets);
      syncAll();
    }
  }
  ~MultiGpuReference() {
    syncAll(false);
    comms_.reset();
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      cudaSetDevice(devices_[g]);
      for (Slot& s : gpus_[g].slots) {
        cudaStreamDestroy(s.stream);
        cudaFree(s.din);
        cudaFree(s.dout);
        cudaFree(s.send);
        cudaFree(s.recv);
        cudaFreeHost(s.hin);
        cudaFreeHost(s.hout);
      }
      cudaEventDestroy(gpus_[g].mark);
      for (cudaEvent_t e : gpus_[g].bucketReady) cudaEventDestroy(e);
      cudaEventDestroy(gpus_[g].reduced);
      if (gpus_[g].comm) cudaStreamDestroy(gpus_[g].comm);
      cudaFree(gpus_[g].grad);
    }
  }
  MultiGpuReference(const MultiGpuReference&) = delete;
  MultiGpuReference& operator=(const MultiGpuReference&) = delete;

  /// Makespan in ms: first call to the last batch back on the host.
  /// Host time of each group all-reduce call so far (the warm-up's included).
  const std::vector<double>& callNs() const { return callNs_; }

  double run() {
    const auto t0 = std::chrono::steady_clock::now();
    if (c_.isPipelineParallel()) runPipeline();
    else runData();
    syncAll();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  struct Slot {
    cudaStream_t stream = nullptr;
    void *din = nullptr, *dout = nullptr, *hin = nullptr, *hout = nullptr, *send = nullptr, *recv = nullptr;
  };
  struct Gpu {
    std::vector<Slot> slots;
    cudaStream_t comm = nullptr;
    cudaEvent_t mark = nullptr, reduced = nullptr;
    std::vector<cudaEvent_t> bucketReady;
    void* grad = nullptr;
  };

  void syncAll(bool check = true) {
    for (int d : devices_) {
      const cudaError_t a = cudaSetDevice(d);
      const cudaError_t b = a == cudaSuccess ? cudaDeviceSynchronize() : a;
      if (check) PIPESCOPE_CUDA_CHECK(b);
    }
  }

  void reduceBucket(int j, int buckets) {
    const std::size_t floats = c_.allreduceBytes / sizeof(float);
    const std::size_t f0 = floats * std::size_t(j) / std::size_t(buckets);
    const std::size_t f1 = floats * std::size_t(j + 1) / std::size_t(buckets);
    std::vector<float*> bufs;
    std::vector<cudaStream_t> streams;
    for (Gpu& g : gpus_) {
      bufs.push_back(static_cast<float*>(g.grad) + f0);
      streams.push_back(g.comm);
    }
    const auto t0 = std::chrono::steady_clock::now();
    comms_->allReduce(bufs, f1 - f0, streams);
    callNs_.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }

  void runData() {
    const std::size_t n = gpus_.size();
    const int streams = std::max(1, c_.streams);
    const std::size_t nIn = c_.batchBytes() / 4, nOut = c_.outputBytes() / 4;
    const int pieces = customModelPieces(c_);
    const std::uint32_t rounds = modelFmasPerElement(c_.modelFlopsPerByte) / 4;
    const int buckets = c_.buckets, reductions = std::max(1, buckets);
    const int steps = int((std::int64_t(c_.batchCount) + std::int64_t(n) - 1) / std::int64_t(n));
    bool reducedOnce = false;
    for (int i = 0; i < steps; ++i) {
      const std::size_t active = std::min<std::size_t>(n, std::size_t(c_.batchCount) - std::size_t(i) * n);
      const bool reduces = c_.allReduces() && active == n;
      for (std::size_t g = 0; g < active; ++g) {  // depth-first: each GPU's batch whole
        PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_[g]));
        Slot& s = gpus_[g].slots[std::size_t(i % streams)];
        auto* din = static_cast<float*>(s.din);
        PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(din, s.hin, c_.batchBytes(), cudaMemcpyHostToDevice, s.stream));
        if (reduces && reducedOnce) PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(s.stream, gpus_[g].reduced, 0));
        if (c_.normalizeKernel) PIPESCOPE_CUDA_CHECK(cuda::launchNormalize(din, din, nIn, s.stream));
        int next = 0;
        for (int k = 0; k < pieces; ++k) {
          const auto fmas = std::uint32_t(4 * (std::uint64_t(rounds) * std::uint64_t(k + 1) / std::uint64_t(pieces) -
                                               std::uint64_t(rounds) * std::uint64_t(k) / std::uint64_t(pieces)));
          PIPESCOPE_CUDA_CHECK(cuda::launchModel(din, nIn, static_cast<float*>(s.dout), nOut, fmas, s.stream));
          for (; reduces && next < reductions && bucketAfterModelKernel(next, buckets, pieces) == k; ++next)
            PIPESCOPE_CUDA_CHECK(cudaEventRecord(gpus_[g].bucketReady[std::size_t(next)], s.stream));
        }
        PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(s.hout, s.dout, c_.d2hBytes(), cudaMemcpyDeviceToHost, s.stream));
      }
      if (!reduces) continue;
      for (int j = 0; j < reductions; ++j) {
        for (std::size_t g = 0; g < n; ++g) {
          PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_[g]));
          PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(gpus_[g].comm, gpus_[g].bucketReady[std::size_t(j)], 0));
        }
        reduceBucket(j, reductions);
      }
      for (std::size_t g = 0; g < n; ++g) {
        PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_[g]));
        PIPESCOPE_CUDA_CHECK(cudaEventRecord(gpus_[g].reduced, gpus_[g].comm));
      }
      reducedOnce = true;
    }
  }

  /// Depth-first: every phase of a micro-batch before the next; micro-batch m on stream
  /// m % streams of every GPU; a batch starts once the one before it is done.
  void runPipeline() {
    const std::size_t n = gpus_.size();
    const int streams = std::max(1, c_.streams);
    const std::uint32_t rounds = modelFmasPerElement(c_.modelFlopsPerByte) / 4;
    const std::size_t outFloats = c_.outputBytes() / 4;
    for (int b = 0; b < c_.batchCount; ++b) {
      std::uint64_t first = 0;
      for (int m = 0; m < c_.microBatches; ++m) {
        const std::size_t si = std::size_t(m % streams);
        const std::uint64_t samples = std::uint64_t(microBatchSamples(c_, m));
        const std::size_t e0 = std::size_t(first * c_.sampleBytes / 4), count = std::size_t(samples * c_.sampleBytes / 4);
        const std::size_t f0 = std::size_t(outFloats * first / std::uint64_t(c_.batchSamples));
        const std::size_t f1 = std::size_t(outFloats * (first + samples) / std::uint64_t(c_.batchSamples));
        for (std::size_t k = 0; k < n; ++k) {
          Slot& s = gpus_[k].slots[si];
          PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_[k]));
          auto* din = static_cast<float*>(s.din) + e0;
          if (k == 0) {
            PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(din, static_cast<char*>(s.hin) + first * c_.sampleBytes,
                                                 samples * c_.sampleBytes, cudaMemcpyHostToDevice, s.stream));
            if (c_.normalizeKernel) PIPESCOPE_CUDA_CHECK(cuda::launchNormalize(din, din, count, s.stream));
          } else {
            // The activations go on the sender's stream; the receiver waits for them.
            Slot& prev = gpus_[k - 1].slots[si];
            PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_[k - 1]));
            if (c_.activationBytes > 0)
              PIPESCOPE_CUDA_CHECK(cudaMemcpyPeerAsync(s.recv, devices_[k], prev.send, devices_[k - 1],
                                                       c_.activationBytes, prev.stream));
            PIPESCOPE_CUDA_CHECK(cudaEventRecord(gpus_[k - 1].mark, prev.stream));
            PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_[k]));
            PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(s.stream, gpus_[k - 1].mark, 0));
          }
          const auto fmas = std::uint32_t(4 * (std::uint64_t(rounds) * (k + 1) / n - std::uint64_t(rounds) * k / n));
          PIPESCOPE_CUDA_CHECK(cuda::launchModel(din, count, static_cast<float*>(s.dout) + f0, f1 - f0, fmas, s.stream));
          if (k + 1 == n) {
            const std::uint64_t d2hFloats = c_.d2hBytes() / 4;
            const std::uint64_t d0 = d2hFloats * first / std::uint64_t(c_.batchSamples) * 4;
            const std::uint64_t d1 = d2hFloats * (first + samples) / std::uint64_t(c_.batchSamples) * 4;
            if (d1 > d0)
              PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(s.hout) + d0, static_cast<char*>(s.dout) + d0,
                                                   d1 - d0, cudaMemcpyDeviceToHost, s.stream));
          }
        }
        first += samples;
      }
      // The flush: the next batch starts once this one is back.
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices_.back()));
      for (int st = 0; st < std::min(c_.microBatches, streams); ++st)
        PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(gpus_.back().slots[std::size_t(st)].stream));
    }
  }

  PipelineConfig c_;
  std::vector<int> devices_;
  std::vector<Gpu> gpus_;
  std::unique_ptr<ReferenceComms> comms_;
  std::vector<double> callNs_;
};

/// nccl-tests' measurement: `iters` back-to-back in-place all-reduces of `bytes` over
/// every GPU after `warmup` more, host-timed around the loop up to the streams' end,
/// on blocking communicators. Returns the time per all-reduce in ns.
inline double plainAllReduceNs(const std::vector<int>& devices, std::size_t bytes, int warmup, int iters) {
  ReferenceComms comms(devices);
  std::vector<float*> bufs;
  std::vector<cudaStream_t> streams;
  for (int d : devices) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(d));
    void* p = nullptr;
    PIPESCOPE_CUDA_CHECK(cudaMalloc(&p, bytes));
    PIPESCOPE_CUDA_CHECK(cudaMemset(p, 0, bytes));
    cudaStream_t s = nullptr;
    PIPESCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    bufs.push_back(static_cast<float*>(p));
    streams.push_back(s);
  }
  auto sync = [&] {
    for (std::size_t r = 0; r < devices.size(); ++r) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[r]));
      PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(streams[r]));
    }
  };
  for (int i = 0; i < warmup; ++i) comms.allReduce(bufs, bytes / sizeof(float), streams);
  sync();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) comms.allReduce(bufs, bytes / sizeof(float), streams);
  sync();
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / iters;
  for (std::size_t r = 0; r < devices.size(); ++r) {
    cudaSetDevice(devices[r]);
    cudaStreamDestroy(streams[r]);
    cudaFree(bufs[r]);
  }
  return ns;
}

}  // namespace pipescope::bench
