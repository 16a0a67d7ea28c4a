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
// Usage: gpu_pipeline_bench [reps] [--streams-table] [--breakdown] [--mirror-table] [--long-runs] [--tiny-batches]
//   no table flag: the mirror table, the instrumentation breakdown and bandwidth;
//   --streams-table: minimal, mirror and pipescope at 1, 2, 4, 8, 16 streams;
//   --breakdown: the minimal reference with each of pipescope's differences alone;
//   --long-runs: pipescope's cost per batch over a long run of tiny batches (flat?).
//   --tiny-batches: the mirror reference and pipescope on 64 KiB batches at 1, 4 and 16
//                   streams: what recording costs per batch when a batch's work is tiny
//                   and many batches are in flight.
// Targets (docs/performance.md): pipescope within 2% of the minimal reference at every
// stream count, >= 97% of the ideal bound at its best stream count, instrumentation
// ratio (pipescope / mirror) <= 1.02 on every row, bandwidth within 2%.
#include <algorithm>
#include <map>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "backend/CudaModule.h"
#include "config/ModelWork.h"
#include "config/Presets.h"
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

/// The mirror reference: pipescope's algorithm (docs/cuda-backend.md), kernels and
/// buffers, nothing recorded. Stream s = batch % streams owns the device buffers; host
/// slot batch % hostSlots() (two per stream) owns the host buffers and a done event
/// recorded after the batch's D2H; before batch b the host waits on the event of
/// batch b - hostSlots(), whose host buffers it takes.
class Reference {
 public:
  explicit Reference(const PipelineConfig& c) : c_(c), streams_(c.isAsync() ? c.streams : 1) {
    for (int s = 0; s < streams_; ++s) {
      Device d;
      if (c.isAsync()) CHECK(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
      CHECK(cudaMalloc(&d.din, c.batchBytes()));
      CHECK(cudaMalloc(&d.dout, c.outputBytes()));
      CHECK(cudaMemset(d.din, 0, c.batchBytes()));
      devices_.push_back(d);
    }
    for (int h = 0; h < c.hostSlots(); ++h) {
      Host slot;
      if (c.memory == HostMemory::Pinned) {
        CHECK(cudaMallocHost(&slot.hin, c.batchBytes()));
        CHECK(cudaMallocHost(&slot.hout, c.outputBytes()));
      } else {
        slot.hin = std::malloc(c.batchBytes());
        slot.hout = std::malloc(c.outputBytes());
      }
      std::memset(slot.hin, 0, c.batchBytes());
      std::memset(slot.hout, 0, c.outputBytes());
      if (c.isAsync()) CHECK(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming));
      hosts_.push_back(slot);
    }
    CHECK(cudaDeviceSynchronize());
  }
  ~Reference() {
    cudaDeviceSynchronize();
    for (Device& d : devices_) {
      if (d.stream) cudaStreamDestroy(d.stream);
      cudaFree(d.din);
      cudaFree(d.dout);
    }
    for (Host& h : hosts_) {
      if (h.done) cudaEventDestroy(h.done);
      if (c_.memory == HostMemory::Pinned) {
        cudaFreeHost(h.hin);
        cudaFreeHost(h.hout);
      } else {
        std::free(h.hin);
        std::free(h.hout);
      }
    }
  }
  Reference(const Reference&) = delete;
  Reference& operator=(const Reference&) = delete;

  /// Makespan in ms: first call to last batch back on the host.
  double run() {
    const std::size_t nIn = c_.batchBytes() / 4, nOut = c_.outputBytes() / 4;
    const std::uint32_t fmas = modelFmasPerElement(c_.modelFlopsPerByte);
    const double t0 = nowMs();
    for (int b = 0; b < c_.batchCount; ++b) {
      Device& d = devices_[std::size_t(b % streams_)];
      Host& h = hosts_[std::size_t(b % c_.hostSlots())];
      auto* din = static_cast<float*>(d.din);
      auto* dout = static_cast<float*>(d.dout);
      if (!c_.isAsync()) {
        CHECK(cudaMemcpy(din, h.hin, c_.batchBytes(), cudaMemcpyHostToDevice));
        if (c_.normalizeKernel) CHECK(cuda::launchNormalize(din, din, nIn, nullptr));
        CHECK(cuda::launchModel(din, nIn, dout, nOut, fmas, nullptr));
        CHECK(cudaMemcpy(h.hout, dout, c_.d2hBytes(), cudaMemcpyDeviceToHost));
        continue;
      }
      if (b >= c_.hostSlots()) CHECK(cudaEventSynchronize(h.done));
      CHECK(cudaMemcpyAsync(din, h.hin, c_.batchBytes(), cudaMemcpyHostToDevice, d.stream));
      if (c_.normalizeKernel) CHECK(cuda::launchNormalize(din, din, nIn, d.stream));
      CHECK(cuda::launchModel(din, nIn, dout, nOut, fmas, d.stream));
      CHECK(cudaMemcpyAsync(h.hout, dout, c_.d2hBytes(), cudaMemcpyDeviceToHost, d.stream));
      CHECK(cudaEventRecord(h.done, d.stream));
    }
    for (Device& d : devices_) CHECK(cudaStreamSynchronize(d.stream));
    return nowMs() - t0;
  }

 private:
  struct Device {
    cudaStream_t stream = nullptr;
    void *din = nullptr, *dout = nullptr;
  };
  struct Host {
    void *hin = nullptr, *hout = nullptr;
    cudaEvent_t done = nullptr;
  };
  PipelineConfig c_;
  int streams_;
  std::vector<Device> devices_;
  std::vector<Host> hosts_;
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

/// Medians of one pipescope configuration's runs.
struct PipescopeMedians {
  std::vector<double> makespan, ideal, eff, sync, api, idle;
  void add(const PipescopeRun& r) {
    makespan.push_back(r.makespanMs);
    ideal.push_back(r.idealMs);
    eff.push_back(r.efficiency);
    sync.push_back(r.hostSyncMs);
    api.push_back(r.apiMs);
    idle.push_back(r.gpuIdleMs);
  }
};

/// At 1..16 streams, alternating, `reps` runs each after a warm-up: the multi-stream
/// preset (H2D, normalize, model, D2H) on pipescope, the mirror reference and the
/// minimal reference with the same kernels; and the one-kernel workload
/// (--no-normalize) on pipescope and the minimal reference.
bool printStreamsTable(Backend& backend, int reps) {
  setSchedule(cudaDeviceScheduleBlockingSync);
  backend.keepBuffersBetweenRuns(true);  // pinning 1 GiB takes ~0.4 s: once per stream count, outside the makespan
  std::vector<std::string> table, oneKernel, diagnostics;
  double bestMs = 0, bestEff = 0;
  int bestStreams = 0;
  char line[512];
  for (int streams : kStreamCounts) {
    const PipelineConfig c = streamsConfig(streams);
    PipelineConfig plain = c;
    plain.normalizeKernel = false;
    bench::MinimalPipeline minimal(c);
    Reference mirror(c);
    const bench::MinimalPipeline::Options sameKernels{c.normalizeKernel, 0, false, false, false};
    minimal.run(sameKernels);
    minimal.run({});
    mirror.run();
    runPipescope(backend, c);
    runPipescope(backend, plain);
    std::vector<double> mt, m1t, rt;
    PipescopeMedians p, n;
    for (int i = 0; i < reps; ++i) {
      mt.push_back(minimal.run(sameKernels));
      m1t.push_back(minimal.run({}));
      rt.push_back(mirror.run());
      const PipescopeRun pr = runPipescope(backend, c);
      const PipescopeRun nr = runPipescope(backend, plain);
      if (!pr.ok || !nr.ok) return false;
      p.add(pr);
      n.add(nr);
    }
    const double m = median(mt), m1 = median(m1t), r = median(rt), pm = median(p.makespan), nm = median(n.makespan);
    std::snprintf(line, sizeof line, "| %d | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %.1f%% | %.1f%% | %.1f%% |\n",
                  streams, m, r, pm, pm / m, pm / r, median(p.ideal), 100 * median(p.eff), 100 * maxOf(p.eff),
                  100 * median(p.ideal) / m);
    table.push_back(line);
    std::snprintf(line, sizeof line, "| %d | %.2f | %.2f | %.3f | %.2f | %.1f%% | %.1f%% | %.1f%% |\n", streams, m1, nm,
                  nm / m1, median(n.ideal), 100 * median(n.eff), 100 * maxOf(n.eff), 100 * median(n.ideal) / m1);
    oneKernel.push_back(line);
    std::snprintf(line, sizeof line, "| %d | %.2f | %.2f | %.2f | %.2f–%.2f |\n", streams, median(p.sync),
                  median(p.api), median(p.idle), *std::min_element(p.makespan.begin(), p.makespan.end()),
                  maxOf(p.makespan));
    diagnostics.push_back(line);
    if (bestStreams == 0 || pm < bestMs) {
      bestMs = pm;
      bestEff = median(p.eff);
      bestStreams = streams;
    }
  }
  backend.keepBuffersBetweenRuns(false);
  std::printf("\nstreams table: preset multi-stream (32 batches x 32 MiB: H2D, normalize, model at %.0f flops/byte, "
              "D2H; pinned, depth-first) at 1-16 streams; median of %d runs each, all columns alternating. minimal = "
              "the plainest pipeline with the same kernels (one sync at the end); mirror = pipescope's algorithm "
              "uninstrumented; eff. = ideal / makespan per run (median, max)\n\n",
              streamsConfig(1).modelFlopsPerByte, reps);
  std::printf("| streams | minimal ms | mirror ms | pipescope ms | pipescope / minimal | pipescope / mirror | ideal ms | "
              "pipescope eff. | max eff. | minimal eff. |\n");
  std::printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const std::string& l : table) std::printf("%s", l.c_str());
  std::printf("\nbest stream count for pipescope: %d (%.2f ms, %.1f%% of the ideal bound)\n", bestStreams, bestMs,
              100 * bestEff);
  std::printf("\none kernel per batch (--no-normalize): the issue's minimal pipeline against pipescope\n\n");
  std::printf("| streams | minimal ms | pipescope ms | pipescope / minimal | ideal ms | pipescope eff. | max eff. | "
              "minimal eff. |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const std::string& l : oneKernel) std::printf("%s", l.c_str());
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
      {"+ slot sync + normalize + CUPTI (pipescope before issue 17)", {true, -1, false, false, true}},
      {"+ event wait for batch b-2·streams (two host slots per stream)", {false, -2, true, false, false}},
      {"+ event wait b-2·streams + normalize + CUPTI (pipescope now)", {true, -2, true, false, true}},
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


// ----------------------------------------------------------------- long runs
/// The submit thread's cost per batch must not grow with the run: a run of many tiny
/// batches (72 KiB, 8 streams) timed per batch over its first and its last tenth, and
/// against a run ten times shorter. Both ratios are ~1 when pipescope's own per-batch
/// work is constant; before issue 17's fix they grew linearly (5000 batches: 12x).
bool printLongRunTable(Backend& backend, int reps) {
  PipelineConfig c;
  c.batchSamples = 1;
  c.sampleBytes = 72 * 1024;
  c.streams = 8;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pinned;
  struct Run {
    double perBatchUs = 0, firstUs = 0, lastUs = 0;
  };
  auto once = [&](int batches) -> Run {
    PipelineConfig r = c;
    r.batchCount = batches;
    Trace trace;
    trace.setConfig(r);
    RunControl control;
    const RunOutcome o = backend.run(r, trace, control);
    Run out;
    if (o.state != RunState::Finished) {
      std::fprintf(stderr, "long run failed: %s\n", o.message.c_str());
      return out;
    }
    // Batch b's first submit-thread op: when the host began issuing it.
    std::vector<std::int64_t> begin(std::size_t(batches), INT64_MAX);
    std::int64_t first = INT64_MAX, last = INT64_MIN;
    trace.ops().snapshot().forEach([&](const Op& op) {
      first = std::min(first, op.start);
      last = std::max(last, op.end);
      if (op.kind == OpKind::ApiCall && op.batch >= 0 && op.batch < batches)
        begin[std::size_t(op.batch)] = std::min(begin[std::size_t(op.batch)], op.start);
    });
    const std::size_t tenth = std::size_t(batches / 10);
    out.perBatchUs = double(last - first) / 1e3 / batches;
    out.firstUs = double(begin[tenth] - begin[0]) / 1e3 / double(tenth);
    out.lastUs = double(begin[std::size_t(batches) - 1] - begin[std::size_t(batches) - 1 - tenth]) / 1e3 / double(tenth);
    return out;
  };
  once(200);  // warm-up
  std::vector<double> shortRun, longRun, firstTenth, lastTenth;
  for (int i = 0; i < reps; ++i) {
    shortRun.push_back(once(500).perBatchUs);
    const Run l = once(5000);
    longRun.push_back(l.perBatchUs);
    firstTenth.push_back(l.firstUs);
    lastTenth.push_back(l.lastUs);
  }
  std::printf("\nlong runs: 72 KiB batches, 8 streams, pinned, median of %d (µs per batch)\n\n", reps);
  std::printf("| 500 batches | 5000 batches | 5000 / 500 | first tenth | last tenth | last / first |\n");
  std::printf("| ---: | ---: | ---: | ---: | ---: | ---: |\n");
  const double s = median(shortRun), l = median(longRun), f = median(firstTenth), t = median(lastTenth);
  std::printf("| %.2f | %.2f | %.3f | %.2f | %.2f | %.3f |\n", s, l, s > 0 ? l / s : 0, f, t, f > 0 ? t / f : 0);
  return s > 0;
}

// ----------------------------------------------------------------- tiny batches
/// Recording's cost per batch where a batch is a few microseconds of GPU work and many
/// batches are in flight: retiring a batch must cost what it finalises, not what the
/// other streams still hold. Mirror and pipescope alternate, `reps` runs each.
bool printTinyBatchTable(Backend& backend, int reps) {
  setSchedule(cudaDeviceScheduleBlockingSync);
  backend.keepBuffersBetweenRuns(true);
  constexpr int kBatches = 3000;
  std::printf("\ntiny batches: 64 KiB pinned, async, %d batches, median of %d runs, mirror and pipescope "
              "alternating\n\n", kBatches, reps);
  std::printf("| streams | mirror ms | pipescope ms | ratio | pipescope - mirror, µs per batch |\n");
  std::printf("| ---: | ---: | ---: | ---: | ---: |\n");
  for (int streams : {1, 4, 16}) {
    PipelineConfig c;
    c.batchSamples = 1;
    c.sampleBytes = 64 * 1024;
    c.batchCount = kBatches;
    c.streams = streams;
    c.mode = TransferMode::Async;
    c.memory = HostMemory::Pinned;
    Reference mirror(c);
    mirror.run();          // warm-up
    runPipescope(backend, c);  // warm-up
    std::vector<double> rt, pt;
    for (int i = 0; i < reps; ++i) {
      rt.push_back(mirror.run());
      const PipescopeRun pr = runPipescope(backend, c);
      if (!pr.ok) return false;
      pt.push_back(pr.makespanMs);
    }
    const double r = median(rt), p = median(pt);
    std::printf("| %d | %.2f | %.2f | %.3f | %.2f |\n", streams, r, p, p / r, (p - r) * 1e3 / kBatches);
    std::fflush(stdout);
  }
  return true;
}

int main(int argc, char** argv) {
  int reps = 5;
  bool streamsTable = false, breakdown = false, mirrorTable = false, longRuns = false, tinyBatches = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--streams-table") streamsTable = true;
    else if (a == "--breakdown") breakdown = true;
    else if (a == "--mirror-table") mirrorTable = true;
    else if (a == "--long-runs") longRuns = true;
    else if (a == "--tiny-batches") tinyBatches = true;
    else if (!a.empty() && a.find_first_not_of("0123456789") == std::string_view::npos) reps = std::max(1, std::atoi(argv[i]));
    else {
      std::fprintf(stderr, "unknown argument '%s': usage gpu_pipeline_bench [reps] [--streams-table] [--breakdown] "
                           "[--mirror-table] [--long-runs] [--tiny-batches]\n", argv[i]);
      return 2;
    }
  }
  if (!streamsTable && !breakdown && !longRuns && !tinyBatches) mirrorTable = true;
  // pipescope's backend comes from the module, as in the programs; the references run
  // this program's own CUDA code (its kernels are the backend's, compiled in here too).
  const CudaModuleLoad& cudaLoad = loadCudaModule();
  if (!cudaLoad.module) {
    std::fprintf(stderr, "%s\n", cudaLoad.error.c_str());
    return 1;
  }
  const CudaProbe probe = cudaLoad.module->probe();
  if (probe.status != CudaProbe::Status::Available) {
    std::printf("no CUDA device (%s): nothing to measure\n", probe.message.c_str());
    return 0;
  }
  std::string error;
  auto backend = cudaLoad.module->makeBackend(0, error);
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
  if (longRuns && !printLongRunTable(*backend, reps)) return 1;
  if (tinyBatches && !printTinyBatchTable(*backend, reps)) return 1;
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
  struct Measured {
    double makespanMs = 0, flushes = 0, flushMs = 0;  ///< pipescope's median, its CUPTI flushes per run
  };
  std::map<std::string, Measured> measured;
  backend->keepBuffersBetweenRuns(true);  // pin once per block of rows, outside every makespan
  for (const Row& row : rows) {
    Reference ref(row.config);
    ref.run();                            // warm-up
    runPipescope(*backend, row.config);   // warm-up
    std::vector<double> rt, pt, ideals, effs;
    PipescopeRun pr;
    const CuptiFlushStats flush0 = cudaLoad.module->cuptiFlushStats();  // pipescope's flushes only
    for (int i = 0; i < reps; ++i) {
      rt.push_back(ref.run());
      pr = runPipescope(*backend, row.config);
      if (!pr.ok) return 1;
      pt.push_back(pr.makespanMs);
      ideals.push_back(pr.idealMs);
      effs.push_back(pr.efficiency);
    }
    const CuptiFlushStats flush1 = cudaLoad.module->cuptiFlushStats();
    const double r = median(rt), p = median(pt);
    measured[row.name] = {p, double(flush1.count - flush0.count) / reps, double(flush1.ns - flush0.ns) / 1e6 / reps};
    // Efficiency per run, then the median: a bound from one run over another run's
    // makespan once printed 154% on an H100.
    std::printf("| %s | %.2f | %.2f | %.3f | %.2f | %.1f%% |\n", row.name.c_str(), r, p, p / r, median(ideals),
                100.0 * median(effs));
    if (row.name == "blocking pinned") lastPinned = pr;
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
  // Where the instrumentation's cost comes from: the reference with CUPTI collecting
  // (pipescope's column from the makespan table above). The bench's own copy of the
  // tracer registers CUPTI's buffer callbacks too; the backend takes them back at each
  // run's start.
  std::printf("\ninstrumentation cost breakdown, median of %d (ms)\n\n", reps);
  std::printf("| configuration | reference | + CUPTI kernel/memcpy | + CUPTI API records | pipescope | flushes (count, ms) |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
  for (const Row& row : rows) {
    if (row.name != "blocking pinned" && row.name != "async pinned 4 streams" && row.name != "async pinned 8 streams")
      continue;
    Reference ref(row.config);
    std::vector<double> r0, r1, r2;
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
    }
    const Measured& m = measured[row.name];
    std::printf("| %s | %.2f | %.2f | %.2f | %.2f | %.1f, %.3f |\n", row.name.c_str(), median(r0), median(r1),
                median(r2), m.makespanMs, m.flushes, m.flushMs);
    std::fflush(stdout);
  }

  return 0;
}
