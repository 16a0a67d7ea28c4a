#include "cuda/BatchIssue.h"

#include <algorithm>

#include <nvtx3/nvToolsExt.h>

#include "config/ModelWork.h"
#include "cuda/Kernels.h"
#include "cuda/NvtxRange.h"

namespace pipescope::cuda {

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

bool BatchIssuer::copies() const {
  const HostMemory m = config_.memory;
  return m != HostMemory::Mapped && !isManaged(m);
}

std::uint8_t BatchIssuer::kernelFlags() const {
  const HostMemory m = config_.memory;
  return m == HostMemory::Mapped ? kOpMapped : isManaged(m) ? kOpManaged : 0;
}

const float* BatchIssuer::modelInput(const BatchSlots& b) const {
  if (copies() || config_.normalizeKernel) return static_cast<const float*>(b.device.devIn.get());
  return static_cast<const float*>(b.host.in.device());
}

float* BatchIssuer::modelOutput(const BatchSlots& b) const {
  return static_cast<float*>(copies() ? b.device.devOut.get() : b.host.out.device());
}

void BatchIssuer::kernels(const BatchSlots& b) {
  normalize(b);
  for (int k = 0, n = modelLaunches(); k < n; ++k) modelLaunch(b, k);
}

void BatchIssuer::normalize(const BatchSlots& b) {
  if (!config_.normalizeKernel) return;
  NvtxRange r("normalize");
  const std::size_t nIn = config_.batchBytes() / sizeof(float);
  const cudaStream_t st = b.device.handle();
  auto* devIn = static_cast<float*>(b.device.devIn.get());
  const float* src = copies() ? devIn : static_cast<const float*>(b.host.in.device());
  gpuOp(b, OpKind::Kernel, config_.batchBytes(), lanes_->names.normalize, lanes_->names.launch, kernelFlags(), false,
        "normalize kernel launch", [&] { return launchNormalize(src, devIn, nIn, st); });
}

int BatchIssuer::modelLaunches() const {
  const GemmShape g = gemmShape(config_.model);
  if (g.width == 0) return pieces_;
  const int rows = int(config_.batchBytes() / sizeof(float) / std::size_t(g.width));
  return (rows > 0 ? g.layers : 0) + 1;  // the layers, then the head
}

void BatchIssuer::modelLaunch(const BatchSlots& b, int k) {
  NvtxRange r("model");
  const std::size_t nIn = config_.batchBytes() / sizeof(float);
  const std::size_t nOut = config_.outputBytes() / sizeof(float);
  const cudaStream_t st = b.device.handle();
  const PipelineLanes::Names& names = lanes_->names;
  const std::uint8_t flags = kernelFlags();
  const float* modelIn = modelInput(b);
  float* out = modelOutput(b);
  const GemmShape g = gemmShape(config_.model);
  if (g.width == 0) {
    // Piece k of pieces_: its share of the FMA rounds (four FMAs per round).
    const std::uint32_t rounds = modelFmasPerElement(config_.modelFlopsPerByte) / 4;
    const auto share = [&](int i) { return std::uint64_t(rounds) * std::uint64_t(i) / std::uint64_t(pieces_); };
    const auto fmas = std::uint32_t(4 * (share(k + 1) - share(k)));
    const std::uint64_t bytes = config_.batchBytes();
    gpuOp(b, OpKind::Kernel, bytes, names.model, names.launch, flags, false, "model kernel launch",
          [&] { return launchModel(modelIn, nIn, out, nOut, fmas, st); });
    return;
  }
  const int rows = int(nIn / std::size_t(g.width));
  float* bufs[2] = {static_cast<float*>(b.device.devScratch.get()), static_cast<float*>(b.device.devIn.get())};
  const int layers = rows > 0 ? g.layers : 0;
  if (k < layers) {
    // Layer k reads the previous layer's output (the model input for the first) and
    // writes the other buffer of the pair.
    const float* x = k == 0 ? modelIn : bufs[(k - 1) % 2];
    float* y = bufs[k % 2];
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    gpuOp(b, OpKind::Kernel, std::uint64_t(rows) * std::uint64_t(g.width) * 4, names.gemm, names.gemmApi, flags,
          false, "cublasSgemm", [&] {
            status = cublasSgemm(b.device.blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, g.width, rows, g.width, &alpha,
                                 weights_, g.width, x, g.width, &beta, y, g.width);
            return cudaSuccess;
          });
    if (status != CUBLAS_STATUS_SUCCESS) throwCublasError("cublasSgemm", status, std::string());
    return;
  }
  const float* x = layers > 0 ? bufs[(layers - 1) % 2] : modelIn;
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
