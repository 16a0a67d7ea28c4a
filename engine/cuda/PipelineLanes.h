#pragma once
// The trace lanes and op names one configuration of the CUDA pipeline records into
// (docs/cuda-backend.md, "The algorithm": lanes).
#include <cstdint>
#include <vector>

#include "trace/Trace.h"

namespace pipescope::cuda {

struct PipelineLanes {
  std::uint16_t submit = 0, h2d = 0, d2h = 0, compute = 0;
  std::vector<std::uint16_t> workers, streams;
  struct Names {
    std::uint16_t h2dApi, d2hApi, launch, gemmApi, prefetchApi, eventRecord, sync, normalize, model, gemm, head,
        prefetchIn, prefetchOut;
  } names{};

  /// Lanes (created once per trace, found again later) and names for `config` on a
  /// device with `copyEngines` copy engines (one shared lane when it has one).
  static PipelineLanes create(Trace& trace, const PipelineConfig& config, int copyEngines);
};

}  // namespace pipescope::cuda
