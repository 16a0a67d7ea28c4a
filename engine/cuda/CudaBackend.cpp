#include "cuda/CudaBackend.h"

#include <exception>
#include <mutex>

#include "cuda/CudaError.h"
#include "cuda/CudaPipeline.h"
#include "cuda/DeviceDescription.h"
#if PIPESCOPE_HAVE_NCCL
#include "cuda/multigpu/MultiGpuPipeline.h"
#endif

namespace pipescope {

namespace {

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, DeviceInfo info) : device_(device), info_(std::move(info)) {}
  std::string_view kind() const override { return "cuda"; }
  DeviceInfo describe() const override { return info_; }

  RunOutcome run(const PipelineConfig& config, Trace& trace, RunControl& control) override {
    try {
      if (config.isMultiGpu()) return runSeveral(config, trace, control);
      // A one-GPU device list names the GPU; without one, the backend's own.
      if (!config.devices.empty() && config.devices.front() != device_) {
        const int device = config.devices.front();
        PIPESCOPE_CUDA_CHECK(cudaSetDevice(device));
        DeviceInfo info = cuda::describeDevice(device);
        info.ordinal = device;
        return cuda::runPipeline(device, info, config, trace, control, nullptr);
      }
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
  static RunOutcome runSeveral(const PipelineConfig& config, Trace& trace, RunControl& control) {
#if PIPESCOPE_HAVE_NCCL
    return cuda::runMultiGpuPipeline(config, trace, control);
#else
    (void)trace;
    (void)control;
    return {RunState::Failed,
            "this build of pipescope has no NCCL (nccl.h and libnccl were not found when it was built), so its CUDA "
            "backend runs one GPU: run the " + std::to_string(config.gpuCount()) +
                " GPUs on the simulator (--backend sim), or rebuild with NCCL's development files (libnccl-dev)"};
#endif
  }

  int device_;
  DeviceInfo info_;
  bool keep_ = false;
  std::shared_ptr<cuda::BufferCache> cache_ = cuda::makeBufferCache();
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(int device, std::string& error) {
  try {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(device));
    DeviceInfo info = cuda::describeDevice(device);
    info.ordinal = device;
    return std::make_unique<CudaBackend>(device, std::move(info));
  } catch (const std::exception& e) {
    error = std::string("cannot use CUDA device ") + std::to_string(device) + ": " + e.what();
    return nullptr;
  }
}

}  // namespace pipescope
