#include "cuda/CudaError.h"

namespace pipescope::cuda {

std::string defaultHint(cudaError_t err) {
  switch (err) {
    case cudaErrorMemoryAllocation:
      return "the GPU or host ran out of memory: use fewer streams, smaller batches or a smaller model";
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return "no usable GPU: check the driver (nvidia-smi) or run with --backend sim";
    case cudaErrorInvalidValue:
      return "a size or pointer was rejected: check the configuration's sizes";
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalAddress:
      return "a kernel crashed; the GPU context is lost: restart pipescope (and report this as a bug)";
    case cudaErrorHostMemoryAlreadyRegistered:
      return "the host buffer is already registered: report this as a bug";
    default:
      return "see the CUDA error above; run compute-sanitizer on pipescope-cli to locate it";
  }
}

void throwCudaError(const char* call, cudaError_t err, const std::string& hint) {
  std::string msg = std::string(call) + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                    "). " + (hint.empty() ? defaultHint(err) : hint);
  throw CudaError(msg, int(err));
}

void throwCuptiError(const char* call, CUptiResult err, const std::string& hint) {
  const char* text = nullptr;
  if (cuptiGetResultString(err, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI error";
  std::string msg = std::string(call) + " failed: " + text + ". " +
                    (hint.empty() ? "CUPTI could not be used; another profiler may be attached" : hint);
  throw CudaError(msg, int(err));
}

void throwCublasError(const char* call, cublasStatus_t err, const std::string& hint) {
  std::string msg = std::string(call) + " failed: " + cublasGetStatusName(err) + " (" + cublasGetStatusString(err) +
                    "). " +
                    (hint.empty() ? "cuBLAS could not run the model preset's GEMM: try --model custom" : hint);
  throw CudaError(msg, int(err));
}

}  // namespace pipescope::cuda
