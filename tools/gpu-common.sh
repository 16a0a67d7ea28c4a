# Sourced by the tools/gpu-*.sh scripts: what every call on the GPU machine needs.
# The GPU machine has CUDA but no Qt, GoogleTest, nlohmann-json, RapidJSON, CLI11, zstd or zlib
# development packages: those travel in .carry (see docs/cuda-backend.md).

# CMake options for a CUDA build without the UI, from .carry. Add the build type and
# the BUILD_* switches a script needs after them.
GPU_CMAKE_OPTIONS=(
  -G Ninja -DPIPESCOPE_BUILD_UI=OFF -DPIPESCOPE_WITH_CUDA=ON
  -DPIPESCOPE_GTEST_SOURCE="$PWD/.carry/googletest" -DPIPESCOPE_JSON_INCLUDE="$PWD/.carry/nlohmann/include"
  -DPIPESCOPE_CLI11_INCLUDE="$PWD/.carry/include"
  -DPIPESCOPE_ZSTD_ROOT="$PWD/.carry/zstd" -DZLIB_ROOT="$PWD/.carry/zlib" -DCMAKE_CUDA_ARCHITECTURES=90
)

# The machine a result came from: GPU, driver, CUDA, CMake, CPU.
gpu_environment() {
  echo "== $(date -u +%FT%TZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv || true
  nvcc --version | tail -1
  cmake --version | head -1
  lscpu | grep -E "Model name|^CPU\(s\)|L3 cache" || true
}
