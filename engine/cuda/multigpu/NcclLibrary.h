#pragma once
// NCCL, loaded when a run over several GPUs first needs it (dlopen of libnccl.so.2):
// nothing maps the library at start-up, a one-GPU run never does, and a machine
// without NCCL gets a message naming it instead of a binary that does not start.
// Before NCCL is loaded, NCCL_NVLS_ENABLE is forced to 0: pipescope never lets NCCL
// use NVLink multicast (NVLS), whatever the environment said.
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

namespace pipescope::cuda {

class NcclError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The NCCL entry points pipescope calls, resolved from the loaded library.
struct NcclApi {
  int version = 0;   ///< the loaded library's NCCL_VERSION_CODE (22809 = 2.28.9)
  std::string path;  ///< the file it was loaded from
  /// Non-empty when the environment asked NCCL for NVLink multicast and was overruled.
  std::string nvlsNote;

  ncclResult_t (*getVersion)(int*) = nullptr;
  const char* (*getErrorString)(ncclResult_t) = nullptr;
  const char* (*getLastError)(ncclComm_t) = nullptr;
  ncclResult_t (*getUniqueId)(ncclUniqueId*) = nullptr;
  ncclResult_t (*commInitRankConfig)(ncclComm_t*, int, ncclUniqueId, int, ncclConfig_t*) = nullptr;
  ncclResult_t (*commGetAsyncError)(ncclComm_t, ncclResult_t*) = nullptr;
  ncclResult_t (*commFinalize)(ncclComm_t) = nullptr;
  ncclResult_t (*commDestroy)(ncclComm_t) = nullptr;
  ncclResult_t (*commAbort)(ncclComm_t) = nullptr;
  ncclResult_t (*allReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                            cudaStream_t) = nullptr;
  ncclResult_t (*groupStart)() = nullptr;
  ncclResult_t (*groupEnd)() = nullptr;

  /// "2.28.9"
  std::string versionText() const;
  /// "<call> failed: <NCCL's error text> (<its last error message>)".
  std::string describe(const char* call, ncclResult_t result, ncclComm_t comm) const;
};

/// Loads NCCL once per process and returns its entry points; throws NcclError saying
/// what failed (library not found, too old, a symbol missing) and what to do.
const NcclApi& ncclApi();

/// Where ncclApi() looks: $PIPESCOPE_NCCL_LIBRARY alone when set, else libnccl.so.2
/// on the loader's path, then the library this build was configured with.
std::vector<std::string> ncclCandidates();
/// Loads the first of `candidates` that opens (NCCL_NVLS_ENABLE forced to 0 first);
/// throws NcclError as ncclApi() does. A library loaded stays loaded.
NcclApi loadNccl(const std::vector<std::string>& candidates);

/// Sets NCCL_NVLS_ENABLE=0 in this process's environment (overwriting any other
/// value); returns a note when it overwrote one. Called by ncclApi() before loading.
std::string forceNvlsOff();

}  // namespace pipescope::cuda
