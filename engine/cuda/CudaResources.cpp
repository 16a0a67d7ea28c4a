#include "cuda/CudaResources.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "cuda/CudaError.h"

namespace pipescope::cuda {

namespace {
std::string sizeHint(const char* what, std::size_t bytes) {
  return std::string("allocating ") + what + " (" + formatBytes(bytes) +
         ") failed: use fewer streams, a smaller batch or a smaller output ratio";
}
}  // namespace

Stream Stream::create() {
  Stream s;
  PIPESCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&s.s_, cudaStreamNonBlocking));
  return s;
}
Stream::~Stream() {
  if (s_) cudaStreamDestroy(s_);
}

Event Event::create(bool timing) {
  Event e;
  PIPESCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&e.e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  return e;
}
Event::~Event() {
  if (e_) cudaEventDestroy(e_);
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, const char* what) : n_(bytes) {
  if (bytes == 0) return;
  PIPESCOPE_CUDA_CHECK_HINT(cudaMalloc(&p_, bytes), sizeHint(what, bytes));
  // Defined contents: sanitizer-clean reads and deterministic kernels.
  PIPESCOPE_CUDA_CHECK(cudaMemset(p_, 0, bytes));
}
DeviceBuffer::~DeviceBuffer() {
  if (p_) cudaFree(p_);
}

HostBuffer::HostBuffer(HostMemory kind, std::size_t bytes, const char* what) : n_(bytes), kind_(kind) {
  if (bytes == 0) return;
  const std::string hint = sizeHint(what, bytes);
  switch (kind) {
    case HostMemory::Pageable:
      p_ = std::malloc(bytes);
      if (!p_) throw CudaError(hint, int(cudaErrorMemoryAllocation));
      break;
    // Portable: with several GPUs one GPU may copy from a buffer another GPU's
    // context allocated (a pipeline's output comes back from its last stage).
    case HostMemory::Pinned:
      PIPESCOPE_CUDA_CHECK_HINT(cudaHostAlloc(&p_, bytes, cudaHostAllocPortable), hint);
      break;
    case HostMemory::Registered:
      // Page-aligned so registration pins exactly this buffer's pages.
      p_ = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
      if (!p_) throw CudaError(hint, int(cudaErrorMemoryAllocation));
      try {
        PIPESCOPE_CUDA_CHECK_HINT(cudaHostRegister(p_, bytes, cudaHostRegisterPortable), hint);
      } catch (...) {
        std::free(p_);
        p_ = nullptr;
        throw;
      }
      break;
    case HostMemory::Mapped:
      PIPESCOPE_CUDA_CHECK_HINT(cudaHostAlloc(&p_, bytes, cudaHostAllocMapped | cudaHostAllocPortable), hint);
      PIPESCOPE_CUDA_CHECK(cudaHostGetDevicePointer(&d_, p_, 0));
      break;
    case HostMemory::Managed:
    case HostMemory::ManagedPrefetch:
      PIPESCOPE_CUDA_CHECK_HINT(cudaMallocManaged(&p_, bytes, cudaMemAttachGlobal), hint);
      break;
  }
  if (!d_) d_ = p_;
  // Touch every page now so first-touch faults stay out of the timed pipeline.
  std::memset(p_, 0, bytes);
}

void HostBuffer::release() noexcept {
  if (!p_) return;
  switch (kind_) {
    case HostMemory::Pageable: std::free(p_); break;
    case HostMemory::Pinned:
    case HostMemory::Mapped: cudaFreeHost(p_); break;
    case HostMemory::Registered:
      cudaHostUnregister(p_);
      std::free(p_);
      break;
    case HostMemory::Managed:
    case HostMemory::ManagedPrefetch: cudaFree(p_); break;
  }
  p_ = d_ = nullptr;
}
HostBuffer::~HostBuffer() { release(); }

CublasHandle CublasHandle::create() {
  CublasHandle h;
  PIPESCOPE_CUBLAS_CHECK(cublasCreate(&h.h_));
  return h;
}
CublasHandle::~CublasHandle() {
  if (h_) cublasDestroy(h_);
}

}  // namespace pipescope::cuda
