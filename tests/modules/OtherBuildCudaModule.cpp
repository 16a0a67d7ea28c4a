// A CUDA backend module as another build of pipescope would make it: the right entry
// symbol, another version in its record. The loader must refuse it before touching
// the module (CliCudaLoadingTest).
#include <memory>
#include <stdexcept>

#include "backend/CudaModule.h"

namespace {

class OtherBuild final : public pipescope::CudaModule {
 public:
  pipescope::CudaProbe probe() const override { throw std::logic_error("a refused module was used"); }
  std::unique_ptr<pipescope::Backend> makeBackend(int, std::string&) const override {
    throw std::logic_error("a refused module was used");
  }
  pipescope::DeviceProfile calibrate(const pipescope::CalibrationOptions&) const override {
    throw std::logic_error("a refused module was used");
  }
  pipescope::CuptiFlushStats cuptiFlushStats() const override { return {}; }
};

const OtherBuild kModule;

constexpr pipescope::CudaModuleAbi otherBuild() {
  pipescope::CudaModuleAbi abi = pipescope::kCudaModuleAbi;
  abi.pipescopeVersion = "0.0.1-other";
  return abi;
}

}  // namespace

extern "C" __attribute__((visibility("default")))
const pipescope::CudaModuleEntry pipescope_cuda_module_entry_v1{otherBuild(), &kModule};
