#!/usr/bin/env bash
# One call on the GPU machine: configure, build the CUDA targets, run the gpu tests,
# compute-sanitizer (memcheck, racecheck) on them, and the GPU bench. Logs go to
# $OUT (or ./gpu-check-out). Usage: tools/gpu-check.sh [bench-reps] [gtest-filter-for-sanitizer]
# bench-reps 0 skips the bench (a call that only needs the tests and the sanitizers).
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
REPS=${1:-5}
SANFILTER=${2:-*}
J=$(nproc)
B=build-gpu
gpu_environment 2>&1 | tee "$OUT/env.log"

cmake -S . -B $B "${GPU_CMAKE_OPTIONS[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPESCOPE_BUILD_BENCH=ON \
  >"$OUT/build.log" 2>&1 &&
  ninja -C $B -j"$J" pipescope_gpu_tests gpu_pipeline_bench >>"$OUT/build.log" 2>&1
rc=$?
tail -30 "$OUT/build.log"
[ $rc -ne 0 ] && { echo "BUILD FAILED"; exit 1; }

echo "== gpu tests"
$B/tests/pipescope_gpu_tests 2>&1 | tee "$OUT/gpu-tests.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|FAILED|Failure|error|Expected|Which|actual|overlap" | head -80

if [ "$REPS" != 0 ]; then
  echo "== bench"
  timeout 240 $B/bench/gpu_pipeline_bench "$REPS" 2>&1 | tee "$OUT/bench.log"
fi

# The whole gpu test binary under each tool. Tests that cannot run under a sanitizer
# skip there with the reason (tests/gpu/GpuTestEnvironment.h: CUPTI cannot subscribe
# beside the sanitizer; racecheck makes cuBLAS GEMMs and the calibration ladders run
# for minutes); the skip lines are printed so the reasons are in the log. Budget:
# SANITIZER_TIMEOUT seconds per tool (default 280, both within one 10-minute call).
ST=${SANITIZER_TIMEOUT:-280}
for tool in memcheck racecheck; do
  echo "== compute-sanitizer $tool (whole binary, filter '$SANFILTER', at most $ST s)"
  extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  start=$(date +%s)
  PIPESCOPE_SANITIZER=$tool timeout "$ST" compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 3 \
    $B/tests/pipescope_gpu_tests --gtest_filter="$SANFILTER" >"$OUT/$tool.log" 2>&1
  rc=$?
  echo "$tool rc=$rc in $(($(date +%s) - start)) s$([ $rc -eq 124 ] && echo ' (TIMED OUT: not clean)')"
  grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) |^\[  SKIPPED \]|Skipped|^\[ *[0-9]+ tests? " \
    "$OUT/$tool.log" | tail -16
done
