#pragma once
// The CPU stage's workers faulting managed pages over together: how much faster than
// the one thread the fault curves were measured with (DeviceProfile's
// managedCpuWriteFaultWorkers and managedCpuReadFaultWorkers; docs/fidelity.md).
#include <functional>
#include <string>
#include <vector>

#include "sim/DeviceProfile.h"

namespace pipescope::cuda {

struct ManagedWorkersCalibration {
  std::vector<SizedWorkerSpeedup> cpuWrite, cpuRead;
};

/// At 256 KiB, 4 MiB and 32 MiB, on the pipeline's own worker pool of 1, 2, 4 and 8
/// threads: a kernel writes a managed buffer (its pages go to the device), then the
/// workers preprocess (write) or postprocess (read) their shares of it, host-timed from
/// hand-out to the last worker's end, minus the same stage on pinned memory. Each
/// point: one worker's fault time over that many workers' (medians of 5 to 9
/// repetitions). Throws CudaError on a CUDA failure.
ManagedWorkersCalibration calibrateManagedWorkers(const std::function<void(const std::string&)>& log);

}  // namespace pipescope::cuda
