#!/usr/bin/env bash
# Builds the CLI on the GPU machine and records real traces of a few validation
# configurations into $OUT, to compare op by op with the simulator here.
# Usage (device tool, carry .carry): tools/gpu-probe-runs.sh [CONFIG-LIST-FILE]
set -euo pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-probe-out}
mkdir -p "$OUT"
cmake -S . -B build-gpu "${GPU_CMAKE_OPTIONS[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-gpu -j16 --target pipescope-cli >/dev/null
cli=build-gpu/app/cli/pipescope-cli
dest=$(mktemp -d)
run() {
  local name=$1; shift
  $cli run --backend cuda --quiet "$@" >/dev/null </dev/null  # warm-up
  $cli run --backend cuda --json --trace "$dest/$name.pipescope" "$@" > "$dest/$name.json" </dev/null
  local reps=""
  for r in 1 2 3 4; do  # the spread between runs, to tell model error from noise
    reps+=" $($cli run --backend cuda --json "$@" 2>/dev/null </dev/null | grep -o '"makespan_ms": *[0-9.]*' | head -1 | grep -o '[0-9.]*$')"
  done
  printf '%-34s traced %s  repeats%s\n' "$name" "$(grep -o '"makespan_ms": *[0-9.]*' "$dest/$name.json" | head -1 | grep -o '[0-9.]*$')" "$reps"
}
# One configuration per line: a name, then pipescope-cli run options. A file
# argument replaces the default list.
if [ $# -gt 0 ]; then list=$(cat "$1"); else list=$(cat <<'LIST'
s1-df-copy-small --mode async --memory pinned --streams 1 --batch-samples 16 --sample-bytes 64K --batches 160 --model-flops-per-byte 100
blocking-pinned-copy-small --mode blocking --memory pinned --batch-samples 16 --sample-bytes 64K --batches 160 --model-flops-per-byte 100
s2-df-copy-small --mode async --memory pinned --streams 2 --batch-samples 16 --sample-bytes 64K --batches 160 --model-flops-per-byte 100
s8-df-copy-small --mode async --memory pinned --streams 8 --batch-samples 16 --sample-bytes 64K --batches 160 --model-flops-per-byte 100
s1-df-compute-small --mode async --memory pinned --streams 1 --batch-samples 16 --sample-bytes 64K --batches 160 --model-flops-per-byte 3200
blocking-pageable-balanced-large --mode blocking --memory pageable --batch-samples 64 --sample-bytes 512K --batches 32 --model-flops-per-byte 1050
async-pageable-s4-balanced-large --mode async --memory pageable --streams 4 --batch-samples 64 --sample-bytes 512K --batches 32 --model-flops-per-byte 1050
w4-balanced-large --mode async --memory pinned --streams 4 --batch-samples 64 --sample-bytes 512K --batches 16   --model-flops-per-byte 1050 --cpu-workers 4 --preprocess-ops-per-byte 2 --postprocess-ops-per-byte 2
LIST
); fi
while read -r name args; do
  [ -z "$name" ] && continue
  # shellcheck disable=SC2086  # the options are words
  run "$name" $args
done <<< "$list"
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > "$dest/gpu.txt"
# The device tool brings back only a few files: one archive carries them all.
tar -C "$dest" -czf "$OUT/probe.tar.gz" .
