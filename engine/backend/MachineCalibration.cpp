#include "backend/MachineCalibration.h"

#include <stdexcept>

#include "analysis/PredictionProfile.h"
#include "backend/CudaModule.h"
#include "sim/InPipelineFits.h"
#include "sim/MultiGpuHostFit.h"

namespace pipescope {

namespace {

/// The CUDA module, or std::runtime_error saying why it cannot be used (no CUDA
/// backend in this build, a module that failed to load).
const CudaModule& cudaModule() {
  const CudaModuleLoad& cuda = loadCudaModule();
  if (!cuda.module) throw std::runtime_error(cuda.error);
  return *cuda.module;
}

}  // namespace

GpuPresence probeGpuPresence(int device) {
  GpuPresence g;
  const CudaModuleLoad& cuda = loadCudaModule();
  if (!cuda.module) {
    g.reason = cuda.error;
    return g;
  }
  const CudaProbe probe = cuda.module->probe();
  g.deviceCount = probe.deviceCount;
  if (probe.status != CudaProbe::Status::Available) {
    g.reason = probe.status == CudaProbe::Status::NoDevice ? "no CUDA GPU on this machine (" + probe.message + ")"
                                                           : "CUDA is present but failed: " + probe.message;
    return g;
  }
  if (device < 0 || device >= probe.deviceCount) {
    g.reason = "CUDA device " + std::to_string(device) + " does not exist: this machine has " +
               std::to_string(probe.deviceCount);
    return g;
  }
  // No context yet: the calibration sets the device's flags before it opens it.
  g.available = true;
  g.deviceName = probe.names.at(std::size_t(device));
  return g;
}

HostCosts probeHostCosts(int device, const DeviceProfile& base) {
  CalibrationOptions o;
  o.device = device;
  o.hostOnly = true;
  o.base = &base;
  const DeviceProfile p = cudaModule().calibrate(o);
  return {p.kernelLaunchNs, p.memcpyAsyncCallNs, p.eventRecordNs, p.syncWakeNs};
}

DeviceProfile calibrateMachine(const MachineCalibrationOptions& options) {
  const GpuPresence gpu = probeGpuPresence(options.device);
  if (!gpu.available) throw std::runtime_error(gpu.reason + "; calibration measures a real GPU");
  const auto progress = [&](double fraction, const std::string& stage) {
    if (options.progress) options.progress(fraction, stage);
  };
  std::optional<DeviceProfile> base;
  if (options.quick) {
    base = builtinProfileForDevice(gpu.deviceName);
    if (!base)
      throw std::runtime_error("no built-in profile describes " + gpu.deviceName +
                               ", so a quick calibration has nothing to start from: run the full calibration");
  }
  // The micro-benchmarks take about a third of a full calibration, a tenth of a quick one.
  const double microShare = options.quick ? 0.1 : 0.35;
  CalibrationOptions o;
  o.device = options.device;
  o.gpus = options.gpus;
  o.profileName = options.profileName;
  o.log = options.log;
  o.hostOnly = options.quick;
  o.base = base ? &*base : nullptr;
  o.progress = [&](int done, int total) {
    progress(microShare * done / total, options.quick ? "host call costs and wake-ups" : "the device's figures");
  };
  progress(0, options.quick ? "host call costs and wake-ups" : "the device's figures");
  const CudaModule& cuda = cudaModule();
  DeviceProfile profile = cuda.calibrate(o);
  // What only the backend itself shows: its own per-op/per-batch host cost and the
  // CPU stages' speed inside a running pipeline.
  std::string error;
  auto backend = cuda.makeBackend(options.device, error);
  if (!backend) throw std::runtime_error("cannot create the CUDA backend: " + error);
  const int rounds = options.quick ? 1 : options.repeats;
  profile = fitInPipelineRepeated(*backend, profile, rounds, options.log, [&](int done, int total) {
    progress(microShare + (1 - microShare) * done / total, "the pipeline's own host costs");
  });
  // Over several GPUs (when the multi-GPU probes ran on them): the host's extra time
  // per op, from the backend's own runs over the same GPUs.
  const int gpus = options.gpus > 0 ? options.gpus : gpu.deviceCount;
  std::string severalGpuRuns;
  if (!options.quick && gpus >= 2 && profile.allreduceCurveGpus == gpus && !profile.multiGpuSource.empty() &&
      profile.multiGpuSource.rfind("calibrated on", 0) == 0) {
    std::vector<int> devices{options.device};
    for (int d = 0; d < gpu.deviceCount && int(devices.size()) < gpus; ++d)
      if (d != options.device) devices.push_back(d);
    progress(0.99, "the pipeline's own host costs over " + std::to_string(gpus) + " GPUs");
    applyMultiGpuHostOverhead(profile, fitMultiGpuHostOverhead(*backend, profile, devices, 3, options.log));
    severalGpuRuns = "; over " + std::to_string(gpus) +
                     " GPUs: 64 KiB x 4 chunks x 4 streams data parallel, 64 KiB x 4 micro-batches pipeline";
  }
  const std::string runs =
      "(CPU stages: 8 MiB x 4 streams; host overhead: 64 KiB x 1 stream, and 64 KiB in 8 chunks x 8 streams; GEMM "
      "calls: 64 KiB x 1 stream, light and heavy; CPU hand-off: 64 KiB x 1 stream on 1 and 8 workers" +
      severalGpuRuns + "); no random validation set";
  // No random validation set is used for fitting, so any seed can judge the profile.
  profile.fitConfigurations =
      options.quick ? "quick calibration on top of '" + base->name +
                          "': host API costs and wake-ups, and one round of the fitting runs " + runs
                    : "calibration micro-benchmarks and fitting runs, " + std::to_string(rounds) + " rounds " + runs;
  return profile;
}

}  // namespace pipescope
