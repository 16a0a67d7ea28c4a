#include <cuda_runtime_api.h>

#include "cuda/CudaBackend.h"

namespace pipescope {

CudaProbe probeCuda() {
  CudaProbe p;
  int count = 0;  // cudaGetDeviceCount leaves it untouched on some errors
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) {
    p.status = CudaProbe::Status::NoDevice;
    p.message = cudaGetErrorString(err);
    return p;
  }
  if (err != cudaSuccess) {
    p.status = CudaProbe::Status::Error;
    p.message = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
    return p;
  }
  if (count == 0) {
    p.status = CudaProbe::Status::NoDevice;
    p.message = "the CUDA driver reports no devices";
    return p;
  }
  p.status = CudaProbe::Status::Available;
  p.deviceCount = count;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    p.names.push_back(cudaGetDeviceProperties(&prop, d) == cudaSuccess ? std::string(prop.name) : std::string());
  }
  return p;
}

}  // namespace pipescope
