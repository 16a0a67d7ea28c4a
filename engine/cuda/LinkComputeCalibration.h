#pragma once
// A kernel bound by the host link beside a compute kernel on another stream: how
// many compute kernels' worth of SMs it keeps while it waits on the link
// (DeviceProfile::linkKernelSmWeight; docs/fidelity.md).
#include <functional>
#include <string>

namespace pipescope::cuda {

struct LinkComputeCalibration {
  double weight = 0;  ///< DeviceProfile::linkKernelSmWeight
  double computeAloneNs = 0, computeBesideNs = 0;  ///< the model kernel, alone and beside the mapped read
  double linkAloneNs = 0, linkBesideNs = 0;        ///< the mapped read, alone and beside the model kernel
};

/// The pipeline's model kernel (about 300 us of work on 4 MiB of device memory at
/// `modelGflops`) alone, the normalize kernel reading 64 MiB of mapped memory alone,
/// then both started together on two streams, each order of issue; the median of 5
/// rounds, the two orders averaged. Throws CudaError on a CUDA failure.
LinkComputeCalibration calibrateLinkCompute(double modelGflops, const std::function<void(const std::string&)>& log);

}  // namespace pipescope::cuda
