// Analysis speed: wait-cause attribution over about a million ops (a full recompute,
// as the UI does on a live trace), its summary, and a whole advice list. The reference
// in the same run is computeMetrics() over the same ops, so the figure that travels
// between machines is the ratio analyzeWaits / computeMetrics.
#include <benchmark/benchmark.h>

#include <memory>

#include "analysis/Advice.h"
#include "analysis/SimulatedRun.h"
#include "analysis/WaitAnalysis.h"
#include "analysis/WaitSummary.h"
#include "config/Presets.h"
#include "metrics/Metrics.h"

namespace {

using namespace pipescope;

// 4 streams, async, pinned: about 10 ops per batch, so 100k batches give ~1M ops.
const SimulatedRun& millionOpRun() {
  static const SimulatedRun run = [] {
    PipelineConfig c = findPreset("multi-stream")->config;
    c.batchCount = 100'000;
    return simulate(c, *builtinProfile("h200"));
  }();
  return run;
}

void BM_AnalyzeWaits1M(benchmark::State& state) {
  const auto& run = millionOpRun();
  const TraceView view = run.trace->ops().snapshot();
  const auto lanes = run.trace->lanes();
  std::size_t bytes = 0, segments = 0;
  for (auto _ : state) {
    const WaitAnalysis w = analyzeWaits(view, lanes);
    bytes = w.memoryBytes();
    segments = w.segments().size();
    benchmark::DoNotOptimize(segments);
  }
  state.counters["ops"] = double(view.size());
  state.counters["segments"] = double(segments);
  state.counters["bytes_per_op"] = double(bytes) / double(view.size());
}
BENCHMARK(BM_AnalyzeWaits1M)->Unit(benchmark::kMillisecond);

void BM_SummarizeWaits1M(benchmark::State& state) {
  const auto& run = millionOpRun();
  const TraceView view = run.trace->ops().snapshot();
  const auto lanes = run.trace->lanes();
  const WaitAnalysis w = analyzeWaits(view, lanes);
  for (auto _ : state) {
    const WaitSummary s = summarizeWaits(w, view, lanes);
    benchmark::DoNotOptimize(s.execNs);
  }
}
BENCHMARK(BM_SummarizeWaits1M)->Unit(benchmark::kMillisecond);

// Reference: the metrics over the same ops.
void BM_ComputeMetrics1M(benchmark::State& state) {
  const auto& run = millionOpRun();
  for (auto _ : state) {
    const Metrics m = computeMetrics(*run.trace);
    benchmark::DoNotOptimize(m.makespanNs);
  }
}
BENCHMARK(BM_ComputeMetrics1M)->Unit(benchmark::kMillisecond);

// A whole advice list: the baseline plus every candidate, 64 batches each.
void BM_AdviseNaive(benchmark::State& state) {
  AdviceInput in;
  in.config = findPreset(state.range(0) == 0 ? "naive" : "multi-stream")->config;
  in.profile = *builtinProfile("h200");
  std::size_t items = 0;
  for (auto _ : state) {
    const AdviceResult r = advise(in);
    items = r.items.size();
    benchmark::DoNotOptimize(items);
  }
  state.counters["items"] = double(items);
}
BENCHMARK(BM_AdviseNaive)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
