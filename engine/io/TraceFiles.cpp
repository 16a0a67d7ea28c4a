#include "io/TraceFiles.h"

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/ChromeTraceImport.h"
#include "io/ChromeTraceReader.h"
#include "io/ChromeTraceWriter.h"
#include "io/CsvExport.h"
#include "io/JsonTextSource.h"
#include "io/NativeFormat.h"
#include "io/TraceJsonReader.h"
#include "io/TraceJsonWriter.h"

namespace pipescope {

std::string_view toString(TraceFileFormat f) {
  switch (f) {
    case TraceFileFormat::Native: return "pipescope trace";
    case TraceFileFormat::PipescopeJson: return "pipescope trace JSON";
    case TraceFileFormat::ChromeJson: return "Chrome trace JSON";
    case TraceFileFormat::OpsCsv: return "ops CSV";
    case TraceFileFormat::MetricsCsv: return "metrics CSV";
  }
  return "?";
}

std::optional<TraceFileFormat> detectTraceFormatFromHead(std::string_view head) {
  if (looksLikeNativeTrace(head)) return TraceFileFormat::Native;
  std::size_t i = 0;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 byte order mark
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  if (i == head.size() || (head[i] != '{' && head[i] != '[')) return std::nullopt;
  const auto tag = head.find(kTraceJsonFormat);
  const auto events = head.find("\"traceEvents\"");
  if (tag != std::string_view::npos && (events == std::string_view::npos || tag < events))
    return TraceFileFormat::PipescopeJson;
  return TraceFileFormat::ChromeJson;
}

namespace {
constexpr std::size_t kSniffBytes = 64 * 1024;

[[noreturn]] void unknownFormat(const std::string& path) {
  throw TraceFileError("'" + path +
                       "': not a trace file pipescope can open (expected a .pipescope trace, a pipescope trace "
                       "JSON, or a Chrome/Perfetto/PyTorch-profiler JSON trace, plain or .gz)");
}
}  // namespace

TraceFileFormat detectTraceFileFormat(const std::string& path) {
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TraceFileError("cannot open '" + path + "': " + std::strerror(errno));
    char magic[16] = {};
    in.read(magic, sizeof magic);
    if (in.gcount() == 0) throw TraceFileError("'" + path + "': the file is empty");
    if (looksLikeNativeTrace(std::string_view(magic, std::size_t(in.gcount())))) return TraceFileFormat::Native;
  }
  JsonTextSource src(path);
  const std::string head = src.peek(kSniffBytes);
  if (auto f = detectTraceFormatFromHead(head)) return *f;
  if (head.empty()) throw TraceFileError("'" + path + "': the file is empty");
  unknownFormat(path);
}

std::shared_ptr<Trace> loadTraceFile(const std::string& path, const LoadControl& control) {
  return loadTraceFile(path, ImportOptions{}, control);
}

std::shared_ptr<Trace> loadTraceFile(const std::string& path, const ImportOptions& options,
                                     const LoadControl& control) {
  if (std::filesystem::is_directory(path))
    throw TraceFileError("'" + path + "' is a folder; open a trace file in it (or give the folder to 'analyze', " +
                         "which picks its profiler trace)");
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TraceFileError("cannot open '" + path + "': " + std::strerror(errno));
    char magic[16] = {};
    in.read(magic, sizeof magic);
    if (in.gcount() == 0) throw TraceFileError("'" + path + "': the file is empty");
    if (looksLikeNativeTrace(std::string_view(magic, std::size_t(in.gcount())))) {
      control.report(0.0);
      auto trace = loadNativeTrace(path, control);
      control.report(1.0);
      return trace;
    }
  }
  // One source: the head that tells the format is the start of what gets parsed.
  JsonTextSource src(path, control);
  const std::string head = src.peek(kSniffBytes);
  const auto format = detectTraceFormatFromHead(head);
  if (!format) {
    if (head.empty()) throw TraceFileError("'" + path + "': the file is empty");
    unknownFormat(path);
  }
  control.report(0.0);
  std::shared_ptr<Trace> trace;
  if (*format == TraceFileFormat::PipescopeJson) {
    trace = readTraceJson(src);
  } else {
    ChromeEvents events = readChromeEvents(src);
    control.checkCancel();
    trace = importChromeEvents(std::move(events), options);
  }
  control.report(1.0);
  return trace;
}

namespace {
bool isProfilerTraceName(const std::string& name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
  };
  return ends(".pt.trace.json") || ends(".pt.trace.json.gz");
}
}  // namespace

std::vector<std::string> profilerTraceFilesIn(const std::string& folder) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  // tensorboard_trace_handler writes into the folder given; TensorBoard's layout puts
  // runs under plugins/profile/<run>/. Three levels cover both without walking a disk.
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it.depth() > 3) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && isProfilerTraceName(it->path().filename().string()))
      out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string resolveTracePath(const std::string& path, const std::string& worker) {
  if (!std::filesystem::is_directory(path)) return path;
  const auto files = profilerTraceFilesIn(path);
  if (files.empty())
    throw TraceFileError("'" + path + "': a folder with no PyTorch profiler trace (*.pt.trace.json or " +
                         "*.pt.trace.json.gz, as torch.profiler.tensorboard_trace_handler writes them); give a " +
                         "trace file instead");
  std::vector<std::string> chosen;
  for (const auto& f : files)
    if (worker.empty() || std::filesystem::path(f).filename().string().find(worker) != std::string::npos)
      chosen.push_back(f);
  if (chosen.size() == 1) return chosen.front();
  std::string list;
  for (const auto& f : (chosen.empty() ? files : chosen)) list += "\n  " + f;
  if (chosen.empty())
    throw TraceFileError("'" + path + "': no profiler trace's name contains '" + worker + "'; the folder holds:" +
                         list);
  throw TraceFileError("'" + path + "' holds " + std::to_string(chosen.size()) +
                       " profiler traces (one per worker); choose one with --worker NAME or open the file:" + list);
}

std::shared_ptr<Trace> loadTraceFromBytes(std::string bytes, const std::string& name, const LoadControl& control) {
  return loadTraceFromBytes(std::move(bytes), name, ImportOptions{}, control);
}

std::shared_ptr<Trace> loadTraceFromBytes(std::string bytes, const std::string& name, const ImportOptions& options,
                                          const LoadControl& control) {
  if (bytes.empty()) throw TraceFileError("'" + name + "': the file is empty");
  if (looksLikeNativeTrace(bytes)) {
    std::istringstream in(std::move(bytes));
    return readNativeTrace(in, name, control);
  }
  JsonTextSource src(std::move(bytes), name, control);
  const auto format = detectTraceFormatFromHead(src.peek(kSniffBytes));
  if (!format) unknownFormat(name);
  if (*format == TraceFileFormat::PipescopeJson) return readTraceJson(src);
  ChromeEvents events = readChromeEvents(src);
  return importChromeEvents(std::move(events), options);
}

std::optional<TraceFileFormat> outputFormatForPath(const std::string& path) {
  auto ends = [&](std::string_view ext) {
    if (path.size() < ext.size()) return false;
    for (std::size_t i = 0; i < ext.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) != ext[i]) return false;
    return true;
  };
  if (ends(".pipescope")) return TraceFileFormat::Native;
  if (ends(".json")) return TraceFileFormat::ChromeJson;
  if (ends(".csv")) return TraceFileFormat::OpsCsv;
  return std::nullopt;
}

void saveTraceFile(const Trace& trace, const std::string& path, TraceFileFormat format) {
  switch (format) {
    case TraceFileFormat::Native: return saveNativeTrace(trace, path);
    case TraceFileFormat::PipescopeJson: return saveTraceJson(trace, path);
    case TraceFileFormat::ChromeJson: return saveChromeTrace(trace, path);
    case TraceFileFormat::OpsCsv: return saveOpsCsv(trace, path);
    case TraceFileFormat::MetricsCsv: return saveMetricsCsv(computeMetrics(trace), path);
  }
}

}  // namespace pipescope
