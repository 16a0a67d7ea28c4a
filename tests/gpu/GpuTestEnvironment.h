#pragma once
// What the gpu tests need to know about how they are being run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "backend/Backend.h"
#include "backend/CudaModule.h"

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

/// The CUDA module, loaded as the programs load it. These tests are built only with
/// the module, so failing to load it is a test failure (on CI too), never a skip.
#define PIPESCOPE_LOAD_CUDA_MODULE(name)                 \
  const CudaModuleLoad& name##Load_ = loadCudaModule(); \
  ASSERT_TRUE(name##Load_.module) << name##Load_.error; \
  const CudaModule& name = *name##Load_.module

/// A test with the CUDA backend on device 0 in `backend_` (and the module in
/// `cuda_`); skipped without a GPU.
class CudaBackendFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    PIPESCOPE_LOAD_CUDA_MODULE(cuda);
    cuda_ = &cuda;
    const CudaProbe probe = cuda.probe();
    if (probe.status != CudaProbe::Status::Available) GTEST_SKIP() << "no CUDA device: " << probe.message;
    std::string error;
    backend_ = cuda.makeBackend(0, error);
    ASSERT_TRUE(backend_) << error;
  }

  const CudaModule* cuda_ = nullptr;
  std::unique_ptr<Backend> backend_;
};

}  // namespace pipescope
