#pragma once
// Plain C++ view of the CUDA backend: no CUDA header leaks to the rest of the engine,
// the CLI or the UI.
#include <memory>
#include <string>
#include <vector>

#include "backend/Backend.h"

namespace pipescope {

struct CudaProbe {
  enum class Status { Available, NoDevice, Error };
  Status status = Status::NoDevice;
  int deviceCount = 0;
  std::string message;  ///< why there is no device, or the error
  /// Each device's name (from its properties: no context is created, so the device's
  /// flags can still be set before its first use).
  std::vector<std::string> names;
};

/// Asks the CUDA runtime for devices. NoDevice only for cudaErrorNoDevice /
/// cudaErrorInsufficientDriver; anything else is an Error with its message.
CudaProbe probeCuda();

/// The CUDA backend on `device`; nullptr with `error` set when it cannot be created.
std::unique_ptr<Backend> makeCudaBackend(int device, std::string& error);

}  // namespace pipescope
