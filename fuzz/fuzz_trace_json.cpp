// libFuzzer target: the pipescope-trace-json (v1) reader.
#include "FuzzSupport.h"
#include "io/TraceJsonReader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return pipescope::fuzz::run(data, size, [](std::string bytes) {
    pipescope::JsonTextSource src(std::move(bytes), "fuzz.json");
    pipescope::readTraceJson(src);
  });
}
