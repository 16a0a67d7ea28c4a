#pragma once
// Calibrating the machine at hand, for the command line and the app alike (neither
// sees CUDA): whether there is a GPU to calibrate, a quick probe of the host's call
// costs, and the calibration itself -- full (every figure of the device model) or
// quick (what drifts with the host, on top of the built-in profile of the same GPU
// model). In a build without the CUDA backend every one of them says so.
#include <functional>
#include <string>

#include "sim/DeviceProfile.h"

namespace pipescope {

/// Whether this machine has a GPU that can be calibrated, and its name, without opening
/// the device (its flags must be set before its first use).
struct GpuPresence {
  bool available = false;
  std::string deviceName;  ///< "NVIDIA H100 80GB HBM3" when available
  std::string reason;      ///< why not, when not: no CUDA backend in this build, no device, a CUDA error
  int deviceCount = 0;     ///< CUDA devices on this machine (0 without a usable CUDA)
};
GpuPresence probeGpuPresence(int device = 0);

/// This host's cost of the calls that set the pace of host-bound pipelines, measured
/// as calibrate measures them (with CUPTI on), against `base`'s other figures.
struct HostCosts {
  double kernelLaunchNs = 0;
  double memcpyAsyncCallNs = 0;
  double eventRecordNs = 0;
  double syncWakeNs = 0;
};
/// About two seconds, most of it opening the device. Throws std::runtime_error.
HostCosts probeHostCosts(int device, const DeviceProfile& base);

struct MachineCalibrationOptions {
  int device = 0;
  /// GPUs for the multi-GPU probes of a full calibration (CalibrationOptions::gpus): 0 =
  /// every GPU present, 1 = none. A quick calibration keeps the built-in profile's.
  int gpus = 0;
  /// Only what drifts with the host (API call costs, wake-ups, the backend's own
  /// overhead, CPU stages, cuBLAS calls, hand-offs; one round of the in-pipeline
  /// fits) on top of the built-in profile of the same GPU model: about 20 s.
  bool quick = false;
  int repeats = 3;          ///< rounds of the in-pipeline fits (full calibration)
  std::string profileName;  ///< empty: the calibration's default
  std::function<void(const std::string&)> log;
  /// Fraction done (0..1) and what is being measured, after each step.
  std::function<void(double, const std::string&)> progress;
};

/// Calibrates GPU `device`. Throws std::runtime_error with a message that says what
/// to do: no GPU, no CUDA backend, a quick calibration of a GPU no built-in profile
/// describes, a failed measurement.
DeviceProfile calibrateMachine(const MachineCalibrationOptions& options);

}  // namespace pipescope
