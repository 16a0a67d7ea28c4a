#!/usr/bin/env bash
# One call on the GPU machine: pipescope's CUDA pipeline against the minimal and the
# mirror reference at 1, 2, 4, 8 and 16 streams (gpu_pipeline_bench --streams-table),
# the minimal reference with each of pipescope's structural differences alone
# (--breakdown), and pipescope traces of the same runs for a look op by op.
# Everything lands in $OUT:
#   stream-probe.md    environment, the streams table, the breakdown (the docs/performance.md tables)
#   traces.tar.gz      multi-stream preset at each stream count, with and without the
#                      separate normalize kernel: .pipescope traces and --json summaries
#   build.log          only when the build failed
# Usage (device tool, carry .carry): tools/gpu-stream-probe.sh [reps (default 9)]
#   MIRROR=1 also runs the mirror table (instrumentation ratio per configuration).
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-stream-probe-out}
mkdir -p "$OUT"
REPS=${1:-9}
B=build-gpu
R=$OUT/stream-probe.md
T0=$(date +%s)
stamp() { echo "== [$(($(date +%s) - T0)) s] $*" >&2; }

{ echo '```'; gpu_environment 2>&1; echo '```'; } >"$R"
stamp build
if ! { cmake -S . -B $B "${GPU_CMAKE_OPTIONS[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPESCOPE_BUILD_BENCH=ON \
  -DPIPESCOPE_BUILD_TESTS=OFF && ninja -C $B -j"$(nproc)" pipescope-cli gpu_pipeline_bench; } >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"
  echo "BUILD FAILED (build.log)" | tee -a "$R"
  exit 1
fi
rm -f "$OUT/build.log"

stamp "bench: streams table + breakdown, $REPS reps"
tables="--streams-table --breakdown"
[ "${MIRROR:-0}" = 1 ] && tables="$tables --mirror-table"
# shellcheck disable=SC2086  # the flags are words
timeout 240 $B/bench/gpu_pipeline_bench "$REPS" $tables >>"$R" 2>&1
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
