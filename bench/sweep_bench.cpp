// Sweep speed on the simulator: a 5 x 4 grid (batch sizes 1M..256M x 1, 2, 4, 8
// streams) must complete in under 2 s. The same-run reference is one run of the
// grid's largest point with the same batch count, so the ratio (about the number of
// points if the sweep adds no overhead) travels between machines.
#include <benchmark/benchmark.h>

#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "sweep/Recommendation.h"
#include "sweep/SweepRunner.h"

namespace {

using namespace pipescope;

SweepSpec grid5x4(int batches) {
  SweepSpec s;  // default base: async, pinned, 512 KiB samples, 1050 flop/B
  s.batchSamples = {2, 8, 32, 128, 512};  // 1, 4, 16, 64, 256 MiB
  s.streams = {1, 2, 4, 8};
  s.batches = batches;
  s.warmupBatches = 2;
  return s;
}

void BM_Sweep5x4(benchmark::State& state) {
  const SweepSpec spec = grid5x4(int(state.range(0)));
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  std::size_t points = 0;
  for (auto _ : state) {
    const SweepResult r = runSweep(spec, *backend);
    const Recommendation rec = recommend(r);  // part of what a user waits for
    benchmark::DoNotOptimize(rec.chosenIndex);
    points = r.points.size();
  }
  state.counters["points"] = double(points);
}
BENCHMARK(BM_Sweep5x4)->Arg(50)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

// Reference: the largest point alone (256 MiB x 8 streams), warm-up included.
void BM_SingleRunLargestPoint(benchmark::State& state) {
  PipelineConfig c = expandGrid(grid5x4(int(state.range(0)))).back().config;
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  for (auto _ : state) {
    Trace trace;
    trace.setConfig(c);
    RunControl control;
    backend->run(c, trace, control);
    benchmark::DoNotOptimize(trace.ops().publishedCount());
  }
}
BENCHMARK(BM_SingleRunLargestPoint)->Arg(50)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
