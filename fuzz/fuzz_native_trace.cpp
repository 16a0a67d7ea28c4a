// libFuzzer target: the native .pipescope reader.
#include <sstream>

#include "FuzzSupport.h"
#include "io/NativeFormat.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return pipescope::fuzz::run(data, size, [](std::string bytes) {
    std::istringstream in(std::move(bytes));
    pipescope::readNativeTrace(in, "fuzz.pipescope");
  });
}
