// Trace file speed and size (targets: open a 1M-op .pipescope trace and a 1M-event
// Chrome JSON in under 2 s each; 1M ops well under 100 MB on disk).
//
// Inputs are made once per process: a simulator run of ~1M ops (4 streams, async,
// pinned) saved as .pipescope, and a PyTorch-profiler-shaped Chrome JSON with 1M
// events (kernels and copies on 2 streams, each with its cudaLaunchKernel /
// cudaMemcpyAsync call and correlation id). Same-run references: reading the file's
// bytes (native) and a bare nlohmann SAX parse of the same JSON text with a handler
// that does nothing (Chrome), so the ratios travel between machines.
// Counters: file_MB, ops, and rss_MB (the process's peak RSS after the benchmark:
// run one benchmark per process with --benchmark_filter to read it as that load's peak).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/Backend.h"
#include "io/ChromeTraceWriter.h"
#include "io/NativeFormat.h"
#include "io/TraceFiles.h"
#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "trace/Trace.h"

namespace {

using namespace pipescope;

std::string tempFile(const char* name) {
  return (std::filesystem::temp_directory_path() /
          (std::string("pipescope-bench-") + std::to_string(::getpid()) + name))
      .string();
}

double peakRssMB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

double fileMB(const std::string& p) { return double(std::filesystem::file_size(p)) / (1 << 20); }

std::unique_ptr<Trace> simulatedMillion() {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pinned;
  c.streams = 4;
  c.batchCount = 100'000;
  auto trace = std::make_unique<Trace>();
  trace->setConfig(c);
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  RunControl control;
  trace->setOutcome(backend->run(c, *trace, control));
  return trace;
}

struct Files {
  std::string native = tempFile(".pipescope");
  std::string chrome = tempFile(".json");
  std::uint64_t nativeOps = 0;
  Files() {
    {
      auto t = simulatedMillion();
      nativeOps = t->ops().publishedCount();
      saveNativeTrace(*t, native);
    }
    // 1M events: per GPU op, its launch call and the op itself.
    std::ofstream out(chrome);
    out << R"({"deviceProperties":[{"id":0,"name":"NVIDIA H200","computeMajor":9,"computeMinor":0}],"traceEvents":[)";
    char line[512];
    std::int64_t host = 1'000'000, gpu[2] = {1'000'500, 1'000'500};
    for (int i = 0; i < 500'000; ++i) {
      const int stream = 13 + 4 * (i % 2);
      const bool copy = i % 10 == 0;
      const double hostDur = 3.7, gpuDur = copy ? 350.123 : 10.5 + (i % 7);
      std::snprintf(
          line, sizeof line,
          R"(%s{"ph":"X","cat":"cuda_runtime","name":"%s","pid":457,"tid":457,"ts":%lld.%03d,"dur":%.3f,"args":{"correlation":%d}})",
          i == 0 ? "" : ",\n", copy ? "cudaMemcpyAsync" : "cudaLaunchKernel", (long long)host, i % 1000, hostDur,
          i + 1);
      out << line;
      std::int64_t& g = gpu[i % 2];
      g = std::max(g, host + 5);
      std::snprintf(line, sizeof line,
                    R"(,
{"ph":"X","cat":"%s","name":"%s","pid":0,"tid":%d,"ts":%lld.%03d,"dur":%.3f,"args":{"stream":%d,"correlation":%d%s}})",
                    copy ? "gpu_memcpy" : "kernel",
                    copy ? "Memcpy HtoD (Pinned -> Device)" : "void at::native::kernel<float>()", stream, (long long)g,
                    i % 1000, gpuDur, stream, i + 1, copy ? R"(,"bytes":19267584)" : "");
      out << line;
      host += 4;
      g += std::int64_t(gpuDur) + 1;
    }
    out << "]}\n";
  }
  ~Files() {
    std::remove(native.c_str());
    std::remove(chrome.c_str());
  }
};

const Files& files() {
  static Files f;
  return f;
}

void BM_OpenNative1M(benchmark::State& state) {
  const Files& f = files();
  std::uint64_t ops = 0;
  for (auto _ : state) ops = loadTraceFile(f.native)->ops().publishedCount();
  state.counters["ops"] = double(ops);
  state.counters["file_MB"] = fileMB(f.native);
  state.counters["rss_MB"] = peakRssMB();
}
BENCHMARK(BM_OpenNative1M)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ReadNativeBytes(benchmark::State& state) {  // reference: just the bytes
  const Files& f = files();
  for (auto _ : state) {
    std::ifstream in(f.native, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    benchmark::DoNotOptimize(bytes.data());
  }
}
BENCHMARK(BM_ReadNativeBytes)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_SaveNative1M(benchmark::State& state) {
  auto trace = loadTraceFile(files().native);
  const std::string out = tempFile("-save.pipescope");
  for (auto _ : state) saveNativeTrace(*trace, out);
  state.counters["file_MB"] = fileMB(out);
  std::remove(out.c_str());
}
BENCHMARK(BM_SaveNative1M)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_OpenChromeJson1M(benchmark::State& state) {
  const Files& f = files();
  std::uint64_t ops = 0;
  for (auto _ : state) ops = loadTraceFile(f.chrome)->ops().publishedCount();
  state.counters["ops"] = double(ops);
  state.counters["file_MB"] = fileMB(f.chrome);
  state.counters["rss_MB"] = peakRssMB();
}
BENCHMARK(BM_OpenChromeJson1M)->Unit(benchmark::kMillisecond)->Iterations(3);

struct NullSax : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

void BM_BareSaxParseChromeJson1M(benchmark::State& state) {  // reference: nlohmann alone
  const Files& f = files();
  for (auto _ : state) {
    std::ifstream in(f.chrome, std::ios::binary);
    NullSax sax;
    benchmark::DoNotOptimize(nlohmann::json::sax_parse(in, &sax));
  }
}
BENCHMARK(BM_BareSaxParseChromeJson1M)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ExportChromeJson1M(benchmark::State& state) {
  auto trace = loadTraceFile(files().native);
  const std::string out = tempFile("-export.json");
  for (auto _ : state) saveChromeTrace(*trace, out);
  state.counters["file_MB"] = fileMB(out);
  std::remove(out.c_str());
}
BENCHMARK(BM_ExportChromeJson1M)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
