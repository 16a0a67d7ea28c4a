#!/usr/bin/env bash
# One call on the GPU machine: build pipescope-cli with the CUDA backend (UI, tests
# and benches off), calibrate a device profile, then validate the simulator with it
# against the real GPU. Everything lands in $OUT (or ./gpu-calibrate-out):
#   profile.json, calibrate.log, validation.md, validate.log, build.log, env.log
# Usage: tools/gpu-calibrate.sh [--quick] [--reps N]   (extra arguments go to validate)
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-calibrate-out}
mkdir -p "$OUT"
J=$(nproc)
B=build-calibrate
gpu_environment 2>&1 | tee "$OUT/env.log"

cmake -S . -B $B "${GPU_CMAKE_OPTIONS[@]}" -DCMAKE_BUILD_TYPE=Release -DPIPESCOPE_BUILD_TESTS=OFF \
  -DPIPESCOPE_BUILD_BENCH=OFF >"$OUT/build.log" 2>&1 &&
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
