// The analysis of an imported PyTorch trace against its import (target: analysing a
// 1M-event trace — iterations, metrics, waits, limits — costs at most 2x the import).
//
// Input, made once per process: a PyTorch-profiler-shaped Chrome JSON of 1,000,000
// events: ProfilerStep#N ranges of 100 GPU ops, each op an aten cpu_op range around
// its cudaLaunchKernel / cudaMemcpyAsync call (correlation id) and the kernel or copy
// on one of 2 streams, plus a cudaStreamSynchronize per step.
// Benchmarks: the import alone (BM_Import: parse + lanes + ops, iterations excluded),
// iteration detection alone on the imported ops (BM_Iterations), and the analysis of
// the imported trace (BM_Analysis: computeMetrics + analyseRun without advice: limits,
// wait causes). docs/performance.md, "Imported traces", has the figures.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/RunAnalysis.h"
#include "io/ChromeTraceImport.h"
#include "io/ChromeTraceReader.h"
#include "io/IterationDetection.h"
#include "io/JsonTextSource.h"
#include "io/TraceFiles.h"
#include "metrics/Metrics.h"

namespace {

using namespace pipescope;

struct File {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("pipescope-bench-" + std::to_string(::getpid()) + "-imported.json"))
                         .string();
  std::uint64_t events = 0;
  File() {
    std::ofstream out(path);
    out << R"({"deviceProperties":[{"id":0,"name":"NVIDIA H200","computeMajor":9,"computeMinor":0}],"traceEvents":[)";
    char line[512];
    std::int64_t host = 1'000'000, gpu[2] = {1'000'500, 1'000'500};
    int corr = 0;
    bool first = true;
    auto emit = [&](const char* text) {
      out << (first ? "" : ",\n") << text;
      first = false;
      ++events;
    };
    constexpr int kOpsPerStep = 100;
    for (int step = 0; events + 4 * kOpsPerStep + 2 <= 1'000'000; ++step) {
      const std::int64_t stepStart = host;
      const std::int64_t stepLen = kOpsPerStep * 12 + 40;
      std::snprintf(line, sizeof line,
                    R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":457,"tid":457,"ts":%lld,"dur":%lld})",
                    step, (long long)stepStart, (long long)stepLen);
      emit(line);
      for (int i = 0; i < kOpsPerStep; ++i) {
        const int stream = 13 + 4 * (i % 2);
        const bool copy = i % 10 == 0;
        const double gpuDur = copy ? 350.123 : 10.5 + (i % 7);
        ++corr;
        std::snprintf(line, sizeof line,
                      R"({"ph":"X","cat":"cpu_op","name":"%s","pid":457,"tid":457,"ts":%lld.%03d,"dur":9.5})",
                      copy ? "aten::copy_" : "aten::conv2d", (long long)host, i % 1000);
        emit(line);
        std::snprintf(
            line, sizeof line,
            R"({"ph":"X","cat":"cuda_runtime","name":"%s","pid":457,"tid":457,"ts":%lld.%03d,"dur":3.7,"args":{"correlation":%d}})",
            copy ? "cudaMemcpyAsync" : "cudaLaunchKernel", (long long)host + 4, i % 1000, corr);
        emit(line);
        std::int64_t& g = gpu[i % 2];
        g = std::max(g, host + 10);
        std::snprintf(
            line, sizeof line,
            R"({"ph":"X","cat":"%s","name":"%s","pid":0,"tid":%d,"ts":%lld.%03d,"dur":%.3f,"args":{"stream":%d,"correlation":%d%s}})",
            copy ? "gpu_memcpy" : "kernel", copy ? "Memcpy HtoD (Pinned -> Device)" : "void at::native::kernel<float>()",
            stream, (long long)g, i % 1000, gpuDur, stream, corr, copy ? R"(,"bytes":19267584)" : "");
        emit(line);
        host += 12;
        g += std::int64_t(gpuDur) + 1;
      }
      ++corr;
      std::snprintf(
          line, sizeof line,
          R"({"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":457,"tid":457,"ts":%lld,"dur":30,"args":{"correlation":%d}})",
          (long long)host, corr);
      emit(line);
      host = stepStart + stepLen;
    }
    out << "]}\n";
  }
  ~File() { std::remove(path.c_str()); }
};

const File& file() {
  static File f;
  return f;
}

// The import without iteration detection: the same reader and importer, with a marker
// no range has (the detection then stops at its first look over the ops).
void BM_Import(benchmark::State& state) {
  const File& f = file();
  ImportOptions none;
  none.iterations.marker = "no-such-range";
  std::uint64_t ops = 0;
  for (auto _ : state) ops = loadTraceFile(f.path, none)->ops().publishedCount();
  state.counters["events"] = double(f.events);
  state.counters["ops"] = double(ops);
}
BENCHMARK(BM_Import)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Iterations(benchmark::State& state) {
  auto trace = loadTraceFile(file().path);
  std::vector<Op> ops;
  trace->ops().snapshot().forEach([&](const Op& op) { ops.push_back(op); });
  const auto names = trace->names();
  std::int64_t found = 0;
  for (auto _ : state) found = assignIterations(ops, names, {}).count;
  state.counters["iterations"] = double(found);
}
BENCHMARK(BM_Iterations)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Analysis(benchmark::State& state) {
  auto trace = loadTraceFile(file().path);
  double batches = 0;
  for (auto _ : state) {
    const Metrics m = computeMetrics(*trace);
    const RunAnalysis a = analyseRun(*trace, m, nullptr);
    benchmark::DoNotOptimize(a.limits.fullOverlapNs);
    batches = double(m.batches);
  }
  state.counters["iterations"] = batches;
}
BENCHMARK(BM_Analysis)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
