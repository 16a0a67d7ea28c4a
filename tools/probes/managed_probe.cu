// Two questions the development set's traces raised about managed memory (docs/fidelity.md,
// "Managed memory with CPU stages"), answered with CUDA events and wall clocks only — no
// CUPTI, whose prefetch timestamps looked late by up to 53 us:
//  1. Does a cudaMemPrefetchAsync to the CPU queued behind a kernel cost more than the same
//     prefetch on an idle stream (the calibration's prefetchToHostCurve)? Event-timed:
//     [kernel; prefetch] minus [kernel] alone, against [prefetch] alone after a sync.
//  2. Do CPU page faults on managed pages that a kernel touched parallelise over threads?
//     Wall time for 1, 2, 4, 8 threads writing disjoint parts of the buffer, against the
//     same writes to pinned memory.
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
  CHECK(cudaStreamDestroy(s));
  return 0;
}
