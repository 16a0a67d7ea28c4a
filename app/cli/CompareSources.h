#pragma once
// What `compare --a/--b` accepts: a trace file, or a run spec that is run first.
//
//   trace file: any trace `analyze` reads (pipescope's .pipescope or JSON, Chrome /
//               Perfetto / PyTorch profiler JSON, gzipped or not; force with the
//               prefix "trace:")
//   run spec:   `run` options as comma-separated key=value pairs, flags as bare
//               names: "preset=pinned,streams=4,profile=c1060-like" (force with the
//               prefix "run:"). Runs on the simulator unless it says backend=cuda|auto.
// Without a prefix, a source that names an existing file is a trace file, one that
// contains '=' is a run spec.
#include <memory>
#include <string>
#include <vector>

#include "metrics/Metrics.h"
#include "trace/Trace.h"

namespace pipescope::cli {

struct ComparedRun {
  std::string source;  ///< as given
  std::string kind;    ///< "trace" or "run"
  std::shared_ptr<Trace> trace;
  Metrics metrics;
};

/// The `run` arguments a run spec stands for ("streams=4" -> {"--streams", "4"}).
/// Throws UsageError for an empty spec or an empty key.
std::vector<std::string> runSpecArguments(const std::string& spec);

/// Loads or runs one source. Throws UsageError for a malformed spec or an option the
/// spec misspells, std::runtime_error when a file cannot be read or a run fails.
ComparedRun loadComparedRun(const std::string& source);

}  // namespace pipescope::cli
