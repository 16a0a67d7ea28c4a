#pragma once
// One profile from several calibrations of the same GPU model. A calibration reads
// the host of its own minutes: on the lent VMs the same calls cost 0.7-1.5x from one
// calibration to the next, and each profile predicted the others' development sets
// 9-18 % off (docs/fidelity.md). The median of each figure over several calibrations
// is the typical host, not one moment of it.
#include <string>
#include <vector>

#include "sim/DeviceProfile.h"

namespace pipescope {

/// Each number the median over the profiles that have it (whole numbers rounded,
/// yes/no by majority); each curve the median at every point that at least half of
/// the profiles having the curve measured. Throws std::invalid_argument when fewer
/// than two profiles are given or they describe different GPUs (deviceName).
/// The result is named `name`, its source ("calibrated on GPU N times, ...") lists
/// the inputs' sources, and it carries no validation (it has not been judged yet).
DeviceProfile mergeProfiles(const std::vector<DeviceProfile>& profiles, const std::string& name);

}  // namespace pipescope
