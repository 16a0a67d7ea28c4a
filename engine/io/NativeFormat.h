#pragma once
// pipescope's own trace file (.pipescope): everything a trace holds — configuration
// history, device, outcome, completed batches, lanes, names and every op — in a
// versioned binary file. The small metadata is a zstd-compressed JSON header; ops
// follow in blocks of up to 65536, each a zstd frame (with checksum) of columns
// (start deltas, durations, waits, bytes, ...), so a million ops take a few MB and
// load block by block with progress and cancellation. Version 2 (NativeStream.h)
// groups them in self-contained chunks, so a file cut off while it was streamed
// opens with everything up to its last complete chunk; version 1 files still load.
// See docs/file-formats.md.
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
/// 3: lanes carry their GPU ("device") and the header lists every GPU ("devices");
/// peer-link and collective lanes, peer-copy and collective ops. 1 and 2 still read.
inline constexpr std::uint32_t kNativeVersion = 3;
inline constexpr std::uint32_t kNativeBlockOps = 65536;

/// Writes the published ops and the metadata of `trace`.
void writeNativeTrace(const Trace& trace, std::ostream& out);
/// Writes atomically (temporary file, then rename); throws TraceFileError.
void saveNativeTrace(const Trace& trace, const std::string& path);

/// How much of a file was read.
struct NativeReadInfo {
  bool complete = true;        ///< false: the file was cut off; `note` says what was recovered
  std::uint32_t version = 0;   ///< the file's format version
  std::uint64_t chunks = 0;    ///< complete chunks read (version 2)
  std::uint64_t ops = 0;       ///< ops read
  std::uint64_t bytesUsed = 0; ///< bytes up to the end of the last complete chunk
  std::uint64_t fileBytes = 0;
  std::string note;            ///< for a cut file: what was recovered and where it was cut
};

/// Reads a native trace; `name` stands for the file in messages. Throws TraceFileError
/// (naming the byte offset and what was expected) or TraceLoadCancelled. A version 2
/// file cut off after its first complete chunk is not an error: it loads with every
/// op up to its last complete chunk, its outcome says so (a run still going when the
/// file was cut becomes Stopped), and `info` (when given) says how much was recovered.
std::shared_ptr<Trace> readNativeTrace(std::istream& in, const std::string& name, const LoadControl& control = {},
                                       NativeReadInfo* info = nullptr);
std::shared_ptr<Trace> loadNativeTrace(const std::string& path, const LoadControl& control = {},
                                       NativeReadInfo* info = nullptr);

/// True when `head` (the first bytes of a file) starts with the native magic.
bool looksLikeNativeTrace(std::string_view head);

}  // namespace pipescope
