#pragma once
// Kernels bound by the host link on several streams at once: the throughput N
// streams' kernels reach together against one alone, for kernels faulting managed
// pages in and for kernels reading mapped memory (DeviceProfile's
// managedFaultStreamsSpeedup and mappedStreamsSpeedup; docs/fidelity.md).
#include <functional>
#include <string>
#include <vector>

#include "sim/DeviceProfile.h"

namespace pipescope::cuda {

struct LinkStreamsCalibration {
  std::vector<StreamSpeedup> managedFault, mapped;
};

/// The pipeline's normalize kernel on 1, 2, 4 and 8 streams at once, each reading its
/// own buffer (1 MiB of managed pages the CPU just wrote; 2 MiB of mapped memory),
/// started together; the median of 5 rounds. Throws CudaError on a CUDA failure.
LinkStreamsCalibration calibrateLinkStreams(const std::function<void(const std::string&)>& log);

}  // namespace pipescope::cuda
