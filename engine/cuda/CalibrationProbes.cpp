#include "cuda/CalibrationProbes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

#include <cublas_v2.h>

#include "config/ModelWork.h"
#include "cuda/CpuWork.h"
#include "cuda/CudaError.h"
#include "cuda/CudaResources.h"
#include "cuda/CuptiTracer.h"
#include "cuda/Kernels.h"
#include "cuda/WorkerPool.h"

namespace pipescope::cuda {

namespace {

constexpr std::size_t kKiB = 1024, kMiB = 1024 * 1024;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string fmt(double v, int digits = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string sizeText(std::size_t bytes) {
  return bytes >= kMiB ? std::to_string(bytes / kMiB) + "M" : std::to_string(bytes / kKiB) + "K";
}

/// Managed-memory sizes: the random validation's batches reach 256 MiB, its faults
/// are dominated by fixed costs below a MiB.
std::vector<std::size_t> managedSizes(bool quick) {
  if (quick) return {256 * kKiB, 4 * kMiB};
  return {64 * kKiB, 256 * kKiB, 1 * kMiB, 4 * kMiB, 16 * kMiB, 64 * kMiB};
}

}  // namespace

double eventTimedNs(cudaStream_t stream, int reps, const std::function<void()>& before,
                    const std::function<void()>& issue) {
  Event a = Event::create(true), b = Event::create(true);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    if (before) before();
    PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(a.get(), stream));
    issue();
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(b.get(), stream));
    PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(b.get()));
    float ms = 0;
    PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
    t.push_back(double(ms) * 1e6);
  }
  return median(t);
}

double gpuPeriodNs(cudaStream_t stream, int n, const std::function<void()>& issue) {
  issue();  // warm-up (module load, first touch)
  PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  return eventTimedNs(stream, 1, {}, [&] {
           for (int i = 0; i < n; ++i) issue();
         }) /
         n;
}

GemmCalibration calibrateGemm(ModelPreset preset, cudaStream_t stream, CuptiTracer& tracer, double kernelGapNs,
                              bool quick, const CalibrationLog& log) {
  const GemmShape g = gemmShape(preset);
  const std::size_t rowBytes = std::size_t(g.width) * sizeof(float);
  const std::size_t maxBytes = quick ? 16 * kMiB : 256 * kMiB;
  DeviceBuffer x(maxBytes, "GEMM input"), y(maxBytes, "GEMM output");
  DeviceBuffer w(std::size_t(g.width) * g.width * sizeof(float), "GEMM weights");
  PIPESCOPE_CUDA_CHECK(cudaMemset(x.get(), 0, maxBytes));
  PIPESCOPE_CUDA_CHECK(cudaMemset(w.get(), 0, w.bytes()));
  CublasHandle blas = CublasHandle::create();
  PIPESCOPE_CUBLAS_CHECK(cublasSetStream(blas.get(), stream));
  PIPESCOPE_CUBLAS_CHECK(cublasSetMathMode(blas.get(), CUBLAS_TF32_TENSOR_OP_MATH));
  const float alpha = 1.0f, beta = 0.0f;
  auto sgemm = [&](std::size_t rows) {
    PIPESCOPE_CUBLAS_CHECK(cublasSgemm(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, g.width, int(rows), g.width, &alpha,
                                       static_cast<const float*>(w.get()), g.width,
                                       static_cast<const float*>(x.get()), g.width, &beta,
                                       static_cast<float*>(y.get()), g.width));
  };
  // Each size's calls are queued behind a long kernel, so the GPU runs them back to
  // back: their GPU time, not the host's call rate (small GEMMs are shorter than the
  // call that issues them), while the host's time per call is taken in the same loop,
  // with a CUPTI external correlation id around each call as the backend does.
  const std::size_t holdFloats = std::min<std::size_t>(maxBytes, 32 * kMiB) / sizeof(float);
  const std::uint32_t holdFmas = modelFmasPerElement(3200.0);
  auto hold = [&] {
    for (int i = 0; i < 4; ++i)  // about 7 ms on an H100: longer than 100 calls take to issue
      PIPESCOPE_CUDA_CHECK(launchModel(static_cast<const float*>(x.get()), holdFloats, static_cast<float*>(y.get()),
                                       holdFloats, holdFmas, stream));
  };
  Event a = Event::create(true), b = Event::create(true);
  std::uint64_t id = 1ull << 40;  // apart from the calibration's other ids
  GemmCalibration out;
  std::vector<double> callNs;
  std::string line = std::string(toString(preset)) + " GEMM layer (" + std::to_string(g.width) + " wide), us by rows:";
  std::string calls = "; cublasSgemm call, us by rows:";
  // Rows from a 16 KiB activation up to the largest batch, x4 per step.
  for (std::size_t rows = std::max<std::size_t>(16, 16 * kKiB / rowBytes); rows * rowBytes <= maxBytes; rows *= 4) {
    const double estimateNs = 5000 + 2.0 * double(rows) * g.width * g.width / 100e3;  // at ~100 TFLOP/s
    const int n = int(std::clamp(20e6 / estimateNs, 5.0, 100.0));
    sgemm(rows);  // warm-up: cuBLAS picks and loads its kernel for this shape
    std::vector<double> gpu, host;
    for (int rep = 0; rep < 3; ++rep) {
      PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));
      hold();
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(a.get(), stream));
      const std::int64_t t0 = steadyNowNs();
      for (int i = 0; i < n; ++i) {
        if (tracer.active()) tracer.push(++id);
        sgemm(rows);
        if (tracer.active()) tracer.pop();
      }
      host.push_back(double(steadyNowNs() - t0) / n);
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(b.get(), stream));
      PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(b.get()));
      float ms = 0;
      PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
      gpu.push_back(double(ms) * 1e6 / n);
    }
    const double ns = std::max(1.0, median(gpu) - kernelGapNs);
    out.curve.push_back({rows, ns});
    callNs.push_back(median(host));
    line += " " + std::to_string(rows) + "=" + fmt(ns / 1e3, 1);
    calls += " " + std::to_string(rows) + "=" + fmt(callNs.back() / 1e3, 1);
  }
  PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  // One call cost for every size (the profile has one): the median over the sizes.
  out.callNs = median(callNs);
  line += calls;
  if (log) log(line + "; cublasSgemm call " + fmt(out.callNs) + " ns");
  return out;
}

ManagedCalibration calibrateManaged(cudaStream_t stream, double normalizeOwnNsPerByte, double normalizeFixedNs,
                                    int device, bool quick, const CalibrationLog& log) {
  ManagedCalibration out;
  const auto sizes = managedSizes(quick);
  const std::size_t largest = sizes.back();
  HostBuffer managed(HostMemory::Managed, largest, "managed buffer");
  HostBuffer pinned(HostMemory::Pinned, largest, "pinned host buffer");
  DeviceBuffer dev(largest, "device buffer");
  auto* m = static_cast<float*>(managed.host());
  auto* d = static_cast<float*>(dev.get());
  std::memset(pinned.host(), 1, largest);
  PIPESCOPE_CUDA_CHECK(cudaMemset(dev.get(), 0, largest));
  cudaMemLocation onDevice{}, onHost{};
  onDevice.type = cudaMemLocationTypeDevice;
  onDevice.id = device;
  onHost.type = cudaMemLocationTypeHost;
  onHost.id = 0;
  auto toHost = [&](std::size_t bytes) { std::memset(m, 1, bytes); };  // the CPU writes: pages come to the host
  auto toDevice = [&](std::size_t bytes) {                             // a kernel writes: pages go to the device
    PIPESCOPE_CUDA_CHECK(launchNormalize(d, m, bytes / sizeof(float), stream));
    PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  };
  std::string gpuLine = "managed: kernel faulting pages in, GB/s:", cpuLine = "managed: CPU faulting pages back, GB/s:",
              writeLine = "managed: CPU writing pages the GPU holds, GB/s:",
              inLine = "managed: prefetch to the GPU, GB/s:", outLine = "managed: prefetch to the CPU, GB/s:";
  for (std::size_t bytes : sizes) {
    const std::size_t n = bytes / sizeof(float);
    // Small sizes vary most (64 KiB faulting in: 0.12 and 0.56 GB/s in two H200
    // calibrations with 5 repetitions); they are also the cheapest to repeat.
    const int reps = bytes >= 16 * kMiB ? 3 : bytes >= kMiB ? 7 : 15;
    // GPU side: normalize reads pages the host just wrote; its own time comes off.
    const double kernel = eventTimedNs(stream, reps, [&] { toHost(bytes); },
                                       [&] { PIPESCOPE_CUDA_CHECK(launchNormalize(m, d, n, stream)); });
    const double own = normalizeFixedNs + normalizeOwnNsPerByte * double(bytes);
    out.gpuFault.push_back({bytes, double(bytes) / std::max(kernel - own, kernel * 0.05)});
    // CPU side: postprocessing's read of pages a kernel just wrote, minus the same read
    // of pinned host memory.
    std::vector<double> faulted, plain;
    volatile double sink = 0;
    for (int r = 0; r < reps; ++r) {
      toDevice(bytes);
      std::int64_t a = steadyNowNs();
      sink = sink + postprocessShare(m, n, 0.0, 0, 1);
      faulted.push_back(double(steadyNowNs() - a));
      a = steadyNowNs();
      sink = sink + postprocessShare(static_cast<const float*>(pinned.host()), n, 0.0, 0, 1);
      plain.push_back(double(steadyNowNs() - a));
    }
    const double cpu = median(faulted) - median(plain);
    out.cpuFault.push_back({bytes, double(bytes) / std::max(cpu, median(faulted) * 0.05)});
    // Preprocessing's write of pages the device holds (a kernel wrote them), minus the
    // same write of pinned memory: in the pipeline traces that write took 2-3x the
    // read curve's time, so it gets its own curve.
    faulted.clear();
    plain.clear();
    for (int r = 0; r < reps; ++r) {
      toDevice(bytes);
      std::int64_t a = steadyNowNs();
      preprocessShare(m, n, r, 0.0, 0, 1);
      faulted.push_back(double(steadyNowNs() - a));
      a = steadyNowNs();
      preprocessShare(static_cast<float*>(pinned.host()), n, r, 0.0, 0, 1);
      plain.push_back(double(steadyNowNs() - a));
    }
    const double write = median(faulted) - median(plain);
    out.cpuWriteFault.push_back({bytes, double(bytes) / std::max(write, median(faulted) * 0.05)});
    // Prefetches that move every page.
    const double in = eventTimedNs(stream, reps, [&] { toHost(bytes); },
                                   [&] { PIPESCOPE_CUDA_CHECK(cudaMemPrefetchAsync(m, bytes, onDevice, 0, stream)); });
    out.prefetchToDevice.push_back({bytes, double(bytes) / std::max(in, 1.0)});
    const double back = eventTimedNs(stream, reps, [&] { toDevice(bytes); },
                                     [&] { PIPESCOPE_CUDA_CHECK(cudaMemPrefetchAsync(m, bytes, onHost, 0, stream)); });
    out.prefetchToHost.push_back({bytes, double(bytes) / std::max(back, 1.0)});
    const std::string s = " " + sizeText(bytes) + "=";
    gpuLine += s + fmt(out.gpuFault.back().gbps, 2);
    cpuLine += s + fmt(out.cpuFault.back().gbps, 2);
    writeLine += s + fmt(out.cpuWriteFault.back().gbps, 2);
    inLine += s + fmt(out.prefetchToDevice.back().gbps, 2);
    outLine += s + fmt(out.prefetchToHost.back().gbps, 2);
  }
  if (log) {
    log(gpuLine);
    log(cpuLine);
    log(writeLine);
    log(inLine);
    log(outLine);
  }
  return out;
}

CpuWrittenCalibration calibrateCpuWritten(cudaStream_t stream, double copyLatencyNs, bool quick,
                                          const CalibrationLog& log) {
  CpuWrittenCalibration out;
  const auto sizes = managedSizes(quick);
  const std::size_t largest = sizes.back();
  HostBuffer pinned(HostMemory::Pinned, largest, "pinned host buffer");
  HostBuffer mapped(HostMemory::Mapped, largest, "mapped host buffer");
  DeviceBuffer dev(largest, "device buffer");
  auto* d = static_cast<float*>(dev.get());
  const auto* src = static_cast<const float*>(mapped.device());
  std::memset(pinned.host(), 1, largest);
  std::memset(mapped.host(), 1, largest);
  std::string copyLine = "H2D pinned copy of bytes the CPU just wrote, GB/s:";
  std::string mappedLine = "mapped read by a kernel of bytes the CPU just wrote, GB/s:";
  int value = 0;
  for (std::size_t bytes : sizes) {
    const int reps = bytes >= 16 * kMiB ? 3 : bytes >= kMiB ? 7 : 15;
    const double copy = eventTimedNs(stream, reps, [&] { std::memset(pinned.host(), ++value & 0xff, bytes); },
                                     [&] {
                                       PIPESCOPE_CUDA_CHECK(
                                           cudaMemcpyAsync(d, pinned.host(), bytes, cudaMemcpyHostToDevice, stream));
                                     });
    out.h2dPinned.push_back({bytes, double(bytes) / std::max(copy - copyLatencyNs, copy * 0.05)});
    const double kernel = eventTimedNs(stream, reps, [&] { std::memset(mapped.host(), ++value & 0xff, bytes); },
                                       [&] {
                                         PIPESCOPE_CUDA_CHECK(launchNormalize(src, d, bytes / sizeof(float), stream));
                                       });
    out.mappedRead.push_back({bytes, double(bytes) / std::max(kernel, 1.0)});
    copyLine += " " + sizeText(bytes) + "=" + fmt(out.h2dPinned.back().gbps, 2);
    mappedLine += " " + sizeText(bytes) + "=" + fmt(out.mappedRead.back().gbps, 2);
  }
  if (log) {
    log(copyLine);
    log(mappedLine);
  }
  return out;
}

double calibrateMappedWrite(cudaStream_t stream, double tinyPeriodNs, const CalibrationLog& log) {
  const std::size_t bytes = 32 * kMiB, n = bytes / sizeof(float);
  HostBuffer mapped(HostMemory::Mapped, bytes, "mapped host buffer");
  DeviceBuffer dev(bytes, "device buffer");
  PIPESCOPE_CUDA_CHECK(cudaMemset(dev.get(), 0, bytes));
  auto* dst = static_cast<float*>(mapped.device());
  const double period = gpuPeriodNs(stream, 5, [&] {
    PIPESCOPE_CUDA_CHECK(launchNormalize(static_cast<const float*>(dev.get()), dst, n, stream));
  });
  const double gbps = double(bytes) / std::max(1.0, period - tinyPeriodNs);
  if (log) log("mapped (zero-copy) write by the normalize kernel: " + fmt(gbps, 2) + " GB/s");
  return gbps;
}

double calibrateMappedDuplex(cudaStream_t stream, double tinyPeriodNs, const CalibrationLog& log) {
  const std::size_t bytes = 32 * kMiB, n = bytes / sizeof(float);
  HostBuffer in(HostMemory::Mapped, bytes, "mapped host buffer");
  HostBuffer out(HostMemory::Mapped, bytes, "mapped host buffer");
  std::memset(in.host(), 1, bytes);
  std::memset(out.host(), 0, bytes);
  const auto* src = static_cast<const float*>(in.device());
  auto* dst = static_cast<float*>(out.device());
  const double period = gpuPeriodNs(stream, 5, [&] { PIPESCOPE_CUDA_CHECK(launchNormalize(src, dst, n, stream)); });
  const double gbps = 2.0 * double(bytes) / std::max(1.0, period - tinyPeriodNs);
  if (log) log("mapped (zero-copy) read and write by one kernel at once (32 MiB each way): " + fmt(gbps, 2) +
               " GB/s together");
  return gbps;
}

std::vector<CallAfterStagePoint> calibrateCallAfterCpuStage(cudaStream_t stream, const std::function<void()>& calls,
                                                            bool quick, const CalibrationLog& log) {
  // Four workers, as in the middle of the CPU fitting runs; never more than the host
  // has cores beside the submit thread.
  const int cores = int(std::thread::hardware_concurrency());
  WorkerPool pool(std::clamp(cores - 1, 1, 4));
  const std::vector<std::size_t> sizes =
      quick ? std::vector<std::size_t>{kMiB, 64 * kMiB}
            : std::vector<std::size_t>{256 * kKiB, 2 * kMiB, 8 * kMiB, 32 * kMiB, 128 * kMiB};
  const int reps = quick ? 7 : 15;
  auto timedCalls = [&] {
    const std::int64_t a = steadyNowNs();
    calls();
    return double(steadyNowNs() - a);
  };
  std::vector<CallAfterStagePoint> curve;
  std::string line = "first CUDA calls after a CPU stage (" + std::to_string(pool.size()) + " workers), extra us:";
  std::string spanLine = "the same stages' span over their workers' mean time:";
  for (std::size_t bytes : sizes) {
    const std::size_t n = bytes / sizeof(float);
    std::vector<float> host(n, 1.0f);  // touched once: no first-touch faults in the stage
    std::vector<double> steady, after, straggle;
    for (int r = 0; r < reps; ++r) {
      PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));
      calls();  // the driver's state warm again
      steady.push_back(timedCalls());
      PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));
      const auto& spans = pool.run([&](int w, int ws) { preprocessShare(host.data(), n, r, 1.0, w, ws); });
      after.push_back(timedCalls());
      // The stage's span over its workers' mean time (logged only: how far the last
      // worker ends after the others on this host).
      std::int64_t first = spans.front().start, last = spans.front().end;
      double sum = 0;
      for (const WorkerPool::Span& w : spans) {
        first = std::min(first, w.start);
        last = std::max(last, w.end);
        sum += double(w.end - w.start);
      }
      if (sum > 0) straggle.push_back(double(last - first) * double(spans.size()) / sum);
    }
    PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));
    const double extra = std::max(1.0, median(after) - median(steady));
    curve.push_back({std::uint64_t(bytes), extra});
    line += " " + sizeText(bytes) + "=" + fmt(extra / 1e3);
    spanLine += " " + sizeText(bytes) + "=" + fmt(median(straggle), 2);
  }
  if (log) {
    log(line + " (steady calls beside them)");
    log(spanLine);
  }
  return curve;
}

double calibrateMappedWriteOverlap(cudaStream_t stream, double tinyPeriodNs, double modelGflops, double mappedWriteGBps,
                                   const CalibrationLog& log) {
  const std::size_t bytes = 4 * kMiB, n = bytes / sizeof(float);
  HostBuffer mapped(HostMemory::Mapped, bytes, "mapped host buffer");
  DeviceBuffer in(bytes, "device buffer"), out(bytes, "device buffer");
  PIPESCOPE_CUDA_CHECK(cudaMemset(in.get(), 0, bytes));
  const auto* src = static_cast<const float*>(in.get());
  auto* host = static_cast<float*>(mapped.device());
  auto* dev = static_cast<float*>(out.get());
  // Work about as long as the write: flop/byte = write time x GFLOP/s / bytes.
  const double writeNs = double(bytes) / std::max(1.0, mappedWriteGBps);
  const std::uint32_t fmas = modelFmasPerElement(std::clamp(writeNs * modelGflops / double(bytes), 4.0, 20000.0));
  auto period = [&](float* dst, std::uint32_t f) {
    return std::max(1.0, gpuPeriodNs(stream, 5, [&] { PIPESCOPE_CUDA_CHECK(launchModel(src, n, dst, n, f, stream)); }) -
                             tinyPeriodNs);
  };
  const double work = period(dev, fmas), write = period(host, 0), both = period(host, fmas);
  const double overlap = std::clamp((work + write - both) / std::min(work, write), 0.0, 1.0);
  if (log)
    log("mapped write beside a kernel's work (4 MiB): work " + fmt(work / 1e3, 1) + " us, write " +
        fmt(write / 1e3, 1) + " us, both " + fmt(both / 1e3, 1) + " us -> write overlap " + fmt(overlap, 3) +
        " (1: the longer alone; 0: one after the other)");
  return overlap;
}

}  // namespace pipescope::cuda
