#pragma once
// A prefetch of managed pages back to the host queued behind the kernel that wrote
// them: how long after that kernel's end the driver starts moving the pages
// (DeviceProfile::prefetchAfterKernelNs; docs/fidelity.md).
#include <functional>
#include <string>

namespace pipescope::cuda {

/// The pipeline's model kernel (about 200 us of work at `modelGflops`) writing 1 MiB of
/// managed memory, then, on the same stream and without waiting, a cudaMemPrefetchAsync
/// of those pages to the host; against the kernel alone and the prefetch alone (after a
/// sync): the extra time the two took together, the median over 15 rounds of each
/// round's own difference, 0 or more.
/// The pages start on the host, as in the pipeline (the kernel faults them in), and
/// the same with the pages already on the GPU is logged beside it. Throws CudaError on a
/// CUDA failure.
double calibratePrefetchAfterKernel(int device, double modelGflops,
                                    const std::function<void(const std::string&)>& log);

}  // namespace pipescope::cuda
