#pragma once
// One entry point for every trace file pipescope reads or writes: the format is
// detected from the content (not the name) when reading, and chosen from the
// extension (or given) when writing.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <vector>

#include "io/ImportOptions.h"
#include "io/TraceFileError.h"
#include "trace/Trace.h"

namespace pipescope {

enum class TraceFileFormat : std::uint8_t {
  Native,         ///< .pipescope: pipescope's own binary format
  PipescopeJson,  ///< pipescope-trace-json v1 (read only here; `run --trace x.json` writes it)
  ChromeJson,     ///< Chrome trace event JSON (Perfetto, chrome://tracing, PyTorch profiler), plain or gzip
  OpsCsv,         ///< one row per op (write only)
  MetricsCsv,     ///< one row per metric (write only)
};
std::string_view toString(TraceFileFormat f);

/// Looks at the first bytes of the file (decompressing gzip). Throws TraceFileError
/// when the file cannot be read or is not a trace format pipescope knows.
TraceFileFormat detectTraceFileFormat(const std::string& path);
/// Same for bytes in memory (fuzzers, tests).
std::optional<TraceFileFormat> detectTraceFormatFromHead(std::string_view head);

/// Opens any supported trace. Throws TraceFileError or TraceLoadCancelled. The file's
/// head is read once: the format is detected from the same source the reader parses.
std::shared_ptr<Trace> loadTraceFile(const std::string& path, const LoadControl& control = {});
/// The same, with what the importer cannot know (iteration marker, batch size).
std::shared_ptr<Trace> loadTraceFile(const std::string& path, const ImportOptions& options,
                                     const LoadControl& control = {});

/// The trace files torch.profiler.tensorboard_trace_handler wrote into `folder`
/// (*.pt.trace.json, plain or .gz; its plugins/profile/<run>/ subfolders too), sorted.
std::vector<std::string> profilerTraceFilesIn(const std::string& folder);
/// A file stays itself; a folder becomes its one profiler trace, or the one whose name
/// contains `worker` when it holds several. Throws TraceFileError listing the files
/// when the choice is ambiguous or the folder holds none.
std::string resolveTracePath(const std::string& path, const std::string& worker = {});

/// Opens a trace held in memory (fuzzers, tests); `name` stands for the file in messages.
std::shared_ptr<Trace> loadTraceFromBytes(std::string bytes, const std::string& name, const LoadControl& control = {});
std::shared_ptr<Trace> loadTraceFromBytes(std::string bytes, const std::string& name, const ImportOptions& options,
                                          const LoadControl& control = {});

/// Output format by extension: .pipescope, .json (Chrome trace), .csv (ops);
/// nullopt for anything else.
std::optional<TraceFileFormat> outputFormatForPath(const std::string& path);
/// Writes atomically in `format`; throws TraceFileError.
void saveTraceFile(const Trace& trace, const std::string& path, TraceFileFormat format);

}  // namespace pipescope
