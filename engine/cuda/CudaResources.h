#pragma once
// RAII owners of CUDA objects. Destructors never throw: a failure while releasing
// is ignored because the run's first error has already been reported.
#include <cstddef>
#include <cstdint>
#include <utility>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "config/PipelineConfig.h"

namespace pipescope::cuda {

class Stream {
 public:
  Stream() = default;
  static Stream create();  ///< a non-blocking stream
  ~Stream();
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() = default;
  static Event create(bool timing);
  ~Event();
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(e_, o.e_);
    return *this;
  }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

/// Device memory (cudaMalloc).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, const char* what);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  void* get() const { return p_; }
  std::size_t bytes() const { return n_; }

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};

/// Host memory of one of the configuration's kinds. `host()` is what the CPU
/// touches; `device()` is what kernels read for mapped and managed memory.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(HostMemory kind, std::size_t bytes, const char* what);
  ~HostBuffer();
  HostBuffer(HostBuffer&& o) noexcept { swap(o); }
  HostBuffer& operator=(HostBuffer&& o) noexcept {
    swap(o);
    return *this;
  }
  void* host() const { return p_; }
  void* device() const { return d_; }
  std::size_t bytes() const { return n_; }
  HostMemory kind() const { return kind_; }

 private:
  void release() noexcept;
  void swap(HostBuffer& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(d_, o.d_);
    std::swap(n_, o.n_);
    std::swap(kind_, o.kind_);
  }
  void* p_ = nullptr;
  void* d_ = nullptr;
  std::size_t n_ = 0;
  HostMemory kind_ = HostMemory::Pageable;
};

class CublasHandle {
 public:
  CublasHandle() = default;
  static CublasHandle create();
  ~CublasHandle();
  CublasHandle(CublasHandle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  CublasHandle& operator=(CublasHandle&& o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace pipescope::cuda
