// Kernels bound by the host link on several streams at once (docs/fidelity.md,
// "structural limits"): the simulator runs one kernel at a time, so kernels that wait
// on PCIe -- reading or writing mapped host memory, or faulting managed pages over --
// queue behind each other at the one-kernel rate. In the pipeline they overlap: the
// mapped r9001-34 (15 streams, 1.8 MiB) ran 4-7 kernels at once carrying 62 GB/s
// together (50.8 alone) and was 20-25 % faster than predicted; managed rows on 6-13
// streams without CPU stages, whose first use of each host slot faults its pages in,
// ran up to 3.3x faster than predicted. How does the link's throughput for such
// kernels grow with the number of streams running them?
//
// For S = 1, 2, 4, 8, 15 streams, each with its own buffers:
//   mapped read   - a kernel reading B bytes of mapped pinned memory into device memory
//                   (the pipeline's normalize kernel on mapped input), 8 rounds per
//                   stream back to back;
//   mapped write  - a kernel writing B bytes of device data to mapped memory (the model
//                   kernel's output);
//   managed fault - per round, the CPU writes every stream's managed buffer (its pages
//                   go to the CPU), then each stream's kernel reads its buffer (the
//                   pages fault over to the GPU), 6 rounds; the time of the kernels only.
// Reported: the GPU time of all kernels from the first start to the last end (events),
// and the throughput all streams reached together, against S = 1: the speed-up that a
// model term for link-bound kernels on several streams has to reproduce.
// Build: nvcc -O2 -std=c++17 -o link_streams_probe link_streams_probe.cu
#include <cuda_runtime.h>

#include "probe_check.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

__global__ void copyKernel(const float* in, float* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i] * 0.5f + 1.0f;
}

// The pipeline's kernels size their grid to the data (engine/cuda/Kernels.cu): a
// small batch leaves most of the GPU free for the other streams' kernels.
unsigned blocksFor(size_t n) { return unsigned(std::min<size_t>((n + 255) / 256, 132 * 16)); }

enum class Kind { MappedRead, MappedWrite, ManagedFault };
const char* name(Kind k) {
  return k == Kind::MappedRead ? "mapped read" : k == Kind::MappedWrite ? "mapped write" : "managed fault";
}

double runOnce(Kind kind, size_t bytes, int streams, double* perKernelUs) {
  const size_t n = bytes / sizeof(float);
  const int rounds = kind == Kind::ManagedFault ? 6 : 8;
  std::vector<cudaStream_t> st(streams);
  std::vector<float*> host(streams), dev(streams);
  std::vector<cudaEvent_t> first(streams), last(streams);
  std::vector<std::vector<cudaEvent_t>> marks(streams);
  for (int s = 0; s < streams; ++s) {
    CHECK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
    if (kind == Kind::ManagedFault) {
      CHECK(cudaMallocManaged(&host[s], bytes));
    } else {
      CHECK(cudaHostAlloc(&host[s], bytes, cudaHostAllocMapped));
    }
    std::memset(host[s], 1, bytes);
    CHECK(cudaMalloc(&dev[s], bytes));
    CHECK(cudaMemset(dev[s], 0, bytes));
    marks[s].resize(size_t(rounds) * 2);
    for (cudaEvent_t& e : marks[s]) CHECK(cudaEventCreate(&e));
  }
  auto devicePtr = [&](int s) {
    float* d = host[s];
    if (kind != Kind::ManagedFault) CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d), host[s], 0));
    return d;
  };
  std::vector<double> kernelUs;
  double totalUs = 0;
  for (int r = 0; r < rounds; ++r) {
    if (kind == Kind::ManagedFault) {
      CHECK(cudaDeviceSynchronize());
      for (int s = 0; s < streams; ++s) std::memset(host[s], r + 2, bytes);  // the pages go to the CPU
    }
    for (int s = 0; s < streams; ++s) {
      CHECK(cudaEventRecord(marks[s][size_t(r) * 2], st[s]));
      if (kind == Kind::MappedWrite)
        copyKernel<<<blocksFor(n), 256, 0, st[s]>>>(dev[s], devicePtr(s), n);
      else
        copyKernel<<<blocksFor(n), 256, 0, st[s]>>>(devicePtr(s), dev[s], n);
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(marks[s][size_t(r) * 2 + 1], st[s]));
    }
    if (kind == Kind::ManagedFault) {
      CHECK(cudaDeviceSynchronize());
      // This round's span: the earliest start to the latest end over the streams.
      float lo = 0, hi = 0;
      for (int s = 0; s < streams; ++s) {
        float a = 0, b = 0;
        CHECK(cudaEventElapsedTime(&a, marks[0][size_t(r) * 2], marks[s][size_t(r) * 2]));
        CHECK(cudaEventElapsedTime(&b, marks[0][size_t(r) * 2], marks[s][size_t(r) * 2 + 1]));
        lo = s == 0 ? a : std::min(lo, a);
        hi = s == 0 ? b : std::max(hi, b);
      }
      if (r > 0) totalUs += (hi - lo) * 1e3;  // round 0: first touch of the GPU side
    }
  }
  CHECK(cudaDeviceSynchronize());
  if (kind != Kind::ManagedFault) {
    float lo = 0, hi = 0;
    for (int s = 0; s < streams; ++s) {
      float a = 0, b = 0;
      CHECK(cudaEventElapsedTime(&a, marks[0][0], marks[s][2]));  // from round 1: round 0 warms up
      CHECK(cudaEventElapsedTime(&b, marks[0][0], marks[s].back()));
      lo = s == 0 ? a : std::min(lo, a);
      hi = s == 0 ? b : std::max(hi, b);
    }
    totalUs = (hi - lo) * 1e3;
  }
  for (int s = 0; s < streams; ++s)
    for (int r = 1; r < rounds; ++r) {
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, marks[s][size_t(r) * 2], marks[s][size_t(r) * 2 + 1]));
      kernelUs.push_back(ms * 1e3);
    }
  *perKernelUs = median(kernelUs);
  for (int s = 0; s < streams; ++s) {
    for (cudaEvent_t e : marks[s]) CHECK(cudaEventDestroy(e));
    if (kind == Kind::ManagedFault)
      CHECK(cudaFree(host[s]));
    else
      CHECK(cudaFreeHost(host[s]));
    CHECK(cudaFree(dev[s]));
    CHECK(cudaStreamDestroy(st[s]));
  }
  const double movedBytes = double(bytes) * streams * (rounds - 1);
  return movedBytes / (totalUs * 1e3);  // GB/s
}

}  // namespace

int main() {
  CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("link_streams_probe on %s (%d SMs): link-bound kernels on S streams at once\n", prop.name,
              prop.multiProcessorCount);
  for (Kind kind : {Kind::MappedRead, Kind::MappedWrite, Kind::ManagedFault}) {
    const std::vector<size_t> sizes = kind == Kind::ManagedFault
                                          ? std::vector<size_t>{size_t(97) << 10, size_t(700) << 10, size_t(4) << 20}
                                          : std::vector<size_t>{size_t(1843) << 10, size_t(32) << 20};
    for (size_t bytes : sizes) {
      double alone = 0;
      for (int streams : {1, 2, 4, 8, 15}) {
        double kernelUs = 0;
        const double gbps = runOnce(kind, bytes, streams, &kernelUs);
        if (streams == 1) alone = gbps;
        std::printf("%-13s %6zu KiB  streams %2d  together %7.2f GB/s  %5.2fx one stream  kernel %9.1f us (median)\n",
                    name(kind), bytes >> 10, streams, gbps, gbps / alone, kernelUs);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
