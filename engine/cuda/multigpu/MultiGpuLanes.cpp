#include "cuda/multigpu/MultiGpuLanes.h"

namespace pipescope::cuda {

MultiGpuLanes MultiGpuLanes::create(Trace& trace, const PipelineConfig& config, const std::vector<int>& copyEngines,
                                    const std::vector<std::string>& linkNames) {
  MultiGpuLanes m;
  // Host lanes and op names once; then each GPU's own lanes.
  const PipelineLanes shared = PipelineLanes::create(trace, config, copyEngines.empty() ? 2 : copyEngines.front());
  const int n = int(copyEngines.size());
  const std::vector<int> ordinals = config.deviceOrdinals();
  auto gpu = [&](int g) {
    return "GPU" + std::to_string(std::size_t(g) < ordinals.size() ? ordinals[std::size_t(g)] : g);
  };
  const int streams = config.isAsync() ? config.streams : 1;
  for (int g = 0; g < n; ++g) {
    const std::string prefix = gpu(g) + " ";
    PipelineLanes l = shared;
    l.streams.clear();
    for (int s = 0; s < streams; ++s)
      l.streams.push_back(trace.lane(LaneKind::Stream, s, g, prefix + "stream " + std::to_string(s)));
    if (copyEngines[std::size_t(g)] <= 1) {
      l.h2d = l.d2h = trace.lane(LaneKind::CopyEngine, 0, g, prefix + "copy engine");
    } else {
      l.h2d = trace.lane(LaneKind::CopyEngineH2D, 0, g, prefix + "H2D copy engine");
      l.d2h = trace.lane(LaneKind::CopyEngineD2H, 0, g, prefix + "D2H copy engine");
    }
    l.compute = trace.lane(LaneKind::ComputeEngine, 0, g, prefix + "compute engine");
    m.gpus.push_back(l);
    m.comm.push_back(config.allReduces() ? trace.lane(LaneKind::Stream, kCommStream, g, prefix + "NCCL stream")
                                         : kNoLane);
  }
  if (config.isPipelineParallel())
    for (int k = 0; k + 1 < n; ++k) {
      const std::string how = std::size_t(k) < linkNames.size() ? linkNames[std::size_t(k)] : std::string();
      m.links.push_back(
          trace.lane(LaneKind::PeerLink, k + 1, k, gpu(k) + "→" + gpu(k + 1) + (how.empty() ? "" : " " + how)));
    }
  if (config.allReduces()) {
    std::string members;
    for (int g = 0; g < n; ++g) members += (g ? ", " : "") + gpu(g);
    m.collective = trace.lane(LaneKind::Collective, 0, kSharedLane, "NCCL all-reduce (" + members + ")");
  }
  m.peerCopyName = trace.internName("activations");
  m.peerCopyApi = trace.internName("cudaMemcpyPeerAsync");
  m.stagedOutApi = trace.internName("cudaMemcpyAsync D2H (staged peer copy)");
  m.stagedInApi = trace.internName("cudaMemcpyAsync H2D (staged peer copy)");
  m.allReduceName = trace.internName("all-reduce");
  m.allReduceApi = trace.internName("ncclAllReduce");
  m.streamWaitEvent = trace.internName("cudaStreamWaitEvent");
  return m;
}

}  // namespace pipescope::cuda
