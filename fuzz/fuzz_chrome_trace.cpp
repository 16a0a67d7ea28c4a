// libFuzzer target: the Chrome trace / PyTorch profiler importer (plain or gzip).
#include "FuzzSupport.h"
#include "io/ChromeTraceImport.h"
#include "io/ChromeTraceReader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return pipescope::fuzz::run(data, size, [](std::string bytes) {
    pipescope::JsonTextSource src(std::move(bytes), "fuzz.json");
    pipescope::importChromeEvents(pipescope::readChromeEvents(src));
  });
}
