#pragma once
// Which simulator profile predicts a lesson's runs on a real GPU: the built-in
// profile calibrated on the same card (resources/profiles/*-calibrated.json), so a
// class sees beside each measured run how well the model knew it beforehand.
#include <optional>
#include <string>

#include "sim/DeviceProfile.h"
#include "trace/DeviceInfo.h"

namespace pipescope {

struct PredictionProfileChoice {
  std::optional<DeviceProfile> profile;
  /// Why this profile, or why none: "calibrated on an NVIDIA H100 80GB HBM3 (same model as this GPU)".
  std::string note;
};

/// The model of a GPU name: its first word with both letters and digits
/// ("NVIDIA H100 80GB HBM3" -> "H100"), or a bare number with the word before it
/// ("NVIDIA GeForce RTX 4090" -> "RTX 4090"); empty when the name has none.
std::string gpuModel(const std::string& deviceName);

/// The built-in profile for `device`: a calibrated profile of exactly this device
/// name first, then any profile of this name, then a calibrated one of the same
/// model, then any of the same model. None for a simulated device (its runs are
/// the model already) or a card no built-in profile describes.
PredictionProfileChoice predictionProfileFor(const DeviceInfo& device);

/// `nameOrPath` (a built-in profile or a profile JSON file) when given, otherwise
/// predictionProfileFor(device). An unloadable explicit profile is an error.
PredictionProfileChoice choosePredictionProfile(const std::string& nameOrPath, const DeviceInfo& device,
                                                std::string& error);

}  // namespace pipescope
