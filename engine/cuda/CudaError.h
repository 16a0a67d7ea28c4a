#pragma once
// Every CUDA, CUPTI and cuBLAS call goes through one of these macros: a failure
// throws a CudaError naming the call, the library's error name and text, and what
// the user can do about it. The backend catches it at its boundary.
#include <stdexcept>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

namespace pipescope::cuda {

class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }  ///< cudaError_t / CUptiResult / cublasStatus_t value

 private:
  int code_;
};

[[noreturn]] void throwCudaError(const char* call, cudaError_t err, const std::string& hint);
[[noreturn]] void throwCuptiError(const char* call, CUptiResult err, const std::string& hint);
[[noreturn]] void throwCublasError(const char* call, cublasStatus_t err, const std::string& hint);

/// The advice shown when an error has no call-specific hint.
std::string defaultHint(cudaError_t err);

}  // namespace pipescope::cuda

#define PIPESCOPE_CUDA_CHECK_HINT(call, hint)                                            \
  do {                                                                                   \
    const cudaError_t pipescope_err_ = (call);                                           \
    if (pipescope_err_ != cudaSuccess) ::pipescope::cuda::throwCudaError(#call, pipescope_err_, (hint)); \
  } while (0)
#define PIPESCOPE_CUDA_CHECK(call) PIPESCOPE_CUDA_CHECK_HINT(call, std::string())

#define PIPESCOPE_CUPTI_CHECK(call)                                                      \
  do {                                                                                   \
    const CUptiResult pipescope_err_ = (call);                                           \
    if (pipescope_err_ != CUPTI_SUCCESS) ::pipescope::cuda::throwCuptiError(#call, pipescope_err_, std::string()); \
  } while (0)

#define PIPESCOPE_CUBLAS_CHECK(call)                                                     \
  do {                                                                                   \
    const cublasStatus_t pipescope_err_ = (call);                                        \
    if (pipescope_err_ != CUBLAS_STATUS_SUCCESS)                                         \
      ::pipescope::cuda::throwCublasError(#call, pipescope_err_, std::string());         \
  } while (0)
