// `pipescope-cli presets`: the built-in configurations of the teaching sequence.
#include <algorithm>
#include <iostream>

#include "Commands.h"
#include "Options.h"
#include "config/Presets.h"

namespace pipescope::cli {

namespace {

int presetsMain(const std::vector<std::string>& args) {
  bool verbose = false;
  OptionSet options;
  options.flag("verbose", "also say what each preset teaches", [&verbose] { verbose = true; });
  if (wantsHelp(args)) {
    std::cout << "usage: pipescope-cli presets [--verbose]\n\n"
                 "Lists the built-in presets, one line each; run one with 'pipescope-cli run --preset NAME'.\n"
              << options.help();
    return kExitOk;
  }
  try {
    options.parse(args);
  } catch (const UsageError& e) {
    std::cerr << "pipescope-cli presets: " << e.what() << "\n";
    return kExitUsage;
  }
  std::size_t width = 0;
  for (const auto& p : builtinPresets()) width = std::max(width, p.name.size());
  for (const auto& p : builtinPresets()) {
    std::cout << p.name << std::string(width + 2 - p.name.size(), ' ') << p.summary << "\n";
    if (verbose) std::cout << std::string(width + 2, ' ') << wrap(p.teaches, 100, width + 2) << "\n";
  }
  return kExitOk;
}

const bool registered = registerCommand({"presets", "list the built-in presets (one line each)", presetsMain});

}  // namespace

}  // namespace pipescope::cli
