#pragma once
// Sub-commands of pipescope-cli register themselves here, one file each, so that
// adding a command never edits a shared file.
#include <functional>
#include <string>
#include <vector>

namespace pipescope::cli {

struct Command {
  std::string name;     ///< "run", "presets", "analyze", ...
  std::string summary;  ///< one line for `pipescope-cli --help`
  /// args excludes the program and command names; returns the process exit code.
  std::function<int(const std::vector<std::string>& args)> main;
  /// The command polls StopSignals (a run, a sweep, a lesson): Ctrl-C, SIGTERM and
  /// SIGHUP stop it politely. Others keep the default actions: they end at once.
  bool stopsOnInterrupt = false;
};

std::vector<Command>& commandRegistry();

/// Registers a command at static-initialisation time:
///   static const bool registered = registerCommand({"run", "...", runMain});
bool registerCommand(Command command);

/// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;   ///< the run/analysis itself failed
inline constexpr int kExitUsage = 2;       ///< bad option or value

}  // namespace pipescope::cli
