// Simulator speed: simulating 100k batches (target: under 100 ms). References in the
// same run: appending the same number of ops to a TraceStore (the recording part
// alone), and filling a std::vector with them (a yardstick our code does not touch:
// fresh memory, ordinary pages). The figure that travels between machines is the
// ratio simulate / vector fill.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "backend/Backend.h"
#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "trace/Trace.h"

namespace {

using namespace pipescope;

PipelineConfig config100k(int streams) {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pinned;
  c.streams = streams;
  c.batchCount = 100'000;
  return c;
}

std::uint64_t simulate(const PipelineConfig& c) {
  static const DeviceProfile profile = *builtinProfile("h200");
  Trace trace;
  trace.setConfig(c);
  auto backend = makeSimulatorBackend(profile);
  RunControl control;
  backend->run(c, trace, control);
  return trace.ops().publishedCount();
}

void BM_Simulate100kBatches(benchmark::State& state) {
  const PipelineConfig c = config100k(int(state.range(0)));
  std::uint64_t ops = 0;
  for (auto _ : state) {
    ops = simulate(c);
    benchmark::DoNotOptimize(ops);
  }
  state.counters["ops"] = double(ops);
  state.counters["ns_per_op"] = benchmark::Counter(double(ops) * double(state.iterations()),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Simulate100kBatches)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);

// Reference: appending as many ops as the simulation records, nothing else.
void BM_AppendSameOps(benchmark::State& state) {
  const std::uint64_t ops = simulate(config100k(int(state.range(0))));
  Op op;
  op.kind = OpKind::Kernel;
  for (auto _ : state) {
    TraceStore store;
    for (std::uint64_t i = 0; i < ops; ++i) {
      op.start = std::int64_t(i);
      op.end = std::int64_t(i) + 1;
      store.append(op);
    }
    store.publish();
    benchmark::DoNotOptimize(store.publishedCount());
  }
  state.counters["ops"] = double(ops);
}
BENCHMARK(BM_AppendSameOps)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);

// Machine yardstick: writing as many ops into a fresh std::vector.
void BM_FillVectorSameOps(benchmark::State& state) {
  const std::uint64_t ops = simulate(config100k(1));
  Op op;
  op.kind = OpKind::Kernel;
  for (auto _ : state) {
    std::vector<Op> v;
    v.reserve(ops);
    for (std::uint64_t i = 0; i < ops; ++i) {
      op.start = std::int64_t(i);
      op.end = std::int64_t(i) + 1;
      v.push_back(op);
    }
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  state.counters["ops"] = double(ops);
}
BENCHMARK(BM_FillVectorSameOps)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
