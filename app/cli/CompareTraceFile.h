#pragma once
// The one place `compare` reads a trace file. Today it reads the versioned
// pipescope-trace-json form that `run --trace` writes; the full readers of engine/io
// (native format, Chrome/Perfetto JSON) plug in here without touching the command.
#include <memory>
#include <string>

#include "trace/Trace.h"

namespace pipescope::cli {

/// Reads a trace file; throws std::runtime_error with a message naming the file and
/// what is wrong with it (unreadable, not a trace, truncated, inconsistent).
std::unique_ptr<Trace> readComparisonTrace(const std::string& path);

}  // namespace pipescope::cli
