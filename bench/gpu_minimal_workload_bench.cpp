// The minimal reference pipeline (gpu_minimal_pipeline.h) as a program of its own:
// the plainest correct async pinned pipeline, H2D -> model kernel -> D2H per batch on
// 4 streams, the multi-stream preset's work. bench/record_overhead.py runs it with
// and without `pipescope-cli record` to measure what recording costs a program.
//
//   gpu_minimal_workload_bench [REPS]   REPS runs of 32 batches after one warm-up
//                                        (default 20); prints "workload: MS ms", the
//                                        pipeline's own time summed over the runs
#include <cstdio>
#include <cstdlib>

#include "config/Presets.h"
#include "gpu_minimal_pipeline.h"

int main(int argc, char** argv) {
  using namespace pipescope;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  if (reps < 1) {
    std::fprintf(stderr, "usage: gpu_minimal_workload_bench [REPS >= 1]\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "gpu_minimal_workload_bench: no CUDA device\n");
    return 1;
  }
  PipelineConfig c = findPreset("multi-stream")->config;
  c.streams = 4;
  try {
    bench::MinimalPipeline pipeline(c);
    pipeline.run({});  // warm-up: first launches, page mappings
    double ms = 0;
    for (int i = 0; i < reps; ++i) ms += pipeline.run({});
    std::printf("workload: %.3f ms (%d runs of %d batches, %d streams)\n", ms, reps, c.batchCount, c.streams);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_minimal_workload_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
