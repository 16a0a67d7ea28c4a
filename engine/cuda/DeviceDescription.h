#pragma once
#include "trace/DeviceInfo.h"

namespace pipescope::cuda {

/// Name, compute capability, copy engines, PCIe link, driver/runtime versions and
/// memory of `device`. The PCIe generation and width come from NVML when the
/// driver's libnvidia-ml is present at run time (loaded with dlopen); else 0.
DeviceInfo describeDevice(int device);

}  // namespace pipescope::cuda
