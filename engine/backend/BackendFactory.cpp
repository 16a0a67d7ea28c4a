#include "backend/Backend.h"
#include "backend/CudaModule.h"
#include "sim/SimulatorBackend.h"

namespace pipescope {

std::string_view toString(BackendChoice c) {
  switch (c) {
    case BackendChoice::Simulator: return "sim";
    case BackendChoice::Cuda: return "cuda";
    case BackendChoice::Auto: return "auto";
  }
  return "?";
}

std::optional<BackendChoice> parseBackendChoice(std::string_view s) {
  if (s == "sim" || s == "simulator") return BackendChoice::Simulator;
  if (s == "cuda") return BackendChoice::Cuda;
  if (s == "auto") return BackendChoice::Auto;
  return std::nullopt;
}

bool cudaBackendBuilt() { return PIPESCOPE_HAVE_CUDA != 0; }

namespace {

BackendSelection simulator(const BackendOptions& o, std::string note) {
  BackendSelection s;
  std::string error;
  auto profile = loadDeviceProfile(o.simulatorProfile, error);
  if (!profile) {
    s.error = error;
    return s;
  }
  s.backend = makeSimulatorBackend(*profile, o.simulatorSlowdown);
  s.note = std::move(note);
  return s;
}

}  // namespace

BackendSelection makeBackend(const BackendOptions& o) {
  if (o.choice == BackendChoice::Simulator) return simulator(o, {});
  if (!cudaBackendBuilt()) {
    if (o.choice == BackendChoice::Auto)
      return simulator(o, "this build has no CUDA backend (built without nvcc): running the simulator with profile '" +
                              o.simulatorProfile + "'");
    BackendSelection s;
    s.error = "this build of pipescope has no CUDA backend (it was built without nvcc). "
              "Rebuild with the CUDA toolkit installed, or use --backend sim.";
    return s;
  }
  // The first CUDA request loads the module, and with it cuBLAS and CUPTI.
  const CudaModuleLoad& loaded = loadCudaModule();
  if (!loaded.module) {
    if (o.choice == BackendChoice::Auto)
      return simulator(o, "the CUDA backend cannot be used: " + loaded.error +
                              ". Running the simulator with profile '" + o.simulatorProfile + "' instead");
    BackendSelection s;
    s.error = "the CUDA backend cannot be used: " + loaded.error + ". Use --backend sim to run the simulator.";
    return s;
  }
  const CudaProbe probe = loaded.module->probe();
  if (probe.status == CudaProbe::Status::Available) {
    BackendSelection s;
    if (o.cudaDevice < 0 || o.cudaDevice >= probe.deviceCount) {
      s.error = "CUDA device " + std::to_string(o.cudaDevice) + " does not exist: this machine has " +
                std::to_string(probe.deviceCount) + " (use --device 0.." + std::to_string(probe.deviceCount - 1) + ")";
      return s;
    }
    s.backend = loaded.module->makeBackend(o.cudaDevice, s.error);
    return s;
  }
  if (o.choice == BackendChoice::Auto && probe.status == CudaProbe::Status::NoDevice)
    return simulator(o, "no usable CUDA GPU (" + probe.message + "): running the simulator with profile '" +
                            o.simulatorProfile + "' instead");
  BackendSelection s;
  s.error = probe.status == CudaProbe::Status::NoDevice
                ? "no usable CUDA GPU: " + probe.message + ". Use --backend sim to run the simulator."
                : "CUDA is present but failed: " + probe.message;
  return s;
}

}  // namespace pipescope
