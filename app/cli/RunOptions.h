#pragma once
// What `pipescope-cli run` was asked to do, from its command line.
#include <cstdint>
#include <string>
#include <vector>

#include "Options.h"
#include "backend/Backend.h"
#include "config/ConfigOrigins.h"
#include "config/PipelineConfig.h"

namespace pipescope::cli {

struct RunRequest {
  PipelineConfig config;
  BackendOptions backend;
  bool profileGiven = false;     ///< --profile was given (else a GPU run predicts with this machine's profile)
  std::string presetName;        ///< last --preset, empty if none
  std::vector<std::string> configFiles;
  /// Where each field's value came from (preset, --config file, option), so that a
  /// value error names the file and field to edit.
  ConfigOrigins origins;
  std::string tracePath;         ///< --trace FILE, empty = do not write
  std::uint64_t maxOps = 0;      ///< live window (0 = keep every op)
  bool json = false;
  bool quiet = false;
  bool progress = false;         ///< --progress: show it even when stderr is not a terminal
  bool noProgress = false;
};

/// The option table of `run`; applying it fills `request`. --preset and --config
/// replace/overlay the configuration first (in the order given), then every knob
/// option applies on top, whatever its position.
class RunOptionParser {
 public:
  RunOptionParser();
  /// Throws UsageError (bad option or value) or std::runtime_error (config file).
  RunRequest parse(const std::vector<std::string>& args);
  std::string help() const;
  const OptionSet& options() const { return options_; }

 private:
  OptionSet options_;
  RunRequest request_;
  std::vector<std::function<void()>> baseSteps_;  // --preset / --config
  std::vector<std::function<void()>> knobSteps_;  // everything that edits one field
  bool gpusGiven_ = false, devicesGiven_ = false;
};

}  // namespace pipescope::cli
