#pragma once
// The trace lanes of a run over several GPUs (docs/cuda-backend.md, "Several GPUs"):
// the host lanes shared by all GPUs; per GPU its streams, its communication stream
// (NCCL's), its copy and compute engines; a lane per link between consecutive
// pipeline stages; one lane for the all-reduces as a whole.
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/PipelineLanes.h"

namespace pipescope::cuda {

struct MultiGpuLanes {
  std::vector<PipelineLanes> gpus;        ///< per GPU (trace device index): shared host lanes, its own GPU lanes
  std::vector<std::uint16_t> comm;        ///< per GPU: its communication stream's lane (kNoLane without all-reduce)
  /// links[k]: GPU k -> k + 1 (pipeline parallel); the lane's device is k (the GPU
  /// the link leaves), its index k + 1 (the GPU it reaches).
  std::vector<std::uint16_t> links;
  std::uint16_t collective = kNoLane;     ///< the all-reduces as a whole (data parallel with gradients)
  std::uint16_t peerCopyName = 0, peerCopyApi = 0, stagedOutApi = 0, stagedInApi = 0, allReduceName = 0,
                allReduceApi = 0, streamWaitEvent = 0;

  /// `copyEngines[g]`: GPU g's asyncEngineCount. `linkNames[k]`: how GPU k reaches
  /// k + 1 ("NVLink", "PCIe peer-to-peer", "via host"), for pipeline runs. Lanes are
  /// named as the simulator names them ("GPU2 stream 0", "GPU0→GPU1 NVLink"), with
  /// the GPUs' CUDA ordinals (config.deviceOrdinals()).
  static MultiGpuLanes create(Trace& trace, const PipelineConfig& config, const std::vector<int>& copyEngines,
                              const std::vector<std::string>& linkNames);
};

/// Stream number (Op::stream, per GPU) of a GPU's communication stream: after its
/// compute streams, at the largest stream count a configuration may have.
inline constexpr int kCommStream = limits::kMaxStreams;

}  // namespace pipescope::cuda
