#pragma once
// The pipeline's GPU work. Launchers return the launch's error instead of throwing
// so the caller records the API call's timing before checking it.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace pipescope::cuda {

/// out[i] = (in[i] - mean) * scale over n floats (in == out allowed).
cudaError_t launchNormalize(const float* in, float* out, std::size_t n, cudaStream_t stream);

/// The custom model: each of the nIn input elements runs `fmasPerElement` dependent
/// fused multiply-adds (four independent chains for ILP); nOut outputs are written,
/// output j taking input j % nIn. fmasPerElement = flopsPerByte * 4 bytes / 2 flops.
cudaError_t launchModel(const float* in, std::size_t nIn, float* out, std::size_t nOut, std::uint32_t fmasPerElement,
                        cudaStream_t stream);

/// Loads both kernels now: with CUDA's lazy module loading the first launch would
/// otherwise take ~1 ms and show up in the first batch (it is set-up, not the pipeline).
cudaError_t loadKernels();

}  // namespace pipescope::cuda
