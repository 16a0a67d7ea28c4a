#pragma once
// Kernels bound by the host link on several streams at once: the throughput N
// streams' kernels reach together against one alone, for kernels faulting managed
// pages in and for kernels reading mapped memory (DeviceProfile's
// managedFaultStreamsSpeedup and mappedStreamsSpeedup; docs/fidelity.md).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "sim/DeviceProfile.h"

namespace pipescope::cuda {

struct LinkStreamsCalibration {
  /// managedFault: the smallest size's curve (managedFaultBySize's first), for the
  /// profile's one-size field.
  std::vector<StreamSpeedup> managedFault, mapped;
  std::vector<SizedStreamSpeedup> managedFaultBySize;
};

/// The managed pages each kernel faults in, by size: large faults overlap less across
/// streams than small ones, and the overlap falls within a few MiB (a pipeline's 2.8
/// MiB faults on 5 streams of an H200 host ran about one at a time, where 1 MiB ones
/// reached 2.3x on 4 streams): hence 2 and 4 MiB between 1 and 32.
inline constexpr std::size_t kManagedFaultStreamsSizes[] = {std::size_t(1) << 20, std::size_t(2) << 20,
                                                            std::size_t(4) << 20, std::size_t(32) << 20};

/// The pipeline's normalize kernel on 1, 2, 4 and 8 streams at once, each reading its
/// own buffer (managed pages the CPU just wrote, at each of kManagedFaultStreamsSizes;
/// 2 MiB of mapped memory), started together; the median of 5 rounds. Throws
/// CudaError on a CUDA failure.
LinkStreamsCalibration calibrateLinkStreams(const std::function<void(const std::string&)>& log);

}  // namespace pipescope::cuda
