#pragma once
// Which simulator profile predicts a lesson's runs on a real GPU: the built-in
// profile calibrated on the same card (resources/profiles/*-calibrated.json), so a
// class sees beside each measured run how well the model knew it beforehand.
#include <optional>
#include <string>

#include "sim/DeviceProfile.h"
#include "sim/MachineProfiles.h"
#include "trace/DeviceInfo.h"

namespace pipescope {

struct PredictionProfileChoice {
  std::optional<DeviceProfile> profile;
  /// Why this profile, or why none: "calibrated on an NVIDIA H100 80GB HBM3 (same model as this GPU)".
  std::string note;
  /// The profile is this machine's own calibration of the GPU (MachineProfiles.h).
  bool thisMachine = false;
  /// A real GPU with no usable calibration of this machine: where `calibrate` would
  /// save one (empty otherwise, and when there is no data folder).
  std::string calibrationPath;
};

/// The model of a GPU name: its first word with both letters and digits
/// ("NVIDIA H100 80GB HBM3" -> "H100"), or a bare number with the word before it
/// ("NVIDIA GeForce RTX 4090" -> "RTX 4090"); empty when the name has none.
std::string gpuModel(const std::string& deviceName);

/// The built-in profile for a GPU name: a calibrated profile of exactly this device
/// name first, then any profile of this name, then a calibrated one of the same
/// model, then any of the same model; `sameName` says which of the two kinds it is.
std::optional<DeviceProfile> builtinProfileForDevice(const std::string& deviceName, bool* sameName = nullptr);

/// The profile that predicts runs on `device`: this machine's calibration of the GPU
/// (`machine`: MachineProfiles.h) when there is a usable one, else the built-in one
/// (builtinProfileForDevice); a damaged calibration is named in the note, never used.
/// None for a simulated device (its runs are the model already) or a card no profile
/// describes.
PredictionProfileChoice predictionProfileFor(const DeviceInfo& device,
                                             const MachineContext& machine = MachineContext::current());

/// `nameOrPath` (a built-in profile, one of this machine's, or a profile JSON file)
/// when given, otherwise predictionProfileFor(device). An unloadable explicit profile
/// is an error.
PredictionProfileChoice choosePredictionProfile(const std::string& nameOrPath, const DeviceInfo& device,
                                                std::string& error,
                                                const MachineContext& machine = MachineContext::current());

}  // namespace pipescope
