// A small CUDA program for the recording tests (tests/gpu/RecordGpuTest.cpp): pinned
// (or pageable) input copied to the GPU, a kernel, the result copied back, round robin
// over two streams, one NVTX range per iteration.
//
//   pipescope_record_sample [ITERATIONS] [pageable] [crash]
//     ITERATIONS  default 8
//     pageable    pageable host buffers instead of pinned ones
//     crash       after the iterations (and time for the recording to receive them),
//                 the program is killed by SIGSEGV
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#define CHECK(call)                                                                                 \
  do {                                                                                              \
    cudaError_t e_ = (call);                                                                        \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      return 3;                                                                                     \
    }                                                                                               \
  } while (0)

__global__ void scale(const float* in, float* out, int n, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  for (int r = 0; r < rounds; ++r) v = v * 1.0001f + 0.5f;
  out[i] = v;
}

int main(int argc, char** argv) {
  int iterations = 8;
  bool pageable = false, crash = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "pageable") == 0)
      pageable = true;
    else if (std::strcmp(argv[i], "crash") == 0)
      crash = true;
    else
      iterations = std::atoi(argv[i]);
  }
  constexpr int kStreams = 2;
  constexpr int n = 1 << 22;  // 16 MiB per buffer
  const size_t bytes = size_t(n) * sizeof(float);
  CHECK(cudaSetDevice(0));
  cudaStream_t streams[kStreams];
  float *hostIn[kStreams], *hostOut[kStreams], *devIn[kStreams], *devOut[kStreams];
  for (int s = 0; s < kStreams; ++s) {
    CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    if (pageable) {
      hostIn[s] = static_cast<float*>(std::malloc(bytes));
      hostOut[s] = static_cast<float*>(std::malloc(bytes));
    } else {
      CHECK(cudaMallocHost(&hostIn[s], bytes));
      CHECK(cudaMallocHost(&hostOut[s], bytes));
    }
    std::memset(hostIn[s], 0, bytes);
    CHECK(cudaMalloc(&devIn[s], bytes));
    CHECK(cudaMalloc(&devOut[s], bytes));
  }
  for (int it = 0; it < iterations; ++it) {
    const int s = it % kStreams;
    nvtxRangePushA("iteration");
    CHECK(cudaMemcpyAsync(devIn[s], hostIn[s], bytes, cudaMemcpyHostToDevice, streams[s]));
    scale<<<(n + 255) / 256, 256, 0, streams[s]>>>(devIn[s], devOut[s], n, 64);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(hostOut[s], devOut[s], bytes, cudaMemcpyDeviceToHost, streams[s]));
    nvtxRangePop();
  }
  CHECK(cudaDeviceSynchronize());
  if (crash) {
    // Long enough for the injection to hand the records over (it flushes every 100 ms).
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::raise(SIGSEGV);
  }
  for (int s = 0; s < kStreams; ++s) {
    CHECK(cudaStreamDestroy(streams[s]));
    if (pageable) {
      std::free(hostIn[s]);
      std::free(hostOut[s]);
    } else {
      CHECK(cudaFreeHost(hostIn[s]));
      CHECK(cudaFreeHost(hostOut[s]));
    }
    CHECK(cudaFree(devIn[s]));
    CHECK(cudaFree(devOut[s]));
  }
  std::printf("record sample: %d iterations done\n", iterations);
  return 0;
}
