#!/usr/bin/env bash
# One call on the GPU machine: configure, build the CUDA targets, run the gpu tests,
# compute-sanitizer (memcheck, racecheck) on them, and the GPU bench. Logs go to
# $OUT (or ./gpu-check-out). Usage: tools/gpu-check.sh [bench-reps] [gtest-filter-for-sanitizer]
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

echo "== bench"
timeout 240 $B/bench/gpu_pipeline_bench "$REPS" 2>&1 | tee "$OUT/bench.log"

echo "== compute-sanitizer memcheck"
PIPESCOPE_SANITIZER=memcheck timeout 150 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 \
  $B/tests/pipescope_gpu_tests --gtest_filter="$SANFILTER" >"$OUT/memcheck.log" 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED" "$OUT/memcheck.log" | tail -8
echo "== compute-sanitizer racecheck"
PIPESCOPE_SANITIZER=racecheck timeout 150 compute-sanitizer --tool racecheck --error-exitcode 3 \
  $B/tests/pipescope_gpu_tests --gtest_filter="$SANFILTER" >"$OUT/racecheck.log" 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" "$OUT/racecheck.log" | tail -8
