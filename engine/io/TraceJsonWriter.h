#pragma once
// A minimal, versioned JSON form of a trace, written by `pipescope-cli run --trace`
// until (and besides) the native binary format. One op per line, columns named once
// in "op_fields", so the file is diffable and easy to read from any language.
#include <ostream>
#include <string>
#include <string_view>

#include "trace/Trace.h"

namespace pipescope {

inline constexpr std::string_view kTraceJsonFormat = "pipescope-trace-json";
/// 2: lanes carry "device", the file lists "devices" (several GPUs); 1 still reads.
inline constexpr int kTraceJsonVersion = 2;

/// Writes every published op and the metadata to `out`.
void writeTraceJson(const Trace& trace, std::ostream& out);
/// Writes atomically (temporary file in the same folder, then rename); throws
/// std::runtime_error naming the file and the system error on failure.
void saveTraceJson(const Trace& trace, const std::string& path);

}  // namespace pipescope
