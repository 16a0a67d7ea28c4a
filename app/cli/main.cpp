// pipescope-cli: the Qt-free command line tool. Sub-commands register themselves
// (Commands.h); this file only dispatches and prints the tool's help.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "Commands.h"
#include "StopSignals.h"
#include "OptionCatalogue.h"

using namespace pipescope::cli;

namespace {

void printHelp(std::ostream& out) {
  out << "usage: pipescope-cli COMMAND [options]\n\n"
         "pipescope shows how a CPU-GPU pipeline spends its time. This tool runs the pipeline\n"
         "headless (on a CUDA GPU or on the simulator) and prints what limited it.\n\n"
         "Commands:\n";
  auto commands = commandRegistry();
  std::sort(commands.begin(), commands.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  std::size_t width = 0;
  for (const auto& c : commands) width = std::max(width, c.name.size());
  for (const auto& c : commands) out << "  " << c.name << std::string(width + 2 - c.name.size(), ' ') << c.summary << "\n";
  out << "\nOptions:\n"
         "  --help, -h   this help; 'pipescope-cli COMMAND --help' documents a command's options\n"
         "  --version    the version\n"
         "  --dump-options json\n"
         "               every command's options as JSON (the man page and shell completions are\n"
         "               generated from it)\n\n"
         "Exit status: 0 success, 1 the run or analysis failed, 2 bad command line; a run, sweep or\n"
         "lesson stopped by a signal saves what it recorded and exits with 128 + the signal's number\n"
         "(130 Ctrl-C, 143 SIGTERM, 129 SIGHUP); a second signal of the same kind ends it at once.\n"
         "Example: pipescope-cli run --preset multi-stream --backend sim\n";
}

}  // namespace

int main(int argc, char** argv) {
  // First of all: a stop signal that arrives while the options are parsed or the
  // backend starts must stop the run, not be lost (StopSignals.h).
  StopSignals::install();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args.front().rfind("-", 0) == 0 || args.front() == "help") StopSignals::releaseToDefault();
  if (args.empty()) {
    printHelp(std::cerr);
    return kExitUsage;
  }
  const std::string& first = args.front();
  if (first == "--help" || first == "-h" || first == "help") {
    if (first == "help" && args.size() > 1) {
      args = {args[1], "--help"};
    } else {
      printHelp(std::cout);
      return kExitOk;
    }
  }
  if (args.front() == "--dump-options=json") args = {"--dump-options", "json"};
  if (args.front() == "--dump-options") {
    if (args.size() != 2 || args[1] != "json") {
      std::cerr << "pipescope-cli: --dump-options needs the format: --dump-options json\n";
      return kExitUsage;
    }
    std::cout << optionCatalogue(PIPESCOPE_VERSION).dump(2) << "\n";
    return kExitOk;
  }
  if (args.front() == "--version") {
    std::cout << "pipescope-cli " << PIPESCOPE_VERSION << "\n";
    return kExitOk;
  }
  for (const auto& c : commandRegistry()) {
    if (c.name != args.front()) continue;
    if (!c.stopsOnInterrupt) StopSignals::releaseToDefault();
    try {
      return c.main(std::vector<std::string>(args.begin() + 1, args.end()));
    } catch (const std::exception& e) {
      // Commands report their own errors; this is the last line of defence.
      std::cerr << "pipescope-cli " << c.name << ": " << e.what() << "\n";
      return kExitRunFailed;
    }
  }
  std::cerr << "pipescope-cli: unknown command '" << args.front() << "'. Run 'pipescope-cli --help' for the list.\n";
  return kExitUsage;
}
