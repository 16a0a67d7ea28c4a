#pragma once
// Plain C++ interface of the calibration (no CUDA types): measures, on a real GPU,
// every parameter of the simulator's DeviceProfile with the same kernels, copies,
// API calls and CPU functions the CUDA backend runs (docs/fidelity.md).
#include <functional>
#include <string>

#include "sim/DeviceProfile.h"

namespace pipescope {

struct CalibrationOptions {
  int device = 0;
  std::string profileName;  ///< empty: derived from the device name ("h100-80gb-hbm3-calibrated")
  /// Copy curves up to 16 MiB instead of 256 MiB and fewer CPU worker counts: a
  /// sanity check in about a second (the gpu tests), not a profile to publish.
  bool quick = false;
  /// Receives one line per measured figure (progress and the raw numbers behind the profile).
  std::function<void(const std::string&)> log;
  /// With `base`: measure only what drifts with the host -- the API call costs and the
  /// synchronisation wake-ups -- and keep every other figure of `base` (a built-in
  /// profile of the same GPU model). Well under a second once the device is open.
  bool hostOnly = false;
  const DeviceProfile* base = nullptr;
  /// After each measurement step: (steps done, steps in all).
  std::function<void(int, int)> progress;
};

/// Runs the measurements (a few seconds on an H100/H200). Throws std::runtime_error
/// with a message naming the failing CUDA call when the device cannot be used.
DeviceProfile calibrateDevice(const CalibrationOptions& options);

}  // namespace pipescope
