// Two questions the development set's traces raised about managed memory (docs/fidelity.md,
// "Managed memory with CPU stages"), answered with CUDA events and wall clocks only — no
// CUPTI, whose prefetch timestamps looked late by up to 53 us:
//  1. Does a cudaMemPrefetchAsync to the CPU queued behind a kernel cost more than the same
//     prefetch on an idle stream (the calibration's prefetchToHostCurve)? Event-timed:
//     [kernel; prefetch] minus [kernel] alone, against [prefetch] alone after a sync.
//  2. Do CPU page faults on managed pages that a kernel touched parallelise over threads?
//     Wall time for 1, 2, 4, 8 threads writing disjoint parts of the buffer, against the
//     same writes to pinned memory.
//  3. What does a prefetch to the GPU of input pages already there cost (random row
//     r9001-14: 88 us for 97 KiB the CPU never touched)? Two managed buffers as a
//     pipeline slot has them (input, output); event-timed prefetch of the input: again
//     right after it went to the GPU, after the output was prefetched to the CPU, and
//     when the input itself was on the CPU.
// Build: nvcc -O2 -std=c++17 -o managed_probe managed_probe.cu -lpthread
// Prints one line per measurement (median of REPS), in the units named on the line.
#include <cuda_runtime.h>

#include "probe_check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>


namespace {

constexpr int kReps = 9;

__global__ void touch(float* p, size_t n, int rounds) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    float v = p[i];
    for (int r = 0; r < rounds; ++r) v = v * 1.0001f + 0.5f;
    p[i] = v;
  }
}

double nowUs() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
  }
  template <class F>
  double us(cudaStream_t s, F&& work) {
    CHECK(cudaEventRecord(a, s));
    work();
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1000.0;
  }
};

void queuedPrefetch(int device, cudaStream_t s) {
  Timer t;
  cudaMemLocation host{}, gpu{};
  host.type = cudaMemLocationTypeHost;
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = device;
  for (size_t bytes : {size_t(64) << 10, size_t(256) << 10, size_t(1) << 20, size_t(4) << 20}) {
    float* m = nullptr;
    CHECK(cudaMallocManaged(&m, bytes));
    const size_t n = bytes / sizeof(float);
    auto onGpu = [&] {  // the pages end up on the GPU, written by a kernel
      CHECK(cudaMemPrefetchAsync(m, bytes, gpu, 0, s));
      touch<<<256, 256, 0, s>>>(m, n, 1);
      CHECK(cudaStreamSynchronize(s));
    };
    std::vector<double> kernelAlone, kernelThenPrefetch, prefetchAlone;
    for (int r = 0; r < kReps; ++r) {
      onGpu();
      kernelAlone.push_back(t.us(s, [&] { touch<<<256, 256, 0, s>>>(m, n, 200); }));
      onGpu();
      kernelThenPrefetch.push_back(t.us(s, [&] {
        touch<<<256, 256, 0, s>>>(m, n, 200);
        CHECK(cudaMemPrefetchAsync(m, bytes, host, 0, s));
      }));
      onGpu();
      prefetchAlone.push_back(t.us(s, [&] { CHECK(cudaMemPrefetchAsync(m, bytes, host, 0, s)); }));
    }
    const double k = median(kernelAlone), kp = median(kernelThenPrefetch), p = median(prefetchAlone);
    std::printf("prefetch to CPU %5zu KiB: alone %8.1f us, queued behind a %8.1f us kernel %8.1f us -> "
                "extra when queued %8.1f us\n",
                bytes >> 10, p, k, kp - k, kp - k - p);
    CHECK(cudaFree(m));
  }
}

void parallelFaults(int device, cudaStream_t s) {
  const size_t bytes = size_t(4) << 20;
  const size_t n = bytes / sizeof(float);
  float* m = nullptr;
  float* pinned = nullptr;
  CHECK(cudaMallocManaged(&m, bytes));
  CHECK(cudaMallocHost(&pinned, bytes));
  cudaMemLocation gpu{};
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = device;
  auto writeWith = [&](float* p, int threads) {
    std::vector<std::thread> pool;
    const double t0 = nowUs();
    for (int w = 0; w < threads; ++w)
      pool.emplace_back([=] {
        const size_t from = n * size_t(w) / size_t(threads), to = n * size_t(w + 1) / size_t(threads);
        for (size_t i = from; i < to; ++i) p[i] = float(i);
      });
    for (auto& th : pool) th.join();
    return nowUs() - t0;
  };
  for (int threads : {1, 2, 4, 8}) {
    std::vector<double> managed, plain;
    for (int r = 0; r < kReps; ++r) {
      CHECK(cudaMemPrefetchAsync(m, bytes, gpu, 0, s));
      touch<<<256, 256, 0, s>>>(m, n, 1);
      CHECK(cudaStreamSynchronize(s));
      managed.push_back(writeWith(m, threads));
      plain.push_back(writeWith(pinned, threads));
    }
    const double a = median(managed), b = median(plain);
    std::printf("CPU writes 4 MiB on %d thread(s): managed pages on the GPU %8.1f us, pinned %8.1f us -> "
                "faults %8.1f us (%.2f GB/s)\n",
                threads, a, b, a - b, double(bytes) / 1e3 / std::max(a - b, 1e-3));
  }
  CHECK(cudaFree(m));
  CHECK(cudaFreeHost(pinned));
}

void residentPrefetch(int device, cudaStream_t s) {
  Timer t;
  cudaMemLocation host{}, gpu{};
  host.type = cudaMemLocationTypeHost;
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = device;
  for (size_t bytes : {size_t(97) << 10, size_t(1) << 20, size_t(4) << 20}) {
    float *in = nullptr, *out = nullptr;
    CHECK(cudaMallocManaged(&in, bytes));
    CHECK(cudaMallocManaged(&out, bytes));
    const size_t n = bytes / sizeof(float);
    std::memset(in, 0, bytes);
    std::memset(out, 0, bytes);
    auto batch = [&] {  // input to the GPU, a kernel writes the output, output to the CPU
      CHECK(cudaMemPrefetchAsync(in, bytes, gpu, 0, s));
      touch<<<256, 256, 0, s>>>(out, n, 1);
      CHECK(cudaMemPrefetchAsync(out, bytes, host, 0, s));
      CHECK(cudaStreamSynchronize(s));
    };
    std::vector<double> again, afterOutput, fromCpu;
    for (int r = 0; r < kReps; ++r) {
      CHECK(cudaMemPrefetchAsync(in, bytes, gpu, 0, s));
      CHECK(cudaStreamSynchronize(s));
      again.push_back(t.us(s, [&] { CHECK(cudaMemPrefetchAsync(in, bytes, gpu, 0, s)); }));
      batch();
      afterOutput.push_back(t.us(s, [&] { CHECK(cudaMemPrefetchAsync(in, bytes, gpu, 0, s)); }));
      CHECK(cudaMemPrefetchAsync(in, bytes, host, 0, s));
      CHECK(cudaStreamSynchronize(s));
      fromCpu.push_back(t.us(s, [&] { CHECK(cudaMemPrefetchAsync(in, bytes, gpu, 0, s)); }));
    }
    std::printf("prefetch to GPU of %5zu KiB already there: right after %8.1f us, after the output "
                "(%+lld KiB away) went to the CPU %8.1f us; from the CPU %8.1f us\n",
                bytes >> 10, median(again), (long long)((reinterpret_cast<char*>(out) - reinterpret_cast<char*>(in)) / 1024),
                median(afterOutput), median(fromCpu));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
  }
}

}  // namespace

int main() {
  int device = 0;
  CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, device));
  std::printf("device: %s\n", prop.name);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  queuedPrefetch(device, s);
  parallelFaults(device, s);
  residentPrefetch(device, s);
  CHECK(cudaStreamDestroy(s));
  return 0;
}
