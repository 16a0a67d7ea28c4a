#pragma once
// What the gpu tests need to know about how they are being run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "backend/Backend.h"
#include "cuda/CudaBackend.h"

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

/// A test with the CUDA backend on device 0 in `backend_`; skipped without a GPU.
class CudaBackendFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const CudaProbe probe = probeCuda();
    if (probe.status != CudaProbe::Status::Available) GTEST_SKIP() << "no CUDA device: " << probe.message;
    std::string error;
    backend_ = makeCudaBackend(0, error);
    ASSERT_TRUE(backend_) << error;
  }

  std::unique_ptr<Backend> backend_;
};

}  // namespace pipescope
