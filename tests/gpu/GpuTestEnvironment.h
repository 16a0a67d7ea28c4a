#pragma once
// What the gpu tests need to know about how they are being run.
#include <cstdlib>
#include <string>

namespace pipescope {

/// The compute-sanitizer tool the tests run under ("memcheck", "racecheck"), empty
/// otherwise. tools/gpu-call.sh and tools/gpu-check.sh set PIPESCOPE_SANITIZER when
/// they start the binary under compute-sanitizer: the sanitizer is a CUDA tool
/// itself, so CUPTI cannot subscribe beside it, and racecheck makes cuBLAS GEMMs and
/// the calibration's long kernel ladders run for minutes.
inline std::string sanitizerTool() {
  const char* v = std::getenv("PIPESCOPE_SANITIZER");
  return v ? std::string(v) : std::string();
}

}  // namespace pipescope
