#pragma once
// Writing a file so that a failure midway never leaves a damaged file behind:
// the content goes to a temporary file in the same folder, which is renamed over
// the target only once it is complete and flushed.
#include <functional>
#include <ostream>
#include <string>

namespace pipescope {

/// Calls `write` with a stream onto a temporary file next to `path`, then renames it
/// to `path`. On any failure (cannot create, write error, `write` throws) the
/// temporary file is removed, an existing `path` is left untouched, and a
/// TraceFileError naming the file and the reason is thrown (or, if `write`
/// threw a TraceFileError or TraceLoadCancelled, that one).
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

/// Test hook: called after the content is written and before the rename; if it
/// throws, the write fails as a disk error would. Pass an empty function to clear.
void setAtomicWriteFaultHook(std::function<void(const std::string& tempPath)> hook);

}  // namespace pipescope
