// The module's one exported symbol: the CudaModule the programs load with dlopen
// (backend/CudaModule.h). Everything else in libpipescope-cuda.so is hidden
// (module.map), including its own copy of the engine code it uses.
#include "backend/CudaModule.h"
#include "cuda/Calibration.h"
#include "cuda/CudaBackend.h"
#include "cuda/CuptiTracer.h"

namespace pipescope {

namespace {

class CudaModuleImpl final : public CudaModule {
 public:
  CudaProbe probe() const override { return probeCuda(); }
  std::unique_ptr<Backend> makeBackend(int device, std::string& error) const override {
    return makeCudaBackend(device, error);
  }
  DeviceProfile calibrate(const CalibrationOptions& options) const override { return calibrateDevice(options); }
  CuptiFlushStats cuptiFlushStats() const override {
    return {cuda::CuptiTracer::flushCount(), cuda::CuptiTracer::flushNs()};
  }
};

const CudaModuleImpl kModule;

}  // namespace

}  // namespace pipescope

extern "C" __attribute__((visibility("default")))
const pipescope::CudaModuleEntry pipescope_cuda_module_entry_v1{pipescope::kCudaModuleAbi, &pipescope::kModule};
