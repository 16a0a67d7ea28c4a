#include "cuda/CudaBackend.h"

#include <exception>
#include <mutex>

#include "cuda/CudaError.h"
#include "cuda/CudaPipeline.h"
#include "cuda/DeviceDescription.h"

namespace pipescope {

namespace {

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, DeviceInfo info) : device_(device), info_(std::move(info)) {}
  std::string_view kind() const override { return "cuda"; }
  DeviceInfo describe() const override { return info_; }

  RunOutcome run(const PipelineConfig& config, Trace& trace, RunControl& control) override {
    try {
      return cuda::runPipeline(device_, info_, config, trace, control, keep_ ? cache_.get() : nullptr);
    } catch (const std::exception& e) {
      trace.ops().publish();  // what was recorded before the error stays visible
      return {RunState::Failed, e.what()};
    }
  }

  void keepBuffersBetweenRuns(bool keep) override {
    keep_ = keep;
    if (!keep && cudaSetDevice(device_) == cudaSuccess) cuda::clearBufferCache(*cache_);
  }

 private:
  int device_;
  DeviceInfo info_;
  bool keep_ = false;
  std::shared_ptr<cuda::BufferCache> cache_ = cuda::makeBufferCache();
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(int device, std::string& error) {
  try {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(device));
    return std::make_unique<CudaBackend>(device, cuda::describeDevice(device));
  } catch (const std::exception& e) {
    error = std::string("cannot use CUDA device ") + std::to_string(device) + ": " + e.what();
    return nullptr;
  }
}

}  // namespace pipescope
