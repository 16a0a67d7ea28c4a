// The injection's own thread: what turning CUPTI's records into wire bytes costs per
// record (ActivityTranslator + wire::Encoder, as libpipescope-inject.so runs them each
// 100 ms round), against a reference in the same run: copying the same records' fields
// into a plain byte buffer. It runs on the injection's thread, not on the program's
// threads: the program pays for it only where the machine has no core to spare.
//
// The records are a ResNet-18 training step as CUPTI gives them (8 ms steps of 250
// kernels, each with its cudaLaunchKernel, half from a second thread, pinned copies,
// an NVTX range, a stream synchronisation), 12 steps (about 100 ms) per round.
//
// Run: build/release/bench/record_encode_bench
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "record/ActivityTranslator.h"

namespace {

using namespace pipescope;
using namespace pipescope::record;

constexpr int kKernels = 250;
constexpr int kStepsPerRound = 12;
constexpr std::int64_t kStepNs = 8'000'000;

struct Round {
  std::vector<ApiRecord> api;
  std::vector<GpuRecord> gpu;
  std::vector<MarkerRecord> markers;
  std::size_t records() const { return api.size() + gpu.size() + markers.size(); }
};

Round makeRound(std::int64_t t0, std::uint32_t& correlation, std::uint32_t& marker) {
  Round r;
  for (int s = 0; s < kStepsPerRound; ++s, t0 += kStepNs) {
    r.markers.push_back({MarkerRecord::Point::Start, marker, t0, 100, "train step"});
    std::int64_t at = t0 + 120'000;
    for (int k = 0; k < kKernels; ++k) {
      r.api.push_back(
          {false, "cudaLaunchKernel", at - 30'000, at - 26'000, k < kKernels / 2 ? 100u : 101u, correlation});
      GpuRecord g;
      g.kind = GpuRecord::Kind::Kernel;
      g.name = k % 2 ? "void cudnn::cnn::conv2d_grouped_direct_kernel<float, float, float, true>(float const*, float*)"
                     : "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)";
      g.start = at;
      g.end = at + 29'000;
      g.stream = 7;
      g.context = 1;
      g.correlation = correlation++;
      r.gpu.push_back(g);
      at += 30'000;
    }
    for (auto dir : {GpuRecord::Direction::HostToDevice, GpuRecord::Direction::DeviceToHost}) {
      r.api.push_back({false, "cudaMemcpyAsync", at, at + 4'000, 100, correlation});
      GpuRecord c;
      c.kind = GpuRecord::Kind::Copy;
      c.direction = dir;
      c.hostMemory = GpuRecord::HostMemory::Pinned;
      c.start = at + 5'000;
      c.end = at + 15'000;
      c.stream = 7;
      c.context = 1;
      c.correlation = correlation++;
      c.bytes = 1u << 20;
      r.gpu.push_back(c);
    }
    r.api.push_back({false, "cudaStreamSynchronize", at + 4'000, at + 16'000, 100, correlation++});
    r.markers.push_back({MarkerRecord::Point::End, marker++, t0 + kStepNs - 1'000, 100, {}});
  }
  return r;
}

void BM_TranslateAndEncode(benchmark::State& state) {
  std::uint32_t correlation = 1, marker = 1;
  std::int64_t t = 1'000'000'000;
  ActivityTranslator translator({100, "python3"});
  wire::Encoder out;
  std::size_t records = 0, bytes = 0;
  Round r;  // replaced while the timing is paused, so its strings are freed outside it too
  for (auto _ : state) {
    state.PauseTiming();
    r = makeRound(t, correlation, marker);
    t += kStepNs * kStepsPerRound;
    state.ResumeTiming();
    for (const auto& m : r.markers) translator.marker(m);
    for (const auto& a : r.api) translator.api(a);
    for (const auto& g : r.gpu) translator.gpu(g);
    translator.endRound(out);
    bytes += out.take().size();
    records += r.records();
  }
  state.counters["ns_per_record"] =
      benchmark::Counter(double(records), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["wire_bytes_per_record"] = double(bytes) / double(std::max<std::size_t>(records, 1));
  state.SetItemsProcessed(std::int64_t(records));
}
BENCHMARK(BM_TranslateAndEncode)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The reference: the same records' fields copied into a byte buffer, nothing resolved.
void BM_CopyFields(benchmark::State& state) {
  std::uint32_t correlation = 1, marker = 1;
  std::int64_t t = 1'000'000'000;
  std::vector<char> buf;
  std::size_t records = 0;
  Round r;
  for (auto _ : state) {
    state.PauseTiming();
    r = makeRound(t, correlation, marker);
    t += kStepNs * kStepsPerRound;
    buf.clear();
    state.ResumeTiming();
    auto put = [&](const void* p, std::size_t n) {
      buf.insert(buf.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
    };
    for (const auto& a : r.api) put(&a.start, 16), put(&a.correlation, 4), put(a.name.data(), a.name.size());
    for (const auto& g : r.gpu) put(&g.start, 16), put(&g.correlation, 4), put(g.name.data(), g.name.size());
    for (const auto& m : r.markers) put(&m.time, 8), put(m.name.data(), m.name.size());
    benchmark::DoNotOptimize(buf.data());
    records += r.records();
  }
  state.counters["ns_per_record"] =
      benchmark::Counter(double(records), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(std::int64_t(records));
}
BENCHMARK(BM_CopyFields)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
