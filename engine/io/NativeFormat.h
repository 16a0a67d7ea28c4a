#pragma once
// pipescope's own trace file (.pipescope): everything a trace holds — configuration
// history, device, outcome, completed batches, lanes, names and every op — in a
// versioned binary file. The small metadata is a zstd-compressed JSON header; ops
// follow in blocks of up to 65536, each a zstd frame (with checksum) of columns
// (start deltas, durations, waits, bytes, ...), so a million ops take a few MB and
// load block by block with progress and cancellation. See docs/file-formats.md.
#include <cstdint>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "io/TraceFileError.h"
#include "trace/Trace.h"

namespace pipescope {

inline constexpr std::string_view kNativeMagic{"pipescope-trace\0", 16};
inline constexpr std::uint32_t kNativeVersion = 1;
inline constexpr std::uint32_t kNativeBlockOps = 65536;

/// Writes the published ops and the metadata of `trace`.
void writeNativeTrace(const Trace& trace, std::ostream& out);
/// Writes atomically (temporary file, then rename); throws TraceFileError.
void saveNativeTrace(const Trace& trace, const std::string& path);

/// Reads a native trace; `name` stands for the file in messages. Throws TraceFileError
/// (naming the byte offset and what was expected) or TraceLoadCancelled.
std::shared_ptr<Trace> readNativeTrace(std::istream& in, const std::string& name, const LoadControl& control = {});
std::shared_ptr<Trace> loadNativeTrace(const std::string& path, const LoadControl& control = {});

/// True when `head` (the first bytes of a file) starts with the native magic.
bool looksLikeNativeTrace(std::string_view head);

}  // namespace pipescope
