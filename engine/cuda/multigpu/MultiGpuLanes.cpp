#include "cuda/multigpu/MultiGpuLanes.h"

namespace pipescope::cuda {

MultiGpuLanes MultiGpuLanes::create(Trace& trace, const PipelineConfig& config, const std::vector<int>& copyEngines,
                                    const std::vector<std::string>& linkNames) {
  MultiGpuLanes m;
  // Host lanes and op names once; then each GPU's own lanes.
  const PipelineLanes shared = PipelineLanes::create(trace, config, copyEngines.empty() ? 2 : copyEngines.front());
  const int n = int(copyEngines.size());
  const int streams = config.isAsync() ? config.streams : 1;
  for (int g = 0; g < n; ++g) {
    PipelineLanes l = shared;
    l.streams.clear();
    for (int s = 0; s < streams; ++s)
      l.streams.push_back(trace.lane(LaneKind::Stream, s, g, "stream " + std::to_string(s)));
    if (copyEngines[std::size_t(g)] <= 1) {
      l.h2d = l.d2h = trace.lane(LaneKind::CopyEngine, 0, g, "copy engine");
    } else {
      l.h2d = trace.lane(LaneKind::CopyEngineH2D, 0, g, "H2D copy engine");
      l.d2h = trace.lane(LaneKind::CopyEngineD2H, 0, g, "D2H copy engine");
    }
    l.compute = trace.lane(LaneKind::ComputeEngine, 0, g, "compute engine");
    m.gpus.push_back(l);
    m.comm.push_back(config.allReduces()
                         ? trace.lane(LaneKind::Stream, kCommStream, g, "communication stream (NCCL)")
                         : kNoLane);
  }
  if (config.isPipelineParallel())
    for (int k = 0; k + 1 < n; ++k) {
      const std::string how = std::size_t(k) < linkNames.size() ? linkNames[std::size_t(k)] : std::string();
      m.links.push_back(trace.lane(LaneKind::PeerLink, k, k,
                                   "GPU" + std::to_string(k) + "→GPU" + std::to_string(k + 1) +
                                       (how.empty() ? "" : " " + how)));
    }
  if (config.allReduces()) m.collective = trace.lane(LaneKind::Collective, 0, kSharedLane, "all-reduce (NCCL)");
  m.peerCopyName = trace.internName("activations");
  m.peerCopyApi = trace.internName("cudaMemcpyPeerAsync");
  m.stagedOutApi = trace.internName("cudaMemcpyAsync D2H (staged peer copy)");
  m.stagedInApi = trace.internName("cudaMemcpyAsync H2D (staged peer copy)");
  m.allReduceName = trace.internName("all-reduce");
  m.allReduceApi = trace.internName("ncclAllReduce (group)");
  m.allReduceWait = trace.internName("cudaEventSynchronize (all-reduce)");
  m.streamWaitEvent = trace.internName("cudaStreamWaitEvent");
  return m;
}

}  // namespace pipescope::cuda
