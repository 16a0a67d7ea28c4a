#!/usr/bin/env bash
# One call on the GPU machine for docs/performance.md's "CUDA backend" tables:
#   - the gpu tests of the CUDA backend (CudaBackendTest, CudaEfficiencyTest);
#   - gpu_pipeline_bench: the streams table (pipescope against the minimal and the
#     mirror reference at 1, 2, 4, 8 and 16 streams), the structure breakdown (the
#     minimal reference with each of pipescope's differences alone) and, unless
#     MIRROR=0, the mirror table (instrumentation ratio per configuration) with
#     bandwidth;
#   - pipescope traces of the multi-stream preset at each stream count, with and
#     without the separate normalize kernel, for a look op by op.
# Everything lands in $OUT:
#   stream-probe.md    environment, test summary, every table (paste into docs/performance.md)
#   gpu-tests.log      the gpu test output
#   traces.tar.gz      .pipescope traces and --json summaries
#   build.log          only when the build failed
# Usage (device tool, carry .carry): tools/gpu-stream-probe.sh [reps (default 9)]
# Run it once on an H100 and once on an H200; about 3 minutes each after the build.
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-stream-probe-out}
mkdir -p "$OUT"
REPS=${1:-9}
B=build-gpu
R=$OUT/stream-probe.md
T0=$(date +%s)
stamp() { echo "== [$(($(date +%s) - T0)) s] $*" >&2; }

{ echo '```'; gpu_environment 2>&1; echo "git $(git rev-parse --short HEAD 2>/dev/null || echo '?')"; echo '```'; } >"$R"
stamp build
if ! { cmake -S . -B $B "${GPU_CMAKE_OPTIONS[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPESCOPE_BUILD_BENCH=ON &&
  ninja -C $B -j"$(nproc)" pipescope-cli gpu_pipeline_bench pipescope_gpu_tests; } >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"
  echo "BUILD FAILED (build.log)" | tee -a "$R"
  exit 1
fi
rm -f "$OUT/build.log"

stamp "gpu tests"
timeout 150 $B/tests/pipescope_gpu_tests --gtest_filter='CudaBackendTest*:CudaEfficiencyTest*' >"$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$?" >>"$R"
grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|Expected|Which is|: bound" "$OUT/gpu-tests.log" | head -40 >>"$R"

stamp "bench, $REPS reps"
tables="--streams-table --breakdown --long-runs"
[ "${MIRROR:-1}" = 1 ] && tables="$tables --mirror-table"
# shellcheck disable=SC2086  # the flags are words
timeout 300 $B/bench/gpu_pipeline_bench "$REPS" $tables >>"$R" 2>&1
echo "bench rc=$?" >>"$R"

stamp traces
CLI=$B/app/cli/pipescope-cli
dest=$(mktemp -d)
for s in 1 2 4 8 16; do
  for variant in normalize no-normalize; do
    name=multi-stream-s$s-$variant
    $CLI run --backend cuda --preset multi-stream --streams "$s" --$variant --quiet --no-progress </dev/null \
      >/dev/null 2>&1  # warm-up: context, pinning
    timeout 60 $CLI run --backend cuda --preset multi-stream --streams "$s" --$variant --no-progress --json \
      --trace "$dest/$name.pipescope" </dev/null >"$dest/$name.json" 2>"$dest/$name.err"
    echo "trace $name rc=$? makespan $(grep -o '"makespan_ms": *[0-9.]*' "$dest/$name.json" | head -1 | grep -o '[0-9.]*$') ms" >>"$R"
  done
done
# The device tool brings back only a few files: one archive carries the traces.
tar -C "$dest" -czf "$OUT/traces.tar.gz" .
stamp done
