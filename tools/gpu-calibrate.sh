#!/usr/bin/env bash
# One call on the GPU machine: build pipescope-cli with the CUDA backend (UI, tests
# and benches off), calibrate a device profile, then validate the simulator with it
# against the real GPU. Everything lands in $OUT (or ./gpu-calibrate-out):
#   profile.json, calibrate.log, validation.md, validate.log, build.log, env.log
# Usage: tools/gpu-calibrate.sh [--quick] [--reps N]   (extra arguments go to validate)
set -u -o pipefail
OUT=${OUT:-$PWD/gpu-calibrate-out}
mkdir -p "$OUT"
J=$(nproc)
B=build-calibrate
{
  echo "== $(date -u +%FT%TZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv || true
  nvcc --version | tail -1
  lscpu | grep -E "Model name|^CPU\(s\)" || true
} 2>&1 | tee "$OUT/env.log"

# The GPU machine has no nlohmann-json or zstd packages: they travel in .carry.
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DPIPESCOPE_BUILD_UI=OFF -DPIPESCOPE_BUILD_TESTS=OFF \
  -DPIPESCOPE_BUILD_BENCH=OFF -DPIPESCOPE_WITH_CUDA=ON -DPIPESCOPE_JSON_INCLUDE=$PWD/.carry/include \
  -DPIPESCOPE_ZSTD_ROOT=$PWD/.carry/zstd -DZLIB_ROOT=$PWD/.carry/zlib -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/build.log" 2>&1 &&
  ninja -C $B -j"$J" pipescope-cli >>"$OUT/build.log" 2>&1
rc=$?
tail -15 "$OUT/build.log"
[ $rc -ne 0 ] && { echo "BUILD FAILED"; exit 1; }

echo "== calibrate"
timeout 120 $B/app/cli/pipescope-cli calibrate --out "$OUT/profile.json" 2>&1 | tee "$OUT/calibrate.log"
[ -s "$OUT/profile.json" ] || { echo "CALIBRATION FAILED"; exit 1; }

echo "== validate"
timeout 300 $B/app/cli/pipescope-cli validate --profile "$OUT/profile.json" --markdown "$OUT/validation.md" "$@" \
  2>&1 | tee "$OUT/validate.log"
echo "validate rc=$?"
