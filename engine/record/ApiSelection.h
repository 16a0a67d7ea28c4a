#pragma once
// Which CUDA runtime and driver API calls a recording asks CUPTI for.
//
// Every recorded API call costs the program's own thread a CUPTI record (two time
// stamps and a buffer write) inside the call. A PyTorch step makes several calls per
// kernel that put no work on the GPU and never wait (cudaGetDevice, cudaGetLastError,
// cudaStreamIsCapturing, cuCtxGetCurrent, ...): recording those made a host-bound
// training loop markedly slower and told the analysis nothing. So only calls that
//   - put work on a GPU: kernel, graph and host-function launches, copies, memsets,
//     prefetches, stream memory operations, external semaphores;
//   - make the host or a stream wait: synchronisations, event records and waits;
//   - allocate, free or register memory (they can block the host or the device);
//   - load modules or create contexts (rare, but they can take whole seconds)
// are recorded, by name, in the runtime and in the driver API alike, so a kernel
// launched through the driver (Triton, cuDNN, NCCL) still has its launching call and
// thread. The rules work on CUPTI's callback names, so entry points of a newer CUDA
// ("cudaLaunchKernelExC", "__cudaLaunchKernel", "cuMemcpyBatchAsync") are chosen too.
#include <string>
#include <string_view>

namespace pipescope::record {

/// "cudaMemcpyAsync_ptsz_v7000" -> "cudaMemcpyAsync": the name without CUPTI's version
/// suffix, the per-thread-stream suffixes and the leading underscores of internal
/// entry points.
std::string apiBaseName(std::string_view cuptiName);

/// Whether a recording asks CUPTI for records of this API call (a runtime or driver
/// callback name as CUPTI gives it, with or without its suffixes).
bool recordsApiCall(std::string_view cuptiName);

/// Which API domains a recording asks for: both by default. PIPESCOPE_RECORD_API in the
/// recorded program's environment narrows it ("runtime", "driver", "none"): each
/// recorded call costs the program's thread, so a host-bound program can be recorded
/// lighter, at the price of kernels whose launching call (and so thread) is unknown.
struct ApiDomains {
  bool runtime = true, driver = true;
  std::string error;  ///< a value that names no choice: both domains, and this says why
};
ApiDomains apiDomainsFromSetting(const char* value);

inline constexpr const char* kApiDomainsVariable = "PIPESCOPE_RECORD_API";

}  // namespace pipescope::record
