#!/usr/bin/env bash
# Everything the GPU machine is needed for, in one call (one build):
#   gpu tests, every preset through `pipescope-cli run --backend cuda`, calibrate,
#   validate (with per-stage diagnostics), optionally the GPU bench, then
#   compute-sanitizer memcheck (leak check, all gpu tests) and racecheck (reduced).
# Logs go to $OUT/gpu-all/ and come back packed as $OUT/gpu-all.tar.gz; profile.json,
# validation.md and summary.log also come back on their own.
# Usage: tools/gpu-all.sh [bench-reps (0 = no bench)] [validate args...]
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-all-out}
L=$OUT/gpu-all
mkdir -p "$L"
BENCH_REPS=${1:-0}
shift || true
J=$(nproc)
B=build-gpu
CLI=$B/app/cli/pipescope-cli
T0=$(date +%s)
# Packed after every step, so a call cut off at its limit still brings the logs back.
stamp() { tar -C "$OUT" -czf "$OUT/gpu-all.tar.gz" gpu-all 2>/dev/null; echo "== [$(( $(date +%s) - T0 )) s] $*"; }
gpu_environment 2>&1 | tee "$L/env.log" "$OUT/summary.log"
targets="pipescope-cli pipescope_gpu_tests"
[ "$BENCH_REPS" -gt 0 ] && targets="$targets gpu_pipeline_bench"
stamp build | tee -a "$OUT/summary.log"
cmake -S . -B $B "${GPU_CMAKE_OPTIONS[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPIPESCOPE_BUILD_BENCH=$([ "$BENCH_REPS" -gt 0 ] && echo ON || echo OFF) >"$L/build.log" 2>&1 && ninja -C $B -j"$J" $targets >>"$L/build.log" 2>&1
rc=$?
tail -20 "$L/build.log"
if [ $rc -ne 0 ]; then echo "BUILD FAILED" | tee -a "$OUT/summary.log"; tar -C "$OUT" -czf "$OUT/gpu-all.tar.gz" gpu-all; exit 1; fi

stamp "gpu tests" | tee -a "$OUT/summary.log"
timeout 240 $B/tests/pipescope_gpu_tests >"$L/gpu-tests.log" 2>&1
echo "gpu tests rc=$?" | tee -a "$OUT/summary.log"
grep -E "^\[  (FAILED|PASSED|SKIPPED) |^\[       OK|Failure|Expected|Which is|NOTE" "$L/gpu-tests.log" | head -60 | tee -a "$OUT/summary.log"

stamp "presets on the GPU" | tee -a "$OUT/summary.log"
mkdir -p "$L/presets"
for p in $($CLI presets | awk '{print $1}'); do
  timeout 60 $CLI run --backend cuda --preset "$p" --no-progress >"$L/presets/$p.txt" 2>&1
  rc1=$?
  timeout 60 $CLI run --backend cuda --preset "$p" --json --no-progress >"$L/presets/$p.json" 2>"$L/presets/$p.err"
  rc2=$?
  echo "preset $p: table rc=$rc1 json rc=$rc2" | tee -a "$OUT/summary.log"
done

stamp calibrate | tee -a "$OUT/summary.log"
timeout 120 $CLI calibrate --out "$OUT/profile.json" >"$L/calibrate.log" 2>&1
echo "calibrate rc=$?" | tee -a "$OUT/summary.log"
grep -E "host overhead|CPU stages|model kernel|blocking" "$L/calibrate.log" | tee -a "$OUT/summary.log"

if [ -s "$OUT/profile.json" ]; then
  stamp validate | tee -a "$OUT/summary.log"
  timeout 200 $CLI validate --profile "$OUT/profile.json" --markdown "$OUT/validation.md" --stages "$@" \
    >"$L/validate.log" 2>&1
  echo "validate rc=$?" | tee -a "$OUT/summary.log"
  grep -E "median \|error\||FAILED" "$L/validate.log" | tee -a "$OUT/summary.log"
fi

if [ "$BENCH_REPS" -gt 0 ]; then
  stamp bench | tee -a "$OUT/summary.log"
  timeout 150 $B/bench/gpu_pipeline_bench "$BENCH_REPS" >"$L/bench.log" 2>&1
  echo "bench rc=$?" | tee -a "$OUT/summary.log"
fi

stamp "compute-sanitizer memcheck (all gpu tests)" | tee -a "$OUT/summary.log"
PIPESCOPE_SANITIZER=memcheck timeout 150 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 \
  $B/tests/pipescope_gpu_tests >"$L/memcheck.log" 2>&1
echo "memcheck rc=$?" | tee -a "$OUT/summary.log"
grep -E "ERROR SUMMARY|LEAK SUMMARY|^\[  (PASSED|FAILED) " "$L/memcheck.log" | tail -8 | tee -a "$OUT/summary.log"
# racecheck checks shared-memory hazards; cuBLAS' GEMMs (27 s alone) and the calibration
# are left out so the run fits, our own kernels are all in.
stamp "compute-sanitizer racecheck (reduced)" | tee -a "$OUT/summary.log"
PIPESCOPE_SANITIZER=racecheck timeout 100 compute-sanitizer --tool racecheck --error-exitcode 3 \
  $B/tests/pipescope_gpu_tests --gtest_filter='-*Cublas*:*Calibration*:*RunsUntilStopped*' >"$L/racecheck.log" 2>&1
echo "racecheck rc=$?" | tee -a "$OUT/summary.log"
grep -E "RACECHECK SUMMARY|ERROR SUMMARY|^\[  (PASSED|FAILED) " "$L/racecheck.log" | tail -8 | tee -a "$OUT/summary.log"
stamp done | tee -a "$OUT/summary.log"
tar -C "$OUT" -czf "$OUT/gpu-all.tar.gz" gpu-all && rm -rf "$L"
exit 0
