#pragma once
// A kernel bound by the host link beside a compute kernel on another stream: how
// many compute kernels' worth of SMs it keeps while it waits on the link
// (DeviceProfile::linkKernelSmWeight; docs/fidelity.md).
#include <functional>
#include <string>

namespace pipescope::cuda {

/// The pipeline's model kernel (about 300 us of work on 4 MiB of device memory at
/// `modelGflops`) alone, the normalize kernel reading 64 MiB of mapped memory alone,
/// then both started together on two streams, each order of issue; the median of 5
/// rounds: DeviceProfile::linkKernelSmWeight, the two orders' fits averaged. Throws
/// CudaError on a CUDA failure.
double calibrateLinkCompute(double modelGflops, const std::function<void(const std::string&)>& log);

}  // namespace pipescope::cuda
