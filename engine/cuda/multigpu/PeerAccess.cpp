#include "cuda/multigpu/PeerAccess.h"

#include <dlfcn.h>

#include <algorithm>
#include <stdexcept>

#include <cuda_runtime_api.h>

#include "cuda/CudaError.h"

namespace pipescope::cuda {

bool enablePeerAccess(int from, int to) {
  int can = 0;
  PIPESCOPE_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(from));
  if (!can) return false;
  const cudaError_t err = cudaDeviceEnablePeerAccess(to, 0);
  if (err == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();  // enabled by an earlier run: not an error
    return true;
  }
  if (err != cudaSuccess)
    throwCudaError("cudaDeviceEnablePeerAccess", err,
                   "GPU " + std::to_string(from) + " reports peer access to GPU " + std::to_string(to) +
                       " but could not enable it (all peer mappings in use?)");
  return true;
}

namespace {

// The NVML entry points used, declared here so no nvml.h is needed to build.
using nvmlDevice_t = struct nvmlDevice_st*;
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlByBusId = int (*)(const char*, nvmlDevice_t*);
using NvmlP2PStatus = int (*)(nvmlDevice_t, nvmlDevice_t, int, int*);
constexpr int kNvmlP2PCapsIndexNvlink = 2;  // NVML_P2P_CAPS_INDEX_NVLINK
constexpr int kNvmlP2PStatusOk = 0;         // NVML_P2P_STATUS_OK

/// Whether NVML reports an NVLink between the two devices; false when NVML is absent.
bool joinedByNvlink(int from, int to) {
  char busA[32] = {}, busB[32] = {};
  if (cudaDeviceGetPCIBusId(busA, sizeof busA, from) != cudaSuccess ||
      cudaDeviceGetPCIBusId(busB, sizeof busB, to) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return false;
  auto init = reinterpret_cast<NvmlInit>(dlsym(lib, "nvmlInit_v2"));
  auto shutdown = reinterpret_cast<NvmlShutdown>(dlsym(lib, "nvmlShutdown"));
  auto byBus = reinterpret_cast<NvmlByBusId>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto p2p = reinterpret_cast<NvmlP2PStatus>(dlsym(lib, "nvmlDeviceGetP2PStatus"));
  bool nvlink = false;
  if (init && shutdown && byBus && p2p && init() == 0) {
    nvmlDevice_t a = nullptr, b = nullptr;
    int status = -1;
    nvlink = byBus(busA, &a) == 0 && byBus(busB, &b) == 0 && p2p(a, b, kNvmlP2PCapsIndexNvlink, &status) == 0 &&
             status == kNvmlP2PStatusOk;
    shutdown();
  }
  dlclose(lib);
  return nvlink;
}

}  // namespace

std::string linkName(int from, int to, bool peerAccess) {
  if (!peerAccess) return "via host";
  return joinedByNvlink(from, to) ? "NVLink" : "PCIe peer-to-peer";
}

std::string presentDevices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return "none";
  }
  std::string out;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    const bool named = cudaGetDeviceProperties(&prop, d) == cudaSuccess;
    out += (out.empty() ? "" : ", ") + std::string("GPU ") + std::to_string(d) +
           (named ? std::string(" (") + prop.name + ")" : std::string());
  }
  return out.empty() ? "none" : out;
}

void checkDevicesPresent(const std::vector<int>& devices) {
  int count = 0;
  PIPESCOPE_CUDA_CHECK(cudaGetDeviceCount(&count));
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const int d = devices[i];
    if (std::count(devices.begin(), devices.end(), d) > 1)
      throw std::runtime_error("GPU " + std::to_string(d) + " is listed twice in the device list: list each GPU once");
    if (d < 0 || d >= count) {
      const std::string asked = devices.size() == 1 ? "GPU " + std::to_string(d)
                                                    : std::to_string(devices.size()) + " GPUs (including GPU " +
                                                          std::to_string(d) + ")";
      throw std::runtime_error("the run asks for " + asked + " but this machine has " + std::to_string(count) +
                               " CUDA GPU" + (count == 1 ? "" : "s") + ": " + presentDevices() +
                               ". Use " + std::to_string(std::max(1, count)) +
                               " GPUs or fewer (\"devices\" with these numbers), or --backend sim (up to 8 "
                               "simulated GPUs)");
    }
  }
}

}  // namespace pipescope::cuda
