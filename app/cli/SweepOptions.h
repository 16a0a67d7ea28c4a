#pragma once
// What `pipescope-cli sweep` was asked to do. The grid options are the sweep's own;
// every other knob of `run` (mode, order, sample bytes, model intensity, CPU work,
// backend, profile, --preset, --config, ...) sets the base configuration, parsed by
// run's own option table so the two commands never disagree.
#include <string>
#include <vector>

#include "Options.h"
#include "RunOptions.h"
#include "sweep/SweepSpec.h"

namespace pipescope::cli {

struct SweepRequest {
  SweepSpec spec;
  BackendOptions backend;
  std::string presetName;
  /// Where each field of the base configuration came from; the grid's axes are the
  /// sweep's own options.
  ConfigOrigins origins;
  bool repeatGiven = false;     ///< --repeat was given (else 3 on a GPU, 1 on the simulator)
  std::string csvPath, jsonPath;
  std::string predictProfile;   ///< --predict: also run the grid on this simulator profile
  bool quiet = false;
  bool progress = false;        ///< --progress: show it even when stderr is not a terminal
  bool noProgress = false;
};

class SweepOptionParser {
 public:
  SweepOptionParser();
  /// Throws UsageError (bad option, value or list) or std::runtime_error (config file).
  SweepRequest parse(const std::vector<std::string>& args);
  std::string help() const;

 private:
  /// run's options that make no sense per sweep: each with what to use instead.
  static const std::vector<std::pair<std::string, std::string>>& excludedRunOptions();
  OptionSet sweep_;
  RunOptionParser run_;
  SweepRequest request_;
  std::string batchList_, streamList_, memoryList_, modelList_, gpuList_, bucketList_, microList_;
};

}  // namespace pipescope::cli
