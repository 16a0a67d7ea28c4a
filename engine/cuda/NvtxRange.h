#pragma once
// An NVTX push/pop range for the lifetime of a scope: the stage names (cpu_to_gpu,
// model, gpu_to_cpu, ...) that Nsight Systems and PyTorch-style tools show beside
// pipescope's own ops.
#include <nvtx3/nvToolsExt.h>

namespace pipescope::cuda {

class NvtxRange {
 public:
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace pipescope::cuda
