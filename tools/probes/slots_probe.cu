// Managed output buffers reused by several host slots (docs/fidelity.md, "fifth session"):
// random row r9001-14 (managed-prefetch, 6 streams, 97 KiB) ran its model kernel in 3-4 us
// where the simulator charges 100+ us for faulting back the output pages that the previous
// prefetch moved to the CPU, while on one stream (r4242-25, r4242-27) the same kernel does
// fault. Does the driver stop migrating pages that bounce between CPU and GPU, and does
// that depend on how many buffers take turns (slots), their size, or how long it has gone on?
//
// For each size and slot count: one stream and one managed output buffer per slot; each
// round, every slot runs a kernel writing its whole output (from a device input), then a
// cudaMemPrefetchAsync of that output to the CPU, as the pipeline does without CPU stages;
// a slot waits for its previous round before reusing its buffer (as the host slots do).
// Kernel and prefetch are event-timed; the line gives the medians over the first rounds
// and over the last ones, against the same kernel writing pages already on the GPU.
// Then the same with the pipeline's whole slot (pipelineSlots): input prefetched to the GPU,
// two kernels, output prefetched to the CPU, each step event-timed.
// Build: nvcc -O2 -std=c++17 -o slots_probe slots_probe.cu
#include <cuda_runtime.h>

#include "probe_check.h"

#include <cstdio>
#include <vector>

namespace {

constexpr int kRounds = 60;
constexpr int kEarly = 5;   // rounds 1..5 (round 0: first touch, left out)
constexpr int kLate = 10;   // the last 10 rounds

__global__ void writeOut(const float* in, float* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i] * 2.0f;
}

unsigned blocksFor(size_t n) { return unsigned(std::min<size_t>((n + 255) / 256, 132 * 32)); }

struct SlotEvents {
  cudaEvent_t start, kernelEnd, prefetchEnd;
};

void probe(size_t bytes, int slots) {
  const size_t n = bytes / sizeof(float);
  float* in = nullptr;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMemset(in, 0, bytes));
  std::vector<float*> out(slots);
  std::vector<cudaStream_t> streams(slots);
  std::vector<SlotEvents> ev(slots);
  for (int s = 0; s < slots; ++s) {
    CHECK(cudaMallocManaged(&out[s], bytes));
    for (size_t i = 0; i < n; ++i) out[s][i] = 1.0f;  // first touch on the CPU
    CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&ev[s].start));
    CHECK(cudaEventCreate(&ev[s].kernelEnd));
    CHECK(cudaEventCreate(&ev[s].prefetchEnd));
  }
  int device = 0;
  CHECK(cudaGetDevice(&device));
  std::vector<double> kernelEarly, kernelLate, prefetchEarly, prefetchLate;
  for (int r = 0; r < kRounds; ++r) {
    for (int s = 0; s < slots; ++s) {
      if (r > 0) {
        // The slot's previous round: wait for it (the host slot), then read its timings.
        CHECK(cudaEventSynchronize(ev[s].prefetchEnd));
        float k = 0, p = 0;
        CHECK(cudaEventElapsedTime(&k, ev[s].start, ev[s].kernelEnd));
        CHECK(cudaEventElapsedTime(&p, ev[s].kernelEnd, ev[s].prefetchEnd));
        const int done = r - 1;
        if (done >= 1 && done <= kEarly) {
          kernelEarly.push_back(k * 1e3);
          prefetchEarly.push_back(p * 1e3);
        }
        if (done >= kRounds - 1 - kLate) {
          kernelLate.push_back(k * 1e3);
          prefetchLate.push_back(p * 1e3);
        }
      }
      CHECK(cudaEventRecord(ev[s].start, streams[s]));
      writeOut<<<blocksFor(n), 256, 0, streams[s]>>>(in, out[s], n);
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(ev[s].kernelEnd, streams[s]));
      CHECK(cudaMemPrefetchAsync(out[s], bytes, cudaMemLocation{cudaMemLocationTypeHost, 0}, 0, streams[s]));
      CHECK(cudaEventRecord(ev[s].prefetchEnd, streams[s]));
    }
  }
  CHECK(cudaDeviceSynchronize());
  // The same kernel on pages already on the GPU (prefetched there, no prefetch back).
  std::vector<double> resident;
  CHECK(cudaMemPrefetchAsync(out[0], bytes, cudaMemLocation{cudaMemLocationTypeDevice, device}, 0, streams[0]));
  for (int r = 0; r < 9; ++r) {
    CHECK(cudaEventRecord(ev[0].start, streams[0]));
    writeOut<<<blocksFor(n), 256, 0, streams[0]>>>(in, out[0], n);
    CHECK(cudaEventRecord(ev[0].kernelEnd, streams[0]));
    CHECK(cudaEventSynchronize(ev[0].kernelEnd));
    float k = 0;
    CHECK(cudaEventElapsedTime(&k, ev[0].start, ev[0].kernelEnd));
    resident.push_back(k * 1e3);
  }
  std::printf("%8zu B, %2d slots: kernel writing pages prefetched to the CPU: rounds 1-%d %8.1f us, last %d %8.1f us"
              " | prefetch to CPU: %8.1f us, %8.1f us | kernel on pages on the GPU %6.1f us\n",
              bytes, slots, kEarly, median(kernelEarly), kLate, median(kernelLate), median(prefetchEarly),
              median(prefetchLate), median(resident));
  std::fflush(stdout);
  for (int s = 0; s < slots; ++s) {
    CHECK(cudaFree(out[s]));
    CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaEventDestroy(ev[s].start));
    CHECK(cudaEventDestroy(ev[s].kernelEnd));
    CHECK(cudaEventDestroy(ev[s].prefetchEnd));
  }
  CHECK(cudaFree(in));
}

/// The pipeline's managed-prefetch slot as the backend has it: its own managed input and
/// output (separate allocations, the input written by the CPU once), a device buffer; each
/// round: input prefetched to the GPU, a kernel reading it into the device buffer (normalize),
/// a kernel writing the output from it (model), the output prefetched to the CPU.
void pipelineSlots(size_t bytes, int slots) {
  const size_t n = bytes / sizeof(float);
  struct Slot {
    float *in, *out, *dev;
    cudaStream_t stream;
    cudaEvent_t e[5];
  };
  std::vector<Slot> sl(slots);
  int device = 0;
  CHECK(cudaGetDevice(&device));
  cudaMemLocation gpu{}, host{};
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = device;
  host.type = cudaMemLocationTypeHost;
  for (Slot& x : sl) {
    CHECK(cudaMallocManaged(&x.in, bytes));
    CHECK(cudaMallocManaged(&x.out, bytes));
    CHECK(cudaMalloc(&x.dev, bytes));
    for (size_t i = 0; i < n; ++i) x.in[i] = 1.0f;
    CHECK(cudaStreamCreateWithFlags(&x.stream, cudaStreamNonBlocking));
    for (cudaEvent_t& e : x.e) CHECK(cudaEventCreate(&e));
  }
  std::vector<double> t[4][2];  // prefetch in, normalize, model, prefetch out; early / late
  for (int r = 0; r < kRounds; ++r) {
    for (Slot& x : sl) {
      if (r > 0) {
        CHECK(cudaEventSynchronize(x.e[4]));
        const int done = r - 1;
        const int when = done >= 1 && done <= kEarly ? 0 : done >= kRounds - 1 - kLate ? 1 : -1;
        for (int k = 0; k < 4 && when >= 0; ++k) {
          float ms = 0;
          CHECK(cudaEventElapsedTime(&ms, x.e[k], x.e[k + 1]));
          t[k][when].push_back(ms * 1e3);
        }
      }
      CHECK(cudaEventRecord(x.e[0], x.stream));
      CHECK(cudaMemPrefetchAsync(x.in, bytes, gpu, 0, x.stream));
      CHECK(cudaEventRecord(x.e[1], x.stream));
      writeOut<<<blocksFor(n), 256, 0, x.stream>>>(x.in, x.dev, n);
      CHECK(cudaEventRecord(x.e[2], x.stream));
      writeOut<<<blocksFor(n), 256, 0, x.stream>>>(x.dev, x.out, n);
      CHECK(cudaEventRecord(x.e[3], x.stream));
      CHECK(cudaMemPrefetchAsync(x.out, bytes, host, 0, x.stream));
      CHECK(cudaEventRecord(x.e[4], x.stream));
    }
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("%8zu B, %2d pipeline slots, early / late rounds (us): prefetch in %7.1f / %7.1f, normalize %7.1f / "
              "%7.1f, model %7.1f / %7.1f, prefetch out %7.1f / %7.1f\n",
              bytes, slots, median(t[0][0]), median(t[0][1]), median(t[1][0]), median(t[1][1]), median(t[2][0]),
              median(t[2][1]), median(t[3][0]), median(t[3][1]));
  std::fflush(stdout);
  for (Slot& x : sl) {
    CHECK(cudaFree(x.in));
    CHECK(cudaFree(x.out));
    CHECK(cudaFree(x.dev));
    CHECK(cudaStreamDestroy(x.stream));
    for (cudaEvent_t& e : x.e) CHECK(cudaEventDestroy(e));
  }
}

}  // namespace

int main() {
  for (size_t bytes : {size_t(99616), size_t(1) << 20, size_t(4) << 20})
    for (int slots : {1, 2, 6, 11}) probe(bytes, slots);
  for (size_t bytes : {size_t(99616), size_t(1) << 20})
    for (int slots : {1, 6}) pipelineSlots(bytes, slots);
  return 0;
}
