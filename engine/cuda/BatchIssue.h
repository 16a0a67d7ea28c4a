#pragma once
// Issuing one batch's GPU work (docs/cuda-backend.md, "The algorithm"): its input
// copy (or prefetch), its kernels (normalize, then the custom model or the cuBLAS
// GEMMs and the model head), its output copy back, and in async mode the event that
// says the batch is done. Every call goes through the OpRecorder, which times it.
#include <cstdint>
#include <string>

#include "cuda/CudaError.h"
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
  /// Normalize (when configured), then every model launch.
  void kernels(const BatchSlots& b);
  void d2h(const BatchSlots& b);
  /// After the batch's last op (async mode): records its done event on its stream.
  void markDone(const BatchSlots& b);

  /// The kernels one at a time (a data-parallel all-reduce bucket follows its share):
  /// normalize, then model launches 0..modelLaunches()-1 in order.
  void normalize(const BatchSlots& b);
  /// Custom model: `pieces` launches (setModelPieces), else the GEMM layers then the head.
  int modelLaunches() const;
  void modelLaunch(const BatchSlots& b, int k);
  /// The custom model kernel as `pieces` launches of 1/pieces of its FMAs each (1: one).
  void setModelPieces(int pieces) { pieces_ = pieces < 1 ? 1 : pieces; }

  /// Issues one GPU op through `call` (returns cudaError_t): its API call on the submit
  /// lane, the op on the batch's stream lane and `engineLane` (kNoLane: the engine its
  /// kind runs on).
  template <typename Call>
  void gpuOp(const BatchSlots& b, OpKind kind, std::uint64_t bytes, std::uint16_t name, std::uint16_t apiName,
             std::uint8_t flags, bool forceEvents, const char* what, Call&& call,
             std::uint16_t engineLane = kNoLane);
  /// One copy (split into the configuration's chunks) or managed prefetch of `bytes`.
  void copy(const BatchSlots& b, OpKind kind, void* dst, const void* src, std::uint64_t bytes);
  void prefetch(const BatchSlots& b, OpKind kind, void* ptr, std::uint64_t bytes);

  const PipelineConfig& config() const { return config_; }
  const PipelineLanes& lanes() const { return *lanes_; }
  const float* weights() const { return weights_; }

 private:
  std::uint8_t copyFlags() const;
  bool needsInputTransfer(StreamSlot& s) const;
  bool copies() const;
  std::uint8_t kernelFlags() const;
  /// What the model reads: the device input (after normalize), or host memory the
  /// kernels read directly (mapped, managed).
  const float* modelInput(const BatchSlots& b) const;
  float* modelOutput(const BatchSlots& b) const;

  int device_;
  OpRecorder& recorder_;
  PipelineConfig config_;
  const PipelineLanes* lanes_ = nullptr;
  const float* weights_ = nullptr;
  int recorderDevice_ = 0;
  int keyBase_ = 0;
  int pieces_ = 1;
};

template <typename Call>
void BatchIssuer::gpuOp(const BatchSlots& b, OpKind kind, std::uint64_t bytes, std::uint16_t name,
                        std::uint16_t apiName, std::uint8_t flags, bool forceEvents, const char* what, Call&& call,
                        std::uint16_t engineLane) {
  Op api;
  api.lane = lanes_->submit;
  api.batch = b.batch;
  api.stream = std::int16_t(b.stream);
  api.name = apiName;
  api.flags = flags & (kOpBlockingCall | kOpPageable);
  Op op;
  op.kind = kind;
  op.lane = lanes_->streams[std::size_t(b.stream)];
  op.engineLane = engineLane != kNoLane                 ? engineLane
                  : kind == OpKind::CopyH2D ? lanes_->h2d
                  : kind == OpKind::CopyD2H ? lanes_->d2h
                                            : lanes_->compute;
  op.batch = b.batch;
  op.stream = std::int16_t(b.stream);
  op.bytes = bytes;
  op.name = name;
  op.flags = flags;
  recorder_.record(api, op, target(b), forceEvents, what, std::forward<Call>(call));
}

}  // namespace pipescope::cuda
