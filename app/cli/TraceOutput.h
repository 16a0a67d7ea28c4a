#pragma once
#include <string>

#include "trace/Trace.h"

namespace pipescope::cli {

/// Saves the trace for --trace: the native format when this build has it and the
/// name does not end in .json, else the versioned JSON form. Throws
/// std::runtime_error naming the file on failure.
void saveTrace(const Trace& trace, const std::string& path);
/// Whether --trace streams to `path` while the run goes on (the native format).
bool streamsTrace(const std::string& path);
/// How saveTrace picks the format, for --help.
std::string traceFormatHelp();

}  // namespace pipescope::cli
