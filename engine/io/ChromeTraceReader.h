#pragma once
// Streams a Chrome trace event file (JSON object with "traceEvents", or a bare
// array of events; plain or gzip) through RapidJSON's SAX reader into ChromeEvents.
// Memory stays proportional to the events kept, never to the text.
#include "io/ChromeEvents.h"
#include "io/JsonTextSource.h"

namespace pipescope {

/// Throws TraceFileError naming the file, the event index and byte offset, and what
/// was expected; TraceLoadCancelled when the source's control asks to stop.
ChromeEvents readChromeEvents(JsonTextSource& source);

}  // namespace pipescope
