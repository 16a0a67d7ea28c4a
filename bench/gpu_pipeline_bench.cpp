// In one process: hand-written pipelines (no instrumentation) against pipescope's
// CUDA backend on the same configurations, plus pinned copy bandwidth from a plain
// cudaMemcpy loop against what pipescope reports. Prints markdown tables.
//
// Two references:
// - the mirror reference: pipescope's own algorithm, kernels and buffers with nothing
//   recorded; pipescope / mirror is the cost of the instrumentation alone;
// - the minimal reference (gpu_minimal_pipeline.h): the plainest correct pipeline for
//   the same work; pipescope / minimal is everything pipescope adds, structure included.
//
// Usage: gpu_pipeline_bench [reps] [--streams-table] [--breakdown] [--mirror-table]
//   no table flag: the mirror table, the instrumentation breakdown and bandwidth;
//   --streams-table: minimal, mirror and pipescope at 1, 2, 4, 8, 16 streams;
//   --breakdown: the minimal reference with each of pipescope's differences alone.
// Targets (docs/performance.md): pipescope within 2% of the minimal reference at every
// stream count, >= 97% of the ideal bound at its best stream count, instrumentation
// ratio (pipescope / mirror) <= 1.02 on every row, bandwidth within 2%.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "config/Presets.h"
#include "cuda/CudaBackend.h"
#include "cuda/CudaError.h"
#include "cuda/CuptiTracer.h"
#include "cuda/Kernels.h"
#include "gpu_minimal_pipeline.h"
#include "metrics/Metrics.h"

using namespace pipescope;
#define CHECK(call) PIPESCOPE_CUDA_CHECK(call)

namespace {

double nowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// The uninstrumented reference: the same algorithm, kernels and buffers, nothing recorded.
class Reference {
 public:
  explicit Reference(const PipelineConfig& c) : c_(c), streams_(c.isAsync() ? c.streams : 1) {
    for (int s = 0; s < streams_; ++s) {
      Slot slot;
      if (c.isAsync()) CHECK(cudaStreamCreateWithFlags(&slot.stream, cudaStreamNonBlocking));
      if (c.memory == HostMemory::Pinned) {
        CHECK(cudaMallocHost(&slot.hin, c.batchBytes()));
        CHECK(cudaMallocHost(&slot.hout, c.outputBytes()));
      } else {
        slot.hin = std::malloc(c.batchBytes());
        slot.hout = std::malloc(c.outputBytes());
      }
      std::memset(slot.hin, 0, c.batchBytes());
      std::memset(slot.hout, 0, c.outputBytes());
      CHECK(cudaMalloc(&slot.din, c.batchBytes()));
      CHECK(cudaMalloc(&slot.dout, c.outputBytes()));
      CHECK(cudaMemset(slot.din, 0, c.batchBytes()));
      slots_.push_back(slot);
    }
    CHECK(cudaDeviceSynchronize());
  }
  ~Reference() {
    cudaDeviceSynchronize();
    for (Slot& s : slots_) {
      if (s.stream) cudaStreamDestroy(s.stream);
      if (c_.memory == HostMemory::Pinned) {
        cudaFreeHost(s.hin);
        cudaFreeHost(s.hout);
      } else {
        std::free(s.hin);
        std::free(s.hout);
      }
      cudaFree(s.din);
      cudaFree(s.dout);
    }
  }

  /// Makespan in ms: first call to last batch back on the host.
  double run() {
    const std::size_t nIn = c_.batchBytes() / 4, nOut = c_.outputBytes() / 4;
    const std::uint32_t fmas = cuda::modelFmasPerElement(c_.modelFlopsPerByte);
    const double t0 = nowMs();
    for (int b = 0; b < c_.batchCount; ++b) {
      Slot& s = slots_[std::size_t(b % streams_)];
      auto* din = static_cast<float*>(s.din);
      auto* dout = static_cast<float*>(s.dout);
      if (!c_.isAsync()) {
        CHECK(cudaMemcpy(din, s.hin, c_.batchBytes(), cudaMemcpyHostToDevice));
        CHECK(cuda::launchNormalize(din, din, nIn, nullptr));
        CHECK(cuda::launchModel(din, nIn, dout, nOut, fmas, nullptr));
        CHECK(cudaMemcpy(s.hout, dout, c_.d2hBytes(), cudaMemcpyDeviceToHost));
        continue;
      }
      if (b >= streams_) CHECK(cudaStreamSynchronize(s.stream));
      CHECK(cudaMemcpyAsync(din, s.hin, c_.batchBytes(), cudaMemcpyHostToDevice, s.stream));
      CHECK(cuda::launchNormalize(din, din, nIn, s.stream));
      CHECK(cuda::launchModel(din, nIn, dout, nOut, fmas, s.stream));
      CHECK(cudaMemcpyAsync(s.hout, dout, c_.d2hBytes(), cudaMemcpyDeviceToHost, s.stream));
    }
    for (Slot& s : slots_) CHECK(cudaStreamSynchronize(s.stream));
    return nowMs() - t0;
  }

 private:
  struct Slot {
    cudaStream_t stream = nullptr;
    void *hin = nullptr, *hout = nullptr, *din = nullptr, *dout = nullptr;
  };
  PipelineConfig c_;
  int streams_;
  std::vector<Slot> slots_;
};

struct PipescopeRun {
  double makespanMs = 0;
  double h = 0, k = 0, d = 0;  // mean per-batch stage times, ns
  double h2dGBps = 0, d2hGBps = 0;
  double modelNs = 0;
  double idealMs = 0;  // pipescope's own ideal bound (metrics/Metrics.h), not a second formula
  double efficiency = 0;    // this run's ideal / makespan (never a bound of one run over another's makespan)
  double hostSyncMs = 0;    // summed HostSync ops: the host waiting for the GPU
  double apiMs = 0;         // summed API calls on the submit thread
  double gpuIdleMs = 0;     // makespan with no GPU op running
  std::string timing;
  bool ok = false;
};

PipescopeRun runPipescope(Backend& backend, const PipelineConfig& c) {
  Trace trace;
  trace.setConfig(c);
  RunControl control;
  const RunOutcome o = backend.run(c, trace, control);
  PipescopeRun r;
  if (o.state != RunState::Finished) {
    std::fprintf(stderr, "pipescope run failed: %s\n", o.message.c_str());
    return r;
  }
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  double hBytes = 0, hNs = 0, dBytes = 0, dNs = 0, modelNs = 0;
  int models = 0;
  trace.ops().snapshot().forEach([&](const Op& op) {
    first = std::min(first, op.start);
    last = std::max(last, op.end);
    if (op.kind == OpKind::CopyH2D) {
      r.h += double(op.duration());
      hBytes += double(op.bytes);
      hNs += double(op.duration());
    } else if (op.kind == OpKind::CopyD2H) {
      r.d += double(op.duration());
      dBytes += double(op.bytes);
      dNs += double(op.duration());
    } else if (op.kind == OpKind::Kernel) {
      r.k += double(op.duration());
      if (trace.opName(op) == "model") {
        modelNs += double(op.duration());
        ++models;
      }
    }
  });
  const double n = double(std::max<std::int64_t>(1, trace.completedBatches()));
  r.h /= n;
  r.k /= n;
  r.d /= n;
  r.h2dGBps = hNs > 0 ? hBytes / hNs : 0;
  r.d2hGBps = dNs > 0 ? dBytes / dNs : 0;
  r.modelNs = models ? modelNs / models : 0;
  r.makespanMs = double(last - first) / 1e6;
  r.timing = trace.device().timingSource;
  const Metrics m = computeMetrics(trace);
  r.idealMs = m.idealBoundNs / 1e6;
  r.efficiency = m.efficiency;
  r.gpuIdleMs = m.gpuIdle * m.makespanNs / 1e6;
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.kind == OpKind::HostSync) r.hostSyncMs += double(op.duration()) / 1e6;
    if (op.kind == OpKind::ApiCall) r.apiMs += double(op.duration()) / 1e6;
  });
  r.ok = true;
  return r;
}

/// Plain loop: `reps` back-to-back pinned copies timed with events (GB/s).
double plainBandwidth(bool h2d, std::size_t bytes, int reps) {
  void *h = nullptr, *d = nullptr;
  CHECK(cudaMallocHost(&h, bytes));
  CHECK(cudaMalloc(&d, bytes));
  std::memset(h, 0, bytes);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  auto once = [&] {
    CHECK(h2d ? cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s)
              : cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
  };
  for (int i = 0; i < 3; ++i) once();
  CHECK(cudaEventRecord(a, s));
  for (int i = 0; i < reps; ++i) once();
  CHECK(cudaEventRecord(b, s));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaStreamDestroy(s);
  cudaFreeHost(h);
  cudaFree(d);
  return double(bytes) * reps / (double(ms) * 1e6);
}


// ----------------------------------------------------------------- stream table
constexpr int kStreamCounts[] = {1, 2, 4, 8, 16};

/// The multi-stream preset (32 batches x 32 MiB, kernel ~ copy) at `streams` streams.
PipelineConfig streamsConfig(int streams) {
  PipelineConfig c = findPreset("multi-stream")->config;
  c.streams = streams;
  return c;
}

/// Every reference waits the way pipescope's default sync mode does (blocking sync).
bool setSchedule(unsigned schedule) {
  const cudaError_t err = cudaSetDeviceFlags(schedule | cudaDeviceMapHost);
  if (err == cudaSuccess) return true;
  (void)cudaGetLastError();
  std::printf("note: cudaSetDeviceFlags failed (%s): the references keep the device's current schedule\n",
              cudaGetErrorString(err));
  return false;
}

double maxOf(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

/// Minimal reference, mirror reference and pipescope (with and without the separate
/// normalize kernel) at 1..16 streams, alternating, `reps` runs each after a warm-up.
bool printStreamsTable(Backend& backend, int reps) {
  setSchedule(cudaDeviceScheduleBlockingSync);
  backend.keepBuffersBetweenRuns(true);  // pinning 1 GiB takes ~0.4 s: once per stream count, outside the makespan
  std::printf("\nstreams table: 32 batches x 32 MiB, model %.0f flops/byte (preset multi-stream), pinned, depth-first; "
              "median of %d runs, alternating\n\n",
              streamsConfig(1).modelFlopsPerByte, reps);
  std::printf("| streams | minimal ms | mirror ms | pipescope ms | pipescope / minimal | pipescope / mirror | "
              "pipescope no-normalize ms | no-normalize / minimal | ideal ms | ideal no-norm. ms | pipescope eff. "
              "(median, max) | no-norm. eff. (median, max) | minimal eff. |\n");
  std::printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  std::vector<std::string> diagnostics;
  for (int streams : kStreamCounts) {
    const PipelineConfig c = streamsConfig(streams);
    PipelineConfig plain = c;
    plain.normalizeKernel = false;
    bench::MinimalPipeline minimal(c);
    Reference mirror(c);
    minimal.run({});
    mirror.run();
    runPipescope(backend, c);
    runPipescope(backend, plain);
    std::vector<double> mt, rt, pt, nt, ideal, idealPlain, eff, effPlain, sync, api, idle;
    for (int i = 0; i < reps; ++i) {
      mt.push_back(minimal.run({}));
      rt.push_back(mirror.run());
      const PipescopeRun p = runPipescope(backend, c);
      const PipescopeRun n = runPipescope(backend, plain);
      if (!p.ok || !n.ok) return false;
      pt.push_back(p.makespanMs);
      nt.push_back(n.makespanMs);
      ideal.push_back(p.idealMs);
      idealPlain.push_back(n.idealMs);
      eff.push_back(p.efficiency);
      effPlain.push_back(n.efficiency);
      sync.push_back(p.hostSyncMs);
      api.push_back(p.apiMs);
      idle.push_back(p.gpuIdleMs);
    }
    const double m = median(mt), r = median(rt), p = median(pt), n = median(nt);
    std::printf("| %d | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %.3f | %.2f | %.2f | %.1f%%, %.1f%% | %.1f%%, %.1f%% | "
                "%.1f%% |\n",
                streams, m, r, p, p / m, p / r, n, n / m, median(ideal), median(idealPlain), 100 * median(eff),
                100 * maxOf(eff), 100 * median(effPlain), 100 * maxOf(effPlain), 100 * median(idealPlain) / m);
    char line[256];
    std::snprintf(line, sizeof line, "| %d | %.2f | %.2f | %.2f | %.2f–%.2f |\n", streams, median(sync), median(api),
                  median(idle), *std::min_element(pt.begin(), pt.end()), maxOf(pt));
    diagnostics.push_back(line);
    std::fflush(stdout);
  }
  backend.keepBuffersBetweenRuns(false);
  std::printf("\npipescope's own runs (preset multi-stream), medians: time the submit thread waited in syncs, spent in "
              "API calls, and time no GPU op ran\n\n");
  std::printf("| streams | host sync ms | API calls ms | GPU idle ms | makespan range ms |\n| ---: | ---: | ---: | ---: | ---: |\n");
  for (const std::string& l : diagnostics) std::printf("%s", l.c_str());
  std::fflush(stdout);
  return true;
}

/// The minimal reference with each of pipescope's structural differences alone, then
/// together, at 1..16 streams: what each one costs on this GPU.
// waitBehind < 0 in the table below is a multiple of the stream count: -1 waits for the
// batch that used the slot before (pipescope's rule), -2 for the one two rounds back.
bool printStructureBreakdown(int reps) {
  using Options = bench::MinimalPipeline::Options;
  struct Variant {
    const char* name;
    Options o;
    bool spin = false;
  };
  const std::vector<Variant> variants = {
      {"minimal (one sync at the end)", {}},
      {"+ cudaStreamSynchronize before slot reuse (blocking sync)", {false, -1, false, false, false}},
      {"+ cudaStreamSynchronize before slot reuse (spin)", {false, -1, false, false, false}, true},
      {"+ separate normalize kernel", {true, 0, false, false, false}},
      {"+ CUPTI activity (kernel, memcpy, API)", {false, 0, false, false, true}},
      {"+ timing events around every op", {false, 0, false, true, false}},
      {"+ slot sync + normalize + CUPTI (pipescope's structure)", {true, -1, false, false, true}},
      {"+ event wait for batch b-2·streams", {false, -2, true, false, false}},
      {"+ event wait b-2·streams + normalize + CUPTI", {true, -2, true, false, true}},
  };
  std::printf("\nstructure breakdown: the minimal reference with one of pipescope's differences at a time, median of "
              "%d (ms; 32 batches x 32 MiB, preset multi-stream's model)\n\n| variant |",
              reps);
  for (int s : kStreamCounts) std::printf(" %d str |", s);
  std::printf("\n| --- |");
  for (std::size_t i = 0; i < std::size(kStreamCounts); ++i) std::printf(" ---: |");
  std::printf("\n");
  std::vector<std::vector<double>> cells(variants.size());
  for (int streams : kStreamCounts) {
    bench::MinimalPipeline minimal(streamsConfig(streams));
    std::vector<std::vector<double>> times(variants.size());
    for (int i = -1; i < reps; ++i) {  // i = -1: warm-up
      for (std::size_t v = 0; v < variants.size(); ++v) {
        Options o = variants[v].o;
        if (o.waitBehind < 0) o.waitBehind *= -streams;  // -1: the slot's previous batch, -2: two rounds back
        if (variants[v].spin) setSchedule(cudaDeviceScheduleSpin);
        const double ms = minimal.run(o);
        if (variants[v].spin) setSchedule(cudaDeviceScheduleBlockingSync);
        if (i >= 0 && ms > 0) times[v].push_back(ms);
      }
    }
    for (std::size_t v = 0; v < variants.size(); ++v) cells[v].push_back(median(times[v]));
  }
  for (std::size_t v = 0; v < variants.size(); ++v) {
    std::printf("| %s |", variants[v].name);
    for (double ms : cells[v]) ms > 0 ? std::printf(" %.2f |", ms) : std::printf(" n/a |");
    std::printf("\n");
  }
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool streamsTable = false, breakdown = false, mirrorTable = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--streams-table") streamsTable = true;
    else if (a == "--breakdown") breakdown = true;
    else if (a == "--mirror-table") mirrorTable = true;
    else if (!a.empty() && a.find_first_not_of("0123456789") == std::string_view::npos) reps = std::max(1, std::atoi(argv[i]));
    else {
      std::fprintf(stderr, "unknown argument '%s': usage gpu_pipeline_bench [reps] [--streams-table] [--breakdown] "
                           "[--mirror-table]\n", argv[i]);
      return 2;
    }
  }
  if (!streamsTable && !breakdown) mirrorTable = true;
  const CudaProbe probe = probeCuda();
  if (probe.status != CudaProbe::Status::Available) {
    std::printf("no CUDA device (%s): nothing to measure\n", probe.message.c_str());
    return 0;
  }
  std::string error;
  auto backend = makeCudaBackend(0, error);
  if (!backend) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const DeviceInfo dev = backend->describe();
  std::printf("device: %s, cc %d.%d, %d copy engines, PCIe Gen%d x%d, driver %s, runtime %s\n", dev.name.c_str(),
              dev.computeMajor, dev.computeMinor, dev.copyEngines, dev.pcieGeneration, dev.pcieWidth,
              dev.driverVersion.c_str(), dev.runtimeVersion.c_str());
  if (streamsTable && !printStreamsTable(*backend, reps)) return 1;
  if (breakdown && !printStructureBreakdown(reps)) return 1;
  if (!mirrorTable) return 0;

  PipelineConfig base;  // 32 batches of 64 x 512 KiB = 32 MiB, default flops/byte (kernel ~ copy on an H200)
  base.batchSamples = 64;
  base.sampleBytes = 512 * 1024;
  base.batchCount = 32;
  struct Row {
    std::string name;
    PipelineConfig config;
  };
  std::vector<Row> rows;
  auto add = [&](std::string name, TransferMode m, HostMemory mem, int streams, double fpb) {
    PipelineConfig c = base;
    c.mode = m;
    c.memory = mem;
    c.streams = streams;
    c.modelFlopsPerByte = fpb;
    rows.push_back({std::move(name), c});
  };
  const double fpb = base.modelFlopsPerByte;
  add("blocking pageable", TransferMode::Blocking, HostMemory::Pageable, 1, fpb);
  add("blocking pinned", TransferMode::Blocking, HostMemory::Pinned, 1, fpb);
  add("async pinned 1 stream", TransferMode::Async, HostMemory::Pinned, 1, fpb);
  add("async pinned 2 streams", TransferMode::Async, HostMemory::Pinned, 2, fpb);
  add("async pinned 4 streams", TransferMode::Async, HostMemory::Pinned, 4, fpb);
  add("async pinned 8 streams", TransferMode::Async, HostMemory::Pinned, 8, fpb);
  add("compute-heavy (3200 f/B, 4 str)", TransferMode::Async, HostMemory::Pinned, 4, 3200);
  add("copy-heavy (100 f/B, 4 str)", TransferMode::Async, HostMemory::Pinned, 4, 100);

  std::printf("\nmakespan, median of %d runs each, reference and pipescope alternating (32 batches x 32 MiB)\n\n", reps);
  std::printf("| configuration | reference ms | pipescope ms | ratio | ideal ms | pipescope/ideal eff. |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
  PipescopeRun lastPinned;
  for (const Row& row : rows) {
    Reference ref(row.config);
    ref.run();                            // warm-up
    runPipescope(*backend, row.config);   // warm-up
    std::vector<double> rt, pt, ideals, effs;
    PipescopeRun pr;
    for (int i = 0; i < reps; ++i) {
      rt.push_back(ref.run());
      pr = runPipescope(*backend, row.config);
      if (!pr.ok) return 1;
      pt.push_back(pr.makespanMs);
      ideals.push_back(pr.idealMs);
      effs.push_back(pr.efficiency);
    }
    const double r = median(rt), p = median(pt);
    // Efficiency per run, then the median: a bound from one run over another run's
    // makespan once printed 154% on an H100.
    std::printf("| %s | %.2f | %.2f | %.3f | %.2f | %.1f%% |\n", row.name.c_str(), r, p, p / r, median(ideals),
                100.0 * median(effs));
    if (row.name == "blocking pinned") lastPinned = pr;
    std::fflush(stdout);
  }
  // Where the instrumentation's cost comes from: the reference with CUPTI collecting.
  std::printf("\ninstrumentation cost breakdown, median of %d (ms)\n\n", reps);
  std::printf("| configuration | reference | + CUPTI kernel/memcpy | + CUPTI API records | pipescope | flushes (count, ms) |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
  for (const Row& row : rows) {
    if (row.name != "blocking pinned" && row.name != "async pinned 4 streams" && row.name != "async pinned 8 streams")
      continue;
    Reference ref(row.config);
    std::vector<double> r0, r1, r2, p;
    const std::uint64_t fc0 = cuda::CuptiTracer::flushCount(), fn0 = cuda::CuptiTracer::flushNs();
    for (int i = 0; i < reps; ++i) {
      r0.push_back(ref.run());
      for (int api = 0; api < 2; ++api) {
        cuda::CuptiTracer tracer;
        std::string why;
        if (!tracer.start(why, api == 1)) {
          std::printf("CUPTI unavailable: %s\n", why.c_str());
          break;
        }
        (api ? r2 : r1).push_back(ref.run());
        tracer.stop();
      }
      p.push_back(runPipescope(*backend, row.config).makespanMs);
    }
    const double flushes = double(cuda::CuptiTracer::flushCount() - fc0) / reps;
    const double flushMs = double(cuda::CuptiTracer::flushNs() - fn0) / 1e6 / reps;
    std::printf("| %s | %.2f | %.2f | %.2f | %.2f | %.1f, %.3f |\n", row.name.c_str(), median(r0), median(r1),
                median(r2), median(p), flushes, flushMs);
    std::fflush(stdout);
  }

  std::printf("\nper-batch stage times from pipescope (blocking pinned): H2D %.3f ms, kernels %.3f ms "
              "(model kernel %.3f ms at %.0f flops/byte), D2H %.3f ms; timing source %s\n",
              lastPinned.h / 1e6, lastPinned.k / 1e6, lastPinned.modelNs / 1e6, fpb, lastPinned.d / 1e6,
              lastPinned.timing.c_str());

  // Bandwidth: plain loop vs what pipescope reports for the same copies.
  const std::size_t bytes = 32ull << 20;
  PipelineConfig bw = base;
  bw.mode = TransferMode::Async;
  bw.streams = 1;
  bw.normalizeKernel = false;
  bw.modelFlopsPerByte = 1;  // a near-empty kernel: the copies dominate
  bw.batchCount = 20;
  runPipescope(*backend, bw);
  std::vector<double> ph, pd, lh, ld;
  for (int i = 0; i < reps; ++i) {
    lh.push_back(plainBandwidth(true, bytes, 20));
    ld.push_back(plainBandwidth(false, bytes, 20));
    const PipescopeRun r = runPipescope(*backend, bw);
    ph.push_back(r.h2dGBps);
    pd.push_back(r.d2hGBps);
  }
  std::printf("\npinned copy bandwidth, 32 MiB, GB/s (1e9 B/s), median of %d\n\n", reps);
  std::printf("| direction | plain cudaMemcpyAsync loop | pipescope reported | ratio |\n| --- | ---: | ---: | ---: |\n");
  std::printf("| H2D | %.2f | %.2f | %.3f |\n", median(lh), median(ph), median(ph) / median(lh));
  std::printf("| D2H | %.2f | %.2f | %.3f |\n", median(ld), median(pd), median(pd) / median(ld));
  return 0;
}
