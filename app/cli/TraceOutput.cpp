#include "TraceOutput.h"

#include "io/NativeFormat.h"
#include "io/TraceJsonWriter.h"
// A plain include (no __has_include): ccache's direct mode does not notice a header
// that appears later, and would keep serving the JSON-only object file.
#define PIPESCOPE_CLI_HAS_NATIVE_FORMAT 1

namespace pipescope::cli {

void saveTrace(const Trace& trace, const std::string& path) {
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
#ifdef PIPESCOPE_CLI_HAS_NATIVE_FORMAT
  if (!json) {
    saveNativeTrace(trace, path);
    return;
  }
#endif
  (void)json;
  saveTraceJson(trace, path);
}

std::string traceFormatHelp() {
#ifdef PIPESCOPE_CLI_HAS_NATIVE_FORMAT
  return "a name ending in .json gets the versioned JSON form, any other name the native .pipescope format";
#else
  return "versioned JSON";
#endif
}

}  // namespace pipescope::cli
