#include "TraceOutput.h"

#include "io/NativeFormat.h"
#include "io/TraceJsonWriter.h"

namespace pipescope::cli {

namespace {
bool jsonName(const std::string& path) { return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0; }
}  // namespace

bool streamsTrace(const std::string& path) { return !jsonName(path); }

void saveTrace(const Trace& trace, const std::string& path) {
  if (jsonName(path))
    saveTraceJson(trace, path);
  else
    saveNativeTrace(trace, path);
}

std::string traceFormatHelp() {
  return "a name ending in .json gets the versioned JSON form, any other name the native .pipescope format";
}

}  // namespace pipescope::cli
