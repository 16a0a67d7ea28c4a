// `pipescope-cli profiles`: the simulator's built-in device profiles.
#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "Options.h"
#include "io/OutputFile.h"
#include "io/TraceFileError.h"
#include "sim/DeviceProfile.h"
#include "sim/MachineProfiles.h"
#include "sim/ProfileMerge.h"

namespace pipescope::cli {

namespace {

int mergeMain(const std::vector<std::string>& inputs, const std::string& out, const std::string& name) {
  std::vector<DeviceProfile> profiles;
  for (const std::string& in : inputs) {
    std::string error;
    auto p = loadDeviceProfile(in, error);
    if (!p) {
      std::cerr << "pipescope-cli profiles: " << error << "\n";
      return kExitUsage;
    }
    profiles.push_back(std::move(*p));
  }
  DeviceProfile merged;
  try {
    merged = mergeProfiles(profiles, name.empty() ? profiles.front().name : name);
  } catch (const std::invalid_argument& e) {
    std::cerr << "pipescope-cli profiles: --merge: " << e.what() << "\n";
    return kExitUsage;
  }
  try {
    writeOutputFile(out, [&](std::ostream& o) { o << profileToJson(merged).dump(2) << "\n"; });
  } catch (const TraceFileError& e) {
    std::cerr << "pipescope-cli profiles: " << e.what() << "\n";
    return kExitRunFailed;
  }
  std::cout << "wrote profile '" << merged.name << "', the median of " << profiles.size() << " calibrations of "
            << merged.deviceName << ", to " << out << "\n";
  return kExitOk;
}

int profilesMain(const std::vector<std::string>& args) {
  std::string out, mergedName;
  std::vector<std::string> merge;
  OptionSet options;
  options.value("merge", "FILE,FILE,...",
                "write one profile from several calibrations of one GPU model: each figure the median over "
                "them (needs --out)",
                [&](const std::string& v) { merge = parseNameListValue("merge", v); });
  options.value("out", "FILE", "where --merge writes the merged profile", [&](const std::string& v) { out = v; });
  options.value("name", "NAME", "the merged profile's name (default: the first input's)",
                [&](const std::string& v) { mergedName = v; });
  if (wantsHelp(args)) {
    std::cout << "usage: pipescope-cli profiles\n"
                 "       pipescope-cli profiles --merge A.json,B.json[,...] --out FILE [--name NAME]\n\n"
                 "Lists the simulator's built-in device profiles, one line each, then this\n"
                 "machine's own calibrations ('pipescope-cli calibrate'); use one with\n"
                 "'pipescope-cli run --backend sim --profile NAME' (or pass a profile JSON file).\n"
                 "--merge makes one profile of several calibrations of the same GPU model (each\n"
                 "number the median over them, each curve the median point by point): a\n"
                 "calibration reads the host of its own minutes, the median the typical host.\n\n"
              << options.help();
    return kExitOk;
  }
  try {
    options.parse(args);
    if (!merge.empty() && out.empty()) throw UsageError("--merge needs --out FILE");
    if (merge.empty() && (!out.empty() || !mergedName.empty())) throw UsageError("--out and --name go with --merge");
    if (merge.size() == 1) throw UsageError("--merge needs two or more profiles, separated by commas");
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli profiles: " << e.what() << "\n";
    return kExitUsage;
  }
  if (!merge.empty()) return mergeMain(merge, out, mergedName);
  const auto names = builtinProfileNames();
  std::size_t width = 0;
  for (const auto& n : names) width = std::max(width, n.size());
  for (const auto& name : names) {
    const auto profile = builtinProfile(name);
    std::cout << name << std::string(width + 2 - name.size(), ' ');
    if (profile) std::cout << profile->description;
    std::cout << "\n";
  }
  // This machine's calibrations (calibrate without --out), usable by name.
  const MachineContext machine = MachineContext::current();
  const auto mine = machineProfileNames(machine);
  if (!mine.empty()) {
    std::cout << "\ncalibrated on this machine (" << machine.folder << "):\n";
    for (const auto& name : mine) {
      std::string error;
      const auto profile = loadDeviceProfile(name, error);
      std::cout << name << "  " << (profile ? profile->source : "cannot be used: " + error) << "\n";
    }
  }
  return kExitOk;
}

const bool registered = registerCommand(
    {"profiles", "list the simulator's built-in device profiles, or merge calibrations into one", profilesMain});

}  // namespace

}  // namespace pipescope::cli
