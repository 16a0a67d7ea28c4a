// In one process, alternating: pipescope's CUDA backend over several GPUs against the
// hand-written reference (gpu_multigpu_reference.h) doing the same work with the same
// streams and NCCL calls, and the all-reduce bus bandwidth pipescope reports against a
// plain loop of ncclAllReduce. Prints markdown tables.
//
// Usage: gpu_multigpu_bench [reps] [--gpus N]   (default 5 repetitions, every GPU up to 8)
// Targets (docs/performance.md, "Several GPUs"): makespan pipescope / reference <= 1.03
// for data parallel with and without buckets and for pipeline parallel; the bus
// bandwidth of a 256 MiB all-reduce within 3 % of the plain loop's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "backend/CudaModule.h"
#include "cuda/CuptiTracer.h"
#include "gpu_multigpu_reference.h"
#include "metrics/Metrics.h"

using namespace pipescope;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double busGBps(std::uint64_t bytes, double ns, int gpus) {
  return ns > 0 ? double(bytes) / ns * 2.0 * double(gpus - 1) / double(gpus) : 0;
}

struct PipescopeRun {
  bool ok = false;
  double makespanMs = 0;
  double allReduceNs = 0;     ///< median duration of the all-reduces as a whole (last GPU's start to the end)
  double allReduceGpuNs = 0;  ///< median duration of one GPU's all-reduce kernel
  double busGBps = 0;         ///< the bus bandwidth pipescope's metrics report (Metrics::multiGpu)
  std::vector<double> callNs;  ///< host time of each group all-reduce call (its API op)
  std::string timing;
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
  const std::vector<Lane> lanes = trace.lanes();
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  std::vector<double> whole, perGpu;
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.kind == OpKind::ApiCall && trace.opName(op) == "ncclAllReduce") r.callNs.push_back(double(op.duration()));
    first = std::min(first, op.start);
    last = std::max(last, op.end);
    if (op.kind != OpKind::Collective) return;
    (lanes[op.lane].kind == LaneKind::Collective ? whole : perGpu).push_back(double(op.duration()));
  });
  r.makespanMs = double(last - first) / 1e6;
  const Metrics m = computeMetrics(trace);
  if (m.multiGpu) r.busGBps = m.multiGpu->allreduceBusGBps;
  r.allReduceNs = median(whole);
  r.allReduceGpuNs = median(perGpu);
  r.timing = trace.device().timingSource;
  r.ok = true;
  return r;
}

std::vector<int> firstGpus(int n) {
  std::vector<int> d;
  for (int g = 0; g < n; ++g) d.push_back(g);
  return d;
}

/// The compared configurations: 32 MiB batches, kernel about as long as a copy.
std::vector<std::pair<std::string, PipelineConfig>> configurations(int gpus) {
  PipelineConfig base;
  base.devices = firstGpus(gpus);
  base.batchSamples = 64;
  base.sampleBytes = 512 * 1024;
  base.streams = 2;
  base.modelFlopsPerByte = 1050;
  std::vector<std::pair<std::string, PipelineConfig>> rows;
  PipelineConfig d = base;
  d.parallel = ParallelMode::Data;
  d.batchCount = 16 * gpus;
  d.allreduceBytes = 64ull << 20;
  d.buckets = 0;
  rows.emplace_back("data parallel, 64 MiB all-reduce after all compute (buckets 0)", d);
  d.buckets = 4;
  rows.emplace_back("data parallel, 64 MiB all-reduce in 4 buckets", d);
  d.allreduceBytes = 0;
  rows.emplace_back("data parallel, no all-reduce", d);
  PipelineConfig p = base;
  p.parallel = ParallelMode::Pipeline;
  p.batchCount = 16;
  p.streams = 1;
  p.microBatches = 4;
  p.activationBytes = 16ull << 20;
  rows.emplace_back("pipeline parallel, 4 micro-batches, 16 MiB activations", p);
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  // NVLink multicast stays off here too, whatever the environment says (before NCCL starts).
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  int reps = 5, gpus = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--gpus" && i + 1 < argc) {
      gpus = std::atoi(argv[++i]);
    } else if (!a.empty() && a.find_first_not_of("0123456789") == std::string_view::npos) {
      reps = std::max(1, std::atoi(argv[i]));
    } else {
      std::fprintf(stderr, "unknown argument '%s': usage gpu_multigpu_bench [reps] [--gpus N]\n", argv[i]);
      return 2;
    }
  }
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
  if (gpus == 0) gpus = std::min(probe.deviceCount, limits::kMaxGpus);
  if (probe.deviceCount < 2 || gpus < 2) {
    std::printf("needs 2 GPUs; this machine has %d: nothing to measure\n", probe.deviceCount);
    return 0;
  }
  if (gpus > probe.deviceCount) {
    std::fprintf(stderr, "--gpus %d but this machine has %d GPUs\n", gpus, probe.deviceCount);
    return 2;
  }
  std::string error;
  auto backend = cudaLoad.module->makeBackend(0, error);
  if (!backend) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  for (int g = 0; g < gpus; ++g) {
    cudaDeviceProp prop{};
    PIPESCOPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, g));
    std::printf("GPU %d: %s\n", g, prop.name);
  }

  try {
    std::printf("\nmakespan over %d GPUs, median of %d runs each, reference and pipescope alternating\n\n", gpus,
                reps);
    std::printf("| configuration | reference ms | pipescope ms | pipescope / reference |\n| --- | ---: | ---: | ---: |\n");
    bool ok = true;
    struct CallTimes {
      std::string name;
      double reference = 0, pipescope = 0;
    };
    std::vector<CallTimes> calls;
    for (const auto& [name, c] : configurations(gpus)) {
      bench::MultiGpuReference ref(c);
      ref.run();                      // warm-up
      runPipescope(*backend, c);      // warm-up
      std::vector<double> rt, pt, pCalls;
      std::string timing;
      for (int i = 0; i < reps; ++i) {
        rt.push_back(ref.run());
        const PipescopeRun p = runPipescope(*backend, c);
        if (!p.ok) return 1;
        pt.push_back(p.makespanMs);
        pCalls.insert(pCalls.end(), p.callNs.begin(), p.callNs.end());
        timing = p.timing;
      }
      calls.push_back({name, median(ref.callNs()), median(pCalls)});
      const double r = median(rt), p = median(pt);
      std::printf("| %s | %.2f | %.2f | %.3f |\n", name.c_str(), r, p, p / r);
      std::fflush(stdout);
      ok = ok && p / r <= 1.03;
      if (timing != "CUPTI") std::printf("(pipescope timed with %s)\n", timing.c_str());
    }

    // Where a gap comes from: the host time of one group all-reduce call (NCCL's launch
    // of a kernel on every GPU, and in pipescope CUPTI's records of the calls inside).
    std::printf("\nhost time of one group all-reduce call, median us\n\n| configuration | reference | pipescope |\n"
                "| --- | ---: | ---: |\n");
    for (const CallTimes& c : calls)
      if (c.reference > 0 || c.pipescope > 0)
        std::printf("| %s | %.1f | %.1f |\n", c.name.c_str(), c.reference / 1e3, c.pipescope / 1e3);
    // Bus bandwidth of a 256 MiB all-reduce: a plain ncclAllReduce loop (nccl-tests'
    // definition) against what pipescope records for the same all-reduce, one per step
    // of a data-parallel run whose kernels are tiny.
    const std::size_t bytes = 256ull << 20;
    PipelineConfig bw;
    bw.devices = firstGpus(gpus);
    bw.parallel = ParallelMode::Data;
    bw.batchSamples = 1;
    bw.sampleBytes = 64 * 1024;
    bw.streams = 1;
    bw.modelFlopsPerByte = 1;
    bw.batchCount = 20 * gpus;
    bw.allreduceBytes = bytes;
    bw.buckets = 1;
    runPipescope(*backend, bw);
    std::vector<double> plain, reported, whole, perGpu;
    for (int i = 0; i < reps; ++i) {
      plain.push_back(bench::plainAllReduceNs(bw.devices, bytes, 5, 20));
      const PipescopeRun p = runPipescope(*backend, bw);
      if (!p.ok) return 1;
      reported.push_back(p.busGBps);
      whole.push_back(p.allReduceNs);
      perGpu.push_back(p.allReduceGpuNs);
    }
    const double plainBus = busGBps(bytes, median(plain), gpus), reportedBus = median(reported);
    const double wholeBus = busGBps(bytes, median(whole), gpus), gpuBus = busGBps(bytes, median(perGpu), gpus);
    std::printf("\nall-reduce of 256 MiB over %d GPUs, bus bandwidth GB/s (algbw x 2(n-1)/n), median of %d\n\n", gpus,
                reps);
    std::printf("| plain ncclAllReduce loop | pipescope reports | ratio | median call as a whole | one GPU's kernel |\n"
                "| ---: | ---: | ---: | ---: | ---: |\n");
    std::printf("| %.1f | %.1f | %.3f | %.1f | %.1f |\n", plainBus, reportedBus, reportedBus / plainBus, wholeBus,
                gpuBus);
    ok = ok && plainBus > 0 && std::abs(reportedBus / plainBus - 1.0) <= 0.03;
    // Which part of pipescope's instrumentation the group calls pay for: the reference
    // again with CUPTI collecting GPU records only, then API records too. Last: the
    // bench's own CUPTI client takes CUPTI's buffer callbacks from the backend's, so no
    // pipescope run may follow it in this process.
    std::printf("\nreference with CUPTI collecting, median of %d: makespan ms / host time of one group call us\n\n"
                "| configuration | reference | + CUPTI kernel/memcpy | + CUPTI API records |\n| --- | ---: | ---: | ---: |\n",
                reps);
    for (const auto& [name, c] : configurations(gpus)) {
      if (!c.allReduces()) continue;
      std::vector<double> ms[3], callNs[3];
      for (int api = -1; api < 2; ++api) {
        bench::MultiGpuReference ref(c);
        ref.run();  // warm-up
        const std::size_t warmCalls = ref.callNs().size();
        cuda::CuptiTracer tracer;
        std::string why;
        if (api >= 0 && !tracer.start(why, api == 1)) {
          std::printf("CUPTI unavailable: %s\n", why.c_str());
          break;
        }
        for (int i = 0; i < reps; ++i) ms[api + 1].push_back(ref.run());
        if (api >= 0) tracer.stop();
        callNs[api + 1].assign(ref.callNs().begin() + std::ptrdiff_t(warmCalls), ref.callNs().end());
      }
      std::printf("| %s | %.2f / %.1f | %.2f / %.1f | %.2f / %.1f |\n", name.c_str(), median(ms[0]),
                  median(callNs[0]) / 1e3, median(ms[1]), median(callNs[1]) / 1e3, median(ms[2]),
                  median(callNs[2]) / 1e3);
      std::fflush(stdout);
    }
    std::printf("\ntargets (makespan ratio <= 1.03, bus bandwidth within 3 %%): %s\n", ok ? "met" : "NOT met");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_multigpu_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
