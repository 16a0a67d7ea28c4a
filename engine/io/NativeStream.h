#pragma once
// Version 2 of the native trace file, written as a stream of self-contained chunks
// so that a file cut at any byte (a crash, a kill, a power cut while a run streams
// it) still opens with every op up to its last complete chunk:
//
//   magic (16 bytes) | u32 version = 2 | u32 flags = 0
//   chunk*           | "END."          (the end marker: the file is complete)
//   chunk = "CHNK" | u64 ops before it | u32 op count | u32 block count
//           | u64 packed, u64 raw, zstd(JSON metadata: lanes, names, configuration
//             history, device, outcome, completed batches, as of this chunk)
//           | blocks (u32 ops, u32 packed size, zstd(op columns)) | "CEND"
//
// Metadata only grows during a run (lanes, names and configuration changes are
// appended), so the last complete chunk's metadata describes every op before it.
#include <cstdint>
#include <string>
#include <string_view>

#include "trace/Trace.h"

namespace pipescope::native {

inline constexpr std::string_view kChunkTag{"CHNK", 4};
inline constexpr std::string_view kChunkEndTag{"CEND", 4};
inline constexpr std::string_view kEndTag{"END.", 4};

/// Magic, version 2 and flags.
std::string fileHead();
/// One chunk holding ops [from, to) of `ops` (global indices) and `trace`'s metadata
/// now; `opsBefore` counts the ops of the file's earlier chunks.
std::string chunk(const Trace& trace, const TraceView& ops, std::uint64_t from, std::uint64_t to,
                  std::uint64_t opsBefore);

}  // namespace pipescope::native
