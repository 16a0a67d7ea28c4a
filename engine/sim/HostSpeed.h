#pragma once
// The host's speed during a validation against the speed its profile was calibrated
// at: the kernel launches the measured runs made, against the profile's
// kernelLaunchNs. On the lent GPU machines the same kind of VM launched kernels 0.7
// to 1.5 times as fast from one set of runs to the next (docs/fidelity.md), so a
// report says which it was. It is a reading, not a correction: scaling the profile's
// host costs by it did not make the predictions better on those sets.
#include <optional>
#include <string>

#include "sim/DeviceProfile.h"
#include "sim/Validation.h"

namespace pipescope {

struct HostSpeed {
  double measuredLaunchNs = 0;  ///< median over the rows taken of each row's launch time
  double ratio = 1;             ///< measuredLaunchNs / the profile's kernelLaunchNs
  int rows = 0;                 ///< rows the median is over
  bool aloneRows = true;        ///< the rows are those where nothing competed with the launches
};

/// The median launch time over the rows where nothing else on the host competed with
/// the launches (no CPU stages; pinned, registered or mapped memory: CPU workers and
/// the driver's staging of pageable copies or managed faults made them 2-10x slower),
/// or over every row when none is such; nothing when no row measured a launch time or
/// the profile has none.
std::optional<HostSpeed> hostSpeedOf(const ValidationReport& report, const DeviceProfile& profile);

/// "host speed: the measured runs' kernel launches took 8.0 us (median over 20 rows
/// where nothing else on the host competed with them), 1.51x the 5.3 us the profile
/// was calibrated with".
std::string describeHostSpeed(const HostSpeed& speed, const DeviceProfile& profile);

/// For a GPU whose predictions come from a built-in profile (no calibration of this
/// machine): how far this host's kernel launch cost (a probe, `hostLaunchNs`) is from
/// the profile's, what that does to host-bound predictions, and how to calibrate
/// (saved to `calibrationPath`, empty when there is no data folder).
std::string machineHostNotice(double hostLaunchNs, const DeviceProfile& builtin, const std::string& calibrationPath);

}  // namespace pipescope
