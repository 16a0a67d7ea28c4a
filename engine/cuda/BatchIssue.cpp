#include "cuda/BatchIssue.h"

#include <algorithm>

#include <nvtx3/nvToolsExt.h>

#include "config/ModelWork.h"
#include "cuda/Kernels.h"
#include "cuda/NvtxRange.h"

namespace pipescope::cuda {

/// Issues one GPU op through `call`: its API call on the submit lane, the op on the
/// batch's stream lane and its engine's lane.
template <typename Call>
void BatchIssuer::gpuOp(const BatchSlots& b, OpKind kind, std::uint64_t bytes, std::uint16_t name,
                        std::uint16_t apiName, std::uint8_t flags, bool forceEvents, const char* what, Call&& call) {
  Op api;
  api.lane = lanes_->submit;
  api.batch = b.batch;
  api.stream = std::int16_t(b.stream);
  api.name = apiName;
  api.flags = flags & (kOpBlockingCall | kOpPageable);
  Op op;
  op.kind = kind;
  op.lane = lanes_->streams[std::size_t(b.stream)];
  op.engineLane = kind == OpKind::CopyH2D ? lanes_->h2d : kind == OpKind::CopyD2H ? lanes_->d2h : lanes_->compute;
  op.batch = b.batch;
  op.stream = std::int16_t(b.stream);
  op.bytes = bytes;
  op.name = name;
  op.flags = flags;
  recorder_.record(api, op, target(b), forceEvents, what, std::forward<Call>(call));
}

std::uint8_t BatchIssuer::copyFlags() const {
  std::uint8_t f = 0;
  if (config_.memory == HostMemory::Pageable) f |= kOpPageable;
  if (!config_.isAsync()) f |= kOpBlockingCall;
  return f;
}

void BatchIssuer::copy(const BatchSlots& b, OpKind kind, void* dst, const void* src, std::uint64_t bytes) {
  const bool h2d = kind == OpKind::CopyH2D;
  const cudaMemcpyKind dir = h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  const int chunks = std::max(1, config_.transferChunks);
  const cudaStream_t st = b.device.handle();
  const bool async = config_.isAsync();
  for (int k = 0; k < chunks; ++k) {
    const std::uint64_t o0 = bytes * std::uint64_t(k) / std::uint64_t(chunks);
    const std::uint64_t o1 = bytes * std::uint64_t(k + 1) / std::uint64_t(chunks);
    if (o1 == o0) continue;
    char* d = static_cast<char*>(dst) + o0;
    const char* s = static_cast<const char*>(src) + o0;
    gpuOp(b, kind, o1 - o0, 0, h2d ? lanes_->names.h2dApi : lanes_->names.d2hApi, copyFlags(), false,
          async ? "cudaMemcpyAsync" : "cudaMemcpy",
          [&] { return async ? cudaMemcpyAsync(d, s, o1 - o0, dir, st) : cudaMemcpy(d, s, o1 - o0, dir); });
  }
}

void BatchIssuer::prefetch(const BatchSlots& b, OpKind kind, void* ptr, std::uint64_t bytes) {
  cudaMemLocation loc{};
  if (kind == OpKind::CopyH2D) {
    loc.type = cudaMemLocationTypeDevice;
    loc.id = device_;
  } else {
    loc.type = cudaMemLocationTypeHost;
    loc.id = 0;
  }
  const cudaStream_t st = b.device.handle();
  // CUPTI has no memcpy record for a prefetch: always event-timed.
  gpuOp(b, kind, bytes, kind == OpKind::CopyH2D ? lanes_->names.prefetchIn : lanes_->names.prefetchOut,
        lanes_->names.prefetchApi, kOpManaged, true, "cudaMemPrefetchAsync",
        [&] { return cudaMemPrefetchAsync(ptr, bytes, loc, 0, st); });
}

bool BatchIssuer::needsInputTransfer(StreamSlot& s) const {
  if (config_.residency != DataResidency::KeepResident) return true;
  if (s.residentLoaded) return false;
  s.residentLoaded = true;
  return true;
}

void BatchIssuer::h2d(const BatchSlots& b) {
  if (config_.memory == HostMemory::Mapped || config_.memory == HostMemory::Managed) return;
  if (!needsInputTransfer(b.device)) return;
  NvtxRange r("cpu_to_gpu");
  if (config_.memory == HostMemory::ManagedPrefetch)
    prefetch(b, OpKind::CopyH2D, b.host.in.host(), config_.batchBytes());
  else
    copy(b, OpKind::CopyH2D, b.device.devIn.get(), b.host.in.host(), config_.batchBytes());
}

void BatchIssuer::kernels(const BatchSlots& b) {
  const HostMemory m = config_.memory;
  const bool copies = m != HostMemory::Mapped && !isManaged(m);
  const std::uint8_t flags = m == HostMemory::Mapped ? kOpMapped : isManaged(m) ? kOpManaged : 0;
  const std::size_t nIn = config_.batchBytes() / sizeof(float);
  const std::size_t nOut = config_.outputBytes() / sizeof(float);
  const cudaStream_t st = b.device.handle();
  const PipelineLanes::Names& names = lanes_->names;
  auto* devIn = static_cast<float*>(b.device.devIn.get());
  const float* modelIn = copies ? devIn : static_cast<const float*>(b.host.in.device());
  float* out = static_cast<float*>(copies ? b.device.devOut.get() : b.host.out.device());
  if (config_.normalizeKernel) {
    NvtxRange r("normalize");
    const float* src = modelIn;
    gpuOp(b, OpKind::Kernel, config_.batchBytes(), names.normalize, names.launch, flags, false,
          "normalize kernel launch", [&] { return launchNormalize(src, devIn, nIn, st); });
    modelIn = devIn;
  }
  NvtxRange r("model");
  const GemmShape g = gemmShape(config_.model);
  if (g.width == 0) {
    const std::uint32_t fmas = modelFmasPerElement(config_.modelFlopsPerByte);
    gpuOp(b, OpKind::Kernel, config_.batchBytes(), names.model, names.launch, flags, false, "model kernel launch",
          [&] { return launchModel(modelIn, nIn, out, nOut, fmas, st); });
    return;
  }
  const int rows = int(nIn / std::size_t(g.width));
  const float* x = modelIn;
  float* bufs[2] = {static_cast<float*>(b.device.devScratch.get()), devIn};
  const float alpha = 1.0f, beta = 0.0f;
  for (int l = 0; l < g.layers && rows > 0; ++l) {
    float* y = bufs[l % 2];
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    gpuOp(b, OpKind::Kernel, std::uint64_t(rows) * std::uint64_t(g.width) * 4, names.gemm, names.gemmApi, flags,
          false, "cublasSgemm", [&] {
            status = cublasSgemm(b.device.blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, g.width, rows, g.width, &alpha,
                                 weights_, g.width, x, g.width, &beta, y, g.width);
            return cudaSuccess;
          });
    if (status != CUBLAS_STATUS_SUCCESS) throwCublasError("cublasSgemm", status, std::string());
    x = y;
  }
  const std::size_t nAct = rows > 0 ? std::size_t(rows) * std::size_t(g.width) : nIn;
  gpuOp(b, OpKind::Kernel, config_.outputBytes(), names.head, names.launch, flags, false, "model head kernel launch",
        [&] { return launchModel(x, nAct, out, nOut, 0, st); });
}

void BatchIssuer::d2h(const BatchSlots& b) {
  const HostMemory m = config_.memory;
  if (m == HostMemory::Mapped || m == HostMemory::Managed) return;
  if (config_.d2hBytes() == 0) return;
  NvtxRange r("gpu_to_cpu");
  if (m == HostMemory::ManagedPrefetch)
    prefetch(b, OpKind::CopyD2H, b.host.out.host(), config_.d2hBytes());
  else
    copy(b, OpKind::CopyD2H, b.host.out.host(), b.device.devOut.get(), config_.d2hBytes());
}

void BatchIssuer::markDone(const BatchSlots& b) {
  Op api;
  api.lane = lanes_->submit;
  api.batch = b.batch;
  api.stream = std::int16_t(b.stream);
  api.name = lanes_->names.eventRecord;
  const cudaEvent_t done = b.host.done.get();
  const cudaStream_t st = b.device.handle();
  recorder_.recordCall(api, "cudaEventRecord", [&] { return cudaEventRecord(done, st); });
}

}  // namespace pipescope::cuda
