// `pipescope-cli calibrate`: measures a simulator device profile on a real GPU.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "Commands.h"
#include "Options.h"
#include "backend/MachineCalibration.h"
#include "io/OutputFile.h"
#include "sim/DeviceProfile.h"
#include "sim/MachineProfiles.h"

namespace pipescope::cli {

namespace {

constexpr const char* kUsage =
    "usage: pipescope-cli calibrate [--out FILE] [--quick] [--device N] [--gpus N] [--name NAME]\n"
    "                                [--repeat N]\n\n"
    "Measures, on a real NVIDIA GPU, everything the simulator's device model needs\n"
    "(copy bandwidth curves for pinned and pageable memory, bidirectional sharing,\n"
    "copy engines, model/normalize/GEMM kernel rates, kernel launch, copy call, event\n"
    "and synchronisation costs, kernel gap, mapped and managed memory rates, and the\n"
    "CPU cost of pre/postprocessing on this host, timed inside a running pipeline) and\n"
    "the CUDA backend's own host cost per GPU op and per batch (fitted on tiny-batch\n"
    "runs). The fits that run the backend itself read the host's state of the moment,\n"
    "so they run --repeat times and the profile takes each value's median. On a\n"
    "machine with several GPUs it also measures peer copies between two of them and\n"
    "NCCL's all-reduce over --gpus of them (default all), for simulated runs over\n"
    "several GPUs. About a minute; --quick measures only what drifts with the host\n"
    "(call costs, wake-ups, the backend's overhead, CPU stages, one round of fits) on\n"
    "top of the built-in profile of the same GPU model, in about 20 s.\n\n"
    "Without --out the profile is this machine's calibration: it is saved in the user's\n"
    "data folder ($XDG_DATA_HOME/pipescope/profiles, else ~/.local/share/pipescope/\n"
    "profiles) under the GPU's and the host's name, and predictions for runs on this GPU\n"
    "(advice, lessons, sweeps, what-ifs) use it from then on. With --out FILE it is\n"
    "written there instead, for 'pipescope-cli run --backend sim --profile FILE'.\n\n";

int calibrateMain(const std::vector<std::string>& args) {
  std::string out;
  MachineCalibrationOptions o;
  OptionSet options;
  options.value("out", "FILE", "write the profile (JSON) to FILE instead of this machine's calibration",
                [&](const std::string& v) { out = v; });
  options.flag("quick", "about 20 s: only what drifts with the host, on top of the built-in profile of this GPU model",
               [&] { o.quick = true; });
  options.value("device", "N", "CUDA device index (default 0)",
                [&](const std::string& v) { o.device = int(parseInteger("device", v, 0, 63)); });
  options.value("gpus", "N",
                "GPUs for the multi-GPU probes: peer copies between --device and the next GPU, NCCL's all-reduce "
                "over N GPUs (default every GPU present; 1 skips them; --quick keeps the built-in profile's)",
                [&](const std::string& v) { o.gpus = int(parseInteger("gpus", v, 1, 64)); });
  options.value("name", "NAME",
                "profile name with --out (default: from the device name, e.g. h100-80gb-hbm3-calibrated); this "
                "machine's calibration is always named after the GPU and the host",
                [&](const std::string& v) { o.profileName = v; });
  options.value("repeat", "N",
                "rounds of the in-pipeline fits (host overhead, CPU stages, GEMM calls, hand-off); the profile "
                "takes each value's median (1..9, default 3; --quick runs one)",
                [&](const std::string& v) { o.repeats = int(parseInteger("repeat", v, 1, 9)); });
  if (wantsHelp(args)) {
    std::cout << kUsage << options.help();
    return kExitOk;
  }
  try {
    options.parse(args);
    if (!out.empty() && out.back() == '/') throw UsageError("--out '" + out + "' is a folder; give a file name");
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli calibrate: " << e.what() << "\nSee 'pipescope-cli calibrate --help'.\n";
    return kExitUsage;
  }
  const GpuPresence gpu = probeGpuPresence(o.device);
  if (!gpu.available) {
    std::cerr << "pipescope-cli calibrate: " << gpu.reason
              << ". Calibration measures a real GPU: run it on a machine with one; on this machine use a built-in "
                 "profile ('pipescope-cli profiles').\n";
    return gpu.reason.find("does not exist") != std::string::npos ? kExitUsage : kExitRunFailed;
  }
  if (o.gpus > gpu.deviceCount) {
    std::cerr << "pipescope-cli calibrate: --gpus " << o.gpus << " but this machine has " << gpu.deviceCount
              << " CUDA GPU" << (gpu.deviceCount == 1 ? "" : "s") << " (use --gpus 1.." << gpu.deviceCount << ")\n";
    return kExitUsage;
  }
  const MachineContext machine = MachineContext::current();
  if (out.empty() && machine.folder.empty()) {
    std::cerr << "pipescope-cli calibrate: there is no data folder to keep this machine's calibration in (neither "
                 "XDG_DATA_HOME nor HOME is set): give --out FILE\n";
    return kExitUsage;
  }
  o.log = [](const std::string& line) { std::cerr << "  " << line << "\n"; };
  DeviceProfile profile;
  try {
    std::cerr << "calibrating " << gpu.deviceName << " (CUDA device " << o.device << ")"
              << (o.quick ? ", quick: host costs on top of the built-in profile" : "") << "...\n";
    profile = calibrateMachine(o);
  } catch (const std::exception& e) {
    std::cerr << "pipescope-cli calibrate: calibration failed: " << e.what() << "\n";
    return kExitRunFailed;
  }
  std::string path = out;
  try {
    if (out.empty())
      path = saveMachineProfile(machine, profile);
    else
      writeOutputFile(out, [&](std::ostream& file) { file << profileToJson(profile).dump(2) << "\n"; });
  } catch (const std::exception& e) {
    std::cerr << "pipescope-cli calibrate: " << e.what() << "\n";
    return kExitRunFailed;
  }
  if (out.empty())
    std::cout << "wrote this machine's calibration of " << profile.deviceName << " ("
              << machineProfileName(profile.deviceName, machine.host) << ") to " << path
              << "; predictions for runs on this GPU use it from now on\n";
  else
    std::cout << "wrote profile '" << profile.name << "' (" << profile.source << ") to " << path << "\n";
  return kExitOk;
}

const bool registered =
    registerCommand({"calibrate", "measure a simulator device profile on a real GPU", calibrateMain});

}  // namespace

}  // namespace pipescope::cli
