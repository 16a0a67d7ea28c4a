#include "cuda/PipelineLanes.h"

#include <string>

namespace pipescope::cuda {

PipelineLanes PipelineLanes::create(Trace& trace, const PipelineConfig& config, int copyEngines) {
  PipelineLanes l;
  l.submit = trace.lane(LaneKind::HostSubmit, 0, "submit thread");
  for (int w = 0; w < config.cpuWorkers; ++w)
    l.workers.push_back(trace.lane(LaneKind::HostWorker, w, "worker " + std::to_string(w)));
  const int streams = config.isAsync() ? config.streams : 1;
  for (int s = 0; s < streams; ++s) l.streams.push_back(trace.lane(LaneKind::Stream, s, "stream " + std::to_string(s)));
  if (copyEngines <= 1) {
    l.h2d = l.d2h = trace.lane(LaneKind::CopyEngine, 0, "copy engine");
  } else {
    l.h2d = trace.lane(LaneKind::CopyEngineH2D, 0, "H2D copy engine");
    l.d2h = trace.lane(LaneKind::CopyEngineD2H, 0, "D2H copy engine");
  }
  l.compute = trace.lane(LaneKind::ComputeEngine, 0, "compute engine");
  Names& n = l.names;
  n.h2dApi = trace.internName(config.isAsync() ? "cudaMemcpyAsync H2D" : "cudaMemcpy H2D");
  n.d2hApi = trace.internName(config.isAsync() ? "cudaMemcpyAsync D2H" : "cudaMemcpy D2H");
  n.launch = trace.internName("cudaLaunchKernel");
  n.gemmApi = trace.internName("cublasSgemm");
  n.prefetchApi = trace.internName("cudaMemPrefetchAsync");
  n.eventRecord = trace.internName("cudaEventRecord");
  // Async batches end with an event the host waits on; blocking mode waits for the device.
  n.sync = trace.internName(config.isAsync() ? "cudaEventSynchronize" : "cudaDeviceSynchronize");
  n.normalize = trace.internName("normalize");
  n.model = trace.internName("model");
  n.gemm = trace.internName("gemm");
  n.head = trace.internName("model head");
  n.prefetchIn = trace.internName("prefetch to GPU");
  n.prefetchOut = trace.internName("prefetch to CPU");
  return l;
}

}  // namespace pipescope::cuda
