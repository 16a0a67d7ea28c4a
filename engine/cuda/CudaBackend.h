#pragma once
// Inside the CUDA module: the functions behind the CudaModule interface
// (backend/CudaModule.h). Code outside engine/cuda reaches them only through
// loadCudaModule(), so that loading the module is what loads cuBLAS and CUPTI.
#include <memory>
#include <string>

#include "backend/Backend.h"
#include "backend/CudaModule.h"

namespace pipescope {

/// Asks the CUDA runtime for devices. NoDevice only for cudaErrorNoDevice /
/// cudaErrorInsufficientDriver; anything else is an Error with its message.
CudaProbe probeCuda();

/// The CUDA backend on `device`; nullptr with `error` set when it cannot be created.
std::unique_ptr<Backend> makeCudaBackend(int device, std::string& error);

}  // namespace pipescope
