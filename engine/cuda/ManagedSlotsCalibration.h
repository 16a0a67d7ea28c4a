#pragma once
// Managed page moves when a pipeline rotates over several managed buffers (its host
// slots): how much longer the CPU's write faults and the GPU side's moves take than on
// one buffer (DeviceProfile's managedSlotsSlowdown and managedSlotsCpuSlowdown;
// docs/fidelity.md).
#include <functional>
#include <string>
#include <vector>

#include "sim/DeviceProfile.h"

namespace pipescope::cuda {

struct ManagedSlotsCalibration {
  std::vector<ManagedSlotsPoint> gpuSide, cpuWrite;
};

/// 4, 8, 16 and 32 slots of 256 KiB against one: each slot a managed input and output
/// as the pipeline's managed-prefetch slots, stepped in turn, one step at a time: the
/// CPU writes the input (faulting the pages the device holds back; host-timed, minus
/// the same write of pinned memory), then, event-timed, the input prefetched to the
/// GPU, the normalize kernel writing the output (faulting its pages in; its own time
/// off) and the output prefetched to the CPU. Medians over 5 passes (the first pass,
/// first touch, left out); each point the slots' median over one slot's, at least 1.
/// Throws CudaError on a CUDA failure.
ManagedSlotsCalibration calibrateManagedSlots(double normalizeOwnNsPerByte, double normalizeFixedNs, int device,
                                              const std::function<void(const std::string&)>& log);

}  // namespace pipescope::cuda
