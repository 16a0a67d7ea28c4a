#include "cuda/DeviceDescription.h"

#include <dlfcn.h>

#include <string>

#include "cuda/CudaError.h"

namespace pipescope::cuda {

namespace {

std::string versionText(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

// The handful of NVML entry points used, declared here so no nvml.h is needed to build.
using nvmlDevice_t = struct nvmlDevice_st*;
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlByBusId = int (*)(const char*, nvmlDevice_t*);
using NvmlUint = int (*)(nvmlDevice_t, unsigned*);
using NvmlDriverVersion = int (*)(char*, unsigned);

struct NvmlLink {
  int generation = 0;
  int width = 0;
  std::string driver;
};

NvmlLink queryNvml(const std::string& busId) {
  NvmlLink out;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return out;
  auto init = reinterpret_cast<NvmlInit>(dlsym(lib, "nvmlInit_v2"));
  auto shutdown = reinterpret_cast<NvmlShutdown>(dlsym(lib, "nvmlShutdown"));
  auto byBus = reinterpret_cast<NvmlByBusId>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  // The link's maximum, not its current state: an idle GPU trains its link down.
  auto gen = reinterpret_cast<NvmlUint>(dlsym(lib, "nvmlDeviceGetMaxPcieLinkGeneration"));
  auto width = reinterpret_cast<NvmlUint>(dlsym(lib, "nvmlDeviceGetMaxPcieLinkWidth"));
  auto driver = reinterpret_cast<NvmlDriverVersion>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  if (init && shutdown && init() == 0) {
    nvmlDevice_t dev = nullptr;
    if (byBus && byBus(busId.c_str(), &dev) == 0) {
      unsigned v = 0;
      if (gen && gen(dev, &v) == 0) out.generation = int(v);
      if (width && width(dev, &v) == 0) out.width = int(v);
    }
    char text[96] = {};
    if (driver && driver(text, sizeof text) == 0) out.driver = text;
    shutdown();
  }
  dlclose(lib);
  return out;
}

}  // namespace

DeviceInfo describeDevice(int device) {
  DeviceInfo info;
  info.backend = "cuda";
  cudaDeviceProp prop{};
  PIPESCOPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  info.name = prop.name;
  info.computeMajor = prop.major;
  info.computeMinor = prop.minor;
  info.copyEngines = prop.asyncEngineCount;
  info.memoryBytes = prop.totalGlobalMem;
  int driver = 0, runtime = 0;
  PIPESCOPE_CUDA_CHECK(cudaDriverGetVersion(&driver));
  PIPESCOPE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  info.runtimeVersion = versionText(runtime);
  char busId[32] = {};
  PIPESCOPE_CUDA_CHECK(cudaDeviceGetPCIBusId(busId, sizeof busId, device));
  const NvmlLink link = queryNvml(busId);
  info.pcieGeneration = link.generation;
  info.pcieWidth = link.width;
  info.driverVersion = link.driver.empty() ? "CUDA " + versionText(driver) : link.driver + " (CUDA " + versionText(driver) + ")";
  info.timingSource = "CUPTI";
  return info;
}

}  // namespace pipescope::cuda
