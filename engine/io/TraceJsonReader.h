#pragma once
// Reads the versioned JSON form (pipescope-trace-json, version 1) that
// `pipescope-cli run --trace x.json` writes, streaming its ops through a SAX parser.
#include <memory>

#include "io/JsonTextSource.h"
#include "trace/Trace.h"

namespace pipescope {

/// Throws TraceFileError (file, op index or byte offset, what was expected) or TraceLoadCancelled.
std::shared_ptr<Trace> readTraceJson(JsonTextSource& source);

}  // namespace pipescope
