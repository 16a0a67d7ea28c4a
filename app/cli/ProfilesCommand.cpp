// `pipescope-cli profiles`: the simulator's built-in device profiles.
#include <algorithm>
#include <iostream>

#include "Commands.h"
#include "Options.h"
#include "sim/DeviceProfile.h"

namespace pipescope::cli {

namespace {

int profilesMain(const std::vector<std::string>& args) {
  OptionSet options;
  if (wantsHelp(args)) {
    std::cout << "usage: pipescope-cli profiles\n\n"
                 "Lists the simulator's built-in device profiles, one line each; use one with\n"
                 "'pipescope-cli run --backend sim --profile NAME' (or pass a profile JSON file).\n";
    return kExitOk;
  }
  try {
    options.parse(args);
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli profiles: " << e.what() << "\n";
    return kExitUsage;
  }
  const auto names = builtinProfileNames();
  std::size_t width = 0;
  for (const auto& n : names) width = std::max(width, n.size());
  for (const auto& name : names) {
    const auto profile = builtinProfile(name);
    std::cout << name << std::string(width + 2 - name.size(), ' ');
    if (profile) std::cout << profile->description;
    std::cout << "\n";
  }
  return kExitOk;
}

const bool registered = registerCommand({"profiles", "list the simulator's built-in device profiles", profilesMain});

}  // namespace

}  // namespace pipescope::cli
