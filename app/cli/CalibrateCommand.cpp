// `pipescope-cli calibrate`: measures a simulator device profile on a real GPU.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "Commands.h"
#include "Options.h"
#include "backend/CudaModule.h"
#include "io/OutputFile.h"
#include "sim/DeviceProfile.h"
#include "sim/InPipelineFits.h"

namespace pipescope::cli {

namespace {

constexpr const char* kUsage =
    "usage: pipescope-cli calibrate --out FILE [--device N] [--gpus N] [--name NAME] [--repeat N]\n\n"
    "Measures, on a real NVIDIA GPU, everything the simulator's device model needs\n"
    "(copy bandwidth curves for pinned and pageable memory, bidirectional sharing,\n"
    "copy engines, model/normalize/GEMM kernel rates, kernel launch, copy call, event\n"
    "and synchronisation costs, kernel gap, mapped and managed memory rates, and the\n"
    "CPU cost of pre/postprocessing on this host, timed inside a running pipeline) and\n"
    "the CUDA backend's own host cost per GPU op and per batch (fitted on tiny-batch\n"
    "runs), and writes it as a device profile for 'pipescope-cli run --backend sim\n"
    "--profile FILE'. The fits that run the backend itself read the host's state of\n"
    "the moment, so they run --repeat times and the profile takes each value's median.\n"
    "On a machine with several GPUs it also measures peer copies between two of them and\n"
    "NCCL's all-reduce over --gpus of them (default all), for simulated runs over several GPUs.\n"
    "Takes about a minute.\n\n";

int calibrateMain(const std::vector<std::string>& args) {
  std::string out;
  int device = 0;
  std::string name;
  int repeats = 3;
  int gpus = 0;
  OptionSet options;
  options.value("out", "FILE", "where to write the profile (JSON); required", [&](const std::string& v) { out = v; });
  options.value("device", "N", "CUDA device index (default 0)",
                [&](const std::string& v) { device = int(parseInteger("device", v, 0, 63)); });
  options.value("gpus", "N",
                "GPUs for the multi-GPU probes: peer copies between --device and the next GPU, NCCL's all-reduce "
                "over N GPUs (default every GPU present; 1 skips them)",
                [&](const std::string& v) { gpus = int(parseInteger("gpus", v, 1, 64)); });
  options.value("name", "NAME", "profile name (default: from the device name, e.g. h100-80gb-hbm3-calibrated)",
                [&](const std::string& v) { name = v; });
  options.value("repeat", "N",
                "rounds of the in-pipeline fits (host overhead, CPU stages, GEMM calls, hand-off); the profile "
                "takes each value's median (1..9, default 3)",
                [&](const std::string& v) { repeats = int(parseInteger("repeat", v, 1, 9)); });
  if (wantsHelp(args)) {
    std::cout << kUsage << options.help();
    return kExitOk;
  }
  try {
    options.parse(args);
    if (out.empty()) throw UsageError("--out FILE is required (where to write the profile)");
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli calibrate: " << e.what() << "\nSee 'pipescope-cli calibrate --help'.\n";
    return kExitUsage;
  }
#if PIPESCOPE_HAVE_CUDA
  const CudaModuleLoad& cuda = loadCudaModule();
  if (!cuda.module) {
    std::cerr << "pipescope-cli calibrate: " << cuda.error << ".\n";
    return kExitRunFailed;
  }
  const CudaProbe probe = cuda.module->probe();
  if (probe.status != CudaProbe::Status::Available) {
    std::cerr << "pipescope-cli calibrate: no usable CUDA GPU (" << probe.message
              << "). Calibration measures a real GPU: run it on a machine with one; on this machine use a "
                 "built-in profile ('pipescope-cli profiles').\n";
    return kExitRunFailed;
  }
  if (device >= probe.deviceCount) {
    std::cerr << "pipescope-cli calibrate: CUDA device " << device << " does not exist: this machine has "
              << probe.deviceCount << " (use --device 0.." << probe.deviceCount - 1 << ")\n";
    return kExitUsage;
  }
  if (gpus > probe.deviceCount) {
    std::cerr << "pipescope-cli calibrate: --gpus " << gpus << " but this machine has " << probe.deviceCount
              << " CUDA GPU" << (probe.deviceCount == 1 ? "" : "s") << " (use --gpus 1.." << probe.deviceCount
              << ")\n";
    return kExitUsage;
  }
  DeviceProfile profile;
  try {
    CalibrationOptions o;
    o.device = device;
    o.gpus = gpus;
    o.profileName = name;
    o.log = [](const std::string& line) { std::cerr << "  " << line << "\n"; };
    std::cerr << "calibrating CUDA device " << device << "...\n";
    profile = cuda.module->calibrate(o);
    // What only the backend itself shows: its own per-op/per-batch host cost and the
    // CPU stages' speed inside a running pipeline.
    std::string error;
    auto backend = cuda.module->makeBackend(device, error);
    if (!backend) throw std::runtime_error("cannot create the CUDA backend: " + error);
    profile = fitInPipelineRepeated(*backend, profile, repeats, o.log);
    // No random validation set is used for fitting, so any seed can judge the profile.
    profile.fitConfigurations =
        "calibration micro-benchmarks and fitting runs, " + std::to_string(repeats) +
        " rounds (CPU stages: 8 MiB x 4 streams; host overhead: 64 KiB x 1 stream, and 64 KiB in 8 chunks x 8 "
        "streams; GEMM calls: 64 KiB x 1 stream, light and heavy; CPU hand-off: 64 KiB x 1 stream on 1 and 8 "
        "workers); no random validation set";
  } catch (const std::exception& e) {
    std::cerr << "pipescope-cli calibrate: calibration failed: " << e.what() << "\n";
    return kExitRunFailed;
  }
  try {
    writeOutputFile(out, [&](std::ostream& file) { file << profileToJson(profile).dump(2) << "\n"; });
  } catch (const std::exception& e) {
    std::cerr << "pipescope-cli calibrate: " << e.what() << "\n";
    return kExitRunFailed;
  }
  std::cout << "wrote profile '" << profile.name << "' (" << profile.source << ") to " << out << "\n";
  return kExitOk;
#else
  (void)device;
  (void)repeats;
  (void)gpus;
  std::cerr << "pipescope-cli calibrate: this build has no CUDA backend (built without nvcc), so it cannot "
               "measure a GPU. Rebuild with the CUDA toolkit on a machine with an NVIDIA GPU, or use a built-in "
               "profile ('pipescope-cli profiles').\n";
  return kExitRunFailed;
#endif
}

const bool registered =
    registerCommand({"calibrate", "measure a simulator device profile on a real GPU", calibrateMain});

}  // namespace

}  // namespace pipescope::cli
