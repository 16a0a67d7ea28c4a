#pragma once
// Inside the CUDA module: the calibration behind CudaModule::calibrate()
// (backend/CudaModule.h has its options). Measures, on a real GPU, every parameter
// of the simulator's DeviceProfile with the same kernels, copies, API calls and CPU
// functions the CUDA backend runs (docs/fidelity.md).
#include "backend/CudaModule.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

/// Runs the measurements (a few seconds on an H100/H200). Throws std::runtime_error
/// with a message naming the failing CUDA call when the device cannot be used.
DeviceProfile calibrateDevice(const CalibrationOptions& options);

}  // namespace pipescope
