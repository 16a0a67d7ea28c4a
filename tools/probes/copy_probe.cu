// The copy-rate question of issue 15 (docs/fidelity.md, r4242-34): the calibration
// measures the bidirectional rate with 64 MiB copies, while pipelines move 64 KiB-16 MiB
// per copy. Does a pinned H2D running while a D2H runs keep the same rate at pipeline
// sizes? Event-timed only: K copies of one size back to back, one direction alone, then
// both directions at once on two streams, and the total rate each way.
// Build: nvcc -O2 -std=c++17 -o copy_probe copy_probe.cu
// Prints one line per size (median of kReps), GB/s = 1e9 bytes per second.
#include <cuda_runtime.h>

#include "probe_check.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>


namespace {

constexpr int kReps = 7;
constexpr size_t kMaxBytes = size_t(64) << 20;

struct Buffers {
  void* hostIn = nullptr;
  void* hostOut = nullptr;
  void* devIn = nullptr;
  void* devOut = nullptr;
  Buffers() {
    CHECK(cudaMallocHost(&hostIn, kMaxBytes));
    CHECK(cudaMallocHost(&hostOut, kMaxBytes));
    CHECK(cudaMalloc(&devIn, kMaxBytes));
    CHECK(cudaMalloc(&devOut, kMaxBytes));
    std::vector<unsigned char> noise(kMaxBytes);
    for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
    CHECK(cudaMemcpy(devOut, noise.data(), kMaxBytes, cudaMemcpyHostToDevice));
    std::copy(noise.begin(), noise.end(), static_cast<unsigned char*>(hostIn));
  }
};

// Microseconds from an event before the first copy to the last copy's end on both streams.
double timeCopies(Buffers& b, cudaStream_t up, cudaStream_t down, size_t bytes, int count, bool h2d, bool d2h) {
  cudaEvent_t start, upDone, end;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&upDone));
  CHECK(cudaEventCreate(&end));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(start, down));
  CHECK(cudaStreamWaitEvent(up, start, 0));
  const size_t slots = std::max<size_t>(1, kMaxBytes / bytes);
  for (int i = 0; i < count; ++i) {
    const size_t off = (size_t(i) % slots) * bytes;
    if (h2d)
      CHECK(cudaMemcpyAsync(static_cast<char*>(b.devIn) + off, static_cast<char*>(b.hostIn) + off, bytes,
                            cudaMemcpyHostToDevice, up));
    if (d2h)
      CHECK(cudaMemcpyAsync(static_cast<char*>(b.hostOut) + off, static_cast<char*>(b.devOut) + off, bytes,
                            cudaMemcpyDeviceToHost, down));
  }
  CHECK(cudaEventRecord(upDone, up));
  CHECK(cudaStreamWaitEvent(down, upDone, 0));
  CHECK(cudaEventRecord(end, down));
  CHECK(cudaEventSynchronize(end));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, end));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(upDone));
  CHECK(cudaEventDestroy(end));
  return ms * 1000.0;
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n", prop.name);
  Buffers b;
  cudaStream_t up, down;
  CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
  for (size_t kib : {64, 256, 1024, 2176, 4096, 16384, 65536}) {
    const size_t bytes = kib << 10;
    // Enough copies that one run moves at least 256 MiB each way (at most 4096 copies).
    const int count = int(std::min<size_t>(4096, std::max<size_t>(4, (size_t(256) << 20) / bytes)));
    timeCopies(b, up, down, bytes, 4, true, true);  // warm-up
    std::vector<double> h2d, d2h, both;
    for (int r = 0; r < kReps; ++r) {
      h2d.push_back(timeCopies(b, up, down, bytes, count, true, false));
      d2h.push_back(timeCopies(b, up, down, bytes, count, false, true));
      both.push_back(timeCopies(b, up, down, bytes, count, true, true));
    }
    const double moved = double(bytes) * count / 1e3;  // bytes per us = GB/s when divided by us
    const double h = median(h2d), d = median(d2h), x = median(both);
    std::printf("%6zu KiB x %4d: H2D alone %7.2f GB/s (%8.2f us per copy), D2H alone %7.2f GB/s (%8.2f us), "
                "both at once %7.2f GB/s each way, %7.2f together (%8.2f us per pair)\n",
                kib, count, moved / h, h / count, moved / d, d / count, moved / x, 2 * moved / x, x / count);
  }
  CHECK(cudaStreamDestroy(up));
  CHECK(cudaStreamDestroy(down));
  return 0;
}
