#pragma once
// The custom model kernel's launch shape, shared by the CUDA kernels (engine/cuda/
// Kernels.cu, compiled as C++17 by nvcc) and the simulator, which charges a kernel's
// last partial wave of blocks (DeviceProfile::modelKernelBlocksCurve): the two must
// count the same blocks. Kept free of the rest of the configuration so the CUDA
// target can include it.
#include <algorithm>
#include <cstdint>

namespace pipescope {

/// 256 threads a block, a block per 256 input floats, at most 132 x 32 blocks
/// (enough to fill any current GPU); beyond that the threads loop over the input
/// (a grid-stride loop).
inline constexpr std::uint64_t kModelKernelThreads = 256;
inline constexpr std::uint64_t kModelKernelMaxBlocks = 132 * 32;

/// Blocks of the grid for `elements` floats (at least one).
inline constexpr std::uint64_t modelKernelBlocks(std::uint64_t elements) {
  return std::clamp<std::uint64_t>((elements + kModelKernelThreads - 1) / kModelKernelThreads, 1,
                                   kModelKernelMaxBlocks);
}

}  // namespace pipescope
