#pragma once
// Issuing one batch's GPU work (docs/cuda-backend.md, "The algorithm"): its input
// copy (or prefetch), its kernels (normalize, then the custom model or the cuBLAS
// GEMMs and the model head), its output copy back, and in async mode the event that
// says the batch is done. Every call goes through the OpRecorder, which times it.
#include <cstdint>

#include "cuda/OpRecorder.h"
#include "cuda/PipelineLanes.h"
#include "cuda/PipelineResources.h"

namespace pipescope::cuda {

/// One batch and the slots it uses.
struct BatchSlots {
  std::int32_t batch;
  int stream;
  StreamSlot& device;
  HostSlot& host;
};

class BatchIssuer {
 public:
  BatchIssuer(int device, OpRecorder& recorder) : device_(device), recorder_(recorder) {}

  /// The configuration, lanes and GEMM weights the next batches are issued with.
  void configure(const PipelineConfig& config, const PipelineLanes& lanes, const float* weights) {
    config_ = config;
    lanes_ = &lanes;
    weights_ = weights;
  }
  /// With several GPUs: this issuer's GPU among the recorder's devices, and the first
  /// of its stream keys (stream s records under keyBase + s). One GPU: 0 and 0.
  void setTarget(int recorderDevice, int keyBase) {
    recorderDevice_ = recorderDevice;
    keyBase_ = keyBase;
  }
  GpuTarget target(const BatchSlots& b) const { return {b.device.handle(), keyBase_ + b.stream, recorderDevice_}; }

  void h2d(const BatchSlots& b);
  void kernels(const BatchSlots& b);
  void d2h(const BatchSlots& b);
  /// After the batch's last op (async mode): records its done event on its stream.
  void markDone(const BatchSlots& b);

 private:
  template <typename Call>
  void gpuOp(const BatchSlots& b, OpKind kind, std::uint64_t bytes, std::uint16_t name, std::uint16_t apiName,
             std::uint8_t flags, bool forceEvents, const char* what, Call&& call);
  void copy(const BatchSlots& b, OpKind kind, void* dst, const void* src, std::uint64_t bytes);
  void prefetch(const BatchSlots& b, OpKind kind, void* ptr, std::uint64_t bytes);
  std::uint8_t copyFlags() const;
  bool needsInputTransfer(StreamSlot& s) const;

  int device_;
  OpRecorder& recorder_;
  PipelineConfig config_;
  const PipelineLanes* lanes_ = nullptr;
  const float* weights_ = nullptr;
  int recorderDevice_ = 0;
  int keyBase_ = 0;
};

}  // namespace pipescope::cuda
