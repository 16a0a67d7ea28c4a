#include "io/TraceFiles.h"

#include <cerrno>
#include <cstring>
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
  const TraceFileFormat format = detectTraceFileFormat(path);
  control.report(0.0);
  std::shared_ptr<Trace> trace;
  switch (format) {
    case TraceFileFormat::Native: trace = loadNativeTrace(path, control); break;
    case TraceFileFormat::PipescopeJson: {
      JsonTextSource src(path, control);
      trace = readTraceJson(src);
      break;
    }
    case TraceFileFormat::ChromeJson: {
      JsonTextSource src(path, control);
      ChromeEvents events = readChromeEvents(src);
      control.checkCancel();
      trace = importChromeEvents(std::move(events));
      break;
    }
    default: unknownFormat(path);
  }
  control.report(1.0);
  return trace;
}

std::shared_ptr<Trace> loadTraceFromBytes(std::string bytes, const std::string& name, const LoadControl& control) {
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
  return importChromeEvents(std::move(events));
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
