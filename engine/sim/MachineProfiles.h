#pragma once
// Profiles calibrated on the machine at hand. A profile describes a GPU *and its
// host*: on the lent GPU machines the built-in profiles (the median of many hosts)
// were 11-18 % off on a host whose kernel launches were 1.5x slower, while a
// calibration made on that host minutes before was at the noise floor
// (docs/fidelity.md). So `calibrate` keeps its result in the user's data folder,
// named after the GPU and the host, and predictions for runs on that GPU use it.
#include <optional>
#include <string>
#include <vector>

#include "sim/DeviceProfile.h"

namespace pipescope {

/// Where this user's machine calibrations live, and which host this is.
struct MachineContext {
  std::string folder;  ///< empty: no data folder (neither XDG_DATA_HOME nor HOME set)
  std::string host;

  /// $XDG_DATA_HOME/pipescope/profiles (when XDG_DATA_HOME is an absolute path), else
  /// $HOME/.local/share/pipescope/profiles; the host name from gethostname().
  static MachineContext current();
};

/// A file-name-safe name for a calibration of `deviceName` on `host`:
/// "h100-80gb-hbm3@gpu-node-7" (lower case, runs of other characters as one '-',
/// without the "nvidia-" prefix).
std::string machineProfileName(const std::string& deviceName, const std::string& host);

/// FOLDER/NAME.json for machineProfileName(deviceName, host); empty without a folder.
std::string machineProfilePath(const MachineContext& machine, const std::string& deviceName);

struct MachineProfileLookup {
  enum class Status {
    Found,     ///< `profile` holds it
    NotFound,  ///< no calibration of this GPU on this host yet
    Damaged,   ///< the file is there but cannot be used; `message` says why and what to do
    NoFolder,  ///< no data folder to look in
  };
  Status status = Status::NotFound;
  std::optional<DeviceProfile> profile;
  std::string path;
  std::string message;  ///< for Damaged and NoFolder
};

/// This machine's calibration of `deviceName`. A file that is not a profile, is not
/// valid JSON, or describes another GPU is Damaged (never silently used).
MachineProfileLookup findMachineProfile(const MachineContext& machine, const std::string& deviceName);

/// Writes `profile` (named for `machine`) into the machine's folder, creating it;
/// returns the path. Throws std::runtime_error naming the path when it cannot.
std::string saveMachineProfile(const MachineContext& machine, DeviceProfile profile);

/// The names (file stems) of the profiles in the machine's folder, sorted.
std::vector<std::string> machineProfileNames(const MachineContext& machine);

}  // namespace pipescope
