#include "cuda/Kernels.h"

#include <cmath>

#include "config/ModelKernelGrid.h"

namespace pipescope::cuda {

namespace {

constexpr unsigned kThreads = unsigned(kModelKernelThreads);

// Grid-stride loops: enough blocks to fill any current GPU, no more. The simulator
// counts the same blocks (config/ModelKernelGrid.h).
unsigned gridFor(std::size_t n) { return unsigned(modelKernelBlocks(n)); }

__global__ void normalizeKernel(const float* __restrict__ in, float* out, std::size_t n, float mean, float scale) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = (in[i] - mean) * scale;
}

__global__ void modelKernel(const float* __restrict__ in, std::size_t nIn, float* __restrict__ out, std::size_t nOut,
                            std::uint32_t rounds, float a, float b) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < nIn;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float x = in[i];
    float c0 = x, c1 = x + 1.0f, c2 = x + 2.0f, c3 = x + 3.0f;
    for (std::uint32_t r = 0; r < rounds; ++r) {
      c0 = fmaf(c0, a, b);
      c1 = fmaf(c1, a, b);
      c2 = fmaf(c2, a, b);
      c3 = fmaf(c3, a, b);
    }
    const float v = (c0 + c1) + (c2 + c3);
    for (std::size_t j = i; j < nOut; j += nIn) out[j] = v;
  }
}

}  // namespace

cudaError_t loadKernels() {
  cudaFuncAttributes attributes{};
  const cudaError_t err = cudaFuncGetAttributes(&attributes, normalizeKernel);
  if (err != cudaSuccess) return err;
  return cudaFuncGetAttributes(&attributes, modelKernel);
}

cudaError_t launchNormalize(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  normalizeKernel<<<gridFor(n), kThreads, 0, stream>>>(in, out, n, 0.5f, 2.0f);
  return cudaGetLastError();
}

cudaError_t launchModel(const float* in, std::size_t nIn, float* out, std::size_t nOut, std::uint32_t fmasPerElement,
                        cudaStream_t stream) {
  if (nIn == 0 || nOut == 0) return cudaSuccess;
  // a < 1 keeps the chains finite for any number of rounds.
  modelKernel<<<gridFor(nIn), kThreads, 0, stream>>>(in, nIn, out, nOut, fmasPerElement / 4, 0.999f, 0.001f);
  return cudaGetLastError();
}

}  // namespace pipescope::cuda
